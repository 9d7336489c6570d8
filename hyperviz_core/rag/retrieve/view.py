"""The per-store-state part of lazy retrieval (:mod:`.lazy`): what it asks the store for
(:class:`QueryLookups`) and what it keeps (:class:`CorpusView`).

Lazy retrieval reads only what a query needs from a store with indexed lookups.

:class:`LazyCorpus` stands in for :class:`~.state.Corpus` (which loads both layers, every
chunk and a BM25 index over all of them). The stages ask it for the layers to walk from
their seeds (:class:`~.layer_index.IndexedLayer`: the incidence structure in memory, the
entity and hyperedge objects of the result by primary-key lookups), entity names and
existence, theme members, and the chunk index of one query
(:class:`~.candidates.CandidateIndex`: BM25 candidates and counts from the store's FTS5
index, evidence chunks from the mention arrays). What it keeps per store state
(:class:`CorpusView`, built on the first query) has no text or description: chunk
order and titles, BM25 passage lengths, the *home* map (entity → chunks of the document
titled by it, or opening with it), entity keys, each layer's incidence structure and the
chunk–entity mentions as integer arrays (the PageRank walk), and recently used postings.
The results equal the full path's (tests/test_lazy_query.py).

A store qualifies when it has the lookups (:class:`QueryLookups`; the SQLite store) and its
full-text index is available (made on first use; a read-only store without it, or another
backend, uses :class:`~.state.Corpus`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ...model import Entity, Hyperedge
from ..providers.offline import word_tokens
from ..store.sqlite.schema import loads
from ..types import Chunk
from .chunk_index import title_keys
from .layer_index import LayerIndex
from .lexical import tokens
from .lexicon import QueryLexicon, vocabulary_of
from .names import NameLinker
from .walk import EntityWalk

__all__ = ["POSTINGS_CACHE", "CorpusView", "QueryLookups"]

IntArray = npt.NDArray[np.int64]
#: most (chunk, count) postings a corpus view keeps cached across queries (int32 pairs:
#: 8 bytes each, 64 MiB in all)
POSTINGS_CACHE = 8_000_000


@runtime_checkable
class QueryLookups(Protocol):
    """What lazy retrieval asks a store for (:mod:`hyperviz_core.rag.store.lookups`, with
    the backends' :mod:`~hyperviz_core.rag.store.sqlite.lookups` and
    :mod:`~hyperviz_core.rag.store.postgres.lookups`)."""

    def query_generation(self) -> tuple[int, int, int]: ...
    def lexical_ready(self, tokenize: Callable[[str], list[str]] | None = ..., *,
                      prepare: bool = ...) -> bool: ...
    def lexical_candidates(self, tokens: Iterable[str]) -> list[tuple[int, Chunk, str]]: ...
    def lexical_postings(self, terms: Iterable[str]) -> dict[str, tuple[IntArray, IntArray]]: ...
    def lexical_terms(self, pieces: Sequence[str]) -> dict[str, list[str]]: ...
    def lexical_lengths(self, measure: Callable[[str], int]
                        ) -> tuple[IntArray, IntArray, IntArray]: ...
    def lexical_passages(self, rowids: Iterable[int]) -> dict[int, str]: ...
    def iter_passages(self, batch: int = ...) -> Iterator[str]: ...
    def chunk_catalogue(self) -> list[tuple[int, str, str, int, str, str | None]]: ...
    def chunks_by_rowid(self, rowids: Iterable[int]) -> dict[int, tuple[Chunk, str]]: ...
    def chunk_rowids(self, ids: Iterable[str]) -> dict[str, int]: ...
    def chunk_heads(self, rowids: Iterable[int], chars: int) -> dict[int, str]: ...
    def hyperedge_source_rowids(self, hids: Iterable[str]) -> dict[str, list[int]]: ...
    def chunk_entity_keys(self, rowids: Iterable[int]) -> dict[int, list[str]]: ...
    def entity_info(self, keys: Iterable[str]) -> dict[str, tuple[str, str]]: ...
    def entity_texts(self, keys: Iterable[str]) -> dict[str, str]: ...
    def theme_texts(self, hids: Iterable[str]) -> dict[str, str]: ...
    def hyperedge_kinds(self, hids: Iterable[str]) -> dict[str, str]: ...
    def hyperedge_members(self, hids: Iterable[str]) -> dict[str, list[str]]: ...
    def entity_catalogue(self) -> tuple[list[str], IntArray]: ...
    def layer_structure(self, kind: str) -> tuple[list[str], IntArray, IntArray]: ...
    def top_entity_keys(self) -> list[str]: ...
    def mention_rowids(self) -> IntArray: ...
    def entity_objects(self, keys: Iterable[str],
                       sources: Mapping[str, list[str]] | None = None
                       ) -> dict[str, Entity]: ...
    def hyperedge_objects(self, hids: Iterable[str], layer: Literal["bottom", "top"]
                          ) -> dict[str, Hyperedge]: ...


def _rank_map(rowids: IntArray) -> IntArray:
    """Array ``m`` with ``m[rowid] = position of rowid in rowids`` (-1 elsewhere)."""
    size = int(rowids.max()) + 1 if rowids.size else 0
    out = np.full(size, -1, dtype=np.int64)
    out[rowids] = np.arange(rowids.size, dtype=np.int64)
    return out


class CorpusView:
    """The per-store-state part of lazy retrieval: chunk order, titles, homes, the walk.

    Chunk *ordinals* number the chunks in id order (the full path's positions, so ties
    break the same way).
    """

    def __init__(self, store: QueryLookups, *, link_names: bool = True,
                 infer_homes: bool = True, lead_window: int = 100, lead_chunks: int = 3
                 ) -> None:
        self.store = store
        cat = store.chunk_catalogue()
        self.n = len(cat)
        self.rowid_of: IntArray = np.asarray([r[0] for r in cat], dtype=np.int64)
        self.ord_of: IntArray = _rank_map(self.rowid_of)
        self.chunk_ids: npt.NDArray[np.object_] = np.asarray(  # by ordinal (= id order)
            [r[1] for r in cat], dtype=object)
        self.titles: list[str] = []
        docs: dict[str, list[tuple[int, int]]] = {}
        for i, (_rowid, _cid, doc_id, idx, title, meta) in enumerate(cat):
            if not title and meta is not None:
                title = str(loads(meta).get("title") or "")
            self.titles.append(title)
            docs.setdefault(doc_id, []).append((idx, i))
        self.home: dict[str, list[int]] = {}
        keys_of: dict[str, list[str]] = {}  # a document's chunks share its title
        for i, title in enumerate(self.titles):
            if not title:
                continue
            keys = keys_of.get(title)
            if keys is None:
                keys = keys_of[title] = title_keys(title)
            for key in keys:
                self.home.setdefault(key, []).append(i)
        self.lead: dict[int, str] = {}
        if infer_homes:
            self._lead_homes(docs, lead_window, lead_chunks)
        self._names = NameLinker()
        if link_names:
            for key in self.home:
                words = tuple(word_tokens(key))
                if words and len(key) >= 4 and len(words) <= 6:
                    self._names.add(words, key)
        self._homes: dict[str, IntArray] = {}
        self._walk: EntityWalk | None = None
        self._walk_built = False
        self._by_entity: Any = None
        self._catalogue: tuple[list[str], IntArray] | None = None
        self._postings: dict[str, tuple[IntArray, IntArray]] = {}
        self._cached = 0
        #: the store's postings count every token exactly (PostgreSQL), not ASCII ones only
        self.exact_postings = bool(getattr(store, "EXACT_POSTINGS", False))
        self._layers: dict[str, LayerIndex] = {}
        self._avg_len: float | None = None
        self._lexicon: QueryLexicon | None = None
        self.dl: IntArray = np.zeros(0, dtype=np.int64)
        self.exact: npt.NDArray[np.bool_] = np.zeros(0, dtype=bool)

    def _lead_homes(self, docs: dict[str, list[tuple[int, int]]], window: int,
                    max_chunks: int) -> None:
        """As ``ChunkIndex._lead_homes``: a short untitled document's home is the named
        entity its first chunk opens with."""
        firsts: dict[int, list[int]] = {}
        for _doc, members in sorted(docs.items()):
            positions = sorted(i for _, i in members)
            if self.titles[positions[0]] or len(positions) > max_chunks:
                continue
            first = min(members)[1]
            firsts[int(self.rowid_of[first])] = positions
        if not firsts:
            return
        keys = self.store.chunk_entity_keys(firsts)
        info = self.store.entity_info({k for ks in keys.values() for k in ks})
        heads = self.store.chunk_heads(firsts, window)
        for rowid, positions in firsts.items():  # in document-id order
            head = heads.get(rowid, "").casefold()
            best: tuple[int, int, str] | None = None
            for key in keys.get(rowid, []):
                name, typ = info.get(key, (key, "entity"))
                if typ in ("date", "quantity") or len(key) < 4 or key.isdigit():
                    continue
                m = re.search(r"(?<!\w)" + re.escape(name.casefold()) + r"(?!\w)", head)
                if m and (best is None or (m.start(), -len(key), key) < best):
                    best = (m.start(), -len(key), key)
            if best is not None:
                self.home.setdefault(best[2], []).extend(positions)
                for p in positions:
                    self.lead[p] = best[2]

    # ------------------------------------------------------------------ reads
    def link(self, text: str) -> list[str]:
        """Keys of the document-title entities named verbatim by ``text`` (sorted)."""
        return self._names.find(word_tokens(text)) if self._names else []

    def home_ords(self, key: str) -> IntArray:
        """Ordinals of the chunks whose home is entity ``key``."""
        arr = self._homes.get(key)
        if arr is None:
            arr = self._homes[key] = np.asarray(self.home.get(key, []), dtype=np.int64)
        return arr

    def home_keys(self, ordinal: int) -> list[str]:
        """Sorted entity keys whose home holds chunk ``ordinal``."""
        title = self.titles[ordinal]
        keys = set(title_keys(title)) if title else set()
        if ordinal in self.lead:
            keys.add(self.lead[ordinal])
        return sorted(k for k in keys if k in self.home)

    def ords(self, rowids: IntArray) -> IntArray:
        """The ordinals of chunk ``rowids`` in this view, -1 for a chunk it does not hold
        (written after the view was made: the query then runs again on the new state)."""
        rowids = np.asarray(rowids, dtype=np.int64)
        inside = (rowids >= 0) & (rowids < self.ord_of.size)
        out = np.full(rowids.size, -1, dtype=np.int64)
        out[inside] = self.ord_of[rowids[inside]]
        return out

    def _load_lengths(self) -> None:
        rowids, dl, exact = self.store.lexical_lengths(lambda text: len(tokens(text)))
        ords = self.ords(rowids)
        keep = ords >= 0
        self.dl = np.zeros(self.n, dtype=np.int64)
        self.exact = np.zeros(self.n, dtype=bool)
        self.dl[ords[keep]] = dl[keep]
        self.exact[ords[keep]] = exact[keep] > 0
        self._avg_len = int(self.dl.sum()) / self.n if self.n else 0.0

    def postings(self, terms: Iterable[str]) -> dict[str, tuple[IntArray, IntArray]]:
        """Token → (ordinals, FTS counts) of the chunks holding it; cached per store state
        (at most ``POSTINGS_CACHE`` entries in all, least recently used terms dropped
        first)."""
        wanted = sorted(set(terms))
        missing = [t for t in wanted if t not in self._postings]
        for term in wanted:  # used now: to the end of the eviction order
            if term in self._postings:
                self._postings[term] = self._postings.pop(term)
        if missing:
            for term, (rowids, tfs) in self.store.lexical_postings(missing).items():
                ords = self.ords(rowids)
                known = ords >= 0  # a chunk written after this view: not in it
                self._postings[term] = (ords[known].astype(np.int32),
                                        tfs[known].astype(np.int32))
                self._cached += int(rowids.size)
            while self._cached > POSTINGS_CACHE and len(self._postings) > len(wanted):
                old = next(iter(self._postings))
                if old in wanted:
                    break
                self._cached -= int(self._postings.pop(old)[0].size)
        return {t: self._postings[t] for t in wanted if t in self._postings}

    def avg_len(self) -> float:
        """Average BM25 passage length over the corpus (``bm25s``'s ``avg_doc_len``)."""
        if self._avg_len is None:
            self._load_lengths()
        assert self._avg_len is not None
        return self._avg_len

    def prepare(self) -> None:
        """Build now what queries build on first use: BM25 lengths, both layers' structure,
        the query-repair vocabulary and the walk (a writable SQLite store stores the lengths,
        arrays and vocabulary it derives, so later processes read them back)."""
        self.avg_len()
        self.lexicon()
        self.layer_index("top")
        self.layer_index("bottom")
        _ = self.walk

    def entity_sources(self, keys: Iterable[str]) -> dict[str, IntArray]:
        """Entity key → sorted ordinals of its source chunks (from the mention arrays)."""
        walk = self.walk
        if walk is None:
            return {}
        if self._by_entity is None:
            self._by_entity = walk.specificity.tocsc()
        csc = self._by_entity
        out: dict[str, IntArray] = {}
        for key in keys:
            i = walk.position.get(key)
            if i is not None:
                out[key] = np.sort(csc.indices[csc.indptr[i]:csc.indptr[i + 1]]).astype(np.int64)
        return out

    def source_ids(self, keys: Iterable[str]) -> dict[str, list[str]]:
        """Entity key → sorted ids of its source chunks, from the mention arrays (what the
        store's ``entity_mentions`` lookup returns, without reading a hub's rows)."""
        ids = self.chunk_ids
        return {key: ids[ords].tolist() for key, ords in self.entity_sources(keys).items()}

    def chunk_entities(self, ordinal: int) -> list[str]:
        """Sorted keys of the entities extracted from chunk ``ordinal``."""
        walk = self.walk
        if walk is None:
            return []
        spec = walk.specificity
        cols = spec.indices[spec.indptr[ordinal]:spec.indptr[ordinal + 1]]
        return sorted(walk.keys[int(c)] for c in cols)

    def lexicon(self) -> QueryLexicon:
        """The query-repair lexicon (:mod:`.lexicon`) of this store state, built on first use
        as ``ChunkIndex``'s: the words of every passage (streamed from the store; only the
        vocabulary is kept) and the bottom layer's entity keys."""
        if self._lexicon is None:
            keys, _ = self._entities()
            kept = getattr(self.store, "kept_strings", None)  # SQLite: kept in the store
            # a copy kept before 2026-12-04 lacks the lower-cased forms the ß repair reads;
            # the store's next write replaces it (a new name would make every read-only
            # query of an old store compute the vocabulary again)
            words = kept("vocabulary", self._vocabulary) if kept else self._vocabulary()
            self._lexicon = QueryLexicon((), dict.fromkeys(keys), vocabulary=words)
        return self._lexicon

    def _vocabulary(self) -> list[str]:
        return sorted(vocabulary_of(self.store.iter_passages()))

    def _entities(self) -> tuple[list[str], IntArray]:
        if self._catalogue is None:
            keys, rowids = self.store.entity_catalogue()
            self._catalogue = (keys, _rank_map(rowids))
        return self._catalogue

    def layer_index(self, layer: Literal["bottom", "top"]) -> LayerIndex:
        """The incidence structure of G_bot / G_top (built on first use)."""
        found = self._layers.get(layer)
        if found is None:
            keys, ent_ord = self._entities()
            ids, edge_rowids, pairs = self.store.layer_structure(
                "relation" if layer == "bottom" else "theme")
            edges = _rank_map(edge_rowids)[pairs[:, 0]] if pairs.size else pairs[:, 0]
            members = ent_ord[pairs[:, 1]] if pairs.size else pairs[:, 1]
            indptr = np.concatenate([[0], np.cumsum(np.bincount(edges, minlength=len(ids)))])
            top = set(self.store.top_entity_keys()) if layer == "top" else None
            found = self._layers[layer] = LayerIndex(layer, keys, ids,
                                                     indptr.astype(np.int64), members, top)
        return found

    @property
    def walk(self) -> EntityWalk | None:
        """PPR over the whole entity–hyperedge incidence graph, from integer arrays (built
        on first use; None without entities)."""
        if not self._walk_built:
            self._walk_built = True
            keys, ent_ord = self._entities()
            if keys:
                inc = self.layer_index("bottom").incident
                rows = np.repeat(np.arange(inc.shape[0], dtype=np.int64), np.diff(inc.indptr))
                men = self.store.mention_rowids()
                chunk_ord = self.ord_of[men[:, 0]] if men.size else men[:, 0]
                self._walk = EntityWalk.from_arrays(
                    keys, inc.shape[1], (rows, inc.indices.astype(np.int64)),
                    (chunk_ord, ent_ord[men[:, 1]]), self.n,
                    kept=getattr(self.store, "kept_floats", None))  # SQLite, PostgreSQL
        return self._walk
