"""Vector search over the store's spaces and verbatim entity linking, for the stages.

:func:`search` scores the query rows against a per-store-state copy of a space's vectors
(exact search, the default) or asks a replaced (framework, ANN) index row by row. The copy
is the only in-memory copy of the space: on the SQLite store the exact search never loads
the store's own :class:`~hyperviz_core.rag.vectors.ExactVectorIndex` (which holds the same
normalised rows again), see :func:`replaced_index`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ...model import normalize_key
from ..store.protocol import StoreProtocol
from ..vectors import ExactVectorIndex, VectorIndex, normalize_rows, unit_columns
from .blas import one_blas_thread
from .state import Corpus

if TYPE_CHECKING:
    from .lazy import LazyCorpus

__all__ = ["kth_largest", "linked_entities", "replaced_index", "search", "unit_columns",
           "unit_vectors"]


def replaced_index(store: StoreProtocol, space: str) -> VectorIndex | None:
    """The index :func:`search` must ask for ``space``, or None for exact search over the
    stored vectors.

    An index replaced with ``set_vector_index`` (or a backend's own, e.g. PostgreSQL's HNSW
    above its exact limit) answers; the default :class:`ExactVectorIndex` does not (the
    stages search a transposed copy, faster for sparse hashed queries). The SQLite store
    keeps a replaced index in its ``_indexes`` and otherwise searches exactly, so it is
    asked there (``replaced_vector_index``) without loading the store's in-memory index (a
    second copy of the space).
    """
    ask = getattr(store, "replaced_vector_index", None)  # SQLite: answers without loading
    if callable(ask):
        found: VectorIndex | None = ask(space)
        return found
    index = store.vector_index(space)
    return None if isinstance(index, ExactVectorIndex) else index


def unit_vectors(store: StoreProtocol, space: str) -> tuple[list[str], npt.NDArray[np.float32]]:
    """The ids of ``space`` and their :func:`~..vectors.unit_columns`: from the store's own
    ``unit_vectors`` when it has one (the SQLite and PostgreSQL stores: decoded and
    normalised block by block, without the full float32 matrix of the rows), else from its
    ``vectors``."""
    own = getattr(store, "unit_vectors", None)
    if callable(own):
        found: tuple[list[str], npt.NDArray[np.float32]] = own(space)
        return found
    ids, mat = store.vectors(space)
    return ids, unit_columns(mat)


#: :func:`kth_largest` first partitions every ``SAMPLE_STEP``-th value
SAMPLE_STEP = 16


def kth_largest(row: npt.NDArray[np.float32], k: int) -> np.float32:
    """The ``k``-th largest value of ``row`` (``1 <= k``; the smallest when ``k >= len``).

    Exact, in two small partitions instead of one over the whole row: the ``k``-th largest
    value ``t`` of every ``SAMPLE_STEP``-th value is at most the answer (``k`` values of the
    row are ``>= t``), so the answer is the ``k``-th largest of the values ``>= t``.

    >>> row = np.arange(1000, dtype=np.float32)[::-1].copy()
    >>> float(kth_largest(row, 3)), float(kth_largest(row, 2000))
    (997.0, 0.0)
    """
    n = len(row)
    if k >= n:
        return row.min()
    if n >= 2 * SAMPLE_STEP * k:
        sample = row[::SAMPLE_STEP]
        row = row[row >= np.partition(sample, len(sample) - k)[len(sample) - k]]
    return np.partition(row, len(row) - k)[len(row) - k]


def search(store: StoreProtocol, corpus: Corpus | LazyCorpus, space: str,
           queries: npt.ArrayLike, k: int) -> list[list[tuple[str, float]]]:
    """Top-``k`` (id, cosine) per query row, best first, ties by id."""
    qs = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    # the copy of a space made before an index was set for it gives way to that index
    epoch = getattr(store, "vector_index_epochs", {}).get(space, 0)
    made_at = getattr(corpus, "matrices_epochs", None)  # None: a stand-in corpus
    if made_at is not None and made_at.get(space, 0) != epoch:
        corpus.matrices.pop(space, None)
    if space not in corpus.matrices:
        index = replaced_index(store, space)
        if index is not None:
            return [index.search(q, k) for q in qs]
        corpus.matrices[space] = unit_vectors(store, space)
        if made_at is not None:
            made_at[space] = epoch
    ids, mat_t = corpus.matrices[space]  # (dim, n): rows of used features are contiguous
    if not ids or k <= 0:
        return [[] for _ in qs]
    qs = normalize_rows(qs)
    rows = []
    with one_blas_thread():  # too little work to share: spinning helpers only slow us
        for q in qs:  # hashed vectors are sparse: only their non-zero features cost time
            nz = np.flatnonzero(q)
            rows.append(q[nz] @ mat_t[nz] if len(nz) < mat_t.shape[0] // 2 else q @ mat_t)
    sims = np.vstack(rows) if rows else np.zeros((0, len(ids)), dtype=np.float32)
    k = min(k, len(ids))
    out = []
    for row in sims:
        cand = np.flatnonzero(row >= kth_largest(row, k))
        best = sorted((-float(row[c]), ids[c]) for c in cand)[:k]
        out.append([(i, -neg) for neg, i in best])
    return out


def linked_entities(corpus: Corpus | LazyCorpus, query: str, keywords: Sequence[str]
                    ) -> list[str]:
    """Entities named verbatim by the query or a keyword (document-title entities, and
    keywords equal to an entity name of at least 4 characters)."""
    found = set(corpus.link_titles(query))
    named: set[str] = set()
    for kw in keywords:
        found.update(corpus.link_titles(kw))
        try:
            key = normalize_key(kw)
        except ValueError:
            continue
        if len(key) >= 4:
            named.add(key)
    found |= corpus.known_entities(sorted(named))
    return sorted(found)
