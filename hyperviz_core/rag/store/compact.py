"""Compact vector storage, backend-neutral: which spaces are stored and in what precision.

Measured on the offline 5 MB synthetic corpus (issue 17), 83 % of the vector bytes were the
``hyperedge`` space (one vector per relation hyperedge, ~11 per chunk), which no retrieval
stage reads: themes, entities and (naive mode / a vector rank weight) chunks are searched,
hyperedges are reached through their members. A new store therefore keeps vectors only for
:data:`STORED_SPACES`, as float16 (half of float32, cosine error below 1e-3 on unit
vectors). Both choices are recorded in the store's metadata when it is created
(``vector_spaces``, ``vector_dtype``); a store without them (made before) keeps every space
in float32, and rows of either width are read back as float32.

Example:
    >>> import numpy as np
    >>> blob = encode(np.array([0.6, 0.8], dtype=np.float32), "float16")
    >>> len(blob), decode([blob], 2).dtype.name
    (4, 'float32')
    >>> parse_spaces(None), parse_spaces("entity,theme,chunk")
    (('entity', 'hyperedge', 'theme', 'chunk'), ('entity', 'theme', 'chunk'))
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..vectors import SPACES

__all__ = ["COMPACT_META", "STORED_SPACES", "VECTOR_DTYPE", "decode", "encode", "parse_spaces"]

#: spaces a new store embeds (``hyperedge`` is not read by retrieval)
STORED_SPACES: tuple[str, ...] = ("entity", "theme", "chunk")
#: precision of the vectors of a new store
VECTOR_DTYPE = "float16"
#: the metadata a new store records (key, value)
COMPACT_META: tuple[tuple[str, str], ...] = (
    ("vector_spaces", ",".join(STORED_SPACES)),
    ("vector_dtype", VECTOR_DTYPE),
)


def parse_spaces(value: str | None) -> tuple[str, ...]:
    """The stored spaces from the ``vector_spaces`` metadata (None: every space)."""
    if value is None:
        return SPACES
    named = {s.strip() for s in value.split(",")}
    return tuple(s for s in SPACES if s in named)


def encode(row: npt.ArrayLike, dtype: str | None) -> bytes:
    """One vector as stored: float16 bytes for ``"float16"``, else float32 bytes."""
    kind = np.float16 if dtype == "float16" else np.float32
    return np.asarray(row, dtype=np.float32).astype(kind).tobytes()


def decode(blobs: Sequence[bytes], dim: int) -> npt.NDArray[np.float32]:
    """Stored vectors (float16 or float32 blobs, told apart by length) as a float32 matrix."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    if dim <= 0:
        dim = len(blobs[0]) // 4
    out = np.empty((len(blobs), dim), dtype=np.float32)
    half = [i for i, b in enumerate(blobs) if len(b) == 2 * dim]
    full = [i for i, b in enumerate(blobs) if len(b) != 2 * dim]
    if half:
        out[half] = np.frombuffer(b"".join(blobs[i] for i in half),
                                  dtype=np.float16).reshape(len(half), dim)
    if full:
        out[full] = np.frombuffer(b"".join(blobs[i] for i in full),
                                  dtype=np.float32).reshape(len(full), dim)
    return out
