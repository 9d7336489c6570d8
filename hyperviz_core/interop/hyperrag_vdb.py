"""Reuse Hyper-RAG's vectors without holding them: rows read from the vdb file on demand.

A nano-vectordb file keeps every vector in one base64 string, ``"matrix"``, at the end of
the file. Hyper-RAG deployments embed with 1,536- or 3,072-dimension models, so these
files are many times the size of the hypergraph pickle; an import that reuses them
(``--reuse-embeddings``) needs each vector once, when the document it belongs to is
written. :func:`read_vdb_lazy` checks the whole file (JSON, ids, base64, length) up front,
keeps only one field per row (e.g. ``entity_name``) and where the matrix starts in the
file; :meth:`LazyMatrix.take` then decodes the rows asked for from their base64 bytes.

Example:
    >>> import base64, json, tempfile, numpy as np
    >>> from pathlib import Path
    >>> m = np.arange(6, dtype="<f4").reshape(3, 2)
    >>> p = Path(tempfile.mkdtemp()) / "vdb_entities.json"
    >>> _ = p.write_text(json.dumps({"embedding_dim": 2, "data": [
    ...     {"__id__": f"ent-{i}", "entity_name": n} for i, n in enumerate("ABC")],
    ...     "matrix": base64.b64encode(m.tobytes()).decode()}))
    >>> v = read_vdb_lazy(p, "entity_name")
    >>> v.keys, v.lazy.take([2, 0]).tolist()
    (['A', 'B', 'C'], [[4.0, 5.0], [0.0, 1.0]])
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from .hyperrag_files import open_json, read_json_bytes
from .hyperrag_json import json_errors, parse_json, read_json, split_matrix
from .hyperrag_pickle import HyperRAGFormatError, shown

__all__ = ["LazyMatrix", "VdbFile", "decode_matrix", "read_vdb", "read_vdb_lazy"]


def _matrix_bytes(b64: str | bytes, rows: int, dim: int, what: str) -> bytes:
    """The bytes of a base64 matrix, checked to hold ``rows`` x ``dim`` finite float32."""
    try:
        buf = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise HyperRAGFormatError(f"{what}: 'matrix' is not valid base64 ({exc})") from None
    if len(buf) != rows * dim * 4:
        raise HyperRAGFormatError(
            f"{what}: 'matrix' holds {len(buf)} bytes, expected {rows} rows x {dim} float32 "
            f"= {rows * dim * 4}")
    mat = np.frombuffer(buf, dtype="<f4").reshape(rows, dim)
    step = max(1, (1 << 20) // dim)  # a bounded temporary per block of rows
    for start in range(0, rows, step):
        bad = np.flatnonzero(~np.isfinite(mat[start : start + step]).all(axis=1))
        if bad.size:
            raise HyperRAGFormatError(
                f"{what}: 'matrix' row {start + int(bad[0])} (data[{start + int(bad[0])}]) "
                "holds NaN or infinite values; no embedder writes them")
    return buf


def decode_matrix(b64: str | bytes, rows: int, dim: int, what: str = "matrix"
                  ) -> npt.NDArray[np.float32]:
    """Decode nano-vectordb's base64 little-endian float32 matrix of shape ``(rows, dim)``."""
    buf = _matrix_bytes(b64, rows, dim, what)
    return np.frombuffer(buf, dtype="<f4").reshape(rows, dim).astype(np.float32)


def _header(p: Path, top: Any, required: frozenset[str]) -> tuple[int, Any]:
    """``(embedding_dim, data)`` of a parsed nano-vectordb object, the dimension checked."""
    if not isinstance(top, dict) or not required <= set(top):
        raise HyperRAGFormatError(
            f"{p}: not a nano-vectordb file (needs 'embedding_dim', 'data', 'matrix')")
    dim = top["embedding_dim"]
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise HyperRAGFormatError(f"{p}: 'embedding_dim' {shown(dim)} is not a positive integer")
    return dim, top["data"]


@dataclass
class VdbFile:
    """A nano-vectordb file: ids, per-row metadata and (optionally decoded) vectors."""

    dim: int
    ids: list[str]
    meta: list[dict[str, Any]]
    matrix: npt.NDArray[np.float32] | None = None
    #: one field per row and rows read on demand (see :mod:`.hyperrag_vdb`)
    keys: list[Any] = field(default_factory=list)
    lazy: LazyMatrix | None = None  # defined below


_FILE_KEYS = frozenset({"embedding_dim", "data", "matrix"})
_VDB_KEYS_BARE = _FILE_KEYS | {"__id__"}
#: what an import reads of a nano-vectordb file (ids, names, member sets, the matrix)
_VDB_KEYS = _VDB_KEYS_BARE | {"entity_name", "id_set"}


def read_vdb(path: str | Path, *, vectors: bool = True) -> VdbFile:
    """Read a ``vdb_*.json`` file; ``vectors=False`` checks the ids and the matrix length
    only (and keeps neither the ids nor the per-row metadata)."""
    p = Path(path)
    raw = read_json(p, keep=_VDB_KEYS if vectors else _VDB_KEYS_BARE, matrix=True)
    dim, data = _header(p, raw, _FILE_KEYS)
    matrix = raw["matrix"]
    if not isinstance(data, list) or not isinstance(matrix, str | bytes):
        raise HyperRAGFormatError(f"{p}: 'data' must be a list and 'matrix' a string")
    ids: list[str] = []
    for n, row in enumerate(data):
        if not isinstance(row, dict) or not isinstance(row.get("__id__"), str):
            raise HyperRAGFormatError(f"{p}: data[{n}] has no string '__id__'")
        ids.append(row["__id__"])
    if not data and not matrix:
        return VdbFile(dim, [], [], np.zeros((0, dim), np.float32) if vectors else None)
    if vectors:
        mat: npt.NDArray[np.float32] | None = decode_matrix(matrix, len(data), dim, str(p))
    else:
        mat = None
        expected = len(data) * dim * 4
        tail = matrix[-2:]
        pad = tail.count(b"=") if isinstance(tail, bytes) else tail.count("=")
        size = (len(matrix) // 4) * 3 - pad
        if len(matrix) % 4 or size != expected:
            raise HyperRAGFormatError(
                f"{p}: 'matrix' holds {size} bytes, expected {len(data)} rows x {dim} float32 "
                f"= {expected}")
    # without vectors the rows' ids and metadata are not needed either: do not keep them
    return VdbFile(dim, ids, data, mat) if vectors else VdbFile(dim, [], [], None)


@dataclass(frozen=True)
class LazyMatrix:
    """The float32 rows of a nano-vectordb matrix, decoded from the file when taken."""

    path: Path
    offset: int  # where the base64 text starts in the file
    rows: int
    dim: int

    def take(self, indices: Sequence[int]) -> npt.NDArray[np.float32]:
        """Rows ``indices`` (in that order) as an ``(n, dim)`` float32 matrix."""
        size = self.dim * 4
        out = np.empty((len(indices), self.dim), dtype=np.float32)
        with open_json(self.path) as fh:
            for n, i in enumerate(indices):
                if not 0 <= i < self.rows:
                    raise IndexError(f"{self.path}: row {i} of {self.rows}")
                start = i * size
                first, last = start // 3, -(-(start + size) // 3)  # base64 quanta
                fh.seek(self.offset + first * 4)
                raw = base64.b64decode(fh.read((last - first) * 4))
                out[n] = np.frombuffer(raw, dtype="<f4", count=self.dim,
                                       offset=start - first * 3)
        return out


class _NoId:
    """What an object without a string ``__id__`` parses to (an error if it is a row)."""


_NO_ID = _NoId()  # not a tuple


def _row_hook(field: str) -> Any:
    def hook(pairs: list[tuple[str, Any]]) -> Any:
        obj = dict(pairs)
        if "embedding_dim" in obj:  # the file's own object
            return obj
        if not isinstance(obj.get("__id__"), str):
            return _NO_ID
        return (obj.get(field),)  # a tuple: what no JSON value parses to

    return hook


def read_vdb_lazy(path: str | Path, field: str) -> VdbFile:
    """Read a ``vdb_*.json`` file checked as :func:`~.hyperrag_read.read_vdb` does, keeping
    ``field`` of each row (in ``keys``) and a :class:`LazyMatrix` (in ``lazy``) instead
    of the decoded matrix. A file whose matrix is not its last member is read whole."""
    p = Path(path)
    with json_errors(p):
        raw = read_json_bytes(p)
        head, b64, offset = split_matrix(raw)
        if b64 is None:
            del raw, head
            full = read_vdb(p, vectors=True)
            full.keys = [row.get(field) for row in full.meta]
            return full
        del raw
        top = parse_json(head, _row_hook(field))
        del head
    dim, keys = _header(p, top, _FILE_KEYS - {"matrix"})  # the matrix was split off
    if not isinstance(keys, list):
        raise HyperRAGFormatError(f"{p}: 'data' must be a list and 'matrix' a string")
    for n, key in enumerate(keys):
        if not isinstance(key, tuple):
            raise HyperRAGFormatError(f"{p}: data[{n}] has no string '__id__'")
    keys = [key[0] for key in keys]
    # the whole matrix is checked now (then dropped): a bad one fails before writing
    _matrix_bytes(b64, len(keys), dim, str(p))
    return VdbFile(dim, [], [], None, keys=keys,
                   lazy=LazyMatrix(p, offset, len(keys), dim) if keys else None)
