"""Congestion control: visual occupation cost, entity importance and pruning (paper §3.1).

The cost of drawing a hypergraph on one panel is

    C = Σ_v A_v·w_v + Σ_e L_e·b·w_e

with ``A_v`` the footprint of a node disk (radius plus half the spacing), ``L_e`` an estimate of
the drawn contour length of hyperedge ``e`` and ``b`` the band width of a contour. When
``C > C_max = γ·A`` (``A`` the panel area) the lowest-importance entities are pruned, where

    Importance(v) = α·degree_centrality(v) + β·BM25(description(v), query)

(hypergraph degree centrality = degree / number of hyperedges; BM25 from ``bm25s``, normalised to
[0, 1] by the best score). Hard caps ``max_entities`` and ``max_hyperedges`` apply as well.

Example:
    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> from hyperviz_core.prune import Budget, prune
    >>> hg = Hypergraph(entities=[Entity(name=n) for n in "abcd"],
    ...                 hyperedges=[Hyperedge(id="h1", members=["a", "b", "c"]),
    ...                             Hyperedge(id="h2", members=["a", "b"])])
    >>> small, report = prune(hg, Budget(max_entities=3))
    >>> sorted(small.entities), report.entities
    (['a', 'b', 'c'], ['d'])
"""

from __future__ import annotations

import heapq
import math
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field

from .model import Hypergraph

__all__ = ["Budget", "PruneReport", "entity_importance", "estimate_cost", "prune"]


class Budget(BaseModel):
    """Congestion budget of one panel (defaults keep ≤ 30 entities, cut 100+ to ~40/25)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    w_v: Annotated[float, Field(ge=1, le=10)] = 1.0
    """Weight of a node footprint in the cost."""
    w_e: Annotated[float, Field(ge=1, le=10)] = 1.0
    """Weight of a hyperedge contour in the cost."""
    gamma: Annotated[float, Field(ge=0, le=1)] = 0.2
    """Share of the panel area the drawing may occupy (C_max = γ·A)."""
    alpha: Annotated[float, Field(ge=0, le=1)] = 0.6
    """Weight of degree centrality in the importance."""
    beta: Annotated[float, Field(ge=0, le=1)] = 0.4
    """Weight of the BM25 query match in the importance."""
    max_entities: Annotated[int, Field(ge=1, le=10_000)] = 40
    max_hyperedges: Annotated[int, Field(ge=1, le=10_000)] = 25
    enabled: bool = True


class PruneReport(BaseModel):
    """What pruning removed, and why."""

    entities: list[str] = Field(default_factory=list)
    """Keys of pruned entities, in removal order."""
    hyperedges: list[str] = Field(default_factory=list)
    """Ids of removed hyperedges (pruned directly or left with < 2 members)."""
    reasons: dict[str, str] = Field(default_factory=dict)
    """Key or id → reason (``"cost"``, ``"max_entities"``, ``"max_hyperedges"``, ...)."""
    cost_before: float = 0.0
    cost_after: float = 0.0
    cost_max: float = 0.0
    importance: dict[str, float] = Field(default_factory=dict)

    @property
    def pruned(self) -> bool:
        """True when anything was removed."""
        return bool(self.entities or self.hyperedges)


def _bm25_scores(hg: Hypergraph, keys: list[str], query: str) -> list[float]:
    import bm25s

    corpus = []
    for k in keys:
        ent = hg.entities[k]
        corpus.append(f"{ent.name} {ent.type} {ent.description}")
    q_tokens = bm25s.tokenize([query], stopwords="en", show_progress=False, return_ids=False)
    if not q_tokens or not q_tokens[0]:
        return [0.0] * len(keys)
    tokens = bm25s.tokenize(corpus, stopwords="en", show_progress=False)
    retriever = bm25s.BM25()
    retriever.index(tokens, show_progress=False)
    known = [t for t in q_tokens[0] if t in tokens.vocab]
    if not known:
        return [0.0] * len(keys)
    scores = retriever.get_scores(known)
    best = float(max(scores)) if len(scores) else 0.0
    if best <= 0:
        return [0.0] * len(keys)
    return [round(float(s) / best, 9) for s in scores]


def entity_importance(
    hg: Hypergraph, query: str | None = None, alpha: float = 0.6, beta: float = 0.4
) -> dict[str, float]:
    """α·degree centrality + β·normalised BM25(name + type + description, query) per entity.

    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name="a", description="radium"), Entity(name="b")],
    ...                 hyperedges=[Hyperedge(id="h", members=["a", "b"])])
    >>> entity_importance(hg, "radium")
    {'a': 1.0, 'b': 0.6}
    """
    keys = sorted(hg.entities)
    if not keys:
        return {}
    m = max(len(hg.hyperedges), 1)
    cent = [hg.degree(k) / m for k in keys]
    bm = _bm25_scores(hg, keys, query) if query and query.strip() and beta > 0 else [0.0] * len(
        keys
    )
    return {k: round(alpha * c + beta * b, 9) for k, c, b in zip(keys, cent, bm, strict=True)}


def _hyperedge_len(size: int, radius: float, spacing: float) -> float:
    pad = radius + 5.0
    return 2 * math.pi * pad + 2.0 * max(size - 1, 0) * (2 * radius + spacing + 8.0)


def estimate_cost(
    hg: Hypergraph, budget: Budget, radius: float = 11.0, spacing: float = 10.0
) -> float:
    """The visual occupation cost C of ``hg`` in px² (before layout, from sizes only)."""
    a_v = math.pi * (radius + spacing / 2.0) ** 2
    band = radius / 2.0
    cost = a_v * budget.w_v * len(hg.entities)
    for edge in hg.hyperedges.values():
        cost += _hyperedge_len(len(edge.members), radius, spacing) * band * budget.w_e
    return cost


def _edge_importance(hg: Hypergraph, hid: str, imp: dict[str, float]) -> float:
    return sum(imp.get(m, 0.0) for m in hg.hyperedges[hid].members)


class _Peeler:
    """Lowest current importance first: α·(current degree / m₀) + β·BM25, ties against
    entities that miss the query, then by key. Degrees are re-read after every removal
    (like k-core peeling), so the kept entities still share hyperedges."""

    def __init__(self, hg: Hypergraph, budget: Budget, imp0: dict[str, float],
                 match: dict[str, float], m0: int) -> None:
        self.hg, self.m0 = hg, m0
        self.alpha = budget.alpha
        # the query part of the importance: what remains after the centrality term
        self.bm = {k: imp0[k] - budget.alpha * hg.degree(k) / m0 for k in hg.entities}
        self.match = {k: match.get(k, 0.0) > 0 for k in hg.entities}
        self.value: dict[str, float] = {}
        self.heap: list[tuple[float, bool, str]] = []
        for k in sorted(hg.entities):
            self.touch(k)

    def touch(self, key: str) -> None:
        val = round(self.alpha * self.hg.degree(key) / self.m0 + self.bm[key], 9)
        if self.value.get(key) != val:
            self.value[key] = val
            heapq.heappush(self.heap, (val, self.match[key], key))

    def lowest(self) -> str:
        while self.heap:
            val, _, key = heapq.heappop(self.heap)
            if key in self.hg.entities and self.value.get(key) == val:
                return key
        raise RuntimeError("no entity left to prune")  # pragma: no cover - guarded by callers

    def remove(self, key: str) -> list[str]:
        touched = {m for hid in self.hg.neighbors(key) for m in self.hg.members(hid)}
        gone = self.hg.remove_entity(key)
        for m in sorted(touched - {key}):
            if m in self.hg.entities:
                self.touch(m)
        return gone


def prune(
    hg: Hypergraph,
    budget: Budget | None = None,
    query: str | None = None,
    panel_area: float = 768.0 * 620.0,
    radius: float = 11.0,
) -> tuple[Hypergraph, PruneReport]:
    """Prune ``hg`` to the budget; returns (pruned copy, report). The input is not modified.

    Entities are removed lowest importance first, the centrality term re-read on the pruned
    graph after every removal (so what is kept stays connected); ties go against entities
    that do not match the query, then key order. Hyperedges left with fewer than two members
    disappear with them; entities orphaned by hyperedge pruning are removed too.
    """
    budget = budget or Budget()
    out = hg.copy()
    imp = entity_importance(hg, query, budget.alpha, budget.beta)
    match = entity_importance(hg, query, 0.0, 1.0) if query and query.strip() else {}
    cmax = budget.gamma * panel_area
    report = PruneReport(cost_before=round(estimate_cost(hg, budget, radius), 3),
                         cost_max=round(cmax, 3), importance=imp)
    if not budget.enabled:
        report.cost_after = report.cost_before
        return out, report
    degree0 = {k: hg.degree(k) for k in hg.entities}
    peel = _Peeler(out, budget, imp, match, max(len(hg.hyperedges), 1))

    def drop(key: str, reason: str) -> None:
        for hid in peel.remove(key):
            report.hyperedges.append(hid)
            report.reasons[hid] = "fewer than 2 members left"
        report.entities.append(key)
        report.reasons[key] = reason

    while len(out.entities) > budget.max_entities:
        drop(peel.lowest(), "max_entities")
    if len(out.hyperedges) > budget.max_hyperedges:
        edge_order = sorted(
            out.hyperedges,
            key=lambda h: (_edge_importance(out, h, imp), -len(out.hyperedges[h].members), h),
        )
        for hid in edge_order[: len(out.hyperedges) - budget.max_hyperedges]:
            members = out.members(hid)
            out.remove_hyperedge(hid)
            report.hyperedges.append(hid)
            report.reasons[hid] = "max_hyperedges"
            for m in members:
                if out.degree(m) == 0 and degree0.get(m, 0) > 0:
                    drop(m, "orphaned by hyperedge pruning")
                else:
                    peel.touch(m)
    while len(out.entities) > 1 and estimate_cost(out, budget, radius) > cmax:
        drop(peel.lowest(), "cost")
    report.cost_after = round(estimate_cost(out, budget, radius), 3)
    return out, report
