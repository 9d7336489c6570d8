"""Vector search over the store's spaces and verbatim entity linking, for the stages.

:func:`search` scores all query rows in one matrix product over a per-store-state copy of a
space's vectors (the default exact index) or asks a replaced (framework) index row by row.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ...model import normalize_key
from ..store.protocol import StoreProtocol
from ..vectors import ExactVectorIndex, normalize_rows
from .state import Corpus

if TYPE_CHECKING:
    from .lazy import LazyCorpus

__all__ = ["linked_entities", "search"]


def search(store: StoreProtocol, corpus: Corpus | LazyCorpus, space: str,
           queries: npt.ArrayLike, k: int) -> list[list[tuple[str, float]]]:
    """Top-``k`` (id, cosine) per query row, best first, ties by id."""
    qs = np.atleast_2d(np.asarray(queries, dtype=np.float32))
    index = store.vector_index(space)
    if not isinstance(index, ExactVectorIndex):
        return [index.search(q, k) for q in qs]
    if space not in corpus.matrices:
        ids, mat = store.vectors(space)
        unit = normalize_rows(np.asarray(mat, dtype=np.float32))
        corpus.matrices[space] = (ids, np.ascontiguousarray(unit.T, dtype=np.float32))
    ids, mat_t = corpus.matrices[space]  # (dim, n): rows of used features are contiguous
    if not ids or k <= 0:
        return [[] for _ in qs]
    qs = normalize_rows(qs)
    rows = []
    for q in qs:  # hashed vectors are sparse: only their non-zero features cost time
        nz = np.flatnonzero(q)
        rows.append(q[nz] @ mat_t[nz] if len(nz) < mat_t.shape[0] // 2 else q @ mat_t)
    sims = np.vstack(rows) if rows else np.zeros((0, len(ids)), dtype=np.float32)
    k = min(k, len(ids))
    out = []
    for row in sims:
        part = np.argpartition(-row, k - 1)[:k] if k < len(ids) else np.arange(len(ids))
        cutoff = row[part].min()
        cand = np.flatnonzero(row >= cutoff)
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
