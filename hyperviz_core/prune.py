"""Congestion control: visual occupation cost, entity importance and pruning (paper §3.1).

The cost of a drawing is measured on what is drawn (see :mod:`hyperviz_core.draw.cost` and
:func:`hyperviz_core.metrics.visual_cost`, which compute the same number from a scene and
from an export):

    C = Σ_v A_v·w_v + Σ_e L_e·w_e

with ``A_v`` the drawn area of entity ``v``'s node disk (px²) and ``L_e`` the drawn length of
hyperedge ``e`` (px): the boundary length of its region plus connectors in set panels, the
incidence segments plus the square's perimeter in induced panels — summed over every panel of
the image. While ``C > C_max = γ·A`` (``A`` the summed panel area), first the hyperedges
the drawing repeats go (one-member ones, and a member set drawn twice: the strongest one
stays), then the least important entities are pruned and the image is laid out again
(bounded iterations; a hyperedge that peeling leaves repeating another goes too, unless the
chosen drawing fits with all of them), where

    Importance(v) = α·degree_centrality(v) + β·BM25(description(v), query)

(hypergraph degree centrality = degree / number of hyperedges, re-read on the pruned graph
after every removal; BM25 from ``bm25s``, normalised to [0, 1] by the best score). Ties go
against entities that miss the query (only when β > 0), then by key. The caps
``max_entities``/``max_hyperedges`` are opt-in safety limits (default ``None``) applied
*after* the budget, and also when congestion control is off (``enabled=False``: then only
the caps cut); every removal is reported with its reason, ``"budget"`` or ``"cap"``.

Without a renderer, :func:`prune` falls back to :func:`estimate_cost`, a size-based estimate
of the same quantity (used by the examples below and by callers that never draw).

Example:
    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> from hyperviz_core.prune import Budget, prune
    >>> hg = Hypergraph(entities=[Entity(name=n) for n in "abcd"],
    ...                 hyperedges=[Hyperedge(id="h1", members=["a", "b", "c"]),
    ...                             Hyperedge(id="h2", members=["a", "b"])])
    >>> small, report = prune(hg, Budget(max_entities=3))
    >>> sorted(small.entities), report.entities, report.reasons["d"]
    (['a', 'b', 'c'], ['d'], 'cap')
    >>> small, report = prune(hg, Budget(gamma=0.02))  # C_max = 0.02 · 768·620 px²
    >>> sorted(small.entities), report.cost <= report.c_max, report.reasons
    (['a', 'b'], True, {'d': 'budget', 'c': 'budget'})
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from .model import Hypergraph
from .prune_importance import entity_importance
from .prune_peel import _dropped, _kept, _Peeler, _repeated, _without

__all__ = [
    "UNDRAWN_FACTOR",
    "Budget",
    "CostFn",
    "PruneReport",
    "PruneStep",
    "entity_importance",
    "estimate_cost",
    "peel_order",
    "prune",
]

Reason = Literal["budget", "cap"]
CostFn = Callable[[Hypergraph], tuple[float, float]]
"""Lays out a hypergraph and returns its drawn cost C and the budget C_max, in px²."""

UNDRAWN_FACTOR = 2.0
"""The whole input is not drawn when a bound proves its drawing at least this many times
over budget (:func:`prune`'s ``bound_fn``): that first layout only sizes the first cut,
and it costs minutes for hundreds of entities."""

ROUNDING_GUARD = 1e-3
"""A drawing is accepted when C ≤ C_max·(1 − guard), so a cost recomputed from the export
(coordinates rounded to 0.01 px) stays ≤ C_max."""


class Budget(BaseModel):
    """Congestion budget (defaults calibrated by ``benchmarks/probe_bench.py --calibrate``:
    a 30-entity sub-hypergraph is drawn whole, a 100-entity one is pruned)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    w_v: Annotated[float, Field(ge=1, le=10)] = 10.0
    """Weight of a node's drawn area in the cost."""
    w_e: Annotated[float, Field(ge=1, le=10)] = 1.0
    """Weight of a hyperedge's drawn length in the cost."""
    gamma: Annotated[float, Field(ge=0, le=1)] = 0.44
    """Share of the panel area the drawing may occupy (C_max = γ·A)."""
    alpha: Annotated[float, Field(ge=0, le=1)] = 0.6
    """Weight of degree centrality in the importance."""
    beta: Annotated[float, Field(ge=0, le=1)] = 0.4
    """Weight of the BM25 query match in the importance."""
    max_entities: Annotated[int, Field(ge=1, le=100_000)] | None = None
    """Opt-in safety cap on drawn entities, applied after the budget (reason ``"cap"``);
    it applies with congestion control off too."""
    max_hyperedges: Annotated[int, Field(ge=1, le=100_000)] | None = None
    """Opt-in safety cap on drawn hyperedges, applied after the budget (reason ``"cap"``);
    it applies with congestion control off too."""
    max_iterations: Annotated[int, Field(ge=1, le=50)] = 5
    """Re-layouts spent searching how many entities fit (proportional cuts, then regula falsi);
    past them the search stops at the best fitting drawing (or halves until one fits)."""
    enabled: bool = True
    """Congestion control (the budget). Off, nothing is pruned for cost; the caps, when
    set, still apply."""


class PruneStep(BaseModel):
    """One step of congestion control: a drawing of ``drawn`` entities measured at ``cost``
    against ``c_max`` (budget steps), or the caps (``reason="cap"``, cost of the drawing
    the caps were applied to). ``entities`` were removed relative to the previous step,
    ``restored`` put back (a search step that had cut too much)."""

    step: int
    reason: Reason
    drawn: int = 0
    cost: float
    """C of the drawing of this step (px²)."""
    c_max: float
    entities: list[str] = Field(default_factory=list)
    restored: list[str] = Field(default_factory=list)
    hyperedges: list[str] = Field(default_factory=list)


class PruneReport(BaseModel):
    """What pruning removed, and why (``reasons``: key or id → ``"budget"``/``"cap"``)."""

    entities: list[str] = Field(default_factory=list)
    """Keys of pruned entities, in removal order."""
    hyperedges: list[str] = Field(default_factory=list)
    """Ids of removed hyperedges (pruned directly or left with < 2 members)."""
    reasons: dict[str, str] = Field(default_factory=dict)
    steps: list[PruneStep] = Field(default_factory=list)
    cost_before: float = 0.0
    """C of the first drawing (everything), px²; a lower bound of it when
    :attr:`cost_before_bound` (the whole input was not drawn)."""
    cost_before_bound: bool = False
    """True when the input was not drawn whole: provably at least :data:`UNDRAWN_FACTOR`
    times over budget, or cut by the caps with congestion control off (given a
    ``bound_fn``). :attr:`cost_before` is then a lower bound."""
    cost: float = 0.0
    """C of the final drawing, px²."""
    c_max: float = 0.0
    """γ·A of the final drawing, px²."""
    layouts_run: int = 0
    """How many times the image was laid out (1 = no re-layout)."""
    importance: dict[str, float] = Field(default_factory=dict)
    w_v: float = 1.0
    w_e: float = 1.0

    @property
    def pruned(self) -> bool:
        """True when anything was removed."""
        return bool(self.entities or self.hyperedges)

    @property
    def cost_after(self) -> float:
        """Alias of :attr:`cost`."""
        return self.cost

    @property
    def cost_max(self) -> float:
        """Alias of :attr:`c_max`."""
        return self.c_max

    def removals(self) -> list[dict[str, str]]:
        """Every removal in order: ``{"key", "kind", "reason"}`` (entities, then
        hyperedges; reason ``"budget"`` or ``"cap"``)."""
        out = [{"key": k, "kind": "entity", "reason": self.reasons[k]} for k in self.entities]
        out += [{"key": h, "kind": "hyperedge", "reason": self.reasons[h]}
                for h in self.hyperedges]
        return out


def estimate_cost(
    hg: Hypergraph, budget: Budget, radius: float = 11.0, spacing: float = 10.0
) -> float:
    """A size-based estimate of C (px²) for callers that do not draw.

    Node disks ``π·r²``; a hyperedge's length as the perimeter of a band around its members,
    laid out ``2r + spacing`` apart.
    """
    cost = math.pi * radius**2 * budget.w_v * len(hg.entities)
    for edge in hg.hyperedges.values():
        span = max(len(edge.members) - 1, 0) * (2 * radius + spacing)
        cost += (2 * math.pi * (radius + 5.0) + 2.0 * span) * budget.w_e
    return cost


def peel_order(
    hg: Hypergraph, budget: Budget | None = None, query: str | None = None,
    importance: dict[str, float] | None = None,
) -> list[str]:
    """Every entity key in pruning order (least important first).

    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name=n) for n in "abc"],
    ...                 hyperedges=[Hyperedge(id="h1", members=["a", "b"]),
    ...                             Hyperedge(id="h2", members=["a", "c"])])
    >>> peel_order(hg)
    ['b', 'a', 'c']
    """
    budget = budget or Budget()
    imp = importance if importance is not None else entity_importance(
        hg, query, budget.alpha, budget.beta)
    use_query = bool(query and query.strip()) and budget.beta > 0
    match = entity_importance(hg, query, 0.0, 1.0) if use_query else {}
    peel = _Peeler(hg, budget.alpha, imp, match, max(len(hg.hyperedges), 1))
    out: list[str] = []
    for _ in range(len(hg.entities)):
        key = peel.lowest()
        peel.remove(key)
        out.append(key)
    return out


class _Search:
    """Finds the largest entity count (a suffix of the peel order) whose drawing fits.

    Each step measures one count: an overshoot suggests a proportional cut, a drawing well
    under budget after a cut is refined by regula falsi towards the smallest known overshoot.
    After ``max_iterations`` measurements without a fitting drawing the count halves.
    """

    def __init__(self, hg: Hypergraph, order: list[str], budget: Budget,
                 measure: Callable[[Hypergraph], tuple[float, float]],
                 report: PruneReport, bound: CostFn | None = None,
                 unrepeat: bool = False) -> None:
        self.hg, self.order, self.budget, self.report = hg, order, budget, report
        self.measure, self.bound = measure, bound
        self.unrepeat = unrepeat  # each count's drawing drops the hyperedges it repeats
        self.seen: dict[int, tuple[float, float]] = {}  # drawn
        self.bounded: dict[int, tuple[float, float]] = {}  # over budget by the bounds alone
        self.last = len(order)

    def _parts(self, k: int) -> tuple[Hypergraph, list[str]]:
        """The ``k`` last entities of the order with their hyperedges, and the ids of those
        peeling left repeated (none unless :attr:`unrepeat`)."""
        full = _kept(self.hg, self.order, k)
        return full, _repeated(full, self.hg) if self.unrepeat else []

    def kept(self, k: int) -> Hypergraph:
        """The drawing of count ``k``: the ``k`` last entities of the order, without the
        hyperedges peeling left repeated (when :attr:`unrepeat`)."""
        full, gone = self._parts(k)
        return _without(full, gone) if gone else full

    def final(self, k: int) -> tuple[Hypergraph, tuple[float, float] | None]:
        """The drawing of count ``k`` to keep, with its (C, C_max) when measured: with the
        hyperedges peeling left repeated when it fits with them too (they are other facts:
        "A sued B" beside "A married B in C" without C), else without them."""
        if not self.unrepeat or k not in self.seen or not self.fits(k):
            return self.kept(k), self.seen.get(k)
        full, gone = self._parts(k)
        if not gone:
            return full, self.seen[k]
        cost, cmax = self.measure(full)
        self.report.steps.append(PruneStep(step=len(self.report.steps) + 1, reason="budget",
                                           drawn=k, cost=round(cost, 3), c_max=round(cmax, 3)))
        if cost <= cmax * (1 - ROUNDING_GUARD):
            return full, (cost, cmax)
        return _without(full, gone), self.seen[k]

    def known(self, k: int) -> tuple[float, float]:
        """(C, C_max) of count ``k``: as drawn, else its bounds (then it is over budget)."""
        return self.seen[k] if k in self.seen else self.bounded[k]

    def hopeless(self, k: int, graph: Hypergraph) -> bool:
        """Whether the bounds alone put count ``k`` (``graph``) over budget (it is then not
        drawn: a dense neighbourhood's first cut took minutes to lay out)."""
        if self.bound is None:
            return False
        low, high = self.bound(graph)
        if low <= high * (1 - ROUNDING_GUARD):
            return False
        self.bounded[k] = (low, high)
        return True

    def fits(self, k: int) -> bool:
        cost, cmax = self.seen[k]
        return cost <= cmax * (1 - ROUNDING_GUARD)

    def visit(self, k: int, graph: Hypergraph | None = None) -> None:
        self.seen[k] = self.measure(graph if graph is not None else self.kept(k))
        n = len(self.order)
        prev, self.last = self.last, k
        step = PruneStep(step=len(self.report.steps) + 1, reason="budget", drawn=k,
                         cost=round(self.seen[k][0], 3), c_max=round(self.seen[k][1], 3),
                         entities=self.order[n - prev: n - k] if k < prev else [],
                         restored=self.order[n - k: n - prev] if k > prev else [])
        self.report.steps.append(step)

    def run(self, cost: float, cmax: float) -> int:
        n = len(self.order)
        self.seen[n] = (cost, cmax)
        lo, hi = 0, n  # largest count known to fit, smallest known not to
        if self.fits(n):
            return n
        for it in range(1, 4 * self.budget.max_iterations + 64):
            if hi - lo <= 1 and lo > 0:
                break
            c_hi, m_hi = self.known(hi)
            guess = math.floor(hi * m_hi / c_hi) if c_hi > 0 else hi - 1
            if it > self.budget.max_iterations:
                if lo > 0:
                    break
                guess = hi // 2
            elif lo > 0:
                c_lo, m_lo = self.seen[lo]
                if c_lo >= 0.9 * m_lo:
                    break  # close enough: stop refining
                # regula falsi between the fitting and the overshooting count
                frac = (m_lo - c_lo) / (c_hi - c_lo) if c_hi > c_lo else 0.5
                guess = lo + math.floor((hi - lo) * frac)
            k = min(max(guess, lo + 1, 1), hi - 1)
            if k < 1:
                break
            graph = self.kept(k)  # bounded, then drawn: made once
            if k > 1 and self.hopeless(k, graph):
                hi = k
                continue
            self.visit(k, graph)
            if self.fits(k):
                lo = k
            else:
                hi = k
        return max(lo, 1)


class _Caps:
    """Safety caps applied after the budget (reason ``"cap"``)."""

    @staticmethod
    def apply(out: Hypergraph, budget: Budget, order: list[str], imp: dict[str, float]
              ) -> tuple[Hypergraph, list[str], list[str]]:
        """``out`` (a copy: it may be modified) capped, with the removed entities and
        hyperedges in removal order."""
        ents: list[str] = []
        edges: list[str] = []
        if budget.max_entities is not None and len(out.entities) > budget.max_entities:
            ents = [key for key in order if key in out.entities]
            ents = ents[: len(ents) - budget.max_entities]  # the least important first
            edges = _dropped(out, ents)
            out = _kept(out, ents, 0)
        if budget.max_hyperedges is not None and len(out.hyperedges) > budget.max_hyperedges:
            weakest = sorted(out.hyperedges, key=lambda h: (
                sum(imp.get(m, 0.0) for m in out.members(h)),
                -len(out.hyperedges[h].members), h))
            for hid in weakest[: len(out.hyperedges) - budget.max_hyperedges]:
                members = out.members(hid)
                out.remove_hyperedge(hid)
                edges.append(hid)
                for m in members:  # entities left without any hyperedge go with it
                    if out.degree(m) == 0:
                        out.remove_entity(m)
                        ents.append(m)
        return out, ents, edges


def _unrepeated(hg: Hypergraph, first: tuple[float, float], report: PruneReport,
                measure: CostFn, bound: CostFn | None) -> tuple[Hypergraph, float, float]:
    """``hg`` without the hyperedges its drawing repeats (one-member ones, a member set
    drawn twice: :func:`~.prune_peel._repeated`), and its (C, C_max), as drawn or, when the
    bounds put it :data:`UNDRAWN_FACTOR` times over budget, its bounds; ``hg`` itself and its
    first measurement ``first`` when it repeats none. The removal is a step of ``report``."""
    gone = _repeated(hg)
    if not gone:
        return hg, *first
    base = _without(hg, gone)
    low, high = bound(base) if bound is not None and len(base.entities) > 1 else (0.0, 1.0)
    cost, cmax = (low, high) if low >= UNDRAWN_FACTOR * high else measure(base)
    report.steps.append(PruneStep(step=len(report.steps) + 1, reason="budget",
                                  drawn=len(base.entities), cost=round(cost, 3),
                                  c_max=round(cmax, 3), hyperedges=gone))
    return base, cost, cmax


def _cut(
    hg: Hypergraph, budget: Budget, query: str | None, imp: dict[str, float],
    report: PruneReport, measure: CostFn, first: tuple[float, float],
    bound: CostFn | None = None, priority: Mapping[str, float] | None = None,
) -> tuple[Hypergraph, float, float]:
    """The budget's search (congestion control on), then the caps: the kept copy of ``hg``
    and its (C, C_max); every removal, its reason and the steps go into ``report``. Over
    budget, the hyperedges the drawing repeats go first (:func:`_unrepeated`), and each
    count's peeling drops those it leaves repeated, kept after all when the chosen count
    fits with them (:meth:`_Search.final`)."""
    cost, cmax = first
    base, over = hg, budget.enabled and cost > cmax * (1 - ROUNDING_GUARD)
    if over:
        base, cost, cmax = _unrepeated(hg, (cost, cmax), report, measure, bound)
        if base is not hg:
            imp = report.importance = entity_importance(base, query, budget.alpha,
                                                        budget.beta, priority)
    order = peel_order(base, budget, query, imp)
    search = _Search(base, order, budget, measure, report, bound, unrepeat=over)
    k = search.run(cost, cmax) if budget.enabled else len(order)
    out, known = search.final(k)
    removed = order[: len(order) - k]
    out, cap_ents, cap_edges = _Caps.apply(out, budget, order, imp)
    report.entities = removed + cap_ents
    lost = [h for h in sorted(hg.hyperedges) if h not in out.hyperedges]
    report.hyperedges = [h for h in lost if h not in cap_edges] + cap_edges
    report.reasons = {key: "budget" for key in removed}
    report.reasons.update({key: "budget" for key in report.hyperedges})
    report.reasons.update({key: "cap" for key in [*cap_ents, *cap_edges]})
    if cap_ents or cap_edges:
        report.steps.append(PruneStep(step=len(report.steps) + 1, reason="cap",
                                      drawn=len(out.entities), cost=round(cost, 3),
                                      c_max=round(cmax, 3), entities=cap_ents,
                                      hyperedges=cap_edges))
    if cap_ents or cap_edges or known is None:
        return out, *measure(out)
    return out, *known  # the caller's drawing of ``out`` is already made


def prune(
    hg: Hypergraph,
    budget: Budget | None = None,
    query: str | None = None,
    cost_fn: CostFn | None = None,
    *,
    panel_area: float = 768.0 * 620.0,
    radius: float = 11.0,
    bound_fn: CostFn | None = None,
    priority: Mapping[str, float] | None = None,
) -> tuple[Hypergraph, PruneReport]:
    """Prune ``hg`` to the budget; returns (pruned copy, report). The input is not modified
    (when nothing is pruned, the input itself is returned: treat it as read-only).

    ``cost_fn(h) -> (C, C_max)`` draws ``h`` and measures it (the renderer passes one and
    keeps its drawings: the returned hypergraph has always been measured, the last
    measurement of it is final); without it :func:`estimate_cost` and
    ``γ·panel_area`` stand in. The budget runs first: the least important entities go until
    the drawing fits (a search over how many to keep, bounded by ``max_iterations``); then
    the caps, if set (also with ``budget.enabled`` false: then only they cut). Hyperedges
    left with fewer than two members disappear with their members, with the same reason.

    ``bound_fn(h) -> (lower bound of C, upper bound of C_max)`` says without drawing what
    any drawing of ``h`` must cost (the renderer's: its node disks alone over the largest
    panels): an input at least :data:`UNDRAWN_FACTOR` times over budget by it is not drawn
    whole, the search starts from the bounds (``report.cost_before_bound``); nor is an input
    the caps cut with congestion control off; nor any count of the search the bounds put
    over budget (it is taken as an overshoot at its bound, without a layout).

    ``priority`` adds the caller's bonus to the importance of the entities it names
    (:func:`~.prune_importance.entity_importance`): with a bonus above 1 they outlast every
    entity without one.
    """
    budget = budget or Budget()
    imp = entity_importance(hg, query, budget.alpha, budget.beta, priority)
    report = PruneReport(importance=imp, w_v=budget.w_v, w_e=budget.w_e)

    def measure(h: Hypergraph) -> tuple[float, float]:
        report.layouts_run += 1
        if cost_fn is not None:
            return cost_fn(h)
        return estimate_cost(h, budget, radius), budget.gamma * panel_area

    out = hg  # measured as is; replaced by a pruned copy below (the input is never modified)
    capped = ((budget.max_entities is not None and len(hg.entities) > budget.max_entities)
              or (budget.max_hyperedges is not None
                  and len(hg.hyperedges) > budget.max_hyperedges))
    bound = (bound_fn(hg) if bound_fn is not None and (budget.enabled or capped)
             and len(hg.entities) > 1 else None)
    if bound is not None and (bound[0] >= UNDRAWN_FACTOR * bound[1] or not budget.enabled):
        cost, cmax = bound  # far over budget, or cut by the caps anyway: not drawn whole
        report.cost_before_bound = True
    else:
        cost, cmax = measure(out)
    report.cost_before = round(cost, 3)
    over = budget.enabled and cost > cmax * (1 - ROUNDING_GUARD)
    if (len(out.entities) > 1 or out.hyperedges) and (over or capped):
        out, cost, cmax = _cut(hg, budget, query, imp, report, measure, (cost, cmax),
                               bound_fn, priority)
    report.cost, report.c_max = round(cost, 3), round(cmax, 3)
    return out, report
