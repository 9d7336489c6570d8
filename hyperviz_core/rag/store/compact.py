"""Compact vector storage, backend-neutral: which spaces are stored and in what precision.

Measured on the offline 5 MB synthetic corpus (issue 17), 83 % of the vector bytes were the
``hyperedge`` space (one vector per relation hyperedge, ~11 per chunk), which no retrieval
stage reads: themes, entities and (naive mode / a vector rank weight) chunks are searched,
hyperedges are reached through their members. A new store therefore keeps vectors only for
:data:`STORED_SPACES`, as float16 (half of float32, cosine error below 1e-3 on unit
vectors). Both choices are recorded in the store's metadata when it is created
(``vector_spaces``, ``vector_dtype``); a store without them (made before) keeps every space
in float32, and rows of either width are read back as float32.

A vector holding NaN or an infinity is refused (:class:`~.base.StoreError`; the write fails
and nothing of it is stored). A row that float16 cannot hold — a component above 65,504,
which would become infinite, or every component below 2**-14, which would lose its
precision — is stored L2-normalised instead: every search scores by cosine similarity
(rows and queries are normalised first), so the scale of a row never counts, and the rows
of unit-length embedders (every component at most 1, the largest at least 1/sqrt(dim)) are
stored exactly as before. :func:`nonfinite_vectors` finds stored rows that are not finite
(written before this check).

Example:
    >>> import numpy as np
    >>> blob = encode(np.array([0.6, 0.8], dtype=np.float32), "float16")
    >>> len(blob), decode([blob], 2).dtype.name
    (4, 'float32')
    >>> parse_spaces(None), parse_spaces("entity,theme,chunk")
    (('entity', 'hyperedge', 'theme', 'chunk'), ('entity', 'theme', 'chunk'))
    >>> decode([encode(np.array([3e5, 4e5], dtype=np.float32), "float16")], 2).round(3)
    array([[0.6, 0.8]], dtype=float32)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ..vectors import SPACES
from .base import StoreError

__all__ = ["COMPACT_META", "STORED_SPACES", "VECTOR_DTYPE", "decode", "encode",
           "nonfinite_vectors", "parse_spaces", "storable_row"]

#: the largest finite float16
HALF_MAX = 65504.0
#: the smallest normal float16 (below it a component keeps fewer significant bits)
HALF_TINY = 2.0**-14

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


def storable_row(row: npt.ArrayLike, dtype: str | None) -> npt.NDArray[np.float32]:
    """``row`` as a float32 vector the ``dtype`` (``"float16"``/``"float32"``) can hold:
    normalised when float16 would overflow or underflow it, else unchanged; a row that is
    not finite is a :class:`StoreError` (see the module doc). Any backend's writer may use
    it before converting."""
    with np.errstate(over="ignore"):
        arr = np.asarray(row, dtype=np.float32)
    if not np.isfinite(arr).all():
        raise StoreError("a vector holds NaN or infinite values (or values beyond float32): "
                         "refused, nothing of this write is stored; the embedder is broken")
    peak = float(np.abs(arr).max()) if arr.size else 0.0
    if dtype == "float16" and (peak > HALF_MAX or 0.0 < peak < HALF_TINY):
        wide = arr.astype(np.float64)  # would overflow (inf) or underflow: same direction
        arr = (wide / np.linalg.norm(wide)).astype(np.float32)
    return arr


def encode(row: npt.ArrayLike, dtype: str | None) -> bytes:
    """One vector as stored: float16 bytes for ``"float16"``, else float32 bytes
    (:func:`storable_row` first)."""
    kind = np.float16 if dtype == "float16" else np.float32
    return storable_row(row, dtype).astype(kind).tobytes()


def decode(blobs: Sequence[bytes], dim: int) -> npt.NDArray[np.float32]:
    """Stored vectors (float16 or float32 blobs, told apart by length) as a float32 matrix.

    A store of one width (every store :func:`encode` wrote) is converted in one step; rows
    are placed one by one only where both widths are mixed."""
    if not blobs:
        return np.zeros((0, dim), dtype=np.float32)
    if dim <= 0:
        dim = len(blobs[0]) // 4
    half = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs)) == 2 * dim
    if half.all():
        return np.frombuffer(b"".join(blobs), dtype=np.float16).reshape(
            len(blobs), dim).astype(np.float32)
    if not half.any():
        return np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(len(blobs), dim).copy()
    out = np.empty((len(blobs), dim), dtype=np.float32)
    out[half] = np.frombuffer(b"".join(b for b, h in zip(blobs, half, strict=True) if h),
                              dtype=np.float16).reshape(int(half.sum()), dim)
    out[~half] = np.frombuffer(b"".join(b for b, h in zip(blobs, half, strict=True) if not h),
                               dtype=np.float32).reshape(int((~half).sum()), dim)
    return out


def nonfinite_vectors(rows: Iterable[tuple[str, str, bytes]], dim: int,
                      block: int = 8192) -> list[str]:
    """``space/id`` of each stored vector ``(space, id, blob)`` holding NaN or an infinity
    (a store written before :func:`encode` refused them), read ``block`` rows at a time.

    >>> good = encode(np.array([0.6, 0.8]), "float16")
    >>> bad = np.array([np.nan, 1.0], dtype=np.float16).tobytes()
    >>> nonfinite_vectors([("chunk", "c1", good), ("chunk", "c2", bad)], 2)
    ['chunk/c2']
    """
    found: list[str] = []
    part: list[tuple[str, str, bytes]] = []

    def check(rows: list[tuple[str, str, bytes]]) -> None:
        sized = [r for r in rows if len(r[2]) in (2 * dim, 4 * dim)]  # wrong length: its own
        if sized:
            mat = decode([bytes(r[2]) for r in sized], dim)
            bad = np.flatnonzero(~np.isfinite(mat).all(axis=1))
            found.extend(f"{sized[n][0]}/{sized[n][1]}" for n in bad.tolist())

    for row in rows:
        part.append(_row(row))
        if len(part) >= block:
            check(part)
            part = []
    check(part)
    return found


def _row(row: Any) -> tuple[str, str, bytes]:
    return str(row[0]), str(row[1]), bytes(row[2])
