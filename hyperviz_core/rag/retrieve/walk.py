"""Personalised PageRank over the bottom layer's entity–hyperedge incidence graph.

HippoRAG spreads query relevance over a binary knowledge graph with personalised PageRank
(PPR) and scores a passage by the PageRank of the entities it contains. Here the graph is the
*incidence* graph of the n-ary bottom layer: one node per entity, one per relation
hyperedge, an edge between an entity and every hyperedge it belongs to. A walk therefore
moves entity → fact → co-member entity, so one n-ary fact links all its members at once (as
in HyperGraphRAG) instead of through pairwise edges.

* **Seeds** (the personalisation vector): entities the query names (word n-grams equal to an
  entity key, :meth:`EntityWalk.link`), entities retrieved by the pipeline and entities of the
  best directly-matching chunks (the caller passes them with their scores). Each seed is
  damped by ``1/sqrt(#hyperedges)`` so hubs ("United States") do not swamp the walk.
* **Walk**: ``p ← (1 − d)·s + d·P·p`` with ``P`` the column-stochastic transition matrix,
  ``iterations`` power steps (deterministic; a fixed number of sparse mat-vecs: 12 by
  default, leaving at most ``d^12`` ≈ 0.02% of the mass unpropagated at ``d = 0.5``). The
  graph is bipartite and the seeds are entities, so the entity scores after step ``k`` read
  only the hyperedge scores after step ``k − 1``, which read only the entity scores before:
  :meth:`EntityWalk.pagerank` computes just that chain, one half of ``P`` per step (half the
  work of the full mat-vecs, the same floating-point sums, so bit-identical results).
  When the graph has few entities and many facts (``#entities² ≤ 4 × #incidences``, e.g. a
  domain corpus naming the same few thousand entities in every passage), two steps are
  one product with the dense entity × entity matrix ``P_eh·P_he`` instead (equal up to
  floating-point rounding; computed once per store state: the SQLite and PostgreSQL stores
  keep its upper triangle, :meth:`EntityWalk.from_arrays`, and the sparse transition blocks
  are then never built).
* **Chunk score**: ``Σ_e p(e) / #sources(e)`` over the entities extracted from the chunk —
  HippoRAG's node specificity: an entity named by a single passage points at it strongly.

Example:
    >>> from hyperviz_core.items import Entity, Hyperedge
    >>> from hyperviz_core.model import Hypergraph
    >>> hg = Hypergraph()
    >>> for name in ("Hello Love", "Hank Snow", "Nashville"):
    ...     _ = hg.add_entity(Entity(name=name))
    >>> _ = hg.add_hyperedge(Hyperedge(members=["hello love", "hank snow"]))
    >>> _ = hg.add_hyperedge(Hyperedge(members=["hank snow", "nashville"]))
    >>> walk = EntityWalk(hg, {"hello love": [0], "hank snow": [0, 1], "nashville": [1]}, 2)
    >>> walk.link("Where did Hello Love's singer die?")
    ['hello love']
    >>> scores = walk.chunk_scores({"hello love": 1.0})
    >>> bool(scores[1] > 0)   # Nashville's chunk is reached through Hank Snow
    True
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Mapping, Sequence

import numpy as np
import numpy.typing as npt
import scipy.sparse as sp
from scipy.linalg.blas import dsymv

from ...model import Hypergraph
from ..providers.offline import STOPWORDS, word_tokens
from .blas import one_blas_thread
from .names import NameLinker
from .transition import Transition, bipartite_transition, symmetric, upper_triangle

__all__ = ["EntityWalk"]

#: the two-step entity matrix is made dense when #entities² ≤ DENSE_RATIO × #incidences
DENSE_RATIO = 4
#: ... and at most this many entities (a 4,096² float64 matrix is 128 MiB)
DENSE_MAX_ENTITIES = 4096

#: the name the store keeps the two-step matrix under: what it was made from
#: (:func:`_fingerprint`), then its upper triangle row by row
TWO_STEPS = "walk-two-steps-v1"

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
#: a store's ``kept_floats(name, compute, valid)``: ``compute()`` kept per store state
Kept = Callable[[str, Callable[[], FloatArray], Callable[[FloatArray], bool]], FloatArray]


def _fingerprint(n_e: int, n_h: int, rows: IntArray, cols: IntArray) -> FloatArray:
    """The sizes and CRC-32s of the incidence pairs the two-step matrix is made from (as
    float64: every value is an integer below 2**53)."""
    crcs = [zlib.crc32(np.ascontiguousarray(a, dtype=np.int64).tobytes()) for a in (rows, cols)]
    return np.asarray([n_e, n_h, len(rows), *crcs], dtype=np.float64)


def _words(text: str) -> tuple[str, ...]:
    """Word tokens with a possessive ``'s`` dropped (``"Love's"`` → ``"love"``)."""
    return tuple(w[:-2] if w.endswith("'s") else w for w in word_tokens(text))


class EntityWalk:
    """PPR over entities and hyperedges of ``bottom``; scores the ``n_chunks`` chunks.

    Args:
        bottom: the bottom-layer hypergraph (entities and relation hyperedges).
        entity_sources: entity key → positions of its source chunks.
        n_chunks: number of chunks (length of :meth:`chunk_scores`).
        max_words: longest entity name (in words) :meth:`link` matches.
    """

    def __init__(
        self,
        bottom: Hypergraph,
        entity_sources: Mapping[str, Sequence[int]],
        n_chunks: int,
        *,
        max_words: int = 6,
    ) -> None:
        keys = sorted(bottom.entities)
        position = {k: i for i, k in enumerate(keys)}
        edges = sorted(bottom.hyperedges)
        rows: list[int] = []
        cols: list[int] = []
        for j, hid in enumerate(edges):
            for m in sorted(set(bottom.hyperedges[hid].members)):
                i = position.get(m)
                if i is not None:
                    rows.append(i)
                    cols.append(j)
        s_rows: list[int] = []
        s_cols: list[int] = []
        s_vals: list[float] = []
        for key, positions in sorted(entity_sources.items()):
            i = position.get(key)
            if i is None or not positions:
                continue
            for p in positions:
                if 0 <= p < n_chunks:
                    s_rows.append(p)
                    s_cols.append(i)
                    s_vals.append(1.0 / len(positions))
        self._build(keys, len(edges), (np.asarray(rows, dtype=np.int64),
                                       np.asarray(cols, dtype=np.int64)),
                    (np.asarray(s_rows, dtype=np.int64), np.asarray(s_cols, dtype=np.int64),
                     np.asarray(s_vals, dtype=np.float64)), n_chunks, max_words)

    @classmethod
    def from_arrays(cls, keys: Sequence[str], n_edges: int, incidence: tuple[IntArray, IntArray],
                    mentions: tuple[IntArray, IntArray], n_chunks: int, *,
                    max_words: int = 6, kept: Kept | None = None) -> EntityWalk:
        """The walk from integer arrays instead of a loaded layer (lazy retrieval).

        ``keys``: every entity key, sorted; ``incidence``: (entity position, hyperedge
        position) pairs, hyperedges numbered in id order, no repeats; ``mentions``: (chunk
        position, entity position) pairs, each entity's sources once. Equal to the walk
        built from the layer with the same numbering. ``kept``: the store's
        ``kept_floats(name, compute, valid)``, which keeps the dense two-step matrix per
        store state (the upper triangle, the half BLAS reads, after a fingerprint of the
        incidence pairs it was made from), so a new process reads it back instead of
        computing it.
        """
        walk = cls.__new__(cls)
        ent = mentions[1]
        counts = np.bincount(ent, minlength=len(keys)).astype(np.float64)
        vals = 1.0 / counts[ent] if ent.size else np.zeros(0, dtype=np.float64)
        walk._build(list(keys), n_edges, incidence, (mentions[0], ent, vals), n_chunks,
                    max_words, kept)
        return walk

    def _build(self, keys: list[str], n_h: int, incidence: tuple[IntArray, IntArray],
               spec: tuple[IntArray, IntArray, FloatArray], n_chunks: int,
               max_words: int, kept: Kept | None = None) -> None:
        self.keys: list[str] = keys
        self.position: dict[str, int] = {k: i for i, k in enumerate(self.keys)}
        n_e = len(self.keys)
        rows, cols = incidence
        self._n_h = n_h
        # two steps as one dense product when small: P_eh·P_he = S·D_e⁻¹ with S the
        # symmetric entity × entity matrix Σ_h [i∈h][j∈h]/|h| (BLAS symv reads half of it);
        # then the transition blocks are never read, and only the degrees are needed
        self._two_steps: FloatArray | None = None
        self._blocks: Transition | None = None
        if 0 < n_e <= DENSE_MAX_ENTITIES and n_e * n_e <= DENSE_RATIO * len(rows):
            degree = np.concatenate([np.bincount(rows, minlength=n_e),
                                     np.bincount(cols, minlength=n_h)]).astype(np.float64)
            inv = np.divide(1.0, degree, out=np.zeros_like(degree), where=degree > 0)

            # what S is made from, kept with it: a kept S of other inputs (read at another
            # store state by a process a write overtook) is refused and made again
            made_from = _fingerprint(n_e, n_h, rows, cols)

            def kept_form() -> FloatArray:
                inc = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_e, n_h))
                shared = (sp.csr_matrix(inc.multiply(inv[n_e:][None, :])) @ inc.T).toarray()
                # S is symmetric: shared.T is Fortran order without a copy
                return np.concatenate([made_from, upper_triangle(shared.T)])

            def ours(found: FloatArray) -> bool:
                return (found.shape == (len(made_from) + n_e * (n_e + 1) // 2,)
                        and np.array_equal(found[: len(made_from)], made_from))

            found = kept(TWO_STEPS, kept_form, ours) if kept is not None else kept_form()
            if not ours(found):
                found = kept_form()
            self._two_steps = symmetric(found[len(made_from):], n_e)
        else:
            inc = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_e, n_h))
            # the two off-diagonal blocks of the bipartite transition (:mod:`.transition`)
            self._blocks = bipartite_transition(inc)
            degree, inv = self._blocks.degree, self._blocks.inv
        self.degree: FloatArray = degree[:n_e]
        self._inv_degree: FloatArray = inv[:n_e]
        s_rows, s_cols, s_vals = spec
        self.specificity = sp.csr_matrix((s_vals, (s_rows, s_cols)), shape=(n_chunks, n_e))
        self._names = NameLinker()
        for key in self.keys:
            words = _words(key)
            if (words and len(key) >= 4 and len(words) <= max_words
                    and not all(w in STOPWORDS or w.isdigit() for w in words)):
                self._names.add(words, key)

    def link(self, text: str) -> list[str]:
        """Entity keys named verbatim (word n-grams, possessive ``'s`` ignored) by ``text``,
        sorted."""
        return self._names.find(_words(text))

    def pagerank(self, seeds: Mapping[str, float], damping: float = 0.5,
                 iterations: int = 12) -> FloatArray:
        """PPR of every entity (``self.keys`` order) personalised by ``seeds``."""
        n_e, n_h = len(self.keys), self._n_h
        # the seed vector over every node (hyperedges 0): summed at full length, the
        # total's rounding is that of the full walk's
        full = np.zeros(n_e + n_h, dtype=np.float64)
        for key, value in sorted(seeds.items()):
            i = self.position.get(key)
            if i is not None and value > 0:
                full[i] = max(full[i], float(value) / math.sqrt(max(self.degree[i], 1.0)))
        total = float(full.sum())
        if total <= 0:
            return np.zeros(n_e, dtype=np.float64)
        s = full[:n_e] / total
        restart = (1.0 - damping) * s  # the same every step: computed once
        # p_e(k) = restart + d·P_eh·p_h(k−1) and p_h(k) = d·P_he·p_e(k−1) (no hyperedge
        # seeds): walking back from the last step, the result needs the hyperedge half at
        # steps of the other parity than ``iterations`` and the entity half at the others
        p_e = s
        if self._two_steps is not None:  # p_e(k) = restart + d²·(P_eh·P_he)·p_e(k−2)
            if iterations % 2:
                p_e = restart.copy()  # p_e(1): no hyperedge mass at step 0
            with one_blas_thread():  # a few ms of work: helper threads would only spin
                for _ in range(iterations // 2):
                    p_e = restart + dsymv(damping * damping, self._two_steps,
                                          self._inv_degree * p_e)
            out2: FloatArray = p_e
            return out2
        blocks = self._blocks
        assert blocks is not None  # built whenever the dense matrix is not
        p_h = np.zeros(n_h, dtype=np.float64)
        for k in range(1, iterations + 1):
            if (iterations - k) % 2:
                p_h = damping * (blocks.to_edges @ p_e)
            else:
                p_e = restart + damping * (blocks.to_entities @ p_h)
        out: FloatArray = p_e
        return out

    def chunk_scores(self, seeds: Mapping[str, float], damping: float = 0.5,
                     iterations: int = 12) -> FloatArray:
        """``Σ_e PPR(e) / #sources(e)`` per chunk (entities extracted from the chunk)."""
        scores: FloatArray = np.asarray(
            self.specificity @ self.pagerank(seeds, damping, iterations), dtype=np.float64)
        return scores
