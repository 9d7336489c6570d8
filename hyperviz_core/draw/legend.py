"""Canvas composition: title strip, panel grid, shared legend (H# → description), footer.

Text that must fit a width is cut (:func:`fit_width`, with an ellipsis) or wrapped
(:func:`wrap_width`) by its measured width: the measurer the rasteriser draws with
(:func:`~.text.measure`), so what the plan allows is exactly what is drawn. A long legend
entry takes two lines of its column (:func:`_entry_lines`): its continuation is a
:class:`LegendEntry` without ``vid`` under the first line's text.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from unicodedata import east_asian_width

from ..idmap import IdMap
from ..layouts import LayoutOrder
from ..model import Hypergraph
from ..style import Style
from ..unitext import bidi_free, isolate
from .text import cluster_cut, cut_back, measure, right_to_left, truncate

__all__ = ["CanvasPlan", "LegendEntry", "distinct_looks", "edge_colors", "edge_dash",
           "fit_title", "fit_width", "footer_lines", "footer_pitch", "legend_text_x",
           "plan_canvas", "wrap_width"]

Box = tuple[float, float, float, float]
_DASHES = ("solid", "dashed", "dotted", "dashdot")
ELLIPSIS = "…"
SWATCH_PX = 22.0
"""px from a legend entry's left edge to its H# (the colour swatch and a gap)."""
LEGEND_GAP = 8.0
"""px kept free between a legend entry's text and the next column."""


@dataclass
class LegendEntry:
    """One legend line: a colour swatch, the H# and a short description."""

    vid: str
    color: str
    dash: str
    text: str
    x: float = 0.0
    y: float = 0.0
    continued: bool = False
    """The second line of the entry before it (no ``vid``; drawn under that entry's text)."""


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
    footer_lines: int = 1
    """Lines the footer box holds (:func:`footer_lines` fills at most this many)."""

    def items(self) -> list[dict[str, str]]:
        """The legend's hyperedges as the export lists them: ``id``, ``text`` (an entry's
        two lines joined: by a space, none between two wide characters such as CJK, where a
        line breaks inside the text) and ``color``; the note of how many more is left out."""
        out: list[dict[str, str]] = []
        for e in self.legend:
            text = bidi_free(e.text)  # (the isolates of :func:`_omitted`)
            if e.vid:
                out.append({"id": e.vid, "text": text, "color": e.color})
            elif e.continued and out and text:
                head = out[-1]["text"]
                wide = head and all(east_asian_width(c) in "WF" for c in (head[-1], text[0]))
                out[-1]["text"] = head + ("" if wide else " ") + text
        return out


def _palette(style: Style) -> list[str]:
    """The style's hyperedge colours, each once (a custom palette may repeat one)."""
    return list(dict.fromkeys(style.colors()))


def _dash_cycle(style: Style) -> tuple[str, ...]:
    """The outline dashes in the order colour cycles use them: the style's own first."""
    return (style.outline_style, *[d for d in _DASHES if d != style.outline_style])


def distinct_looks(style: Style) -> int:
    """How many hyperedges get a distinct (colour, outline dash) pair: H1 up to this one."""
    return len(_palette(style)) * len(_dash_cycle(style))


def edge_colors(ids: IdMap, style: Style) -> dict[str, str]:
    """Hyperedge id → colour, by H number (identical in every panel)."""
    pal = _palette(style)
    return {hid: pal[(int(v[1:]) - 1) % len(pal)] for hid, v in ids.hyperedges.items()}


def edge_dash(vid: str, style: Style) -> str:
    """Outline dash of a hyperedge: the style's outline, then, each time the colours come
    round again, the next unused dash; pairs repeat only after :func:`distinct_looks`."""
    cycle = (int(vid[1:]) - 1) // len(_palette(style))
    dashes = _dash_cycle(style)
    return dashes[cycle % len(dashes)]


def fit_width(text: str, max_w: float, size: float, bold: bool = False, dpi: int = 100) -> str:
    """``text`` as drawn at ``size`` points, cut with an ellipsis to at most ``max_w`` px
    (unchanged when it fits; linear in its length).

    >>> fit_width("short", 500.0, 8.0), fit_width("a long description", 40.0, 8.0)
    ('short', 'a lon…')
    """
    if measure(text, size, bold, dpi)[0] <= max_w:
        return text
    room = max_w - measure(ELLIPSIS, size, bold, dpi)[0]
    if room < 0:
        return ""
    cut = cut_back(text, _chars_within(text, room, size, bold, dpi))  # whole characters
    while cut > 0:  # the per-character sum can differ from measure() in the last bit
        out = text[:cut].rstrip() + ELLIPSIS
        if measure(out, size, bold, dpi)[0] <= max_w:
            return out
        cut = cut_back(text, cut - 1)
    return ELLIPSIS


def _chars_within(text: str, room: float, size: float, bold: bool, dpi: int) -> int:
    """How many leading characters of ``text`` fit in ``room`` px, by the sum of their
    measured widths."""
    total, cut = 0.0, 0
    for i, ch in enumerate(text):
        total += measure(ch, size, bold, dpi)[0]
        if total > room:
            break
        cut = i + 1
    return cut


def _prefix_fitting(word: str, max_w: float, size: float, bold: bool, dpi: int) -> str:
    """The longest non-empty prefix of ``word`` at most ``max_w`` px wide, cut between
    whole characters (:func:`~.text.cluster_cut`; one at least, so wrapping always
    advances)."""
    return word[:cluster_cut(word, max(1, _chars_within(word, max_w, size, bold, dpi)))]


def wrap_width(text: str, max_w: float, size: float, bold: bool = False,
               dpi: int = 100) -> list[str]:
    """``text`` in lines of at most ``max_w`` px, broken at spaces (a ``·`` separator stays
    at the end of its line; a word wider than a line is broken inside).

    >>> wrap_width("one · two three", 1000.0, 8.0)
    ['one · two three']
    >>> wrap_width("one · two three", 40.0, 8.0)
    ['one ·', 'two', 'three']
    """
    if measure(text, size, bold, dpi)[0] <= max_w:
        return [text]
    words: list[str] = []
    for w in text.split(" "):
        if w == "·" and words:
            words[-1] += " ·"
        elif w:
            words.append(w)
    lines: list[str] = []
    cur = ""
    for w in words:
        cand = f"{cur} {w}" if cur else w
        if measure(cand, size, bold, dpi)[0] <= max_w:
            cur = cand
            continue
        if cur:
            lines.append(cur)
        cur = w
        while measure(cur, size, bold, dpi)[0] > max_w:
            head = _prefix_fitting(cur, max_w, size, bold, dpi)
            lines.append(head)
            cur = cur[len(head):]
    if cur:
        lines.append(cur)
    return lines


def fit_title(title: str, width: float, style: Style) -> tuple[str, float]:
    """(text, size) of the title in ``width`` px less the margins: drawn at the title size
    when it fits, else smaller (down to ``style.font_size``), else cut with an ellipsis."""
    size, dpi = style.label_font_size + 2, style.dpi
    max_w = max(0.0, width - 2 * style.margin)
    w = measure(title, size, True, dpi)[0]
    if w <= max_w:
        return title, size
    smallest = min(size, style.font_size)
    scaled = math.floor(size * max_w / w * 10) / 10  # the width is linear in the size
    if scaled >= smallest:
        return title, scaled
    return fit_width(title, max_w, smallest, True, dpi), smallest


def footer_lines(footer: str, width: float, style: Style, max_lines: int | None = None
                 ) -> list[str]:
    """The footer wrapped to the canvas width less the margins; past ``max_lines`` the
    rest is cut into the last line with an ellipsis."""
    if not footer:
        return []
    max_w = max(1.0, width - 2 * style.margin)
    lines = wrap_width(footer, max_w, style.font_size, False, style.dpi)
    if max_lines is not None and len(lines) > max(1, max_lines):
        keep = max(1, max_lines) - 1
        rest = " ".join(lines[keep:])
        lines = [*lines[:keep], fit_width(rest, max_w, style.font_size, False, style.dpi)]
    return lines


def footer_pitch(style: Style) -> float:
    """px between two footer lines (a footer of ``n`` lines is ``n - 1`` pitches higher
    than a one-line footer)."""
    return float(math.ceil(measure("Hg", style.font_size, False, style.dpi)[1] * 1.3))


def legend_text_x(style: Style) -> float:
    """px from a legend entry's left edge to its description (swatch, then ``H#:``)."""
    return SWATCH_PX + measure("H000:", style.label_font_size, True, style.dpi)[0] + 4.0


def _legend_text(hg: Hypergraph, hid: str, ids: IdMap) -> str:
    """A hyperedge's legend description: its description, else its keywords, else its key
    (the HIF edge id, so undescribed hyperedges stay apart) and its members' IDs."""
    edge = hg.hyperedges[hid]
    desc = edge.description.strip() or ", ".join(edge.keywords)
    if not desc:
        desc = f"id {hid}: " + " · ".join(ids.entities[m] for m in edge.members)
    return desc


def _omitted(desc: str, omitted: int) -> str:
    """What ends the legend entry of a hyperedge that lost ``omitted`` members to pruning,
    `` (+N omitted)``: isolated (:func:`~hyperviz_core.unitext.isolate`) after a description
    holding right-to-left letters, which would otherwise give it its direction and draw it
    ``(omitted N+``; as it is after any other.

    >>> _omitted("Ada met Babbage", 2), _omitted("תל אביב", 2) == " \u2068(+2 omitted)\u2069"
    (' (+2 omitted)', True)
    """
    mark = f"(+{omitted} omitted)"
    return " " + (isolate(mark) if right_to_left(desc) else mark)


def _entry_text(desc: str, style: Style, max_w: float, omitted: int) -> str:
    """A description cut to ``legend_max_chars`` and to ``max_w`` px; a hyperedge that
    lost members to pruning ends in ``(+N omitted)`` when that leaves half the room."""
    fs, dpi = style.label_font_size, style.dpi
    text = truncate(desc, style.legend_max_chars)
    if omitted > 0:
        mark = _omitted(text, omitted)
        mark_w = measure(mark, fs, False, dpi)[0]
        if mark_w <= max_w / 2:
            return fit_width(text, max_w - mark_w, fs, False, dpi) + mark
    return fit_width(text, max_w, fs, False, dpi)


LEGEND_LINES = 2
"""Lines of its column's width a long legend entry may take; it shows at most this many
times ``legend_max_chars`` characters (cut with an ellipsis past that)."""


def _first_line(text: str, max_w: float, size: float, dpi: int) -> int:
    """Where the first line of ``text`` ends: at its last space (not one before a ``·``
    separator) with at most ``max_w`` px before it; inside the first word when there is
    none (:func:`_prefix_fitting`)."""
    end = 0
    for i in (*(i for i, ch in enumerate(text) if ch == " "), len(text)):
        if measure(text[:i], size, False, dpi)[0] > max_w:
            break
        if text[i + 1:i + 2] != "·":
            end = i
    return end or len(_prefix_fitting(text, max_w, size, False, dpi))


def _entry_lines(desc: str, style: Style, max_w: float, omitted: int) -> list[str]:
    """A description on one line of ``max_w`` px, else on ``LEGEND_LINES`` (two), broken at
    a space, the second cut with an ellipsis (:func:`fit_width`); cut first to
    ``LEGEND_LINES`` × ``legend_max_chars`` characters. A hyperedge that lost members to
    pruning ends its last line in ``(+N omitted)`` when that leaves half the room.

    >>> st = Style()
    >>> _entry_lines("Ada met Babbage", st, 500.0, 0)
    ['Ada met Babbage']
    >>> _entry_lines("Ada met Babbage in London in 1833 and again in 1834", st, 180.0, 2)
    ['Ada met Babbage in London in', '1833 and again… (+2 omitted)']
    """
    fs, dpi = style.label_font_size, style.dpi
    text = truncate(desc, LEGEND_LINES * style.legend_max_chars)
    mark = _omitted(text, omitted) if omitted > 0 else ""
    mark_w = measure(mark, fs, False, dpi)[0] if mark else 0.0
    if mark_w > max_w / 2:
        mark, mark_w = "", 0.0
    if measure(text + mark, fs, False, dpi)[0] <= max_w:
        return [text + mark]
    end = _first_line(text, max_w, fs, dpi)
    rest = text[end:].lstrip()
    last = fit_width(rest, max_w - mark_w, fs, False, dpi) if rest else ""
    return [text[:end], (last + mark).lstrip()]


def _column_fill(sizes: list[int], rows: int) -> list[tuple[int, int]]:
    """(column, line) of each entry of ``sizes`` lines when columns of ``rows`` lines are
    filled in order, an entry never split between two columns.

    >>> _column_fill([1, 2, 2, 1], 3)
    [(0, 0), (0, 1), (1, 0), (1, 2)]
    """
    out: list[tuple[int, int]] = []
    col = used = 0
    for n in sizes:
        if used and used + n > rows:
            col, used = col + 1, 0
        out.append((col, used))
        used += n
    return out


def _columns_needed(sizes: list[int], rows: int) -> int:
    place = _column_fill(sizes, rows)
    return place[-1][0] + 1 if place else 0


def _fitted_lines(
    descs: list[str], marks: list[int], style: Style, text_w: float, max_rows: int, ncol: int,
) -> list[list[str]]:
    """The lines of each entry the legend shows. One line each (:func:`_entry_text`, cut as
    ever) when they do not all fit ``ncol`` columns of ``max_rows`` lines: then as many as
    fit, less one place for the note of how many more. When they all fit, each in order
    takes its two lines (:func:`_entry_lines`) while all still fit, so wrapping never
    pushes an entry out of the legend."""
    slots = max_rows * ncol
    if len(descs) > slots:
        return [[_entry_text(descs[i], style, text_w, marks[i])] for i in range(slots - 1)]
    lines = [[_entry_text(d, style, text_w, m)] for d, m in zip(descs, marks, strict=True)]
    if max_rows < LEGEND_LINES:
        return lines
    sizes = [1] * len(descs)
    for i, (desc, mark) in enumerate(zip(descs, marks, strict=True)):
        two = _entry_lines(desc, style, text_w, mark)
        sizes[i] = len(two)
        if _columns_needed(sizes, max_rows) <= ncol:
            lines[i] = two
        else:
            sizes[i] = 1
    return lines


def _legend_entries(
    hg: Hypergraph, ids: IdMap, order: LayoutOrder, style: Style, max_rows: int, ncol: int,
    col_px: float, omitted: Mapping[str, int],
) -> tuple[list[tuple[LegendEntry, int]], int, int]:
    """The legend lines in ``ncol`` columns of at most ``max_rows`` lines
    (:func:`_fitted_lines`), each with its line in its column (``x`` is set; ``y`` is the
    caller's), the rows used and how many hyperedges are left out (the last line then says
    how many more). Columns are filled in order; an entry's second line is drawn under its
    text, never in the next column."""
    colors = edge_colors(ids, style)
    hids = list(order.hyperedges)
    text_w = max(0.0, col_px - legend_text_x(style) - LEGEND_GAP)
    lines = _fitted_lines([_legend_text(hg, h, ids) for h in hids],
                          [omitted.get(h, 0) for h in hids], style, text_w, max_rows, ncol)
    keep = len(lines)
    more = len(hids) - keep
    sizes = [len(x) for x in lines] + [1] * (more > 0)
    rows = max(1, math.ceil(sum(sizes) / ncol), max(sizes))
    while rows < max_rows and _columns_needed(sizes, rows) > ncol:
        rows += 1
    out: list[tuple[LegendEntry, int]] = []
    text_x = legend_text_x(style)
    for i, (col, line) in enumerate(_column_fill(sizes, rows)):
        x = style.margin + col * col_px
        if i == keep:  # the note of how many more
            note = fit_width(f"+{more} more hyperedges: see the caption",
                             max(0.0, col_px - LEGEND_GAP), style.label_font_size, False,
                             style.dpi)
            out.append((LegendEntry("", "#666666", "solid", note, x), line))
            continue
        vid = ids.hyperedges[hids[i]]
        out.append((LegendEntry(vid, colors[hids[i]], edge_dash(vid, style), lines[i][0], x),
                    line))
        out += [(LegendEntry("", "#666666", "solid", extra, x + text_x, continued=True),
                 line + k) for k, extra in enumerate(lines[i][1:], 1)]
    return out, rows, more


MIN_PANEL_PX = 80
"""The smallest panel side (and width between the margins) a canvas may leave."""


def _too_small(style: Style, width: int, height: int, what: str) -> str:
    return (f"the canvas ({width}×{height} px: Style width {style.width}, height "
            f"{style.height}, margin {style.margin}, label font {style.label_font_size} pt) "
            f"leaves {what}, under {MIN_PANEL_PX} px: make it larger, or the margin or fonts "
            "smaller")


def plan_canvas(
    hg: Hypergraph, ids: IdMap, order: LayoutOrder, style: Style, n_panels: int, cols: int,
    width: int, height: int, panel_h: float | None = None,
    omitted: Mapping[str, int] | None = None, footer: str = "",
) -> CanvasPlan:
    """Split the canvas; the legend gets at most 30 % of the height (overflow is counted).

    ``omitted``: hyperedge id → how many of its members pruning removed (marked in the
    legend). Legend descriptions take one or two lines of their column's measured width
    (:func:`_legend_entries`; the legend strip is as high as its fullest column, at most
    30 % of ``height``). ``footer``: the
    footer text the strip must hold whole (as many lines as it wraps to)."""
    fs, dpi = style.label_font_size, style.dpi
    line_h = math.ceil(measure("Hg", fs, False, dpi)[1] * 1.45)
    if width - 2 * style.margin < MIN_PANEL_PX:
        raise ValueError(_too_small(style, width, height, f"{width - 2 * style.margin} px "
                                    "between the margins"))
    title_h = float(line_h + 10) if style.show_title else 0.0
    n_foot = max(1, len(footer_lines(footer, width, style))) if style.show_footer else 0
    footer_h = line_h + 4 + (n_foot - 1) * footer_pitch(style) if n_foot else 0.0
    n_entries = len(order.hyperedges) if style.show_legend else 0
    col_w = max(260.0, measure("M" * 12, fs, False, dpi)[0] + style.legend_max_chars * 5.2)
    ncol = max(1, int((width - 2 * style.margin) // col_w))
    col_px = (width - 2 * style.margin) / ncol
    max_rows = max(1, int(height * 0.3 // line_h) - 1)
    placed, rows, more = _legend_entries(hg, ids, order, style, max_rows, ncol, col_px,
                                         omitted or {}) if n_entries else ([], 0, 0)
    entries = [e for e, _ in placed]
    legend_h = rows * line_h + 8.0 if entries else 0.0
    if panel_h is not None:
        nrows = math.ceil(n_panels / cols)
        height = round(title_h + footer_h + legend_h + nrows * panel_h)
    top = title_h
    bottom = height - footer_h - legend_h
    nrows = max(1, math.ceil(n_panels / cols))
    pw = width / cols
    ph = (bottom - top) / nrows
    if min(pw, ph) < MIN_PANEL_PX:
        raise ValueError(_too_small(style, width, height, f"panels of {pw:.0f}×{ph:.0f} px"))
    panels = [
        (round((i % cols) * pw, 2), round(top + (i // cols) * ph, 2),
         round((i % cols + 1) * pw, 2), round(top + (i // cols + 1) * ph, 2))
        for i in range(n_panels)
    ]
    for e, line in placed:
        e.y = bottom + 4.0 + line * line_h + line_h / 2.0
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
        footer_lines=max(1, n_foot),
    )
