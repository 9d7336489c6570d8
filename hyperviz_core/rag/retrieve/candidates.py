"""The chunk index of one query over its candidate chunks only (lazy retrieval).

:func:`~.rank.rank_chunks` scores every chunk of a :class:`~.chunk_index.ChunkIndex`; a
chunk's score is 0 unless it holds a query token (BM25), is a vector hit, is a home or
source chunk of an entity or hyperedge of the evidence, or is reached by the personalised
PageRank. :class:`CandidateIndex` indexes exactly those: ``rank_chunks`` tells it, through
:meth:`require`, which evidence it is about to read, and the index adds the chunks that
evidence points at (looked up by index in the store). PageRank scores every chunk (integer
arrays of the whole incidence graph, no texts); the chunks outside the candidates that
could still reach the top ``k`` on it alone are added. Ties break by chunk id as in the
full index, so the ranking is the full index's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from ..types import Chunk
from .distinct import sorted_distinct
from .filters import FILTER_BATCH, ChunkFilter
from .lexical import bm25_values, lone_pieces, query_tokens, tokens, with_pieces
from .lexicon import QueryLexicon
from .topk import best_first
from .walk import EntityWalk

if TYPE_CHECKING:
    from .view import CorpusView, QueryLookups

__all__ = ["CandidateIndex"]

IntArray = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


class _PerChunk:
    """``index.chunk_entities[pos]`` / ``index.home_of[pos]``, computed on first read."""

    def __init__(self, index: CandidateIndex, kind: str) -> None:
        self.index, self.kind = index, kind

    def __getitem__(self, pos: int) -> list[str]:
        return self.index._per_chunk(self.kind, pos)


class _Walk:
    """The view's walk, answering per candidate (and adding the chunks PPR alone ranks)."""

    def __init__(self, index: CandidateIndex, walk: EntityWalk) -> None:
        self.index, self.walk = index, walk

    def link(self, text: str) -> list[str]:
        return self.walk.link(text)

    def chunk_scores(self, seeds: Mapping[str, float], damping: float = 0.5) -> FloatArray:
        every = self.walk.chunk_scores(seeds, damping)
        self.index._add_top(every)
        return np.asarray(every[self.index.ords_array()], dtype=np.float64)


class CandidateIndex:
    """The interface of ``ChunkIndex`` that ranking reads, over a growing candidate set."""

    def __init__(self, store: QueryLookups, view: CorpusView) -> None:
        self.store, self.view = store, view
        self.ords: list[int] = []
        self._ords_array: IntArray | None = None
        self.pos: IntArray = np.full(view.n, -1, dtype=np.int64)  # ordinal → position
        self.position: dict[str, int] = {}
        self._chunks: dict[int, tuple[Chunk, str]] = {}
        self._src: dict[str, IntArray] = {}
        self._edge: dict[str, IntArray] = {}
        self._bm25: tuple[str, FloatArray] | None = None
        self._cache: dict[tuple[str, int], list[str]] = {}
        self._top_k = 0
        self._filter: ChunkFilter | None = None
        self.chunk_entities = _PerChunk(self, "entities")
        self.home_of = _PerChunk(self, "homes")

    def __len__(self) -> int:
        return len(self.ords)

    @property
    def total(self) -> int:
        return self.view.n

    def restrict(self, flt: ChunkFilter) -> None:
        """Rank under ``flt``: the chunks PageRank alone could bring into the top ``k``
        are then the best ``k`` *matching* ones outside the candidates."""
        self._filter = flt

    def prefetch(self, positions: Iterable[int]) -> None:
        """Read the chunks at ``positions`` in one store lookup (a filter reads them)."""
        self._fetch(positions)

    def lexicon(self) -> QueryLexicon:
        """The query-repair lexicon of the store state (the same as ``ChunkIndex``'s)."""
        return self.view.lexicon()

    def ords_array(self) -> IntArray:
        if self._ords_array is None or self._ords_array.size != len(self.ords):
            self._ords_array = np.asarray(self.ords, dtype=np.int64)  # grows only
        return self._ords_array

    def tiebreak(self) -> IntArray:
        return self.ords_array()

    # ------------------------------------------------------------------ growing
    def _add(self, ords: Iterable[int] | IntArray) -> None:
        arr = np.asarray(ords if isinstance(ords, np.ndarray) else list(ords), dtype=np.int64)
        fresh = arr[self.pos[arr] < 0] if arr.size else arr
        if not fresh.size:
            return
        new = sorted_distinct(fresh, self.view.n)
        if new.size:
            self.pos[new] = np.arange(len(self.ords), len(self.ords) + new.size)
            self.ords.extend(new.tolist())

    def _add_rows(self, rows: Iterable[tuple[int, Chunk, str]]) -> None:
        for rowid, chunk, title in rows:
            o = int(self.view.ord_of[rowid])
            self._chunks[o] = (chunk, title)
            self._add([o])
            self.position[chunk.id] = int(self.pos[o])

    def _local(self, ords: IntArray) -> IntArray:
        self._add(ords)
        return np.asarray(self.pos[ords], dtype=np.int64)

    def require(self, *, lexical_query: str | None = None, entities: Iterable[str] = (),
                hyperedges: Iterable[str] = (), chunk_ids: Iterable[str] = (),
                top_k: int = 0) -> None:
        """Add the chunks this evidence can score (BM25 candidates of ``lexical_query``,
        vector hits, sources and homes); with ``top_k`` also the first ``top_k`` chunks by
        id, which the full index ranks when fewer chunks score."""
        if lexical_query is not None and self._bm25 is None:
            self._score_lexical(lexical_query)
        ids = [c for c in chunk_ids if c not in self.position]
        if ids:
            rowids = self.store.chunk_rowids(ids)
            self._add_rows((r, c, t) for r, (c, t) in
                           self.store.chunks_by_rowid(rowids.values()).items())
        empty = np.zeros(0, dtype=np.int64)
        new_keys = [k for k in entities if k not in self._src]
        new_edges = [h for h in hyperedges if h not in self._edge]
        sources = self.view.entity_sources(new_keys) if new_keys else {}
        found = self.store.hyperedge_source_rowids(new_edges) if new_edges else {}
        edge_ords = {h: np.sort(self.view.ord_of[np.asarray(found.get(h, []), dtype=np.int64)])
                     for h in new_edges}
        parts = [*sources.values(), *edge_ords.values(),
                 *(self.view.home_ords(k) for k in new_keys)]
        if any(p.size for p in parts):
            self._add(np.concatenate(parts))  # one batch: positions for all of them
        for key in new_keys:
            self._src[key] = self.pos[sources.get(key, empty)]
        for hid in new_edges:
            self._edge[hid] = self.pos[edge_ords[hid]]
        if top_k > self._top_k:
            self._top_k = top_k
            limit = min(self.view.n, top_k + len(self.ords))
            self._add(np.flatnonzero(self.pos[:limit] < 0)[:top_k])

    def include_first(self, n: int) -> bool:
        """Index the first ``n`` chunks by id (their rows are read when used): the chunks a
        filtered ranking fills up from (:func:`~.filters.matching_best`); whether any
        joined."""
        before = len(self.ords)
        self._add(np.arange(min(n, self.view.n), dtype=np.int64))
        return len(self.ords) > before

    def _add_top(self, every: FloatArray) -> None:
        """Add the ``top_k`` best chunks by ``every`` (ties: smaller id) not yet indexed."""
        if not self._top_k or not every.size:
            return
        mask = np.ones(every.size, dtype=bool)
        mask[self.ords_array()] = False
        outside = np.flatnonzero(mask & (every > 0))
        if outside.size and self._filter is not None:
            self._add_top_matching(every, outside)
        elif outside.size:
            order = best_first(every[outside], outside, self._top_k)
            self._add(outside[order].tolist())

    def _add_top_matching(self, every: FloatArray, outside: IntArray) -> None:
        """Add the ``top_k`` best chunks by ``every`` among ``outside`` that pass the
        filter (read from the store in batches, best first)."""
        flt = self._filter
        assert flt is not None
        order = outside[np.lexsort((outside, -every[outside]))]  # best first, ties by ordinal
        left = self._top_k
        for start in range(0, int(order.size), FILTER_BATCH):
            rowids = [int(r) for r in self.view.rowid_of[order[start:start + FILTER_BATCH]]]
            rows = self.store.chunks_by_rowid(rowids)
            keep = [(r, *rows[r]) for r in rowids if r in rows and flt.accepts(rows[r][0])]
            self._add_rows(keep[:left])
            left -= min(len(keep), left)
            if left == 0:
                return

    def _score_lexical(self, query: str) -> None:
        """BM25 of the chunks holding a query token: counts from the FTS postings for the
        chunks whose FTS tokens are their BM25 tokens, from their text otherwise. A token
        the postings cannot count (not ASCII, unless they are exact) is counted from the
        text of the chunks the FTS index finds for it alone — not of every chunk holding
        any query word (``köln`` made a 8,000-chunk query 20 times slower)."""
        toks = query_tokens(query)
        if lone := lone_pieces(toks):  # ``猫``: the stored pairs holding it
            toks = with_pieces(toks, self.store.lexical_terms(lone))
        view = self.view
        avg = view.avg_len()
        post: dict[str, tuple[IntArray, IntArray]] = {}
        posted = [t for t in toks if view.exact_postings or t.isascii()]
        other = sorted(set(toks) - set(posted))
        recount: list[tuple[list[str], list[int]]] = []
        if posted:
            inexact: set[int] = set()
            for term, (ords, tfs) in view.postings(posted).items():
                keep = view.exact[ords]
                post[term] = ords[keep], tfs[keep]
                inexact.update(ords[~keep].tolist())
            recount.append((posted, sorted(inexact)))
        if other:
            found = self.store.lexical_candidates(other)
            ords = view.ords(np.asarray([r[0] for r in found], dtype=np.int64))
            recount.append((other, sorted({int(o) for o in ords if o >= 0})))
        for terms, redo in recount:
            extra = self._count_texts(terms, redo) if redo else {}
            for term in set(terms) & set(extra):
                o_x, tf_x = extra[term]
                o_f, tf_f = post.get(term, (np.zeros(0, np.int64), np.zeros(0, np.int64)))
                post[term] = (np.concatenate([o_f, np.asarray(o_x, dtype=np.int64)]),
                              np.concatenate([tf_f, np.asarray(tf_x, dtype=np.int64)]))
        every = [o for o, _ in post.values() if o.size]
        if every:
            self._add(np.concatenate(every))
        scores = np.zeros(len(self.ords), dtype=np.float32)
        values: dict[str, tuple[IntArray, npt.NDArray[np.float32]]] = {}
        for term, (ords, tfs) in post.items():
            if ords.size:
                values[term] = (self.pos[ords], bm25_values(tfs, view.dl[ords], ords.size,
                                                            view.n, avg))
        for tok in toks:  # bm25s: one np.add.at per query token, repeats included
            if tok in values:
                np.add.at(scores, *values[tok])
        self._bm25 = (query, scores.astype(np.float64))

    def _count_texts(self, toks: list[str], ords: list[int]
                     ) -> dict[str, tuple[list[int], list[int]]]:
        """Query-token counts of chunks read from their text: term → (ordinals, counts)."""
        wanted = set(toks)
        texts = self.store.lexical_passages(int(self.view.rowid_of[o]) for o in ords)
        out: dict[str, tuple[list[int], list[int]]] = {}
        for o in ords:
            found_tf = Counter(t for t in tokens(texts[int(self.view.rowid_of[o])])
                               if t in wanted)
            for term, tf in sorted(found_tf.items()):
                entry = out.setdefault(term, ([], []))
                entry[0].append(o)
                entry[1].append(tf)
        return out

    # ------------------------------------------------------------------ reads
    def bm25(self, query: str) -> FloatArray:
        """BM25 of every candidate (0 for the chunks added for other evidence)."""
        if self._bm25 is None or self._bm25[0] != query:
            self._bm25 = None
            self._score_lexical(query)
        assert self._bm25 is not None
        out = self._bm25[1]
        if len(out) < len(self.ords):
            out = np.concatenate([out, np.zeros(len(self.ords) - len(out))])
        return out

    def home_array(self, key: str) -> IntArray:
        return self._local(self.view.home_ords(key))

    def source_array(self, key: str) -> IntArray:
        if key not in self._src:
            self.require(entities=[key])
        return self._src[key]

    def hyperedge_array(self, hid: str) -> IntArray:
        if hid not in self._edge:
            self.require(hyperedges=[hid])
        return self._edge[hid]

    def source_count(self, key: str) -> int:
        return int(self.source_array(key).size)

    @property
    def walk(self) -> _Walk | None:
        walk = self.view.walk
        return _Walk(self, walk) if walk is not None else None

    def _fetch(self, positions: Iterable[int]) -> None:
        missing = {int(self.view.rowid_of[self.ords[p]]) for p in positions
                   if self.ords[p] not in self._chunks}
        for rowid, (chunk, title) in self.store.chunks_by_rowid(missing).items():
            o = int(self.view.ord_of[rowid])
            self._chunks[o] = (chunk, title)
            self.position[chunk.id] = int(self.pos[o])

    def chunk_at(self, pos: int) -> Chunk:
        if self.ords[pos] not in self._chunks:
            self._fetch([pos])
        return self._chunks[self.ords[pos]][0]

    def title_at(self, pos: int) -> str:
        return self.view.titles[self.ords[pos]]

    def _per_chunk(self, kind: str, pos: int) -> list[str]:
        cached = self._cache.get((kind, pos))
        if cached is not None:
            return cached
        o = self.ords[pos]
        if kind == "homes":
            out = self.view.home_keys(o)
        else:
            keys = self.view.chunk_entities(o)
            out = sorted(set(keys) | set(self.view.link(self.chunk_at(pos).text)))
        self._cache[(kind, pos)] = out
        return out
