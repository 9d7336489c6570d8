"""Chunk ranking: hypergraph evidence + direct similarity over a :class:`~.chunk_index.ChunkIndex`.

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

  Entities found in the best chunks of a first pass (direct similarity plus graph evidence)
  are added to the evidence with a share of those chunks' scores (pseudo-relevance
  feedback through the bottom layer), so a bridge entity mentioned by the best passage
  also counts when vector retrieval missed it.

* relevance spreads to it over the hypergraph — personalised PageRank over the bottom
  layer's entity–hyperedge incidence graph, seeded by the entities the query names, the
  retrieved ones and those of the best chunks (pass 3, :class:`~.walk.EntityWalk`); a chunk
  scores the PageRank of its entities, each divided by its number of source chunks. This
  reaches bridges two or more facts away and works without document titles.

* query words no chunk contains are repaired first (:mod:`.lexicon`): a capitalised one is
  matched by spelling to an entity name of the bottom layer ("Hypseus" → *Hypseas*,
  "Aschenbrodel" → *Aschenbrödel*), which joins the BM25 query and counts as an entity the
  query names (weight ``spelling``); another one is replaced by the corpus words sharing its
  light stem ("apprenticed" → "apprentice", ``word_forms``).

``final = w_bm25·bm25 + w_vector·vec + w_graph·(graph + w_ppr·ppr)`` with ``bm25``, ``vec``
and ``ppr`` scaled to ``[0, 1]`` by their maximum over the corpus (the vector cosines
min-max over the chunks the vector search returned, see :func:`_direct`); ``graph`` is the
best home evidence (at most ``home``) plus the capped mention/hyperedge evidence (at most
``mention_cap``), so it lies in ``[0, home + mention_cap]`` (1.5 by default). Weights live
in :class:`RankWeights` (tuned on the MuSiQue/HotpotQA dev questions — the same questions
the benchmark reports; no per-question settings).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal, Protocol

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ..types import Chunk
from .chunk_index import FloatArray
from .filters import FILL_LIMIT, ChunkFilter, matching_best
from .lexicon import QueryLexicon
from .topk import best_first

__all__ = ["SEMANTIC_VECTOR_WEIGHT", "RankIndex", "RankWeights", "ScoredChunk", "rank_chunks"]


class _Walk(Protocol):
    def link(self, text: str) -> list[str]: ...
    def chunk_scores(self, seeds: Mapping[str, float], damping: float = ...) -> FloatArray: ...


class _PerChunk(Protocol):
    def __getitem__(self, pos: int, /) -> list[str]: ...


class RankIndex(Protocol):
    """What :func:`rank_chunks` reads: :class:`~.chunk_index.ChunkIndex` (every chunk) or
    :class:`~.candidates.CandidateIndex` (the candidates of one query, lazily grown)."""

    @property
    def position(self) -> Mapping[str, int]: ...
    @property
    def chunk_entities(self) -> _PerChunk: ...
    @property
    def home_of(self) -> _PerChunk: ...
    @property
    def total(self) -> int: ...
    @property
    def walk(self) -> _Walk | None: ...
    def __len__(self) -> int: ...
    def tiebreak(self) -> npt.NDArray[np.int64]: ...
    def lexicon(self) -> QueryLexicon: ...
    def require(self, *, lexical_query: str | None = None, entities: Iterable[str] = (),
                hyperedges: Iterable[str] = (), chunk_ids: Iterable[str] = (),
                top_k: int = 0) -> None: ...
    def bm25(self, query: str) -> FloatArray: ...
    def home_array(self, key: str) -> npt.NDArray[np.int64]: ...
    def source_array(self, key: str) -> npt.NDArray[np.int64]: ...
    def hyperedge_array(self, hid: str) -> npt.NDArray[np.int64]: ...
    def source_count(self, key: str) -> int: ...
    def chunk_at(self, pos: int) -> Chunk: ...
    def title_at(self, pos: int) -> str: ...

#: ``RankWeights.vector`` with a semantic embedder (tuned on the MuSiQue dev questions).
SEMANTIC_VECTOR_WEIGHT = 1.0


class RankWeights(BaseModel):
    """Weights of the chunk score components (see the module docstring)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    bm25: float = Field(default=1.0, ge=0)
    vector: float | None = Field(default=None, ge=0)
    """Chunk-vector similarity; ``None`` = by embedder (:meth:`for_embedder`): 0 with the
    offline hashed embedder (it only repeats BM25 with more noise, measured) and
    ``SEMANTIC_VECTOR_WEIGHT`` with a semantic one (local MiniLM, OpenAI, ...)."""
    graph: float = Field(default=0.6, ge=0)
    home: float = Field(default=1.0, ge=0)
    """Weight of an entity's home chunk (document titled by the entity)."""
    mention: float = Field(default=0.25, ge=0)
    """Weight of a chunk that mentions a retrieved entity (damped by 1/sqrt(#sources))."""
    mention_cap: float = Field(default=0.5, ge=0)
    """Cap of the summed mention + hyperedge evidence of one chunk."""
    hyperedge: float = Field(default=0.25, ge=0)
    """Weight of a source chunk of a retrieved hyperedge (damped by 1/sqrt(#sources))."""
    retrieved: float = Field(default=0.3, ge=0)
    """Weight of the pipeline's entity scores (anchors, V_rel, their hop neighbours)
    relative to entities named by the query keywords (weight 1)."""
    feedback: float = Field(default=0.8, ge=0)
    """Share of a top first-pass chunk's score (direct + graph) given to the entities it
    mentions."""
    feedback_chunks: int = Field(default=3, ge=0)
    """How many top first-pass chunks feed their entities back."""
    ppr: float = Field(default=1.0, ge=0)
    """Weight (times ``graph``) of the personalised-PageRank evidence: relevance spread over
    the entity–hyperedge incidence graph from the query's entities, the retrieved ones and
    those of the best chunks (:class:`~.walk.EntityWalk`). 1.0 tuned on the MuSiQue dev
    questions."""
    ppr_damping: float = Field(default=0.5, ge=0, le=1)
    """Probability of following an incidence edge at each PPR step (1 − restart)."""
    spelling: float = Field(default=1.0, ge=0)
    """Seed weight of the entities linked by spelling to a capitalised query word that no
    chunk contains (:mod:`.lexicon`); the linked name also joins the BM25 query. 0 = off."""
    spelling_similarity: float = Field(default=0.5, gt=0, le=1)
    """Least character-trigram Dice similarity of such a spelling variant."""
    word_forms: bool = True
    """Replace a query word no chunk contains by the corpus words sharing its light stem."""
    vector_scaling: Literal["minmax", "max"] = "minmax"
    """How fused chunk-vector cosines are scaled to [0, 1]: ``"minmax"`` over the chunks the
    vector search returned (relative-score fusion; the last of them counts as not returned)
    or ``"max"`` (divided by the best only: the ranking before; the benchmark's ``-minmax``
    row). Chosen by reasoning, not tuned: see :func:`_direct`."""

    def for_embedder(self, embedder: object) -> RankWeights:
        """These weights with ``vector`` resolved for ``embedder`` when it is ``None``.

        An embedder is semantic when its ``semantic`` attribute says so, else when its
        ``name`` does not start with ``"hashing"`` (the offline lexical embedder).

        Example:
            >>> from hyperviz_core.rag.providers.offline import HashingEmbedder
            >>> RankWeights().for_embedder(HashingEmbedder()).vector
            0.0
            >>> RankWeights(vector=0.2).for_embedder(HashingEmbedder()).vector
            0.2
        """
        if self.vector is not None:
            return self
        semantic = semantic_embedder(embedder)
        return self.model_copy(update={"vector": SEMANTIC_VECTOR_WEIGHT if semantic else 0.0})

    def score_ceiling(self, mode: str) -> float:
        """The highest score a chunk can get in ``mode`` with these weights (``vector``
        resolved: :meth:`for_embedder`): ``bm25 + vector + graph·(home·seed + mention_cap +
        ppr)``, each part at most 1 (an entity's seed at most the largest seed weight), and 1
        in ``naive`` (the cosine relative to the best hit's).

        >>> RankWeights(vector=0.0).score_ceiling("vizrag"), RankWeights().score_ceiling("naive")
        (2.5, 1.0)
        """
        if mode == "naive":
            return 1.0
        seed = max(1.0, self.spelling, self.feedback, self.retrieved)
        return (self.bm25 + (self.vector or 0.0)
                + self.graph * (self.home * seed + self.mention_cap + self.ppr))


@dataclass
class ScoredChunk:
    """A chunk position with its final score, score parts and supporting entities."""

    index: int
    score: float
    parts: dict[str, float]
    entities: list[str] = field(default_factory=list)


def _fit(values: FloatArray, n: int) -> FloatArray:
    """``values`` padded with zeros to length ``n`` (positions a lazy index added later)."""
    if len(values) >= n:
        return values
    return np.concatenate([values, np.zeros(n - len(values), dtype=np.float64)])


def _scaled(values: FloatArray) -> FloatArray:
    top = float(values.max()) if values.size else 0.0
    return values / top if top > 0 else values


def _graph_scores(
    index: RankIndex, ents: Mapping[str, float], edges: Mapping[str, float], w: RankWeights
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


def _ppr_scores(index: RankIndex, query: str, ents: Mapping[str, float], w: RankWeights
                ) -> FloatArray:
    """Per-chunk PPR evidence in [0, 1], seeded by ``ents`` and the entities ``query`` names
    (zeros when the weight is 0 or there is no bottom layer)."""
    walk = index.walk if w.ppr > 0 and w.graph > 0 else None
    if walk is None:
        return np.zeros(len(index), dtype=np.float64)
    seeds = dict(ents)
    for key in walk.link(query):
        seeds[key] = 1.0
    return _scaled(walk.chunk_scores(seeds, w.ppr_damping))


def _support(index: RankIndex, pos: int, ents: Mapping[str, float], w: RankWeights
             ) -> list[str]:
    """The entities whose evidence reached chunk ``pos``, strongest first."""
    sup: dict[str, float] = {}
    for key in index.home_of[pos]:
        if ents.get(key, 0.0) > 0:
            sup[key] = w.home * ents[key]
    for key in index.chunk_entities[pos]:
        s = ents.get(key, 0.0)
        n_src = index.source_count(key) if s > 0 else 0
        if n_src:
            sup[key] = sup.get(key, 0.0) + w.mention * s / math.sqrt(n_src)
    return sorted(sup, key=lambda k: (-sup[k], k))[:8]


def _direct(index: RankIndex, query: str, vector_scores: Mapping[str, float] | None,
            w: RankWeights) -> tuple[FloatArray, FloatArray, FloatArray]:
    """(scaled BM25, scaled chunk-vector cosine, their weighted sum) of every chunk.

    When the vector scores are fused with other evidence they are min-max scaled over the
    chunks the vector search returned (relative-score fusion): the best gets 1, the last of
    the ``chunk_vector_k`` gets 0 — like every chunk the search did not return. Scaled by
    the maximum only, cosines bunch near the top (0.45–0.6 for MiniLM), so any chunk of the
    vector top-k would jump above every other chunk whatever its other evidence."""
    bm = _scaled(index.bm25(query))
    vec = np.zeros(len(index), dtype=np.float64)
    given = [(pos, max(float(s), 0.0)) for cid, s in sorted((vector_scores or {}).items())
             if (pos := index.position.get(cid)) is not None]
    if given:
        at = np.asarray([p for p, _ in given], dtype=np.int64)
        vals = np.asarray([s for _, s in given], dtype=np.float64)
        fused = w.bm25 > 0 or w.graph > 0
        low = float(vals.min()) if fused and w.vector_scaling == "minmax" else 0.0
        vec[at] = vals - low if float(vals.max()) > low else vals  # all equal: all 1
    vec = _scaled(vec)
    return bm, vec, w.bm25 * bm + (w.vector or 0.0) * vec


def _seeds(entity_scores: Mapping[str, float] | None, query_entities: Iterable[str],
           w: RankWeights) -> dict[str, float]:
    """Entity evidence: retrieved entities scaled to ``w.retrieved``, query entities 1."""
    ents: dict[str, float] = {}
    for key, s in (entity_scores or {}).items():
        ents[key] = max(ents.get(key, 0.0), float(s))
    top_ent = max(ents.values(), default=0.0)
    if top_ent > 0:
        ents = {k: w.retrieved * v / top_ent for k, v in ents.items()}
    for key in query_entities:
        ents[key] = 1.0
    return ents


def _feedback(index: RankIndex, ents: dict[str, float], final: FloatArray, w: RankWeights
              ) -> dict[str, float]:
    """``ents`` plus the entities of the best chunks, each with a share of its score."""
    fed = dict(ents)
    best = float(final.max())
    order = best_first(final, index.tiebreak(), w.feedback_chunks)
    for pos in order.tolist():
        share = w.feedback * float(final[pos]) / best
        for key in index.chunk_entities[pos]:
            if share > fed.get(key, 0.0):
                fed[key] = share
    return fed


def semantic_embedder(embedder: object) -> bool:
    """Whether ``embedder`` is semantic: its ``semantic`` attribute, else a ``name`` that
    does not start with ``"hashing"`` (the offline lexical embedder)."""
    flag = getattr(embedder, "semantic", None)
    return (bool(flag) if flag is not None
            else not str(getattr(embedder, "name", "")).startswith("hashing"))


def rank_chunks(
    index: RankIndex,
    query: str,
    *,
    entity_scores: Mapping[str, float] | None = None,
    query_entities: Iterable[str] = (),
    hyperedge_scores: Mapping[str, float] | None = None,
    vector_scores: Mapping[str, float] | None = None,
    weights: RankWeights | None = None,
    top_k: int = 5,
    lexical_query: str | None = None,
    filters: ChunkFilter | None = None,
) -> list[ScoredChunk]:
    """Rank the chunks of ``index`` for ``query`` and return the ``top_k`` best.

    Args:
        entity_scores: entity key → retrieval score (anchors, related entities, ...), scaled
            to ``RankWeights.retrieved`` at best.
        query_entities: entity keys named by the query (keywords linked by name): weight 1.
        hyperedge_scores: hyperedge id → retrieval score.
        vector_scores: chunk id → cosine similarity of the chunk vector to the query.
        lexical_query: text for BM25 (defaults to ``query``).
        filters: only chunks passing it are returned, in the order of the unfiltered
            scores (:func:`~.filters.matching_best`).
    Ties are broken by chunk id, so the ranking is deterministic.
    """
    w = weights or RankWeights()
    if index.total == 0 or top_k <= 0:
        return []
    lexical, spelled = lexical_query or query, []
    if (w.bm25 > 0 or w.graph > 0) and (w.spelling > 0 or w.word_forms):
        repair = index.lexicon().repair(query, w.spelling_similarity,
                                        spelling=w.spelling > 0, forms=w.word_forms)
        lexical, spelled = repair.lexical(lexical), repair.entities
    ents = _seeds(entity_scores, query_entities, w)
    for key in spelled:
        ents[key] = max(ents.get(key, 0.0), w.spelling)
    edges = {h: float(s) for h, s in (hyperedge_scores or {}).items() if float(s) > 0}
    restrict = getattr(index, "restrict", None) if filters is not None else None
    if restrict is not None:  # a lazy index adds the chunks PPR ranks among the matching
        restrict(filters)
    index.require(lexical_query=lexical, entities=ents, hyperedges=edges,
                  chunk_ids=sorted(vector_scores or {}), top_k=top_k)
    bm, vec, direct = _direct(index, lexical, vector_scores, w)
    # pass 1: direct similarity + evidence of the retrieved entities and hyperedges
    graph = _graph_scores(index, ents, edges, w)
    final = direct + w.graph * graph
    # pass 2: entities of the best pass-1 chunks feed back (bridges to the next hop)
    if w.feedback > 0 and w.feedback_chunks > 0 and float(final.max()) > 0:
        ents = _feedback(index, ents, final, w)
        index.require(entities=ents)  # a lazy index may grow: new chunks score 0 directly
        bm, vec, direct = (_fit(a, len(index)) for a in (bm, vec, direct))
        graph = _graph_scores(index, ents, edges, w)
        final = direct + w.graph * graph
    # pass 3: personalised PageRank over the entity–hyperedge incidence graph
    ppr = _ppr_scores(index, query, ents, w)
    n = len(index)
    bm, vec, graph, final, ppr = (_fit(a, n) for a in (bm, vec, graph, final, ppr))
    final = final + w.graph * w.ppr * ppr
    if filters is None:
        order = best_first(final, index.tiebreak(), min(top_k, n))
    else:
        order = matching_best(index, final, index.tiebreak(), top_k, filters)
        include = getattr(index, "include_first", None)  # a lazy index: the chunks that fill
        if order.size < top_k and include is not None and include(FILL_LIMIT):  # up (score 0)
            n = len(index)
            bm, vec, graph, final, ppr = (_fit(a, n) for a in (bm, vec, graph, final, ppr))
            order = matching_best(index, final, index.tiebreak(), top_k, filters)
    parts = {"bm25": bm, "vector": vec, "graph": graph, "ppr": ppr}
    return [ScoredChunk(index=pos, score=round(float(final[pos]), 6),
                        parts={name: round(float(a[pos]), 6) for name, a in parts.items()},
                        entities=_support(index, pos, ents, w))
            for pos in order.tolist()]


