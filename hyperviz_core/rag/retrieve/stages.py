"""The retrieval stages (paper §4.2), one generator function each over a :class:`RetrievalState`.

``keywords`` → ``themes`` → ``top_view`` → ``locate`` → ``bottom_entities`` → ``rank`` →
``bottom_view`` (the ``answer`` stage is :mod:`hyperviz_core.rag.answer`, run by the engine).
:data:`MODE_STAGES` says which stages each mode runs; :func:`run_stage` wraps one stage in
its hook events and timing. A stage returns the payload of its ``end`` event (IDs and sizes).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Generator
from typing import Any

from ...idmap import IdMap
from ...model import Hypergraph
from ..answer import theme_contexts
from ..extract.heuristic import heuristic_keywords
from ..extract.parse.fields import answer_text
from ..extract.parse.lists import parse_json_list, read_ids
from ..hooks import HookEvent, elapsed_ms, error_text
from ..providers.protocols import embed_query
from ..query_usage import check_halt
from ..result import (
    UNMATCHED_WARNING,
    RetrievalResult,
    SentPrompt,
    image_sha256,
)
from ..vectors import query_vectors
from .chance import offline_located, reached_by_chance
from .collect import ranked_chunks
from .collisions import checked_search
from .drawing import drawable, ranked_facts, render_view
from .evidence import attach_evidence
from .filter_miss import filter_miss
from .filters import widened_vector_scores
from .importance import entity_importance
from .rank import RankWeights, rank_chunks
from .repair import repair_for_views
from .search import linked_entities, search
from .shown import shown_graph, shown_payload
from .state import LLMRequest, RetrievalState, Step
from .subgraph import DESCRIPTION_CHARS, expand, induced

__all__ = ["MODE_STAGES", "NO_KNOWN_ID", "bottom_entities", "bottom_view", "keywords", "locate",
           "rank", "run_stage", "themes", "top_view"]

log = logging.getLogger(__name__)

#: the start of the warning of a locate answer that names no entity ID of I_top
NO_KNOWN_ID = "locate answer held no known entity ID"

#: a stage: a generator (when it may call the model or render) or a plain function; both
#: return the payload of the stage's ``end`` event
Stage = Callable[[RetrievalState], Step | dict[str, Any]]


def run_stage(name: str, stage: Stage, st: RetrievalState) -> Step:
    """Run ``stage`` between its ``start`` and ``end`` (or ``error``) hook events; its time
    goes to ``res.timings[name]``."""
    yield HookEvent(name, "start", {"mode": st.cfg.mode})
    t0 = time.perf_counter()
    try:
        out = stage(st)
        payload = out if isinstance(out, dict) else (yield from out)
    except Exception as exc:
        yield HookEvent(name, "error", {"error": error_text(exc), "elapsed_ms": elapsed_ms(t0)})
        raise
    ms = elapsed_ms(t0)
    st.res.timings[name] = ms
    yield HookEvent(name, "end", {**shown_payload(st, payload), "elapsed_ms": ms})
    return payload


def _record(res: RetrievalResult, req: LLMRequest, answer: str) -> None:
    res.prompts.append(SentPrompt(stage=req.stage, prompt=req.prompt, system=req.system,
                                  images=[image_sha256(p) for p in req.images],
                                  response=answer))


def _embed(st: RetrievalState, texts: list[str], *, query: bool = False) -> Any:
    """The embedder's vectors of ``texts`` (``query``: of the one search query, through
    :func:`embed_query`), checked: finite, one per text, of its ``dim``
    (:func:`~..vectors.query_vectors`), asked once per query (:func:`ask`). Not asked once
    the engine's close gave up waiting for the query (:func:`~..query_usage.check_halt`)."""
    key = ("embed", query, *texts)
    if key not in st.asked:  # an attempt run again: the vectors the first one got
        check_halt()
        emb = st.embedder
        got = [embed_query(emb, texts[0])] if query else emb.embed(texts)
        st.asked[key] = query_vectors(got, len(texts), int(getattr(emb, "dim", 0) or 0),
                                      str(getattr(emb, "name", type(emb).__name__)))
    return st.asked[key].copy()


def _warn(res: RetrievalResult, text: str) -> None:
    """Record a problem (a model's, or passages nothing matched) on the result and log it as a
    warning (this module's logger; ``vizrag query`` says the result's warnings itself)."""
    res.warnings.append(text)
    log.warning("retrieval of %r: %s", res.query[:80], text)


def ask(st: RetrievalState, req: LLMRequest) -> Generator[LLMRequest, Any, str]:
    """The model's answer to ``req``, asked once per query: an attempt that runs again
    (the store changed under the first) gets the answer an identical request of an earlier
    attempt received (:attr:`~.state.RetrievalState.answers`) instead of a second call,
    paid for and waited on while the pinned attempt holds the engine's stages lock (the
    embedder's vectors likewise: :func:`_embed`). A failed request is asked again."""
    key = req.key()
    if key not in st.asked:
        st.asked[key] = yield req
    answer: str = st.asked[key]
    return answer


# ---------------------------------------------------------------------------- stages
def keywords(st: RetrievalState) -> Step:
    """Query keywords X: the keyword extractor's, else LLM(P_keyword(q)), else
    :func:`heuristic_keywords`; never empty."""
    cfg, res = st.cfg, st.res
    found: list[str] = []
    if st.keyword_extractor is not None:
        found = _extracted_keywords(st)
    elif st.chat is not None:
        prompt = st.prompts.format("keyword", query=st.query, max_keywords=cfg.max_keywords)
        try:
            req = LLMRequest("keywords", prompt, [], st.prompts.system_prompt())
            answer = yield from ask(st, req)
            found = parse_json_list(answer)
            _record(res, req, answer)
            if not found:
                _warn(res, "keyword answer held no list of strings; heuristic keywords used")
        except Exception as exc:
            _warn(res, f"keyword model failed ({exc}); heuristic keywords used")
    if not found:
        found = heuristic_keywords(st.query, max_terms=cfg.max_keywords)
    found = [k for k in dict.fromkeys(" ".join(k.split()) for k in found) if k]
    res.keywords = found[: cfg.max_keywords] or [st.query.strip()]
    st.kw_vecs = _embed(st, res.keywords)
    st.linked = linked_entities(st.corpus, st.query, res.keywords)
    repair_for_views(st)  # misspelt names and word forms, for the views too
    return {"keywords": list(res.keywords), "linked": list(st.linked),
            "spelled": list(st.spelled)}


def _extracted_keywords(st: RetrievalState) -> list[str]:
    """The keyword extractor's keywords of the query (strings); a failure or another reply
    is a warning naming its class, and the heuristic keywords are used."""
    name = type(st.keyword_extractor).__name__
    try:
        check_halt()
        reply = st.keyword_extractor.keywords(st.query)
        found = [] if isinstance(reply, str | bytes) else list(reply)  # one str: refused
    except Exception as exc:
        _warn(st.res, f"keyword extractor {name} failed ({error_text(exc)}); heuristic "
                      "keywords used")
        return []
    if isinstance(reply, str | bytes) or not all(isinstance(k, str) for k in found):
        _warn(st.res, f"keyword extractor {name} returned {str(reply)[:60]!r}, not a list "
                      "of strings; heuristic keywords used")
        return []
    return found


def themes(st: RetrievalState) -> dict[str, Any]:
    """Top retrieval: the ``theme_k`` most similar G_top themes per keyword → E_rel."""
    assert st.kw_vecs is not None
    found = checked_search(st, "theme", st.res.keywords, st.kw_vecs, st.cfg.theme_k)
    known = st.corpus.known_themes({hid for hits in found for hid, _ in hits})
    for hits in found:
        for hid, sim in hits:
            if hid in known and sim > st.e_rel.get(hid, 0.0):
                st.e_rel[hid] = sim
    st.themes = sorted(st.e_rel, key=lambda h: (-st.e_rel[h], h))[: st.cfg.max_themes]
    st.theme_members = st.corpus.theme_members(st.themes)
    return {"themes": list(st.themes)}


def top_view(st: RetrievalState) -> Step:
    """The h-hop G_top sub-hypergraph around E_rel, rendered as I_top."""
    cfg = st.cfg
    seed = {m: st.e_rel[h] for h in reversed(st.themes) for m in st.theme_members[h]}
    top = st.corpus.layer("top", seed, cfg.hops)
    t_ents, t_edges = expand(top, seed, cfg.hops, cfg.max_entities, cfg.hop_decay,
                             {h: st.e_rel[h] for h in st.themes})
    st.sub_top = sub = induced(top, t_ents)
    st.top_imp = entity_importance(sub, st.view_query, description_chars=DESCRIPTION_CHARS)
    st.top_shown = shown = shown_graph(st, sub)  # under filters=, what passing chunks say
    drawn = drawable(st, "top", shown, cfg.render_max_themes, t_edges, t_ents, ())
    st.top_ids, st.res.top_view = yield from render_view(st, drawn, "top", st.top_imp,
                                                            t_edges)
    return {"entities": len(shown.entities), "hyperedges": len(shown.hyperedges),
            "rendered": st.res.top_view is not None,
            "render_hyperedge_limit": cfg.render_max_themes,
            "render_hyperedges_limited": drawn is not shown}


def _parse_located(res: RetrievalResult, answer: str, ids: IdMap, hg: Hypergraph) -> list[str]:
    """The entity keys a locate answer names: by ID (ranges expanded), or by the exact name
    of an entity with an ID (case and width folded: its key)."""
    answer = answer_text(answer)  # ids a reasoning model names while it thinks do not count
    names = {key: vid for key, vid in ids.entities.items() if key in hg.entities}
    found, unknown = read_ids(answer, ids, kind="E", names=names)
    if unknown:
        _warn(res, f"locate answer named unknown entity IDs {unknown} (ignored)")
    if not found:
        _warn(res, f"{NO_KNOWN_ID}; offline locator used: {str(answer)[:120]!r}")
    return [ids.entity_key(v) for v in found]


def _model_locate(st: RetrievalState) -> Generator[LLMRequest, str, list[str] | None]:
    """Entity keys the model names in I_top (None when the model failed or named none of
    them: the offline locator decides)."""
    assert st.top_ids is not None and st.sub_top is not None
    view = st.res.top_view
    images = [view.png] if (st.visual and view) else []
    contexts = theme_contexts(st.top_shown or st.sub_top, st.themes, st.top_ids)
    prompt = st.prompts.format("locate", image=bool(images), query=st.query,
                               contexts=contexts, max_ids=st.cfg.locate_k)
    try:
        req = LLMRequest("locate", prompt, images, st.prompts.system_prompt())
        answer = yield from ask(st, req)
        _record(st.res, req, answer)
        return _parse_located(st.res, answer, st.top_ids, st.sub_top)[: st.cfg.locate_k] or None
    except Exception as exc:
        _warn(st.res, f"locate model failed ({exc}); offline locator used")
        return None


def locate(st: RetrievalState) -> Step:
    """Entities located in I_top (model, else G_top's by importance); anchors V̂ = located ∪
    members of E_rel ∪ entities the query names."""
    assert st.top_ids is not None and st.sub_top is not None
    cfg, res = st.cfg, st.res
    located: list[str] | None = None  # None: the offline locator decides
    if st.chat is not None:
        located = (yield from _model_locate(st)) if st.top_ids.entities else []
    # offline, a view reached by chance (:mod:`.chance`) anchors nothing: its central
    # entities' evidence, scaled to the best, would outrank the passage BM25 matches
    by_chance = located is None and reached_by_chance(st)
    if located is None:  # structural: G_top's entities, drawn or not (a rendering's
        # congestion control must not change what is retrieved)
        located = [] if by_chance else offline_located(st)
    res.located = located = located or []
    anchors: dict[str, float] = {}
    for r, key in enumerate(located):
        anchors[key] = max(anchors.get(key, 0.0), 1.0 - 0.5 * r / max(len(located), 1))
    for h in [] if by_chance else st.themes:  # V_dif = members of E_rel
        for m in st.theme_members[h]:
            anchors[m] = max(anchors.get(m, 0.0), 0.8 * st.e_rel[h])
    named = st.named()  # entities the query names (misspelt: :mod:`.repair`)
    for key in sorted(st.corpus.known_entities(named)):
        anchors[key] = max(anchors.get(key, 0.0), named[key])
    best = sorted(anchors, key=lambda k: (-anchors[k], k))[: cfg.max_anchors]
    st.anchors = {k: anchors[k] for k in best}
    res.anchors = best
    return {"located": list(located), "anchors": list(best)}


def bottom_entities(st: RetrievalState) -> dict[str, Any]:
    """Bottom retrieval: the ``entity_k`` most similar G_bot entities per anchor (per
    keyword in ``hyper-lite``) → V_rel, and the score-bounded h-hop G_bot sub-hypergraph
    around it that ranking reads."""
    corpus, cfg, v_rel = st.corpus, st.cfg, st.v_rel
    if cfg.mode == "hyper-lite":
        assert st.kw_vecs is not None
        found = checked_search(st, "entity", st.res.keywords, st.kw_vecs, cfg.entity_k)
        named = st.named()
        known = corpus.known_entities({k for hits in found for k, _ in hits} | set(named))
        for hits in found:
            for key, sim in hits:
                if key in known and sim > v_rel.get(key, 0.0):
                    v_rel[key] = sim
        for key, s in named.items():
            if key in known:
                v_rel[key] = max(v_rel.get(key, 0.0), s)
    else:
        names_of = corpus.entity_names(st.anchors)
        best = [k for k in st.anchors if k in names_of]
        names = [names_of[k] for k in best]
        found = (checked_search(st, "entity", names, _embed(st, names), cfg.entity_k)
                 if names else [])
        known = corpus.known_entities({h for hits in found for h, _ in hits} | set(best))
        for key, hits in zip(best, found, strict=True):
            for hit, sim in hits:
                s = st.anchors[key] * max(sim, 0.0)
                if hit in known and s > v_rel.get(hit, 0.0):
                    v_rel[hit] = s
        for key in best:
            if key in known and st.anchors[key] > v_rel.get(key, 0.0):
                v_rel[key] = st.anchors[key]
    related = sorted(v_rel, key=lambda k: (-v_rel[k], k))
    bottom = st.corpus.layer("bottom", st.v_rel, cfg.hops)
    st.b_ents, st.b_edges = expand(bottom, st.v_rel, cfg.hops, cfg.max_entities,
                                   cfg.hop_decay)
    st.sub_bot = induced(bottom, st.b_ents)
    return {"entities": related}


def bottom_view(st: RetrievalState) -> Step:
    """The score-bounded h-hop G_bot sub-hypergraph around V_rel, rendered as I_bot after
    ranking: congestion control keeps the facts of the ranked passages first
    (:func:`~.drawing.ranked_priority`)."""
    cfg, sub = st.cfg, st.sub_bot
    assert sub is not None
    limited = False
    ent_scores, edge_scores = st.b_ents, st.b_edges
    if "bottom" in st.views and cfg.render_max_entities > cfg.max_entities:
        # ranking keeps the capped set above; the drawing is bounded by the congestion
        # budget, the wider neighbourhood only by the safety limits
        bottom = st.corpus.layer("bottom", st.v_rel, cfg.hops)
        ent_scores, edge_scores = expand(bottom, st.v_rel, cfg.hops, cfg.render_max_entities,
                                         cfg.hop_decay)
        limited = len(ent_scores) >= cfg.render_max_entities
        st.sub_bot = sub = induced(bottom, ent_scores)
    st.sub_bot = sub = shown_graph(st, sub)  # under filters=, what passing chunks say
    facts = ranked_facts(sub, st.res.chunks)
    drawn = drawable(st, "bottom", sub, cfg.render_max_hyperedges, edge_scores, ent_scores,
                     st.v_rel, facts)
    st.bot_ids, st.res.bottom_view = yield from render_view(
        st, drawn, "bottom", st.b_ents, edge_scores, facts)
    attach_evidence(st)  # the views' exports: their hyperedges' source chunk texts
    return {"entities": len(sub.entities), "hyperedges": len(sub.hyperedges),
            "rendered": st.res.bottom_view is not None,
            "render_limit": cfg.render_max_entities, "render_limited": limited,
            "render_hyperedge_limit": cfg.render_max_hyperedges,
            "render_hyperedges_limited": drawn is not sub}


def _vector_scores(st: RetrievalState, weights: RankWeights, index: Any = None
                   ) -> dict[str, float]:
    """Chunk-vector cosine of the query, computed only when its weight counts; with an
    ``index`` (``naive`` mode) and a filter, widened until ``top_k`` hits pass it."""
    cfg = st.cfg
    if not weights.vector or not cfg.chunk_vector_k:
        return {}
    qvec = _embed(st, [st.query], query=True)[0]
    if index is not None and cfg.filters is not None:
        return widened_vector_scores(
            index, cfg.filters, lambda k: dict(search(st.store, st.corpus, "chunk", qvec, k)[0]),
            cfg.chunk_vector_k, cfg.top_k)
    return dict(search(st.store, st.corpus, "chunk", qvec, cfg.chunk_vector_k)[0])


def rank(st: RetrievalState) -> dict[str, Any]:
    """Rank the chunks (hypergraph evidence + BM25 [+ chunk vectors]); the ranked passages
    also become the I_bot viewer's passages."""
    cfg, res = st.cfg, st.res
    index = st.corpus.rank_index()
    if cfg.mode == "naive":
        w = RankWeights(bm25=0.0, vector=1.0, graph=0.0, feedback=0.0)
        ranked = rank_chunks(index, st.query, vector_scores=_vector_scores(st, w, index),
                             weights=w, top_k=cfg.top_k, filters=cfg.filters)
    else:
        w = cfg.weights.for_embedder(st.embedder)  # vector weight by embedder when unset
        ranked = rank_chunks(index, st.query, entity_scores=st.b_ents,
                             query_entities=st.linked, hyperedge_scores=st.b_edges,
                             vector_scores=_vector_scores(st, w), weights=w,
                             top_k=cfg.top_k, lexical_query=st.query,
                             filters=cfg.filters)
    res.chunks = ranked_chunks(index, ranked)
    if cfg.mode != "naive":  # graph evidence alone (anchors located by chance) is no match
        res.matched = bool(st.linked) or any(
            c.evidence.get("bm25", 0.0) > 0 or (w.vector and c.evidence.get("vector", 0.0) > 0)
            for c in res.chunks)
    if res.unmatched:  # recorded on the result and logged once per query
        _warn(res, UNMATCHED_WARNING)
    if cfg.filters is not None and not res.chunks and index.total:
        _warn(res, filter_miss(index, cfg.filters))
    return {"chunks": [c.chunk_id for c in res.chunks]}


#: the stages each mode runs, in order (``answer`` follows in ``query``/``aquery``)
MODE_STAGES: dict[str, tuple[tuple[str, Stage], ...]] = {
    "vizrag": (("keywords", keywords), ("themes", themes), ("top_view", top_view),
               ("locate", locate), ("bottom_entities", bottom_entities),
               ("rank", rank), ("bottom_view", bottom_view)),
    "hyper-lite": (("keywords", keywords), ("bottom_entities", bottom_entities),
                   ("rank", rank), ("bottom_view", bottom_view)),
    "naive": (("rank", rank),),
}
MODE_STAGES["text"] = MODE_STAGES["vizrag"]
