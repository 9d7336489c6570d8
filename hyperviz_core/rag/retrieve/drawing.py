"""Drawing a retrieval's views: what a view is given (:func:`drawable`), which of its
entities congestion control keeps first (:func:`ranked_priority`), and the rendering with
its ``render`` hook events (:func:`render_view`) or, without one, the IDs a text-only model
reads (:func:`text_ids`, the same facts first).

I_bot is drawn after ranking: the facts that come from the ranked passages (those the answer
prompt lists) are kept first by the safety limit of hyperedges, and their members get a
priority above any importance of the renderer's own, so a view over budget peels the other
facts first; among them, and among the rest, the renderer's importance decides. Before
(I_bot drawn before ranking), 0.41–0.50 of the drawn facts came from the five passages
ranked first (``benchmarks/view_facts_bench.py``; README "Congestion control").
"""

from __future__ import annotations

import time
from collections.abc import Generator, Iterable, Sequence
from typing import Any

from ...idmap import IdMap
from ...model import Hypergraph
from ..hooks import HookEvent, elapsed_ms, error_text
from ..result import RankedChunk, RenderedView
from .state import LLMRequest, RetrievalState
from .subgraph import limit_hyperedges

__all__ = ["RANKED_FACT_PRIORITY", "drawable", "ranked_facts", "ranked_priority", "render_view",
           "text_ids"]

#: the priority of a ranked passage's fact and its members: above any importance of the
#: renderer's own (α·degree centrality + β·BM25 ≤ α + β ≤ 2)
RANKED_FACT_PRIORITY = 2.0


def ranked_facts(hg: Hypergraph, ranked: Sequence[RankedChunk]) -> dict[str, float]:
    """Hyperedge id → :data:`RANKED_FACT_PRIORITY` for each fact (hyperedge) of ``hg`` one
    of whose source chunks is a ranked passage; facts of no ranked passage get none.

    >>> from types import SimpleNamespace as NS
    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name=n) for n in "abcd"], hyperedges=[
    ...     Hyperedge(id="h1", members=["a", "b"], source_ids=["c2"]),
    ...     Hyperedge(id="h2", members=["b", "c"], source_ids=["c1", "c7"]),
    ...     Hyperedge(id="h3", members=["c", "d"], source_ids=["c9"])])
    >>> ranked_facts(hg, [NS(chunk_id="c1"), NS(chunk_id="c2")])
    {'h1': 2.0, 'h2': 2.0}
    """
    passages = {chunk.chunk_id for chunk in ranked}
    return {hid: RANKED_FACT_PRIORITY for hid in sorted(hg.hyperedges)
            if not passages.isdisjoint(hg.hyperedges[hid].source_ids)}


def ranked_priority(hg: Hypergraph, facts: dict[str, float]) -> dict[str, float]:
    """Entity key → priority for congestion control: the best priority of the facts
    (:func:`ranked_facts`) of ``hg`` it is a member of; none for entities of no such fact.

    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name=n) for n in "abc"], hyperedges=[
    ...     Hyperedge(id="h1", members=["a", "b"]), Hyperedge(id="h2", members=["b", "c"])])
    >>> ranked_priority(hg, {"h1": 2.0, "gone": 2.0})
    {'a': 2.0, 'b': 2.0}
    """
    best: dict[str, float] = {}
    for hid in sorted(facts):
        edge = hg.hyperedges.get(hid)
        for member in edge.members if edge is not None else []:
            best[member] = max(best.get(member, 0.0), facts[hid])
    return dict(sorted(best.items()))


def drawable(st: RetrievalState, view: str, sub: Hypergraph, limit: int,
             edge_scores: dict[str, float], entity_scores: dict[str, float],
             anchors: Iterable[str], first: dict[str, float] | None = None) -> Hypergraph:
    """What a rendered view is given: ``sub`` with at most ``limit`` of its best hyperedges,
    those ``first`` names (:func:`ranked_facts`) before any other (a safety limit: a dense
    neighbourhood, hundreds of facts around a few hubs, would take most of a minute to lay
    out); ``sub`` itself when not rendering or within it."""
    if view not in st.views:
        return sub
    return limit_hyperedges(sub, limit, edge_scores, entity_scores,
                            keep=[k for k in anchors if k in sub.entities], first=first)


def text_ids(hg: Hypergraph, entity_scores: dict[str, float], edge_scores: dict[str, float],
             facts: dict[str, float] | None = None) -> IdMap:
    """The IDs a text-only model reads (no rendering): the members of ``facts``
    (:func:`ranked_facts`) first, then entities by ``entity_scores``; ``facts`` first, then
    hyperedges by ``edge_scores``; ties by key. The answer prompt lists (and describes,
    within its budget) items by ID, so the ranked passages' facts are described first.

    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name=n) for n in "abc"], hyperedges=[
    ...     Hyperedge(id="h1", members=["a", "b"]), Hyperedge(id="h2", members=["b", "c"])])
    >>> ids = text_ids(hg, {"a": 0.9, "c": 0.1}, {"h1": 0.8, "h2": 0.2}, {"h2": 2.0})
    >>> ids.entities, ids.hyperedges
    ({'c': 'E1', 'b': 'E2', 'a': 'E3'}, {'h2': 'H1', 'h1': 'H2'})
    """
    first = facts or {}
    bonus = ranked_priority(hg, first)
    ents = sorted(hg.entities, key=lambda k: (-bonus.get(k, 0.0),
                                              -entity_scores.get(k, 0.0), k))
    edges = sorted(hg.hyperedges, key=lambda h: (-first.get(h, 0.0), -edge_scores.get(h, 0.0), h))
    return IdMap.numbered(ents, edges)


def render_view(st: RetrievalState, hg: Hypergraph, view: str, importance: dict[str, float],
                edge_scores: dict[str, float], facts: dict[str, float] | None = None,
                ) -> Generator[LLMRequest | HookEvent, Any, tuple[IdMap, RenderedView | None]]:
    """Render ``hg`` (IDs from the rendering, ``render`` hook events; the members of
    ``facts`` get their priority as in :meth:`HyperViz.render
    <hyperviz_core.HyperViz.render>`) or, without rendering, number it by :func:`text_ids`
    (the IDs a text-only model reads)."""
    if view not in st.views:
        return text_ids(hg, importance, edge_scores, facts), None
    cfg = st.cfg
    layouts = tuple(cfg.layouts) if cfg.dual_view else tuple(cfg.layouts[:1])
    base = {"view": view, "entities": len(hg.entities), "hyperedges": len(hg.hyperedges)}
    yield HookEvent("render", "start", dict(base))
    t0 = time.perf_counter()
    try:
        rendering = st.renderer(cfg.congestion_control).render(
            hg, layouts=layouts, query=st.query,
            priority=ranked_priority(hg, facts) if facts else None)
    except Exception as exc:
        yield HookEvent("render", "error", {**base, "error": error_text(exc),
                                            "elapsed_ms": elapsed_ms(t0)})
        raise
    out = RenderedView.from_rendering(rendering)
    yield HookEvent("render", "end", {
        **base, "shown_entities": len(rendering.id_map.entities),
        "shown_hyperedges": len(rendering.id_map.hyperedges), "width": out.width,
        "height": out.height, "sha256": out.sha256, "elapsed_ms": elapsed_ms(t0)})
    return rendering.id_map, out
