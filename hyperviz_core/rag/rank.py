"""Chunk ranking (hypergraph evidence + direct similarity) and sub-hypergraph selection.

A retrieved passage should score high when

* it matches the query directly — BM25 over ``title + text`` (``bm25s``, English stop words)
  and cosine similarity of the chunk vectors to the query (the store's ``"chunk"`` space); or
* the hypergraph points at it — entities and hyperedges reached by retrieval name it among
  their sources. Two kinds of entity evidence are counted:

  - *home*: the chunk belongs to the document *about* the entity (document title, with a
    trailing parenthetical such as ``"(song)"`` dropped, equals the entity key). Reaching
    ``Hank Snow`` through a relation of the *Hello Love* passage thus surfaces the
    *Hank Snow* article — the multi-hop bridge a flat retriever misses;
  - *mention*: the chunk is a source of the entity, damped by ``1/sqrt(#sources)`` so that
    hub entities ("United States") do not swamp the ranking.

  Entities found in the best directly-matching chunks are added to the evidence with a
  share of those chunks' scores (pseudo-relevance feedback through the bottom layer), so a
  bridge entity mentioned by the best passage also counts when vector retrieval missed it.

``final = w_bm25·bm25 + w_vector·vec + w_graph·graph`` with every component scaled to
``[0, 1]`` by its maximum over the corpus. Weights live in :class:`RankWeights` (tuned once on
the MuSiQue/HotpotQA dev questions; no per-question settings).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ..model import Hyperedge, Hypergraph, normalize_key
from .offline import word_tokens
from .types import Chunk

__all__ = [
    "ChunkIndex",
    "RankWeights",
    "ScoredChunk",
    "expand",
    "induced",
    "rank_chunks",
    "title_keys",
    "trim_descriptions",
]

_PAREN = re.compile(r"\s*\([^()]*\)\s*$")

FloatArray = npt.NDArray[np.float64]


class RankWeights(BaseModel):
    """Weights of the chunk score components (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bm25: float = Field(1.0, ge=0)
    vector: float = Field(0.0, ge=0)
    """Chunk-vector similarity. 0 by default: with the offline hashed embedder it only
    repeats BM25 with more noise (measured); raise it with a semantic embedder."""
    graph: float = Field(0.6, ge=0)
    home: float = Field(1.0, ge=0)
    """Weight of an entity's home chunk (document titled by the entity)."""
    mention: float = Field(0.25, ge=0)
    """Weight of a chunk that mentions a retrieved entity (damped by 1/sqrt(#sources))."""
    mention_cap: float = Field(0.5, ge=0)
    """Cap of the summed mention + hyperedge evidence of one chunk."""
    hyperedge: float = Field(0.25, ge=0)
    """Weight of a source chunk of a retrieved hyperedge (damped by 1/sqrt(#sources))."""
    retrieved: float = Field(0.3, ge=0)
    """Weight of the pipeline's entity scores (anchors, V_rel, their hop neighbours)
    relative to entities named by the query keywords (weight 1)."""
    feedback: float = Field(0.8, ge=0)
    """Share of a top direct chunk's score given to the entities it mentions."""
    feedback_chunks: int = Field(3, ge=0)
    """How many top direct chunks feed their entities back."""


def title_keys(title: str) -> list[str]:
    """Entity keys a document title stands for: the title, and without a trailing
    parenthetical (``"Hello Love (song)"`` → ``["hello love (song)", "hello love"]``)."""
    out: list[str] = []
    for variant in (title, _PAREN.sub("", title)):
        try:
            key = normalize_key(variant)
        except ValueError:
            continue
        if key not in out:
            out.append(key)
    return out


@dataclass
class ScoredChunk:
    """A chunk position with its final score, score parts and supporting entities."""

    index: int
    score: float
    parts: dict[str, float]
    entities: list[str] = field(default_factory=list)


class ChunkIndex:
    """Everything chunk ranking needs, built once per store state.

    Holds the chunks (sorted by id), their document titles, a BM25 index over
    ``title + newline + text``, the *home* map (entity key → chunks of the document titled by
    it) and the inverse of the bottom layer's ``source_ids`` (chunk → entity keys).
    """

    def __init__(
        self,
        chunks: Sequence[Chunk],
        titles: Mapping[str, str] | None = None,
        bottom: Hypergraph | None = None,
        *,
        link_names: bool = True,
    ) -> None:
        import bm25s

        titles = titles or {}
        self.chunks: list[Chunk] = sorted(chunks, key=lambda c: c.id)
        self.position: dict[str, int] = {c.id: i for i, c in enumerate(self.chunks)}
        self.titles: list[str] = [
            str(titles.get(c.doc_id) or c.metadata.get("title") or "") for c in self.chunks
        ]
        self.home: dict[str, list[int]] = {}
        for i, title in enumerate(self.titles):
            for key in title_keys(title) if title else []:
                self.home.setdefault(key, []).append(i)
        self.chunk_entities: list[list[str]] = [[] for _ in self.chunks]
        self.entity_sources: dict[str, list[int]] = {}
        self.hyperedge_sources: dict[str, list[int]] = {}
        if bottom is not None:
            for key in sorted(bottom.entities):
                pos = self._positions(bottom.entities[key].source_ids)
                self.entity_sources[key] = pos
                for p in pos:
                    self.chunk_entities[p].append(key)
            for hid in sorted(bottom.hyperedges):
                self.hyperedge_sources[hid] = self._positions(bottom.hyperedges[hid].source_ids)
        self.home_of: list[list[str]] = [[] for _ in self.chunks]
        for key, positions in sorted(self.home.items()):
            for p in positions:
                self.home_of[p].append(key)
        self._arrays: dict[tuple[str, str], npt.NDArray[np.int64]] = {}
        self._names: dict[tuple[str, ...], str] = {}
        self._longest = 0
        if link_names:
            self._link_names()
        self._bm25: bm25s.BM25 | None = None
        self._vocab: dict[str, int] = {}
        if self.chunks:
            corpus = [self.passage_text(i) for i in range(len(self.chunks))]
            tokens = bm25s.tokenize(corpus, stopwords="en", show_progress=False)
            if tokens.vocab:
                self._bm25 = bm25s.BM25()
                self._bm25.index(tokens, show_progress=False)
                self._vocab = dict(tokens.vocab)

    def __len__(self) -> int:
        return len(self.chunks)

    def _link_names(self, max_words: int = 6) -> None:
        """Index the document-title entities by their words and add to ``chunk_entities``
        the ones a chunk names verbatim (catching mentions the extractor missed)."""
        for key in self.home:
            words = tuple(word_tokens(key))
            if words and len(key) >= 4 and len(words) <= max_words:
                self._names.setdefault(words, key)
                self._longest = max(self._longest, len(words))
        for i, chunk in enumerate(self.chunks):
            found = set(self.chunk_entities[i]) | set(self.link(chunk.text))
            self.chunk_entities[i] = sorted(found)

    def link(self, text: str) -> list[str]:
        """Keys of the document-title entities named verbatim (word n-grams) by ``text``."""
        if not self._names:
            return []
        words = word_tokens(text)
        longest = self._longest
        found: set[str] = set()
        for n in range(1, longest + 1):
            for j in range(len(words) - n + 1):
                key = self._names.get(tuple(words[j : j + n]))
                if key is not None:
                    found.add(key)
        return sorted(found)

    def _array(self, kind: str, key: str, positions: Sequence[int]) -> npt.NDArray[np.int64]:
        arr = self._arrays.get((kind, key))
        if arr is None:
            arr = np.asarray(positions, dtype=np.int64)
            self._arrays[(kind, key)] = arr
        return arr

    def home_array(self, key: str) -> npt.NDArray[np.int64]:
        """Positions of the chunks of the document titled ``key`` (numpy, cached)."""
        return self._array("home", key, self.home.get(key, []))

    def source_array(self, key: str) -> npt.NDArray[np.int64]:
        """Positions of the source chunks of entity ``key`` (numpy, cached)."""
        return self._array("entity", key, self.entity_sources.get(key, []))

    def hyperedge_array(self, hid: str) -> npt.NDArray[np.int64]:
        """Positions of the source chunks of hyperedge ``hid`` (numpy, cached)."""
        return self._array("edge", hid, self.hyperedge_sources.get(hid, []))

    def _positions(self, source_ids: Sequence[str]) -> list[int]:
        return sorted({self.position[s] for s in source_ids if s in self.position})

    def passage_text(self, i: int) -> str:
        """``title + newline + text`` of chunk ``i`` (title once, even if the text repeats it)."""
        title, text = self.titles[i], self.chunks[i].text
        if not title or text.lstrip().startswith(title):
            return text
        return f"{title}\n{text}"

    def bm25(self, query: str) -> FloatArray:
        """BM25 score of every chunk for ``query`` (0 when no query term is indexed)."""
        import bm25s

        out = np.zeros(len(self.chunks), dtype=np.float64)
        if self._bm25 is None:
            return out
        q = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)
        known = [t for t in (q[0] if q else []) if t in self._vocab]
        if not known:
            return out
        return np.asarray(self._bm25.get_scores(known), dtype=np.float64)


def _scaled(values: FloatArray) -> FloatArray:
    top = float(values.max()) if values.size else 0.0
    return values / top if top > 0 else values


def _graph_scores(
    index: ChunkIndex, ents: Mapping[str, float], edges: Mapping[str, float], w: RankWeights
) -> FloatArray:
    """Per-chunk hypergraph evidence: best home hit + capped mention/hyperedge evidence."""
    n = len(index)
    spread = np.zeros(n, dtype=np.float64)
    home = np.zeros(n, dtype=np.float64)
    for key, s in ents.items():
        if s <= 0:
            continue
        pos = index.home_array(key)
        if pos.size:
            home[pos] = np.maximum(home[pos], w.home * s)
        src = index.source_array(key)
        if src.size and w.mention > 0:
            spread[src] += w.mention * s / math.sqrt(src.size)
    if w.hyperedge > 0:
        for hid, s in edges.items():
            src = index.hyperedge_array(hid)
            if src.size:
                spread[src] += w.hyperedge * s / math.sqrt(src.size)
    result: FloatArray = np.minimum(spread, w.mention_cap) + home
    return result


def _support(index: ChunkIndex, pos: int, ents: Mapping[str, float], w: RankWeights
             ) -> list[str]:
    """The entities whose evidence reached chunk ``pos``, strongest first."""
    sup: dict[str, float] = {}
    for key in index.home_of[pos]:
        if ents.get(key, 0.0) > 0:
            sup[key] = w.home * ents[key]
    for key in index.chunk_entities[pos]:
        s = ents.get(key, 0.0)
        src = index.entity_sources.get(key, [])
        if s > 0 and src:
            sup[key] = sup.get(key, 0.0) + w.mention * s / math.sqrt(len(src))
    return sorted(sup, key=lambda k: (-sup[k], k))[:8]


def rank_chunks(
    index: ChunkIndex,
    query: str,
    *,
    entity_scores: Mapping[str, float] | None = None,
    query_entities: Iterable[str] = (),
    hyperedge_scores: Mapping[str, float] | None = None,
    vector_scores: Mapping[str, float] | None = None,
    weights: RankWeights | None = None,
    top_k: int = 5,
    lexical_query: str | None = None,
) -> list[ScoredChunk]:
    """Rank the chunks of ``index`` for ``query`` and return the ``top_k`` best.

    Args:
        entity_scores: entity key → retrieval score (anchors, related entities, ...), scaled
            to ``RankWeights.retrieved`` at best.
        query_entities: entity keys named by the query (keywords linked by name): weight 1.
        hyperedge_scores: hyperedge id → retrieval score.
        vector_scores: chunk id → cosine similarity of the chunk vector to the query.
        lexical_query: text for BM25 (defaults to ``query``).
    Ties are broken by chunk id, so the ranking is deterministic.
    """
    w = weights or RankWeights()
    n = len(index)
    if n == 0 or top_k <= 0:
        return []
    bm = _scaled(index.bm25(lexical_query or query))
    vec = np.zeros(n, dtype=np.float64)
    for cid, s in sorted((vector_scores or {}).items()):
        pos = index.position.get(cid)
        if pos is not None:
            vec[pos] = max(float(s), 0.0)
    vec = _scaled(vec)
    direct = w.bm25 * bm + w.vector * vec

    ents: dict[str, float] = {}
    for key, s in (entity_scores or {}).items():
        ents[key] = max(ents.get(key, 0.0), float(s))
    top_ent = max(ents.values(), default=0.0)
    if top_ent > 0:
        ents = {k: w.retrieved * v / top_ent for k, v in ents.items()}
    for key in query_entities:
        ents[key] = 1.0
    edges = {h: float(s) for h, s in (hyperedge_scores or {}).items() if float(s) > 0}
    # pass 1: direct similarity + evidence of the retrieved entities and hyperedges
    graph = _graph_scores(index, ents, edges, w)
    final = direct + w.graph * graph
    # pass 2: entities of the best pass-1 chunks feed back (bridges to the next hop)
    best = float(final.max())
    if w.feedback > 0 and w.feedback_chunks > 0 and best > 0:
        fed = dict(ents)
        order = np.lexsort((np.arange(n), -final))[: w.feedback_chunks]
        for pos in order.tolist():
            share = w.feedback * float(final[pos]) / best
            for key in index.chunk_entities[pos]:
                if share > fed.get(key, 0.0):
                    fed[key] = share
        ents = fed
        graph = _graph_scores(index, ents, edges, w)
        final = direct + w.graph * graph
    order = np.lexsort((np.arange(n), -final))[: min(top_k, n)]
    out: list[ScoredChunk] = []
    for pos in order.tolist():
        out.append(
            ScoredChunk(
                index=pos,
                score=round(float(final[pos]), 6),
                parts={
                    "bm25": round(float(bm[pos]), 6),
                    "vector": round(float(vec[pos]), 6),
                    "graph": round(float(graph[pos]), 6),
                },
                entities=_support(index, pos, ents, w),
            )
        )
    return out


# ---------------------------------------------------------------- sub-hypergraphs
def induced(hg: Hypergraph, keys: Iterable[str]) -> Hypergraph:
    """The sub-hypergraph on ``keys`` with every hyperedge whose members all lie in it.

    Entities and hyperedges are shared with ``hg`` (not copied): treat the result as
    read-only, like the store's cached layers.
    """
    keep = {k for k in keys if k in hg.entities}
    edges: dict[str, Hyperedge] = {}
    for key in sorted(keep):
        for hid in hg.neighbors(key):
            if hid not in edges and all(m in keep for m in hg.hyperedges[hid].members):
                edges[hid] = hg.hyperedges[hid]
    return Hypergraph(entities={k: hg.entities[k] for k in sorted(keep)},
                      hyperedges={h: edges[h] for h in sorted(edges)},
                      metadata=dict(hg.metadata))


def trim_descriptions(hg: Hypergraph, chars: int = 160) -> Hypergraph:
    """A copy with descriptions cut to ``chars`` (cheap BM25 importance on merged hubs)."""
    ents = {k: e.model_copy(update={"description": e.description[:chars]})
            for k, e in hg.entities.items()}
    return Hypergraph(entities=ents, hyperedges=dict(hg.hyperedges))


def expand(
    hg: Hypergraph,
    seeds: dict[str, float],
    hops: int,
    max_entities: int,
    decay: float = 0.5,
    seed_edges: dict[str, float] | None = None,
) -> tuple[dict[str, float], dict[str, float]]:
    """Score-bounded h-hop sub-hypergraph: (entity scores, hyperedge scores).

    Seed entities (and members of ``seed_edges``) keep their scores; each hop gives every
    hyperedge touching a scored entity ``decay × its best member score`` and its new members
    ``decay × the hyperedge score`` (at most ``max_entities`` entities per hop and, for a
    hub, its ``max_entities`` smallest hyperedges, so hubs cannot blow it up). The result
    keeps whole hyperedges, best first, while their members fit in ``max_entities``, plus the
    best seeds left without a hyperedge (at most a quarter of the budget); every hyperedge
    inside the kept entities is returned.
    """
    ents = {k: float(s) for k, s in seeds.items() if k in hg.entities}
    edges: dict[str, float] = {}
    for hid, s in sorted((seed_edges or {}).items()):
        if hid not in hg.hyperedges:
            continue
        edges[hid] = max(edges.get(hid, 0.0), float(s))
        for m in hg.hyperedges[hid].members:
            ents[m] = max(ents.get(m, 0.0), float(s) * decay)

    def best(scores: dict[str, float], n: int) -> list[str]:
        return sorted(scores, key=lambda k: (-scores[k], k))[:n]

    wide = max_entities
    ents = {k: ents[k] for k in best(ents, wide)}
    frontier = dict(ents)
    for _ in range(hops):
        new: dict[str, float] = {}
        for key in sorted(frontier):
            incident = hg.neighbors(key)
            if len(incident) > max_entities:  # a hub: its smallest hyperedges only
                incident = sorted(incident, key=lambda h: (len(hg.hyperedges[h].members), h))
                incident = incident[:max_entities]
            for hid in incident:
                s = frontier[key] * decay
                if s > edges.get(hid, 0.0):
                    edges[hid] = s
                for m in hg.hyperedges[hid].members:
                    if m not in ents and s * decay > new.get(m, 0.0):
                        new[m] = s * decay
        frontier = {k: new[k] for k in best(new, wide)}
        ents.update(frontier)
        if not frontier:
            break
    kept: dict[str, None] = {}
    inside = {h: v for h, v in edges.items() if all(m in ents for m in hg.hyperedges[h].members)}
    for hid in best(inside, len(inside)):
        fresh = [m for m in hg.hyperedges[hid].members if m not in kept]
        if len(kept) + len(fresh) <= max_entities:
            kept.update(dict.fromkeys(fresh))
    loners = 0
    for key in best({k: v for k, v in ents.items() if k in seeds}, len(seeds)):
        if len(kept) >= max_entities or loners >= max(1, max_entities // 4):
            break
        if key not in kept:
            kept[key] = None
            loners += 1
    out_e = {k: ents[k] for k in kept}
    out_h = {h: v for h, v in inside.items() if all(m in kept for m in hg.hyperedges[h].members)}
    return out_e, out_h
