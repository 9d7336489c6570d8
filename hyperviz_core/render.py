"""HyperViz: render a hypergraph as a dual view (or any set of layouts) for multimodal LLMs.

Example:
    >>> from hyperviz_core.render import HyperViz
    >>> from hyperviz_core.testing import random_hypergraph
    >>> r = HyperViz().render(random_hypergraph(12, 6, seed=1), layouts=("set-force", "bi-inc"))
    >>> r.png[:4], (r.width, r.height), r.layouts
    (b'\\x89PNG', (1536, 768), ['set-force', 'bi-inc'])
    >>> r.metrics["purity"], r.metrics["node_overlaps"]
    (1.0, 0)
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, TypeVar

from .draw import (
    CanvasPlan,
    PanelScene,
    build_geometry,
    edge_colors,
    edge_dash,
    place_labels,
    plan_canvas,
    rasterize,
    visual_order,
)
from .draw.cost import panel_area, scene_cost
from .draw.legend import distinct_looks, footer_lines
from .draw.raster import draw_figure
from .draw.scene import node_radius
from .draw.text import measure, truncate
from .export import build_caption, build_export
from .idmap import IdMap
from .layouts import INDUCED_LAYOUTS, SET_LAYOUTS, LayoutOrder, get_layout, layout_kind
from .model import Hypergraph
from .prune import ROUNDING_GUARD, Budget, PruneReport, entity_importance, prune
from .prune_importance import checked_priority
from .rendering import Redraw, Rendering
from .style import Style
from .unitext import isolate
from .wording import TITLE_QUERY, counted

__all__ = ["HyperViz", "Rendering", "footer_text", "render_collage"]

DEFAULT_LAYOUTS: tuple[str, str] = ("set-force", "bi-inc")
MAX_PANELS = 12
#: the drawn title is cut to this many characters (a long one cost seconds to shape)
TITLE_CHARS = 200


def _norm_layouts(layouts: str | Sequence[str] | None) -> list[str]:
    if layouts is None:
        names = list(DEFAULT_LAYOUTS)
    elif isinstance(layouts, str):
        names = [layouts]
    elif isinstance(layouts, Sequence) and not isinstance(layouts, bytes | bytearray) \
            and all(isinstance(x, str) for x in layouts):
        names = list(layouts)
    else:
        raise TypeError(f"layouts must be a layout name or a list of names, got "
                        f"{layouts!r:.60}")
    if not names:
        raise ValueError("at least one layout is needed")
    if len(names) > MAX_PANELS:
        raise ValueError(f"at most {MAX_PANELS} layouts per image, got {len(names)}")
    for name in names:
        get_layout(name)  # raises ValueError for unknown names
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:  # a layout is deterministic: a second panel would repeat the first
        raise ValueError(f"layout {twice[0]!r} is given twice: each layout draws one panel")
    return names


_M = TypeVar("_M", Style, Budget)


def _model(cls: type[_M], value: Any, name: str) -> _M:
    """``value`` as a ``cls`` (None: the defaults; a mapping: validated into one)."""
    if value is None:
        return cls()
    if isinstance(value, cls):
        return value
    if isinstance(value, Mapping):
        return cls.model_validate(value)
    raise TypeError(f"{name} must be a {cls.__name__} (or a dict of its fields), got "
                    f"{type(value).__name__}")


def _check_input(hg: Any, query: Any, chunk_texts: Any, title: Any) -> None:
    """Clear errors for arguments of the wrong type (they failed deep inside, unnamed)."""
    if not isinstance(hg, Hypergraph):
        raise TypeError(f"render() takes a Hypergraph, got {type(hg).__name__} (build one "
                        "with Hypergraph(entities=..., hyperedges=...) or Hypergraph.from_hif)")
    for name, value in (("query", query), ("title", title)):
        if value is not None and not isinstance(value, str):
            raise TypeError(f"{name} must be a string, got {type(value).__name__}")
    if chunk_texts is not None and not isinstance(chunk_texts, Mapping):
        raise TypeError(f"chunk_texts must map chunk ids to texts, got "
                        f"{type(chunk_texts).__name__}")


class HyperViz:
    """The HyperViz renderer: congestion control, layouts, regions, labels, legend, PNG.

    >>> from hyperviz_core.testing import random_hypergraph
    >>> viz = HyperViz(style=Style(show_entity_names=False), budget=Budget(max_entities=20))
    >>> r = viz.render(random_hypergraph(40, 20, seed=3), layouts="set-radial")
    >>> len(r.id_map.entities) <= 20, r.pruning.pruned, r.pruning.cost <= r.pruning.c_max
    (True, True, True)
    """

    def __init__(
        self,
        style: Style | None = None,
        budget: Budget | None = None,
        layouts: Sequence[str] = DEFAULT_LAYOUTS,
        *,
        show_progress: bool = False,
    ) -> None:
        self.style = _model(Style, style, "style")
        self.budget = _model(Budget, budget, "budget")
        self.layouts = _norm_layouts(layouts)
        #: a tqdm bar counting the drawings congestion control lays out (a dense input can
        #: take minutes); off by default, ``vizrag render`` shows it on a terminal
        self.show_progress = show_progress

    # ------------------------------------------------------------------ public
    def render(
        self,
        hypergraph: Hypergraph,
        layouts: str | Sequence[str] | None = None,
        query: str | None = None,
        chunk_texts: Mapping[str, str] | None = None,
        title: str | None = None,
        *,
        priority: Mapping[str, float] | None = None,
    ) -> Rendering:
        """Render one image: one panel per layout (two = the dual view, side by side).

        Size: two layouts fill ``style.width`` × ``style.height``; one layout is one
        dual-view panel wide (``max(200, style.width // 2)``) and ``style.height`` high;
        three or more go to :meth:`render_collage` (3 columns). A footer that needs more
        than one line (say, a one-layout image's pruning note) wraps; its strip takes the
        lines from the panels, the canvas keeps its size.

        ``priority`` (entity key → bonus) is added to congestion control's importance of
        the entities it names: they are peeled last, and numbered first (E1, E2, ...).
        :meth:`VizRAG.retrieve <hyperviz_core.rag.VizRAG.retrieve>` gives the entities of
        its best-ranked passages' facts one."""
        _check_input(hypergraph, query, chunk_texts, title)
        bonus = checked_priority(priority)
        names = _norm_layouts(layouts if layouts is not None else self.layouts)
        k = len(names)
        if k <= 2:
            width = self.style.width if k == 2 else max(200, self.style.width // 2)
            return self._render(hypergraph, names, query, chunk_texts, title, cols=k,
                                width=width, height=self.style.height, panel_h=None,
                                priority=bonus)
        return self.render_collage(hypergraph, names, cols=3, query=query,
                                   chunk_texts=chunk_texts, title=title, priority=bonus)

    async def arender(
        self,
        hypergraph: Hypergraph,
        layouts: str | Sequence[str] | None = None,
        query: str | None = None,
        chunk_texts: Mapping[str, str] | None = None,
        title: str | None = None,
        *,
        priority: Mapping[str, float] | None = None,
    ) -> Rendering:
        """:meth:`render` in a worker thread (the event loop keeps running)."""
        return await asyncio.to_thread(self.render, hypergraph, layouts, query, chunk_texts,
                                       title, priority=priority)

    def render_collage(
        self,
        hypergraph: Hypergraph,
        layouts: str | Sequence[str] | None = None,
        cols: int = 3,
        query: str | None = None,
        chunk_texts: Mapping[str, str] | None = None,
        title: str | None = None,
        *,
        priority: Mapping[str, float] | None = None,
    ) -> Rendering:
        """A bounded grid of panels (``cols`` 1–4, at most 12 layouts), one per layout.

        Each cell is ``max(200, style.width // 2)`` px wide and 0.85 times that high: the
        canvas is ``cols`` cells wide and as high as its rows plus the title, legend and
        footer strips (``style.height`` only bounds the legend, to 30 % of it);
        ``priority`` as in :meth:`render`."""
        names = _norm_layouts(layouts if layouts is not None else
                              [*SET_LAYOUTS, *INDUCED_LAYOUTS])  # the six built-in ones
        _check_input(hypergraph, query, chunk_texts, title)
        bonus = checked_priority(priority)
        if isinstance(cols, bool) or not isinstance(cols, int):
            raise TypeError(f"cols must be a whole number from 1 to 4, got {cols!r}")
        if not 1 <= cols <= 4:
            raise ValueError(f"cols must be between 1 and 4, got {cols}")
        cols = min(cols, len(names))
        side = max(200, self.style.width // 2)
        return self._render(hypergraph, names, query, chunk_texts, title, cols=cols,
                            width=side * cols, height=self.style.height,
                            panel_h=round(side * 0.85), priority=bonus)

    # ------------------------------------------------------------------ work
    def _render(
        self, hg: Hypergraph, names: list[str], query: str | None,
        chunk_texts: Mapping[str, str] | None, title: str | None, *, cols: int, width: int,
        height: int, panel_h: float | None, priority: dict[str, float],
    ) -> Rendering:
        style = self.style
        drawn: dict[tuple[frozenset[str], frozenset[str]], _Drawing] = {}
        budget = self.budget
        by = "congestion control" if budget.enabled else "the caps"

        from tqdm.auto import tqdm

        bar = tqdm(desc="laying out", unit="drawing", disable=not self.show_progress)

        def cost_fn(h: Hypergraph) -> tuple[float, float]:
            # labels only for a drawing whose geometry fits: placing them can only add
            # length (a label pocket grows its region), so an overshoot stays one
            bar.set_postfix_str(f"{len(h.entities)} entities, {len(h.hyperedges)} facts")
            d = _draw(h, names, style, cols, width, height, panel_h, importance, hg, by)
            bar.update()
            drawn[_key(h)] = d
            cost, cmax = d.cost(budget), d.c_max(budget)
            overflow = max(s.overflow for s in d.scenes)
            if overflow > 1.0:  # overlapping nodes: over budget, by at least the overflow
                return max(cost, cmax * overflow), cmax
            if cost <= cmax * (1 - ROUNDING_GUARD):
                d.label(h, style)
                cost = d.cost(budget)
            return cost, cmax

        def bound_fn(h: Hypergraph) -> tuple[float, float]:
            return _cost_bounds(h, names, style, budget, cols=cols, width=width,
                                height=height, panel_h=panel_h)

        importance = entity_importance(hg, query, budget.alpha, budget.beta, priority)
        try:
            small, report = prune(hg, budget, query, cost_fn, bound_fn=bound_fn,
                                  priority=priority)
        finally:
            bar.close()
        d = drawn[_key(small)]  # prune's last measurement of this graph: no re-layout
        if not d.labelled:  # congestion control off, or nothing fits at all
            d.label(small, style)
            report.cost = round(d.cost(budget), 3)
        given = style.title or title
        head, drawn_head = ((truncate(given, TITLE_CHARS),) * 2 if given
                            else self._title(small, names, query))
        by = _omitted_by(report, by)
        text = self._footer(report, d.scenes, by)
        if len(footer_lines(text, d.plan.width, style)) > d.plan.footer_lines:
            # the ID-only note is known only once labels are placed: make room with the
            # short key (the legend and caption say the rest) before anything is cut
            text = self._footer(report, d.scenes, by, short=True)
        foot = footer_lines(text, d.plan.width, style, d.plan.footer_lines)
        drawing = (d.plan, d.scenes, d.ids, d.colors, d.dashes, style, drawn_head,
                   "\n".join(foot))
        png = rasterize(*drawing)
        caption = build_caption(small, d.ids, d.order, names, report, hg, query,
                                looks=distinct_looks(style),
                                unnamed_panels=[_unnamed([s], d.ids) for s in d.scenes])
        export = build_export(hg=small, ids=d.ids, order=d.order, scenes=d.scenes, plan=d.plan,
                              colors=d.colors, report=report, caption=caption, title=head,
                              chunk_texts=chunk_texts, query=query, dashes=d.dashes,
                              style=style, original=hg)
        from .metrics import compute_metrics

        metrics = compute_metrics(export)
        export["metrics"] = metrics
        out = Rendering(png=png, width=d.plan.width, height=d.plan.height, id_map=d.ids,
                        caption=caption, title=head, layouts=names, pruning=report,
                        metrics=metrics)
        out._export = export
        # the SVG: the same figure drawn again (in points, without the warnings) on request
        out._redraw = Redraw(partial(draw_figure, *drawing, warn=False, vector=True))
        return out

    @staticmethod
    def _title(hg: Hypergraph, names: list[str], query: str | None) -> tuple[str, str]:
        """The title and the title as drawn, where the query (what of it fits) is isolated
        (:func:`~hyperviz_core.unitext.isolate`): a right-to-left question keeps its ``?``
        at its own end, and the title's order is not its."""
        head = (f"HyperViz: {' | '.join(names)} · {counted(len(hg.entities), 'entity')}, "
                f"{counted(len(hg.hyperedges), 'hyperedge')}")
        if not query:
            head = truncate(head, TITLE_CHARS)
            return head, head
        head += TITLE_QUERY
        whole = truncate(head + truncate(query, 60), TITLE_CHARS)
        if not whole.startswith(head):  # the query is cut off the title
            return whole, whole
        return whole, head + isolate(whole[len(head):])

    def _footer(self, report: PruneReport, scenes: list[PanelScene],
                by: str = "congestion control", short: bool = False) -> str:
        return footer_text(len(report.entities), len(report.hyperedges),
                           any(s.unnamed for s in scenes), by, short=short, style=self.style)


def _omitted_by(report: PruneReport, by: str) -> str:
    """Who omitted what ``report`` lists: the caps alone, congestion control and the caps, or
    ``by`` (congestion control, or the caps when it is off)."""
    reasons = set(report.reasons.values())
    if reasons == {"cap"}:
        return "the caps"
    return "congestion control and the caps" if reasons >= {"budget", "cap"} else by


def footer_text(entities: int, hyperedges: int, unnamed: bool,
                by: str = "congestion control", *, short: bool = False,
                style: Style | None = None) -> str:
    """The footer: the key to the IDs (``short``: without the shapes), then what ``by``
    (congestion control, or the caps when it is off) omitted, then whether some entities
    are shown by ID only. The key follows ``style``: the entity node shape
    (``node_shape``), and where the H# descriptions are (the legend, or only the caption
    when ``show_legend`` is off); the default style's key is
    ``E# = entity (circle) · H# = hyperedge (region in set views, square node in induced
    views) · legend: H# descriptions``."""
    shape = style.node_shape if style is not None else "circle"
    where = ("legend: H# descriptions" if style is None or style.show_legend
             else "H# descriptions in the caption")
    text = (f"E# = entity · H# = hyperedge · {where}" if short else
            f"E# = entity ({shape}) · H# = hyperedge (region in set views, square node in "
            f"induced views) · {where}")
    if entities or hyperedges:
        text += (f" · {by} omitted {counted(entities, 'entity')} and "
                 f"{counted(hyperedges, 'hyperedge')} (see caption)")
    if unnamed:
        text += " · some entities shown by ID only (names in the caption)"
    return text


@dataclass
class _Drawing:
    """One complete layout of the canvas (every panel with its labels) and its geometry."""

    ids: IdMap
    order: LayoutOrder
    plan: CanvasPlan
    scenes: list[PanelScene]
    colors: dict[str, str]
    dashes: dict[str, str]
    labelled: bool = False

    def label(self, hg: Hypergraph, style: Style) -> None:
        """Place every panel's labels (once)."""
        if not self.labelled:
            for scene in self.scenes:
                place_labels(scene, hg, self.ids, self.order, style)
            self.labelled = True

    def cost(self, budget: Budget) -> float:
        return sum(scene_cost(s, budget.w_v, budget.w_e) for s in self.scenes)

    def c_max(self, budget: Budget) -> float:
        return budget.gamma * sum(panel_area(s) for s in self.scenes)


def _cost_bounds(
    hg: Hypergraph, names: Sequence[str], style: Style, budget: Budget, *, cols: int,
    width: int, height: int, panel_h: float | None,
) -> tuple[float, float]:
    """(a lower bound of C, an upper bound of C_max) of any drawing of ``hg``, without
    laying it out: every panel draws every entity as a disk of the radius its IDs need and
    every hyperedge as a region enclosing one of those disks (set panels: its boundary is at
    least the disk's circumference) or as a square of the side its IDs need (induced panels:
    its perimeter; a custom layout's panel counts no hyperedge), and no panel is larger than
    its cell of the canvas (plus a pixel for the rounding of panel corners)."""
    ids = IdMap.build(hg)
    r = round(node_radius(ids, style), 2)
    n_panels = len(names)
    rows = 1 if panel_h is None else math.ceil(n_panels / cols)
    cell = (width / cols + 1.0) * ((panel_h if panel_h is not None else height / rows) + 1.0)
    nodes = n_panels * len(hg.entities) * math.pi * r**2 * budget.w_v
    hw = max((measure(v, style.font_size, True, style.dpi)[0] for v in ids.hyperedges.values()),
             default=0.0)
    square = 4.0 * 2.0 * max(r * 0.85, hw / 2.0 + 2.5)  # 4·√2·circumradius, circumradius
    # = √2·half side, rounded down as the export rounds it
    per_edge = {"set": 2.0 * math.pi * r, "induced": square * (1 - 1e-3)}
    edges = sum(per_edge.get(layout_kind(n) or "", 0.0) for n in names) * len(hg.hyperedges)
    return nodes + edges * budget.w_e, budget.gamma * n_panels * cell


def _draw(
    hg: Hypergraph, names: list[str], style: Style, cols: int, width: int, height: int,
    panel_h: float | None, importance: Mapping[str, float], original: Hypergraph | None = None,
    by: str = "congestion control",
) -> _Drawing:
    """Number and lay out ``hg`` on every panel, labels not yet placed (what congestion
    control measures; :meth:`_Drawing.label` adds the labels). ``original``: the input
    ``hg`` was pruned from: the legend marks hyperedges that lost members, and the footer
    strip gets the lines its note of what ``by`` omitted needs."""
    imp = {k: importance.get(k, 0.0) for k in hg.entities}
    himp = {h: sum(imp[m] for m in e.members) / max(len(e.members), 1)
            for h, e in hg.hyperedges.items()}
    ids = IdMap.build(hg, entity_importance=imp, hyperedge_importance=himp)
    order = visual_order(hg, ids)
    gone = (0, 0) if original is None else (len(original.entities) - len(hg.entities),
                                             len(original.hyperedges) - len(hg.hyperedges))
    plan = plan_canvas(hg, ids, order, style, len(names), cols, width, height, panel_h,
                       omitted=_omitted_counts(hg, original),
                       footer=footer_text(*gone, unnamed=False, by=by, style=style))
    scenes = [build_geometry(hg, ids, order, name, i, plan.panels[i], style)
              for i, name in enumerate(names)]
    colors = edge_colors(ids, style)
    dashes = {h: edge_dash(v, style) for h, v in ids.hyperedges.items()}
    return _Drawing(ids, order, plan, scenes, colors, dashes)


def _omitted_counts(hg: Hypergraph, original: Hypergraph | None) -> dict[str, int]:
    """Hyperedge id → how many members ``hg`` lost against ``original`` (only those > 0)."""
    if original is None or original is hg:
        return {}
    out: dict[str, int] = {}
    for hid in sorted(hg.hyperedges):
        before = original.hyperedges.get(hid)
        lost = len(before.members) - len(hg.hyperedges[hid].members) if before else 0
        if lost > 0:
            out[hid] = lost
    return out


def _key(hg: Hypergraph) -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(hg.entities), frozenset(hg.hyperedges)


def _unnamed(scenes: list[PanelScene], ids: IdMap) -> list[str]:
    """Entity keys shown by ID only in at least one panel, in visual-ID order."""
    keys = {k for s in scenes for k in s.unnamed}
    return sorted(keys, key=lambda k: int(ids.entities[k][1:]))


def render_collage(
    hypergraph: Hypergraph,
    layouts: str | Sequence[str] | None = None,
    cols: int = 3,
    *,
    style: Style | None = None,
    budget: Budget | None = None,
    query: str | None = None,
) -> Rendering:
    """The paper's ``render_hypergraph_collage``: a bounded grid, one panel per layout.

    >>> from hyperviz_core.testing import random_hypergraph
    >>> r = render_collage(random_hypergraph(10, 5, seed=2), ["set-hier", "ra-cen"], cols=2)
    >>> r.layouts, r.width
    (['set-hier', 'ra-cen'], 1536)
    """
    return HyperViz(style=style, budget=budget).render_collage(
        hypergraph, layouts, cols=cols, query=query
    )
