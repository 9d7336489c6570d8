"""Vision-enhanced top-down retrieval (paper §4.2) over a :class:`HypergraphStore`.

Given a query ``q`` (mode ``vizrag``):

1. keywords ``X`` = LLM(P_keyword(q)) — offline :func:`heuristic_keywords`; never empty
   (falls back to the query text);
2. top retrieval: for each keyword the ``theme_k`` most similar theme hyperedges of G_top
   (vector space ``"theme"``); ``E_rel`` = their union;
3. the h-hop G_top sub-hypergraph around ``E_rel`` is rendered: ``I_top``;
4. locate: the MLLM answers entity IDs (``E#``) it sees in ``I_top`` (prompt ``locate``),
   mapped back through the rendering's :class:`IdMap` (unknown IDs and garbage are ignored
   and logged); offline the rendered entities are ranked by the renderer's importance
   (degree centrality + BM25 to ``q``). Anchors ``V̂`` = located ∪ members of ``E_rel``;
5. bottom retrieval: for each anchor the ``entity_k`` most similar G_bot entities (space
   ``"entity"``) → ``V_rel``; ``E_dif`` = hyperedges of ``V_rel``; the h-hop G_bot
   sub-hypergraph (score-bounded, see :func:`expand`) is rendered: ``I_bot``;
6. chunks are ranked by :func:`~hyperviz_core.rag.rank.rank_chunks` (hypergraph evidence +
   BM25 + chunk vectors). The answer (step 7) is :mod:`hyperviz_core.rag.answer`.

Other modes: ``text`` (same pipeline, no image anywhere: the model reads E#/H# listings),
``hyper-lite`` (bottom layer only: keywords → G_bot entities), ``naive`` (chunk vector search).

The pipeline is written once as a generator that *yields* model requests and receives the
answers, so the sync (:meth:`Retriever.retrieve`) and async (:meth:`Retriever.aretrieve`)
drivers share every line of it.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from pydantic import BaseModel, ConfigDict, Field

from ..idmap import IdMap
from ..model import Hypergraph
from ..prune import entity_importance
from .answer import theme_contexts
from .heuristic import heuristic_keywords
from .models import ChatModel, Embedder
from .parse_lists import parse_id_list, parse_json_list
from .prompts import Prompts
from .rank import ChunkIndex, RankWeights, expand, induced, rank_chunks, trim_descriptions
from .result import (
    RankedChunk,
    RenderedView,
    RetrievalResult,
    RetrievedEntity,
    RetrievedHyperedge,
    SentPrompt,
    image_sha256,
)
from .store import HypergraphStore
from .vectors import ExactVectorIndex, normalize_rows

__all__ = ["MODES", "LLMRequest", "RetrievalConfig", "Retriever", "UnknownModeError", "expand"]

log = logging.getLogger(__name__)

Mode = Literal["vizrag", "text", "hyper-lite", "naive"]
MODES: tuple[str, ...] = ("vizrag", "text", "hyper-lite", "naive")


class UnknownModeError(ValueError):
    """A retrieval mode that does not exist."""


def check_mode(mode: str) -> str:
    """``mode`` if valid, else :class:`UnknownModeError` listing the valid modes."""
    if mode not in MODES:
        raise UnknownModeError(f"unknown retrieval mode {mode!r}; valid modes: {', '.join(MODES)}")
    return mode


class RetrievalConfig(BaseModel):
    """Knobs of the retrieval pipeline (defaults used by the benchmark and the demo)."""

    model_config = ConfigDict(extra="forbid")

    mode: Mode = "vizrag"
    top_k: int = Field(5, ge=1)
    hops: int = Field(1, ge=0, le=3)
    theme_k: int = Field(3, ge=1)
    """Top-k theme hyperedges per keyword (top retrieval)."""
    entity_k: int = Field(3, ge=1)
    """Top-k G_bot entities per anchor (bottom retrieval) or per keyword (hyper-lite)."""
    locate_k: int = Field(8, ge=1)
    """Entities the locator may name (offline: the top-ranked rendered entities)."""
    max_keywords: int = Field(10, ge=1)
    max_themes: int = Field(12, ge=1)
    max_anchors: int = Field(8, ge=1)
    max_entities: int = Field(40, ge=2)
    """Cap of each h-hop sub-hypergraph (highest-scoring entities kept)."""
    hop_decay: float = Field(0.5, ge=0, le=1)
    chunk_vector_k: int = Field(50, ge=0)
    retrieval_visualization: bool = True
    """Send the renderings to the model (False = the paper's w/o-visualization ablation)."""
    congestion_control: bool = True
    dual_view: bool = True
    layouts: tuple[str, ...] = ("set-force", "bi-inc")
    render: bool = True
    """Render I_top/I_bot even without a model (for the viewer); False skips rendering."""
    weights: RankWeights = Field(default_factory=RankWeights)


@dataclass
class LLMRequest:
    """One model call requested by the pipeline."""

    stage: str
    prompt: str
    images: list[bytes] = field(default_factory=list)
    system: str | None = None
    json_mode: bool = True


Pipeline = Generator[LLMRequest, str, RetrievalResult]


@dataclass
class _State:
    bottom: Hypergraph
    top: Hypergraph
    chunks: ChunkIndex
    matrices: dict[str, tuple[list[str], npt.NDArray[np.float32]]] = field(default_factory=dict)


class Retriever:
    """Runs the retrieval pipeline over a store; caches per-store-state indexes."""

    def __init__(
        self,
        store: HypergraphStore,
        *,
        embedder: Embedder,
        chat: ChatModel | None = None,
        renderer: Any = None,
        prompts: Prompts | None = None,
        config: RetrievalConfig | None = None,
    ) -> None:
        self.store = store
        self.embedder = embedder
        self.chat = chat
        self.prompts = prompts or Prompts()
        self.config = config or RetrievalConfig()
        self._renderer = renderer
        self._state_cache: _State | None = None

    # ------------------------------------------------------------------ state
    def refresh(self) -> None:
        """Forget cached indexes (the next query rebuilds them from the store)."""
        self._state_cache = None

    def _state(self) -> _State:
        bottom, top = self.store.bottom(), self.store.top()
        st = self._state_cache
        if st is None or st.bottom is not bottom or st.top is not top:
            titles = {d.id: d.title for d in self.store.documents()}
            st = _State(bottom, top, ChunkIndex(self.store.chunks(), titles, bottom))
            self._state_cache = st
        return st

    def renderer(self, congestion_control: bool) -> Any:
        """The HyperViz used for I_top/I_bot (created lazily; no budget when disabled)."""
        from ..prune import Budget
        from ..render import HyperViz

        if self._renderer is not None:
            return self._renderer
        return HyperViz(budget=Budget() if congestion_control else Budget(enabled=False))

    # ------------------------------------------------------------------ drivers
    def retrieve(self, query: str, **overrides: Any) -> RetrievalResult:
        """Run the pipeline synchronously (``overrides`` = :class:`RetrievalConfig` fields)."""
        gen = self.pipeline(query, **overrides)
        try:
            req = next(gen)
            while True:
                assert self.chat is not None
                try:
                    answer = self.chat.complete(req.prompt, images=req.images,
                                                system=req.system, json_mode=req.json_mode)
                except Exception as exc:  # provider failure: the stage falls back
                    req = gen.throw(exc)
                    continue
                req = gen.send(answer)
        except StopIteration as stop:
            result: RetrievalResult = stop.value
            return result

    async def aretrieve(self, query: str, **overrides: Any) -> RetrievalResult:
        """Async :meth:`retrieve` (model calls awaited via ``acomplete``)."""
        gen = self.pipeline(query, **overrides)
        try:
            req = next(gen)
            while True:
                assert self.chat is not None
                try:
                    answer = await self.chat.acomplete(req.prompt, images=req.images,
                                                       system=req.system, json_mode=req.json_mode)
                except Exception as exc:
                    req = gen.throw(exc)
                    continue
                req = gen.send(answer)
        except StopIteration as stop:
            result: RetrievalResult = stop.value
            return result

    # ------------------------------------------------------------------ pipeline
    def pipeline(self, query: str, **overrides: Any) -> Pipeline:
        """The retrieval pipeline as a generator of :class:`LLMRequest` (see module doc)."""
        cfg = self.config.model_copy(update={k: v for k, v in overrides.items()
                                             if v is not None})
        check_mode(cfg.mode)
        cfg = RetrievalConfig.model_validate(cfg.model_dump())
        visual = cfg.mode in ("vizrag", "hyper-lite") and cfg.retrieval_visualization
        render = cfg.render and cfg.mode != "text" and cfg.retrieval_visualization
        res = RetrievalResult(query=query, mode=cfg.mode, top_k=cfg.top_k, settings={
            "hops": cfg.hops, "theme_k": cfg.theme_k, "entity_k": cfg.entity_k,
            "retrieval_visualization": cfg.retrieval_visualization,
            "congestion_control": cfg.congestion_control, "dual_view": cfg.dual_view,
            "images": visual and self.chat is not None, "rendered": render,
            "chat": getattr(self.chat, "model_name", None), "embedder": self.embedder.name})
        t_all = time.perf_counter()
        clock = [time.perf_counter()]

        def lap(stage: str) -> None:
            now = time.perf_counter()
            res.timings[stage] = round((now - clock[0]) * 1000, 3)
            clock[0] = now

        st = self._state()
        lap("load")
        if not query.strip() or not len(st.chunks):
            res.warnings.append("empty query" if not query.strip() else "the store is empty")
            res.timings["total"] = round((time.perf_counter() - t_all) * 1000, 3)
            return res
        qvec = self.embedder.embed([query])[0]
        vec_scores: dict[str, float] = {}
        if cfg.chunk_vector_k:
            vec_scores = dict(self._search(st, "chunk", qvec, cfg.chunk_vector_k)[0])
        lap("chunk_vectors")
        if cfg.mode == "naive":
            w = RankWeights(bm25=0.0, vector=1.0, graph=0.0, feedback=0.0)
            ranked = rank_chunks(st.chunks, query, vector_scores=vec_scores, weights=w,
                                 top_k=cfg.top_k)
            res.chunks = self._ranked(st, ranked)
            lap("rank")
            res.timings["total"] = round((time.perf_counter() - t_all) * 1000, 3)
            return res

        # 1. keywords
        keywords: list[str] = []
        if self.chat is not None:
            prompt = self.prompts.format("keyword", query=query, max_keywords=cfg.max_keywords)
            try:
                answer = yield LLMRequest("keywords", prompt, [], self.prompts.system_prompt())
                keywords = parse_json_list(answer)
                self._record(res, "keywords", prompt, [], answer)
            except Exception as exc:
                res.warnings.append(f"keyword model failed ({exc}); heuristic keywords used")
        if not keywords:
            keywords = heuristic_keywords(query, max_terms=cfg.max_keywords)
        keywords = [k for k in dict.fromkeys(" ".join(k.split()) for k in keywords) if k]
        res.keywords = keywords[: cfg.max_keywords] or [query.strip()]
        kw_vecs = self.embedder.embed(res.keywords)
        linked = self._linked(st, query, res.keywords)
        lap("keywords")

        v_rel: dict[str, float] = {}
        anchors: dict[str, float] = {}
        if cfg.mode == "hyper-lite":
            for hits in self._search(st, "entity", kw_vecs, cfg.entity_k):
                for key, sim in hits:
                    if key in st.bottom.entities and sim > v_rel.get(key, 0.0):
                        v_rel[key] = sim
            for key in linked:
                if key in st.bottom.entities:
                    v_rel[key] = 1.0
            lap("bottom_retrieval")
        else:
            # 2. top retrieval: themes per keyword
            e_rel: dict[str, float] = {}
            for hits in self._search(st, "theme", kw_vecs, cfg.theme_k):
                for hid, sim in hits:
                    if hid in st.top.hyperedges and sim > e_rel.get(hid, 0.0):
                        e_rel[hid] = sim
            themes = sorted(e_rel, key=lambda h: (-e_rel[h], h))[: cfg.max_themes]
            lap("top_retrieval")
            # 3. h-hop G_top subgraph + I_top
            seed = {m: e_rel[h] for h in reversed(themes) for m in st.top.hyperedges[h].members}
            t_ents, _ = expand(st.top, seed, cfg.hops, cfg.max_entities, cfg.hop_decay,
                               {h: e_rel[h] for h in themes})
            sub_top = induced(st.top, t_ents)
            top_imp = entity_importance(trim_descriptions(sub_top), query)
            lap("top_subgraph")
            top_ids, top_view = self._view(sub_top, query, cfg, render, {}, top_imp)
            res.top_view = top_view
            lap("top_render")
            # 4. locate
            located: list[str] = []
            offline = self.chat is None
            if self.chat is not None and top_ids.entities:
                images = [top_view.png] if (visual and top_view) else []
                contexts = theme_contexts(sub_top, themes, top_ids)
                prompt = self.prompts.format("locate", image=bool(images), query=query,
                                             contexts=contexts, max_ids=cfg.locate_k)
                try:
                    answer = yield LLMRequest("locate", prompt, images,
                                              self.prompts.system_prompt())
                    self._record(res, "locate", prompt, images, answer)
                    located = self._located(res, answer, top_ids)[: cfg.locate_k]
                except Exception as exc:
                    res.warnings.append(f"locate model failed ({exc}); offline locator used")
                    offline = True
            if offline:
                shown = [key for key in top_ids.entities if key in sub_top.entities]
                located = sorted(shown, key=lambda k: (-top_imp.get(k, 0.0), k))[: cfg.locate_k]
            res.located = located
            for r, key in enumerate(located):
                anchors[key] = max(anchors.get(key, 0.0), 1.0 - 0.5 * r / max(len(located), 1))
            for h in themes:  # V_dif = members of E_rel
                for m in st.top.hyperedges[h].members:
                    anchors[m] = max(anchors.get(m, 0.0), 0.8 * e_rel[h])
            for key in linked:  # entities the query names verbatim
                if key in st.bottom.entities:
                    anchors[key] = 1.0
            best = sorted(anchors, key=lambda k: (-anchors[k], k))[: cfg.max_anchors]
            anchors = {k: anchors[k] for k in best}
            res.anchors = best
            lap("locate")
            # 5. bottom retrieval per anchor
            names = [st.bottom.entities[k].name if k in st.bottom.entities
                     else st.top.entities[k].name for k in best]
            found = self._search(st, "entity", self.embedder.embed(names), cfg.entity_k
                                 ) if names else []
            for key, hits in zip(best, found, strict=True):
                for hit, sim in hits:
                    s = anchors[key] * max(sim, 0.0)
                    if hit in st.bottom.entities and s > v_rel.get(hit, 0.0):
                        v_rel[hit] = s
            for key in best:
                if key in st.bottom.entities and anchors[key] > v_rel.get(key, 0.0):
                    v_rel[key] = anchors[key]
            lap("bottom_retrieval")
        b_ents, b_edges = expand(st.bottom, v_rel, cfg.hops, cfg.max_entities, cfg.hop_decay)
        sub_bot = induced(st.bottom, b_ents)
        lap("bottom_subgraph")
        # 6. chunk ranking
        ranked = rank_chunks(st.chunks, query, entity_scores=b_ents, query_entities=linked,
                             hyperedge_scores=b_edges,
                             vector_scores=vec_scores, weights=cfg.weights, top_k=cfg.top_k,
                             lexical_query=query)
        res.chunks = self._ranked(st, ranked)
        lap("rank")
        texts = {c.chunk_id: c.text for c in res.chunks}
        bot_ids, bot_view = self._view(sub_bot, query, cfg, render, texts, b_ents)
        res.bottom_view = bot_view
        lap("bottom_render")
        self._collect(res, st, sub_top if cfg.mode != "hyper-lite" else None,
                      top_ids if cfg.mode != "hyper-lite" else None, anchors, v_rel, b_ents,
                      b_edges, sub_bot, bot_ids)
        res.timings["total"] = round((time.perf_counter() - t_all) * 1000, 3)
        return res

    # ------------------------------------------------------------------ helpers
    def _search(self, st: _State, space: str, queries: npt.ArrayLike, k: int
                ) -> list[list[tuple[str, float]]]:
        """Top-``k`` (id, cosine) per query row, best first, ties by id.

        With the default exact index all queries are scored in one matrix product over a
        per-store-state copy of the vectors; a replaced (framework) index is queried row by
        row through its own ``search``.
        """
        qs = np.atleast_2d(np.asarray(queries, dtype=np.float32))
        index = self.store.vector_index(space)
        if not isinstance(index, ExactVectorIndex):
            return [index.search(q, k) for q in qs]
        if space not in st.matrices:
            ids, mat = self.store.vectors(space)
            unit = normalize_rows(np.asarray(mat, dtype=np.float32))
            st.matrices[space] = (ids, np.ascontiguousarray(unit.T, dtype=np.float32))
        ids, mat_t = st.matrices[space]  # (dim, n): rows of used features are contiguous
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

    def _view(self, hg: Hypergraph, query: str, cfg: RetrievalConfig, render: bool,
              chunk_texts: dict[str, str], importance: dict[str, float]
              ) -> tuple[IdMap, RenderedView | None]:
        """Render ``hg`` (IDs from the rendering) or, without rendering, number its entities
        by ``importance`` (the IDs a text-only model reads)."""
        if not render:
            return IdMap.build(hg, importance), None
        layouts = tuple(cfg.layouts) if cfg.dual_view else tuple(cfg.layouts[:1])
        rendering = self.renderer(cfg.congestion_control).render(
            hg, layouts=layouts, query=query, chunk_texts=chunk_texts or None)
        return rendering.id_map, RenderedView.from_rendering(rendering)

    @staticmethod
    def _linked(st: _State, query: str, keywords: Sequence[str]) -> list[str]:
        """Entities named verbatim by the query or a keyword (document-title entities, and
        keywords equal to an entity name)."""
        from ..model import normalize_key

        found = set(st.chunks.link(query))
        for kw in keywords:
            found.update(st.chunks.link(kw))
            try:
                key = normalize_key(kw)
            except ValueError:
                continue
            if key in st.bottom.entities and len(key) >= 4:
                found.add(key)
        return sorted(found)

    @staticmethod
    def _record(res: RetrievalResult, stage: str, prompt: str, images: Sequence[bytes],
                answer: str) -> None:
        res.prompts.append(SentPrompt(stage=stage, prompt=prompt,
                                      images=[image_sha256(p) for p in images], response=answer))

    @staticmethod
    def _located(res: RetrievalResult, answer: str, ids: IdMap) -> list[str]:
        import re

        named = [f"E{int(n)}" for n in re.findall(r"\b[Ee]\s?-?(\d{1,6})\b", str(answer))]
        unknown = sorted(set(named) - set(ids.entities.values()), key=lambda v: int(v[1:]))
        if unknown:
            res.warnings.append(f"locate answer named unknown entity IDs {unknown} (ignored)")
        found = parse_id_list(answer, ids, kind="E")
        if not found:
            res.warnings.append("locate answer held no known entity ID (ignored): "
                                f"{str(answer)[:120]!r}")
        return [ids.entity_key(v) for v in found]

    @staticmethod
    def _ranked(st: _State, ranked: Sequence[Any]) -> list[RankedChunk]:
        out = []
        for r, sc in enumerate(ranked, 1):
            chunk = st.chunks.chunks[sc.index]
            out.append(RankedChunk(chunk_id=chunk.id, doc_id=chunk.doc_id, score=sc.score, rank=r,
                                   text=chunk.text, title=st.chunks.titles[sc.index],
                                   evidence=sc.parts, entities=sc.entities))
        return out

    @staticmethod
    def _collect(res: RetrievalResult, st: _State, sub_top: Hypergraph | None,
                 top_ids: IdMap | None, anchors: dict[str, float], v_rel: dict[str, float],
                 b_ents: dict[str, float], b_edges: dict[str, float], sub_bot: Hypergraph,
                 bot_ids: IdMap) -> None:
        for key in sorted(sub_bot.entities, key=lambda k: (-b_ents.get(k, 0.0), k)):
            ent = sub_bot.entities[key]
            role = "anchor" if key in anchors else "related" if key in v_rel else "context"
            res.entities.append(RetrievedEntity(
                key=key, name=ent.name, type=ent.type, description=ent.description,
                score=round(b_ents.get(key, 0.0), 6), layer="bottom", role=role,
                source_ids=list(ent.source_ids), visual_id=bot_ids.entities.get(key)))
        if sub_top is not None and top_ids is not None:
            seen = set(sub_bot.entities)
            for key in sorted(sub_top.entities, key=lambda k: (-anchors.get(k, 0.0), k)):
                if key in seen:
                    continue
                ent = sub_top.entities[key]
                res.entities.append(RetrievedEntity(
                    key=key, name=ent.name, type=ent.type, description=ent.description,
                    score=round(anchors.get(key, 0.0), 6), layer="top",
                    role="anchor" if key in anchors else "context",
                    source_ids=list(ent.source_ids), visual_id=top_ids.entities.get(key)))
            for hid in sorted(sub_top.hyperedges):
                edge = sub_top.hyperedges[hid]
                res.hyperedges.append(RetrievedHyperedge(
                    id=hid, kind="theme", members=list(edge.members),
                    description=edge.description, source_ids=list(edge.source_ids),
                    visual_id=top_ids.hyperedges.get(hid)))
        for hid in sorted(sub_bot.hyperedges, key=lambda h: (-b_edges.get(h, 0.0), h)):
            edge = sub_bot.hyperedges[hid]
            res.hyperedges.append(RetrievedHyperedge(
                id=hid, kind=edge.kind, members=list(edge.members), description=edge.description,
                score=round(b_edges.get(hid, 0.0), 6), source_ids=list(edge.source_ids),
                visual_id=bot_ids.hyperedges.get(hid)))
