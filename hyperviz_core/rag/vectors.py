"""Vector search over embedded items: a small protocol and an exact in-memory index.

:class:`HypergraphStore` keeps one :class:`VectorIndex` per space (``"entity"``,
``"hyperedge"``, ``"theme"``, ``"chunk"``), loads it from its embeddings table on first use
and feeds it the vectors it adds or removes afterwards. A framework vector store can replace
the default :class:`ExactVectorIndex` through :meth:`HypergraphStore.set_vector_index` as long
as it implements :class:`VectorIndex`.

Example:
    >>> import numpy as np
    >>> idx = ExactVectorIndex()
    >>> idx.add(["a", "b"], np.array([[1, 0], [0, 1]], dtype=np.float32))
    >>> [(i, round(s, 3)) for i, s in idx.search(np.array([1.0, 0.2]), k=1)]
    [('a', 0.981)]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["SPACES", "ExactVectorIndex", "VectorIndex", "as_matrix", "bump_epoch", "finite_rows",
           "normalize_rows", "stored_unit_columns", "unit_columns", "unit_columns_from"]

#: The embedding spaces a store keeps.
SPACES: tuple[str, ...] = ("entity", "hyperedge", "theme", "chunk")

FloatMatrix = npt.NDArray[np.float32]


def bump_epoch(epochs: Mapping[str, int], space: str) -> Mapping[str, int]:
    """``epochs`` with the count of ``space`` one higher, as a new read-only mapping (a
    store's ``vector_index_epochs`` after ``set_vector_index(space, ...)``).

    >>> dict(bump_epoch(bump_epoch({}, "entity"), "entity"))
    {'entity': 2}
    """
    return MappingProxyType({**epochs, space: epochs.get(space, 0) + 1})


def as_matrix(vectors: npt.ArrayLike, dim: int | None = None) -> FloatMatrix:
    """``vectors`` as a C-contiguous float32 matrix of shape (n, dim)."""
    arr = np.asarray(vectors, dtype=np.float32)
    if arr.ndim == 1:
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise ValueError(f"expected a 2-D matrix of vectors, got shape {arr.shape}")
    if dim is not None and arr.shape[1] != dim:
        raise ValueError(f"vectors have dimension {arr.shape[1]}, the index holds {dim}")
    return np.ascontiguousarray(arr)


#: rows normalised at a time by :func:`unit_columns_from`: a block's transposed copy then
#: stays in the CPU cache (256 rows of 512 float32: 512 KiB). On the 50 MB synthetic store's
#: theme space (49,981 float16 rows of 512) 256 took 0.19–0.20 s against 0.27–0.31 s for
#: 4,096 (three alternating runs, 2026-12-04); the values do not depend on it
UNIT_BLOCK = 256


def normalize_rows(matrix: FloatMatrix) -> FloatMatrix:
    """L2-normalise each row (zero rows stay zero)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    return (matrix / norms).astype(np.float32, copy=False)


def unit_columns(matrix: npt.ArrayLike, block: int = UNIT_BLOCK) -> npt.NDArray[np.float32]:
    """The L2-normalised rows of ``matrix`` (the values of :func:`normalize_rows`) as the
    columns of a C-contiguous (dim, n) float32 matrix (the rows of used features are
    contiguous, what a search with a sparse hashed query reads), normalised ``block`` rows
    at a time (:func:`unit_columns_from`); ``matrix`` is left as it is.

    >>> unit_columns(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6000000238418579, 0.0], [0.800000011920929, 0.0]]
    """
    mat = np.ascontiguousarray(matrix, dtype=np.float32)  # no copy for the stores' matrices
    return unit_columns_from(mat.shape[0], mat.shape[1], lambda lo, hi: mat[lo:hi], block)


def unit_columns_from(n: int, dim: int, rows: Callable[[int, int], npt.NDArray[np.float32]],
                      block: int = UNIT_BLOCK) -> npt.NDArray[np.float32]:
    """:func:`unit_columns` of the ``n`` rows that ``rows(lo, hi)`` gives ``block`` at a time
    (rows ``lo`` to ``hi`` as a C-contiguous float32 matrix): no full matrix of the rows is
    ever made, only the result. A row's norm does not depend on the rows beside it, so the
    values are the same whatever the block size."""
    out = np.empty((dim, n), dtype=np.float32)
    for lo in range(0, n, block):
        part = rows(lo, min(lo + block, n))
        norms = np.linalg.norm(part, axis=1, keepdims=True)
        norms[norms == 0] = 1.0
        out[:, lo : lo + block] = (part / norms).T
    return out


def stored_unit_columns(ids: list[str], blobs: Sequence[bytes], dim: int,
                        decode_rows: Callable[[Sequence[bytes]], npt.NDArray[np.float32]]
                        ) -> tuple[list[str], npt.NDArray[np.float32]]:
    """``ids`` and the :func:`unit_columns` of their stored rows ``blobs``, which
    ``decode_rows`` turns into float32 rows (a backend's format), a block at a time
    (:func:`unit_columns_from`); ``dim`` shapes the empty result."""
    if not blobs:
        return [], np.zeros((dim, 0), dtype=np.float32)
    width = decode_rows(blobs[:1]).shape[1]
    return ids, unit_columns_from(len(blobs), width, lambda lo, hi: decode_rows(blobs[lo:hi]))


@runtime_checkable
class VectorIndex(Protocol):
    """What the store and the retriever need from a vector index."""

    def add(self, ids: Sequence[str], matrix: npt.ArrayLike) -> None:
        """Insert or replace the vectors of ``ids`` (one row each)."""
        ...

    def remove(self, ids: Sequence[str]) -> None:
        """Drop ``ids`` (unknown ids are ignored)."""
        ...

    def search(self, query_vec: npt.ArrayLike, k: int) -> list[tuple[str, float]]:
        """The ``k`` best (id, cosine similarity) pairs, best first."""
        ...

    def __len__(self) -> int: ...


class ExactVectorIndex:
    """Exact cosine search over a growable float32 matrix (``numpy.argpartition``).

    Rows are stored L2-normalised; removed rows are swapped with the last row so the matrix
    stays dense. Ties are broken by id so results are deterministic.
    """

    def __init__(self, dim: int | None = None) -> None:
        self.dim = dim
        self._ids: list[str] = []
        self._rows: dict[str, int] = {}
        self._matrix: FloatMatrix = np.zeros((0, dim or 0), dtype=np.float32)

    def __len__(self) -> int:
        return len(self._ids)

    def __contains__(self, item: object) -> bool:
        return item in self._rows

    @property
    def ids(self) -> list[str]:
        """The indexed ids, in row order."""
        return list(self._ids)

    def _grow(self, extra: int) -> None:
        need = len(self._ids) + extra
        if need <= self._matrix.shape[0]:
            return
        cap = max(need, 2 * self._matrix.shape[0], 64)
        bigger = np.zeros((cap, self.dim or 0), dtype=np.float32)
        bigger[: len(self._ids)] = self._matrix[: len(self._ids)]
        self._matrix = bigger

    def add(self, ids: Sequence[str], matrix: npt.ArrayLike) -> None:
        """Insert or replace vectors; the first call fixes the dimension."""
        ids = list(ids)
        mat = as_matrix(matrix) if ids else np.zeros((0, self.dim or 0), dtype=np.float32)
        if not ids:
            return
        if mat.shape[0] != len(ids):
            raise ValueError(f"{len(ids)} ids but {mat.shape[0]} vectors")
        if self.dim is None or (not self._ids and self._matrix.shape[1] != mat.shape[1]):
            self.dim = int(mat.shape[1])
            self._matrix = np.zeros((0, self.dim), dtype=np.float32)
        if mat.shape[1] != self.dim:
            raise ValueError(f"vectors have dimension {mat.shape[1]}, the index holds {self.dim}")
        mat = normalize_rows(mat)
        self._grow(len(ids))
        for i, item in enumerate(ids):
            row = self._rows.get(item)
            if row is None:
                row = len(self._ids)
                self._rows[item] = row
                self._ids.append(item)
            self._matrix[row] = mat[i]

    def remove(self, ids: Sequence[str]) -> None:
        """Drop ids; the last row fills each hole."""
        for item in ids:
            row = self._rows.pop(item, None)
            if row is None:
                continue
            last = len(self._ids) - 1
            if row != last:
                moved = self._ids[last]
                self._ids[row] = moved
                self._rows[moved] = row
                self._matrix[row] = self._matrix[last]
            self._ids.pop()

    def vector(self, item: str) -> FloatMatrix:
        """The stored (normalised) vector of ``item`` as a (dim,) array."""
        return self._matrix[self._rows[item]].copy()

    def scores(self, query_vec: npt.ArrayLike) -> npt.NDArray[np.float32]:
        """Cosine similarity of the query to every row (row order of :attr:`ids`)."""
        n = len(self._ids)
        if n == 0:
            return np.zeros(0, dtype=np.float32)
        q = as_matrix(query_vec, self.dim)[0]
        norm = float(np.linalg.norm(q))
        if norm == 0.0:
            return np.zeros(n, dtype=np.float32)
        out: npt.NDArray[np.float32] = self._matrix[:n] @ (q / norm)
        return out

    def search(self, query_vec: npt.ArrayLike, k: int) -> list[tuple[str, float]]:
        """Top-``k`` (id, cosine) pairs, best first; ties broken by id."""
        n = len(self._ids)
        if n == 0 or k <= 0:
            return []
        scores = self.scores(query_vec)
        k = min(k, n)
        if k < n:
            # Take every row tied with the k-th score so the id tie-break is exact.
            part = np.argpartition(-scores, k - 1)[:k]
            cutoff = scores[part].min()
            cand = np.flatnonzero(scores >= cutoff)
        else:
            cand = np.arange(n)
        ranked = sorted((-float(scores[r]), self._ids[r]) for r in cand)[:k]
        return [(item, -neg) for neg, item in ranked]


def finite_rows(vectors: Any, name: str,
                after: str = "nothing was stored for this document") -> Any:
    """``vectors`` unchanged when every number is finite (as float32); else a
    ``ValueError`` naming the embedder ``name``, how many rows are bad and what that
    stopped (``after``)."""
    try:
        with np.errstate(over="ignore", invalid="ignore"):
            mat = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError):
        return vectors  # not numbers at all: the store's own checks name that
    if mat.size == 0 or bool(np.isfinite(mat).all()):
        return vectors
    bad = int((~np.isfinite(mat.reshape(mat.shape[0], -1) if mat.ndim > 1 else
                            mat.reshape(1, -1))).any(axis=1).sum())
    rows = mat.shape[0] if mat.ndim > 1 else 1
    raise ValueError(f"embedder {name!r} returned NaN or infinite values (or values beyond "
                     f"float32) in {bad} of {rows} vectors; {after} (fix the embedder)")


def query_vectors(vectors: Any, n: int, dim: int, name: str) -> npt.NDArray[np.float32]:
    """An embedder's vectors of ``n`` query texts as an ``(n, dim)`` float32 matrix, or a
    ``ValueError`` naming the embedder and what is wrong (not finite, another number of
    rows, another width than its ``dim``): at query time as at indexing, never an internal
    error or a silently partial score.

    >>> query_vectors([[1, 0], [0, 1]], 2, 2, "e").shape
    (2, 2)
    >>> query_vectors([[1, 0]], 2, 2, "e")
    Traceback (most recent call last):
    ...
    ValueError: embedder 'e' returned 1 vectors for 2 query texts (one each); the query was not run
    """
    if n == 0:
        return np.zeros((0, dim), dtype=np.float32)
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # beyond float32: inf, said below
            mat = np.asarray(vectors, dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"embedder {name!r} returned no vectors of numbers ({exc}); the query "
                         "was not run") from None
    finite_rows(mat, name, "the query was not run")  # converted once
    rows = mat.shape[0] if mat.ndim else 0
    if mat.ndim != 2 or rows != n:
        raise ValueError(f"embedder {name!r} returned {rows if mat.ndim == 2 else 'no'} vectors "
                         f"for {n} query texts (one each); the query was not run")
    if dim and mat.shape[1] != dim:
        raise ValueError(f"embedder {name!r} returned vectors of {mat.shape[1]} numbers, not "
                         f"its dim {dim}; the query was not run")
    return mat
