"""Rasterise panel scenes to PNG with matplotlib's Agg backend (no pyplot global state).

Collections sit directly on the figure with a transform from canvas pixels (y down) to display
pixels, so every coordinate in the scenes and in the export is a PNG pixel coordinate.
Everything of one kind is one collection (regions, edges, nodes, label boxes, text paths),
which keeps a dual view at a few dozen artists. The PNG (written by Pillow as a 256-colour
palette image) carries no ``Software`` or timestamp metadata, so equal scenes give
byte-identical files.
"""

from __future__ import annotations

import io
import math
import zlib
from functools import lru_cache
from typing import Any

import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection, PathCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.path import Path
from matplotlib.transforms import Affine2D
from PIL import Image
from shapely.geometry import Polygon
from shapely.geometry.polygon import orient

from ..contrast import LABEL_BOX_ALPHA, on_fill, readable, region_label_color
from ..idmap import IdMap
from ..luminance import is_dark
from ..style import HYPEREDGE, Style
from .fonts import warn_missing, warn_right_to_left
from .legend import SWATCH_PX, CanvasPlan, fit_title, footer_pitch, legend_text_x
from .rc import default_rc
from .scene import PanelScene
from .text import drawable, text_path, unshaped

__all__ = ["draw_figure", "encode_png", "figure_png", "rasterize"]

_LS: dict[str, Any] = {
    "solid": "solid", "dashed": (0, (4, 2.5)), "dotted": (0, (1, 2)),
    "dashdot": (0, (4, 2, 1, 2)),
}


#: the canvas text greys (title and legend text, panel heads, notes, footer) and what each
#: becomes on a dark background, where the dark greys would vanish
_ON_DARK = {"#222222": "#eeeeee", "#555555": "#cccccc", "#666666": "#bbbbbb",
            "#777777": "#aaaaaa"}


def text_grey(grey: str, background: str) -> str:
    """``grey`` (one of the canvas text greys) as drawn on ``background`` (``#rrggbb``): kept
    on a light background, its light counterpart on a dark one (:func:`~..luminance.is_dark`).

    >>> text_grey("#222222", "#ffffff"), text_grey("#222222", "#1e1e1e")
    ('#222222', '#eeeeee')
    """
    return _ON_DARK.get(grey, grey) if is_dark(background) else grey


@lru_cache(maxsize=1024)
def _readable(color: str, background: str) -> str:
    """:func:`~..contrast.readable` of ``color`` on ``background``, remembered: the search
    for a readable lightness (up to 400 contrast ratios) cost ~0.3 ms per colour, paid again
    by every rendering for the same palette colours."""
    return readable(color, background)


@lru_cache(maxsize=1024)
def _region_label_color(color: str, background: str, region_alpha: float) -> str:
    """:func:`~..contrast.region_label_color`, remembered (as :func:`_readable`)."""
    return region_label_color(color, background, region_alpha)


def square_frame(color: str, style: Style) -> str:
    """The frame of a hyperedge's square in induced views: ``style.hyperedge_node_color``,
    whose default ``"hyperedge"`` is the hyperedge's own ``color`` (the one orange frame of
    every square, before, made a blue H1 read as orange).

    >>> square_frame("#0072b2", Style()), square_frame("#0072b2", Style(hyperedge_node_color="red"))
    ('#0072b2', '#ff0000')
    """
    return style.hex("hyperedge_node_color") if style.hyperedge_node_color != HYPEREDGE else color


def _poly_path(poly: Polygon) -> Path:
    poly = orient(poly, sign=1.0)
    rings = [np.asarray(ring.coords)[:, :2] for ring in [poly.exterior, *poly.interiors]]
    codes = np.full(sum(len(r) for r in rings), Path.LINETO, dtype=Path.code_type)
    start = 0
    for ring in rings:
        codes[start] = Path.MOVETO
        codes[start + len(ring) - 1] = Path.CLOSEPOLY
        start += len(ring)
    return Path(np.concatenate(rings), codes)


def _circle(x: float, y: float, r: float) -> Path:
    return Path.circle((x, y), r)


def _ellipse(x: float, y: float, rx: float, ry: float) -> Path:
    if rx == ry:
        return _circle(x, y, rx)
    return Path.unit_circle().transformed(Affine2D().scale(rx, ry).translate(x, y))


def _rect(x0: float, y0: float, x1: float, y1: float) -> Path:
    return Path([(x0, y0), (x1, y0), (x1, y1), (x0, y1), (x0, y0)], closed=True)


def _node_path(x: float, y: float, r: float, shape: str) -> Path:
    if shape == "circle":
        return _circle(x, y, r)
    if shape == "ellipse":
        return _ellipse(x, y, r, r * 0.78)
    if shape == "box":
        h = r / math.sqrt(2.0)
        return _rect(x - h, y - h, x + h, y + h)
    pts = [(x + r * math.cos(math.pi / 2 + k * math.pi / 3),
            y + r * math.sin(math.pi / 2 + k * math.pi / 3)) for k in range(6)]
    return Path([*pts, pts[0]], closed=True)


class _Layer:
    """Collects primitives and adds them to the figure as a few collections.

    Collections live directly on the figure (no Axes) with a transform from canvas pixels
    (y down) to display pixels (y up).
    """

    def __init__(self, fig: Figure, height: int, dpi: int, points: bool = False) -> None:
        self.fig, self.dpi = fig, dpi
        self.k = 72.0 / dpi
        self.tr = Affine2D().scale(1.0, -1.0).translate(0.0, float(height))
        if points:  # a vector backend draws at 72 dpi: display units are points
            self.tr = self.tr.scale(self.k)
        self.text: list[tuple[Path, str]] = []
        self.chars: set[tuple[str, bool]] = set()  # every (character, bold) drawn
        self.unshaped: set[str] = set()  # right-to-left letters drawn left to right

    def lw(self, px: float) -> float:
        return px * self.k

    def add_text(self, s: str, x: float, y: float, size: float, color: str = "#000000",
                 bold: bool = False, ha: str = "center") -> None:
        p = text_path(s, x, y, size, bold, self.dpi, ha)
        self.chars.update((ch, bold) for ch in s)
        self.unshaped.update(unshaped(s, bold))
        if p is not None:
            self.text.append((p, color))

    def paths(self, paths: list[Path], z: float, clip: Path | None = None,
              snap: bool | None = None, **kw: Any) -> None:
        if paths:
            coll = PathCollection(paths, transform=self.tr, zorder=z, **kw)
            if clip is not None:  # drawn only inside ``clip`` (canvas coordinates)
                coll.set_clip_path(clip, self.tr)
            coll.set_snap(snap)
            self.fig.add_artist(coll)

    def lines(self, segs: list[list[tuple[float, float]]], z: float, **kw: Any) -> None:
        if segs:
            coll = LineCollection(segs, transform=self.tr, zorder=z, **kw)
            self.fig.add_artist(coll)

    def flush_text(self) -> None:
        """All text paths as one collection, never snapped to the pixel grid: Agg snaps a
        path made only of horizontal and vertical segments (三, 王, 工, a Latin ``E``),
        and a stroke thinner than a pixel would collapse, so 三 came out as 一."""
        if self.text:
            self.paths([p for p, _ in self.text], 9, snap=False,
                       facecolors=[c for _, c in self.text], edgecolors="none", linewidths=0)


def _panel(layer: _Layer, scene: PanelScene, ids: IdMap, colors: dict[str, str],
           dashes: dict[str, str], style: Style) -> None:
    x0, y0, x1, y1 = scene.bbox
    frame = _rect(x0 + 2, y0 + 2, x1 - 2, y1 - 2)
    layer.paths([frame], 0, facecolors="none", edgecolors="#c8c8c8", linewidths=layer.lw(1.0))
    head = scene.layout + (f" ({scene.engine})" if scene.engine else "")
    bg = style.background_hex
    layer.add_text(head, x0 + 8, y0 + 11, style.font_size + 0.5, text_grey("#555555", bg),
                   ha="left")
    if scene.message:
        layer.add_text(scene.message, (x0 + x1) / 2, (y0 + y1) / 2, style.label_font_size + 2,
                       text_grey("#777777", bg))
        return
    if scene.center is not None and scene.rings:
        cx, cy = scene.center
        kx, ky = scene.ring_stretch
        layer.paths([_ellipse(cx, cy, rad * kx, rad * ky) for rad in scene.rings], 1,
                    clip=frame,  # a ring wider than the panel stays inside its frame
                    facecolors="none", edgecolors="#dddddd", linestyles=[_LS["dashed"]],
                    linewidths=layer.lw(1.0))
    big_first = sorted(scene.regions.values(), key=lambda rg: (-rg.geom.area, rg.hid))
    fills, fcols, ecols, styles = [], [], [], []
    conn, ccols = [], []
    for reg in big_first:
        col = colors[reg.hid]
        for poly in reg.polygons():
            fills.append(_poly_path(poly))
            fcols.append(to_rgba(col, style.region_alpha))
            ecols.append(col)
            styles.append(_LS[dashes[reg.hid]])
        for a, b in reg.connectors:
            conn.append([a, b])
            ccols.append(col)
    layer.paths(fills, 2, facecolors=fcols, edgecolors="none", linewidths=0)
    layer.paths(fills, 3, facecolors="none", edgecolors=ecols, linestyles=styles,
                linewidths=layer.lw(style.edge_width))
    layer.lines(conn, 3, colors=ccols, linestyles=_LS["dotted"],
                linewidths=layer.lw(style.edge_width))
    layer.lines([[scene.nodes[a], scene.nodes[b]] for a, b in scene.clique], 2,
                colors="#9a9a9a", linewidths=layer.lw(max(0.6, style.edge_width * 0.5)))
    layer.lines([[scene.nodes[m], scene.hnodes[h]] for m, h in scene.incidence], 3,
                colors=[colors[h] for _, h in scene.incidence],
                linestyles=_LS[style.incidence_style],
                linewidths=layer.lw(max(0.6, style.edge_width * 0.7)))
    q = scene.hnode_half
    hn = list(scene.hnodes.items())
    layer.paths([_rect(hx - q, hy - q, hx + q, hy + q) for _, (hx, hy) in hn], 5,
                facecolors="white", edgecolors=[square_frame(colors[h], style) for h, _ in hn],
                linewidths=layer.lw(2.0))
    layer.paths([_rect(hx - q + 2, hy - q + 2, hx + q - 2, hy - q + 6) for _, (hx, hy) in hn],
                5.5, facecolors=[colors[h] for h, _ in hn], edgecolors="none")
    layer.paths([_node_path(x, y, scene.radius, style.node_shape)
                 for x, y in scene.nodes.values()], 6,
                facecolors=style.hex("node_fill"), edgecolors=style.outline_hex,
                linewidths=layer.lw(1.4))
    leaders = [lab for lab in scene.labels if lab.leader is not None]
    layer.lines([list(lab.leader) for lab in leaders if lab.leader], 7,
                colors=[colors[ids.hyperedge_key(lab.id)] for lab in leaders],
                linewidths=layer.lw(1.0))
    layer.paths([_rect(*lab.bbox) for lab in scene.labels if lab.boxed], 7,
                facecolors=[to_rgba("white", LABEL_BOX_ALPHA)], edgecolors="none")
    on_node = on_fill(style.hex("node_fill"))  # an entity ID stays readable on a dark fill
    for lab in scene.labels:
        color = lab.color
        if lab.kind == "entity":
            color = on_node
        elif lab.kind == "hyperedge" and scene.kind == "set":  # the outline keeps the hue
            color = _region_label_color(colors[ids.hyperedge_key(lab.id)], bg,
                                        style.region_alpha)
        layer.add_text(lab.text, lab.x, lab.y, lab.size, color, lab.bold)


def _footer(layer: _Layer, box: tuple[float, float, float, float], lines: list[str],
            style: Style) -> None:
    """The footer's lines, one :func:`~.legend.footer_pitch` apart, centred as a block in
    the footer box (a one-line footer as before)."""
    pitch = footer_pitch(style)
    y = (box[1] + box[3] - pitch * (len(lines) - 1)) / 2
    for i, line in enumerate(lines):
        layer.add_text(line, style.margin, y + i * pitch, style.font_size,
                       text_grey("#666666", style.background_hex), ha="left")


def rasterize(
    plan: CanvasPlan, scenes: list[PanelScene], ids: IdMap, colors: dict[str, str],
    dashes: dict[str, str], style: Style, title: str, footer: str,
) -> bytes:
    """Draw the canvas and return PNG bytes (deterministic, no timestamp metadata): the
    PNG of :func:`draw_figure`."""
    return figure_png(draw_figure(plan, scenes, ids, colors, dashes, style, title, footer,
                                  stacklevel=3))  # (each runs under default_rc)


def draw_figure(
    plan: CanvasPlan, scenes: list[PanelScene], ids: IdMap, colors: dict[str, str],
    dashes: dict[str, str], style: Style, title: str, footer: str, *, warn: bool = True,
    vector: bool = False, stacklevel: int = 2,
) -> Figure:
    """The canvas as a matplotlib :class:`~matplotlib.figure.Figure` (no pyplot), one
    pixel per canvas unit at ``style.dpi``: what the PNG (:func:`figure_png`) and the SVG
    (:func:`~.vector.figure_svg`) are made of.

    ``footer`` is drawn one line per ``\n`` (:func:`~.legend.footer_lines` wraps it to the
    lines ``plan`` holds); the title is fitted to the width (:func:`~.legend.fit_title`).
    ``warn``: say which characters no font draws (and right-to-left text) — off when the
    same canvas is drawn again. ``vector``: for a vector backend (SVG), which draws at 72
    dpi: the same drawing with its coordinates in points (for Agg they are pixels)."""
    with default_rc():  # artists read the settings when made (the host's are not ours)
        return _draw_figure(plan, scenes, ids, colors, dashes, style, title, footer,
                            warn=warn, vector=vector, stacklevel=stacklevel + 1)


def _draw_figure(
    plan: CanvasPlan, scenes: list[PanelScene], ids: IdMap, colors: dict[str, str],
    dashes: dict[str, str], style: Style, title: str, footer: str, *, warn: bool,
    vector: bool, stacklevel: int,
) -> Figure:
    dpi = style.dpi
    fig = Figure(figsize=(plan.width / dpi, plan.height / dpi), dpi=dpi)
    bg = style.background_hex
    fig.patch.set_facecolor(bg)
    layer = _Layer(fig, plan.height, dpi, points=vector)
    for scene in scenes:
        _panel(layer, scene, ids, colors, dashes, style)
    fs = style.label_font_size
    if plan.title_box:
        text, size = fit_title(title, plan.width, style)
        layer.add_text(text, plan.width / 2, plan.title_box[3] / 2, size,
                       text_grey("#222222", bg), True)
    text_x = legend_text_x(style)
    swatches, sw_cols, sw_styles = [], [], []
    for e in plan.legend:
        if e.vid:
            swatches.append([(e.x, e.y), (e.x + 18, e.y)])
            sw_cols.append(e.color)
            sw_styles.append(_LS[e.dash])
            layer.add_text(f"{e.vid}:", e.x + SWATCH_PX, e.y, fs, _readable(e.color, bg), True,
                           ha="left")  # the swatch keeps the palette colour
            layer.add_text(e.text, e.x + text_x, e.y, fs, text_grey("#222222", bg), ha="left")
        else:  # an entry's second line reads as its first; a note is grey
            grey = "#222222" if e.continued else "#666666"
            layer.add_text(e.text, e.x, e.y, fs, text_grey(grey, bg), ha="left")
    layer.lines(swatches, 4, colors=sw_cols, linestyles=sw_styles, linewidths=layer.lw(3.0))
    if plan.legend_box:
        y = plan.legend_box[1] + 1
        layer.lines([[(style.margin, y), (plan.width - style.margin, y)]], 1,
                    colors="#dddddd", linewidths=layer.lw(1.0))
    if plan.footer_box and footer:
        _footer(layer, plan.footer_box, footer.split("\n"), style)
    layer.flush_text()
    if warn:
        warn_missing((ch for ch, bold in layer.chars if not drawable(ch, bold)),
                     stacklevel=stacklevel)
        warn_right_to_left(layer.unshaped, stacklevel=stacklevel)
    return fig


def figure_png(fig: Figure) -> bytes:
    """PNG bytes of ``fig`` drawn by Agg (:func:`encode_png`)."""
    canvas = FigureCanvasAgg(fig)
    with default_rc():
        canvas.draw()
    width, height = canvas.get_width_height()
    return encode_png(canvas.buffer_rgba(), width, height)


def encode_png(rgba: Any, width: int, height: int) -> bytes:
    """PNG bytes of an opaque RGBA buffer (alpha ignored) as a 256-colour palette image.

    The buffer is read as RGB in one unpacking pass (alpha dropped, exactly as
    ``convert("RGB")`` does), quantised (fast octree, no dithering: ~3x smaller files than
    RGB, visually identical here) and written with zlib's run-length strategy: a
    flat-colour palette image is mostly runs, so it encodes ~2x faster than the default
    strategy for ~3 % more bytes. No text chunks: no timestamp or software name.
    """
    rgb = Image.frombytes("RGB", (width, height), rgba, "raw", "RGBX")
    pal = rgb.quantize(256, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    buf = io.BytesIO()
    pal.save(buf, format="png", compress_level=3, compress_type=zlib.Z_RLE)
    return buf.getvalue()
