"""Canvas composition: title strip, panel grid, shared legend (H# → description), footer."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from ..idmap import IdMap
from ..layouts import LayoutOrder
from ..model import Hypergraph
from ..style import Style
from .text import measure, truncate

__all__ = ["CanvasPlan", "LegendEntry", "edge_colors", "edge_dash", "plan_canvas"]

Box = tuple[float, float, float, float]
_DASHES = ("solid", "dashed", "dotted", "dashdot")


@dataclass
class LegendEntry:
    """One legend line: a colour swatch, the H# and a short description."""

    vid: str
    color: str
    dash: str
    text: str
    x: float = 0.0
    y: float = 0.0


@dataclass
class CanvasPlan:
    """Where the title, the panels, the legend and the footer go."""

    width: int
    height: int
    title_box: Box | None
    panels: list[Box]
    legend_box: Box | None
    footer_box: Box | None
    legend: list[LegendEntry] = field(default_factory=list)
    legend_more: int = 0
    line_height: float = 14.0


def edge_colors(ids: IdMap, style: Style) -> dict[str, str]:
    """Hyperedge id → colour, by H number (identical in every panel)."""
    pal = style.colors()
    return {hid: pal[(int(v[1:]) - 1) % len(pal)] for hid, v in ids.hyperedges.items()}


def edge_dash(vid: str, style: Style) -> str:
    """Outline dash of a hyperedge: the style's outline, then cycled once colours repeat."""
    cycle = (int(vid[1:]) - 1) // len(style.colors())
    if cycle == 0:
        return style.outline_style
    return _DASHES[cycle % len(_DASHES)]


def _legend_text(hg: Hypergraph, hid: str, ids: IdMap) -> str:
    edge = hg.hyperedges[hid]
    desc = edge.description.strip() or ", ".join(edge.keywords)
    if not desc:
        desc = " · ".join(ids.entities[m] for m in edge.members)
    return desc


def plan_canvas(
    hg: Hypergraph, ids: IdMap, order: LayoutOrder, style: Style, n_panels: int, cols: int,
    width: int, height: int, panel_h: float | None = None,
) -> CanvasPlan:
    """Split the canvas; the legend gets at most 30 % of the height (overflow is counted)."""
    fs, dpi = style.label_font_size, style.dpi
    line_h = math.ceil(measure("Hg", fs, False, dpi)[1] * 1.45)
    title_h = float(line_h + 10) if style.show_title else 0.0
    footer_h = float(line_h + 4) if style.show_footer else 0.0
    colors = edge_colors(ids, style)
    entries = [
        LegendEntry(ids.hyperedges[h], colors[h], edge_dash(ids.hyperedges[h], style),
                    truncate(_legend_text(hg, h, ids), style.legend_max_chars))
        for h in order.hyperedges
    ] if style.show_legend else []
    col_w = max(260.0, measure("M" * 12, fs, False, dpi)[0] + style.legend_max_chars * 5.2)
    ncol = max(1, int((width - 2 * style.margin) // col_w))
    rows = math.ceil(len(entries) / ncol) if entries else 0
    rows_needed = rows
    rows = min(rows, max(1, int(height * 0.3 // line_h) - 1)) if rows else 0
    more = 0
    if rows < rows_needed:
        keep = rows * ncol - 1
        more = len(entries) - keep
        entries = entries[:keep]
        entries.append(
            LegendEntry("", "#666666", "solid", f"+{more} more hyperedges: see the caption")
        )
    legend_h = rows * line_h + 8.0 if entries else 0.0
    if panel_h is not None:
        nrows = math.ceil(n_panels / cols)
        height = round(title_h + footer_h + legend_h + nrows * panel_h)
    top = title_h
    bottom = height - footer_h - legend_h
    nrows = max(1, math.ceil(n_panels / cols))
    pw = width / cols
    ph = (bottom - top) / nrows
    panels = [
        (round((i % cols) * pw, 2), round(top + (i // cols) * ph, 2),
         round((i % cols + 1) * pw, 2), round(top + (i // cols + 1) * ph, 2))
        for i in range(n_panels)
    ]
    col_px = (width - 2 * style.margin) / ncol
    for i, e in enumerate(entries):
        e.x = style.margin + (i // rows) * col_px if rows else style.margin
        e.y = bottom + 4.0 + (i % rows) * line_h + line_h / 2.0 if rows else bottom
    return CanvasPlan(
        width=width,
        height=height,
        title_box=(0.0, 0.0, float(width), title_h) if title_h else None,
        panels=panels,
        legend_box=(0.0, bottom, float(width), bottom + legend_h) if legend_h else None,
        footer_box=(0.0, height - footer_h, float(width), float(height)) if footer_h else None,
        legend=entries,
        legend_more=more,
        line_height=float(line_h),
    )
