"""Static SVG of a rendering, drawn from the export geometry (same pixels as the PNG).

The drawing mirrors the rasteriser: panel frames and headings, regions biggest first with their
colour and outline dash, dotted connectors of split regions, clique and incidence edges,
hyperedge squares with a colour stripe, entity nodes, and the renderer's labels in their boxes.
Optional ``export["style"]`` keys (``region_alpha``, ``edge_width``, ``node_fill``,
``entity_color``, ``node_outline`` (the node stroke; ``entity_color`` when absent),
``hyperedge_node_color`` (the frame of every hyperedge square; absent or ``"hyperedge"``:
each square in its hyperedge's colour), ``incidence_style``, ``node_shape``, ``background``) and a
hyperedge's ``dash`` refine the look; defaults match ``Style()``. Node shapes are the PNG's:
a circle, an ellipse ``r`` × ``0.78·r``, a square inscribed in the disk, a hexagon.

Every text and attribute value goes through :func:`esc`; numbers are validated and formatted
deterministically; colours must be ``#rgb``/``#rrggbb`` or they fall back to a palette colour.
Elements carry ``data-id`` (``E#``/``H#``) attributes that the viewer script binds to.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..contrast import LABEL_BOX_ALPHA, on_fill, region_label_color
from ..luminance import is_dark
from ..unitext import bidi_free

__all__ = ["as_float", "build_svg", "esc", "fmt", "safe_color"]

_COLOR_RE = re.compile(r"^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$")
_FALLBACK = ("#0072b2", "#e69f00", "#009e73", "#d55e00", "#cc79a7", "#56b4e9", "#f0e442")
_DASH = {"dashed": (4.0, 2.5), "dotted": (1.0, 2.0), "dashdot": (4.0, 2.0, 1.0, 2.0)}
_DEFAULTS: dict[str, Any] = {
    "region_alpha": 0.13, "edge_width": 1.8, "node_fill": "#ffffff", "entity_color": "#1f5fbf",
    "hyperedge_node_color": "hyperedge", "incidence_style": "dashed", "node_shape": "circle",
    "background": "#ffffff",
}  # fmt: skip
_TEXT_H = 1.17  # label box height / font size (DejaVu Sans, as measured by the renderer)
ELLIPSE_RY = 0.78  # an ellipse node's vertical radius / its horizontal one (as the PNG)


#: control characters XML 1.0 does not allow (tab, newline and carriage return it does)
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f]")


def esc(value: object) -> str:
    """Escape text for HTML/SVG text nodes and double- or single-quoted attributes (bidi
    controls dropped, see :func:`bidi_free`, and the control characters XML forbids, so the
    SVG stays well-formed).

    >>> esc('<b a="1">' + chr(27) + '[31mred & ' + chr(0) + 'bold</b>')
    '&lt;b a=&quot;1&quot;&gt;[31mred &amp; bold&lt;/b&gt;'
    """
    return html.escape(_XML_INVALID.sub("", bidi_free(str(value))), quote=True)


def as_float(value: object) -> float | None:
    """A finite float from ``value`` or ``None`` (bools and non-numbers are rejected)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def fmt(value: float) -> str:
    """Deterministic short number: two decimals at most, no ``-0``."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def safe_color(value: object, index: int = 0) -> str:
    """``value`` when it is a hex colour, else a palette colour chosen by ``index``."""
    if isinstance(value, str) and _COLOR_RE.match(value):
        return value.lower()
    return _FALLBACK[index % len(_FALLBACK)]


def _dicts(value: object) -> list[Mapping[str, Any]]:
    if not isinstance(value, list | tuple):
        return []
    return [v for v in value if isinstance(v, Mapping)]


def _panel_of(item: Mapping[str, Any]) -> int | None:
    panel = item.get("panel", 0)
    return None if isinstance(panel, bool) or not isinstance(panel, int) else panel


def _xy(item: Mapping[str, Any]) -> tuple[float, float] | None:
    x, y = as_float(item.get("x")), as_float(item.get("y"))
    return None if x is None or y is None else (x, y)


def _point(pt: object) -> tuple[float, float] | None:
    if isinstance(pt, Sequence) and not isinstance(pt, str) and len(pt) >= 2:
        x, y = as_float(pt[0]), as_float(pt[1])
        if x is not None and y is not None:
            return (x, y)
    return None


def _stretch(pair: object) -> tuple[float, float]:
    """A panel's ring stretch (x, y factors of its rings); circles when absent or unusable
    (exports written before rings could be ellipses have none)."""
    pt = _point(pair)
    return pt if pt is not None and pt[0] > 0 and pt[1] > 0 else (1.0, 1.0)


def _points(poly: object) -> list[tuple[float, float]]:
    if not isinstance(poly, Sequence) or isinstance(poly, str):
        return []
    return [p for p in (_point(pt) for pt in poly) if p is not None]


def _area(pts: list[tuple[float, float]]) -> float:
    pairs = zip(pts, pts[1:] + pts[:1], strict=True)
    return abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in pairs)) / 2


def _bbox(value: object) -> tuple[float, float, float, float] | None:
    if not isinstance(value, list | tuple) or len(value) != 4:
        return None
    nums = [as_float(v) for v in value]
    if any(n is None for n in nums):
        return None
    x0, y0, x1, y1 = (float(n) for n in nums if n is not None)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _dasharray(dash: object, width: float) -> str:
    pattern = _DASH.get(str(dash))
    if not pattern:
        return ""
    return ' stroke-dasharray="' + " ".join(fmt(v * width) for v in pattern) + '"'


def _line(cls: str, a: tuple[float, float], b: tuple[float, float], extra: str) -> str:
    return (
        f'<line class="{cls}" x1="{fmt(a[0])}" y1="{fmt(a[1])}" x2="{fmt(b[0])}" '
        f'y2="{fmt(b[1])}" {extra}/>'
    )


def _style(export: Mapping[str, Any]) -> dict[str, Any]:
    given = export.get("style")
    given = given if isinstance(given, Mapping) else {}
    out = dict(_DEFAULTS)
    for key in ("region_alpha", "edge_width"):
        num = as_float(given.get(key))
        if num is not None:
            out[key] = min(max(num, 0.0), 10.0)
    for key in ("node_fill", "entity_color", "hyperedge_node_color", "background"):
        value = given.get(key)
        if isinstance(value, str) and _COLOR_RE.match(value):
            out[key] = value.lower()
    outline = given.get("node_outline")  # absent (an older export): the entity colour
    ok = isinstance(outline, str) and _COLOR_RE.match(outline)
    out["node_outline"] = str(outline).lower() if ok else out["entity_color"]
    if given.get("incidence_style") in (*_DASH, "solid"):
        out["incidence_style"] = given["incidence_style"]
    if given.get("node_shape") in ("circle", "ellipse", "box", "polygon"):
        out["node_shape"] = given["node_shape"]
    return out


class _Panel:
    """The SVG fragments of one panel, in drawing order."""

    def __init__(self, meta: Mapping[str, Any], width: float, height: float) -> None:
        self.layout = str(meta.get("layout", ""))
        self.kind = str(meta.get("kind", ""))
        self.engine = str(meta.get("engine") or "")
        self.message = meta.get("message") if isinstance(meta.get("message"), str) else ""
        self.bbox = _bbox(meta.get("bbox")) or (0.0, 0.0, width, height)
        self.center = _point(meta.get("center"))
        rings = meta.get("rings")
        self.rings = (
            [r for r in (as_float(v) for v in rings) if r] if isinstance(rings, list) else []
        )
        self.ring_stretch = _stretch(meta.get("ring_stretch"))
        self.regions: list[tuple[float, str, str]] = []  # (-area, key, svg)
        self.lines: list[str] = []
        self.hnodes: list[str] = []
        self.entities: list[str] = []
        self.labels: list[str] = []
        self.leaders: list[str] = []  # lines from labels placed outside their region
        self.entity_pos: dict[str, tuple[float, float, float]] = {}
        self.hnode_pos: dict[str, tuple[float, float, float | None]] = {}

    def head(self, idx: int, style: Mapping[str, Any]) -> list[str]:
        x0, y0, x1, y1 = self.bbox
        frame = (f'x="{fmt(x0 + 2)}" y="{fmt(y0 + 2)}" width="{fmt(max(0.0, x1 - x0 - 4))}" '
                 f'height="{fmt(max(0.0, y1 - y0 - 4))}"')
        out = [
            f'<g class="hv-panel" data-panel="{idx}" data-layout="{esc(self.layout)}">',
            f'<rect class="hv-panel-bg" {frame} fill="none" stroke="#c8c8c8" stroke-width="1"/>',
        ]
        title = self.layout + (f" ({self.engine})" if self.engine else "")
        if title:
            out.append(
                f'<text class="hv-panel-title" x="{fmt(x0 + 8)}" y="{fmt(y0 + 11)}">'
                f"{esc(title)}</text>"
            )
        if self.message:
            out.append(
                f'<text class="hv-panel-message" x="{fmt((x0 + x1) / 2)}" '
                f'y="{fmt((y0 + y1) / 2)}">{esc(self.message)}</text>'
            )
        if self.center is not None and self.rings:
            cx, cy = self.center
            dash = _dasharray("dashed", 1.0)
            clip = f"hv-clip-{idx}"  # a wide ring stays in its panel, as in the PNG
            out.append(f'<clipPath id="{clip}"><rect {frame}/></clipPath>')
            kx, ky = self.ring_stretch
            out.extend(
                f'<ellipse class="hv-ring" cx="{fmt(cx)}" cy="{fmt(cy)}" rx="{fmt(r * kx)}" '
                f'ry="{fmt(r * ky)}" fill="none" stroke="#dddddd" stroke-width="1"{dash} '
                f'clip-path="url(#{clip})"/>'
                for r in self.rings
            )
        return out


def _node_shape(eid: str, x: float, y: float, r: float, shape: str, attrs: str) -> str:
    common = f'class="hv-ent" data-id="{esc(eid)}" {attrs}'
    if shape == "box":
        side = r * math.sqrt(2.0)
        return (
            f'<rect {common} x="{fmt(x - side / 2)}" y="{fmt(y - side / 2)}" '
            f'width="{fmt(side)}" height="{fmt(side)}"/>'
        )
    if shape == "polygon":
        pts = " ".join(
            f"{fmt(x + r * math.sin(math.pi * k / 3))},{fmt(y - r * math.cos(math.pi * k / 3))}"
            for k in range(6)
        )
        return f'<polygon {common} points="{pts}"/>'
    if shape == "ellipse":
        return (f'<ellipse {common} cx="{fmt(x)}" cy="{fmt(y)}" rx="{fmt(r)}" '
                f'ry="{fmt(r * ELLIPSE_RY)}"/>')
    return f'<circle {common} cx="{fmt(x)}" cy="{fmt(y)}" r="{fmt(r)}"/>'


def _leader(lab: Mapping[str, Any], color: str) -> str:
    """The thin line the PNG draws from a label placed outside its region to the region
    (``labels[].leader``), or ``""``."""
    seg = lab.get("leader")
    ends = [_point(p) for p in seg] if isinstance(seg, list | tuple) and len(seg) == 2 else []
    if len(ends) != 2 or ends[0] is None or ends[1] is None:
        return ""
    return _line("hv-leader", ends[0], ends[1],
                 f'data-hid="{esc(lab.get("id", ""))}" stroke="{color}" stroke-width="1"')


def _label(lab: Mapping[str, Any], box: tuple[float, float, float, float], color: str,
           aria: str = "", first: bool = True) -> str:
    """A label's text (and its white box when the PNG drew one: ``labels[].boxed``, else a
    name label). ``aria``: the accessible name of a focusable ``H#`` label, a Tab stop when
    ``first`` (its copies in later panels are focusable only by script or pointer)."""
    lid = str(lab.get("id", ""))
    text = lab.get("text")
    text = text if isinstance(text, str) and text else lid
    kind = lab.get("kind") or ("hyperedge" if lid.startswith("H") else "entity")
    kind = kind if kind in ("entity", "hyperedge", "name") else "other"
    x0, y0, x1, y1 = box
    size = max(4.0, min(40.0, (y1 - y0) / _TEXT_H))
    weight = ' font-weight="bold"' if kind in ("entity", "hyperedge") else ""
    fit = ""
    if x1 - x0 > 1:  # keep the text inside the renderer's box whatever font the viewer has
        fit = f' textLength="{fmt(x1 - x0)}" lengthAdjust="spacingAndGlyphs"'
    back = ""
    boxed = lab.get("boxed")
    if boxed is True or (not isinstance(boxed, bool) and kind == "name"):  # older exports
        back = (
            f'<rect class="hv-label-box" data-id="{esc(lid)}" x="{fmt(x0)}" y="{fmt(y0)}" '
            f'width="{fmt(x1 - x0)}" height="{fmt(y1 - y0)}" fill="#ffffff" '
            f'fill-opacity="{fmt(LABEL_BOX_ALPHA)}"/>'
        )
    tab = "0" if first else "-1"  # one Tab stop per H#: its first panel's label
    focus = f' tabindex="{tab}" role="button" aria-pressed="false" aria-label="{esc(aria)}"'
    focus = focus if aria else ""
    return (
        f'{back}<text class="hv-label hv-label-{kind}" data-id="{esc(lid)}" '
        f'x="{fmt((x0 + x1) / 2)}" y="{fmt((y0 + y1) / 2)}" font-size="{fmt(size)}" '
        f'fill="{color}"{weight}{fit}{focus}>{esc(text)}</text>'
    )


def _hyperedge_name(h: Mapping[str, Any]) -> str:
    """What names a hyperedge for a screen reader: its description, else its keywords, else
    its key."""
    desc = " ".join(str(h.get("description") or "").split())
    keywords = h.get("keywords")
    if not desc and isinstance(keywords, list | tuple):
        desc = ", ".join(str(k) for k in keywords)
    return (desc or f"id {h.get('key', '')}")[:200]


def _svg_label(export: Mapping[str, Any]) -> str:
    title = export.get("title")
    head = f": {title}" if isinstance(title, str) and title else ""
    return ("hypergraph drawing" + head + ". Tab to an entity or H# label, Enter selects; "
            "arrow keys pan, + and - zoom")


def build_svg(export: Mapping[str, Any], *, png_data_uri: str | None = None,
              described_by: str | None = None) -> str:
    """The SVG markup of all panels of ``export`` (``width`` × ``height`` user units).

    For keyboards and screen readers the SVG is a labelled group (``aria-describedby`` the
    element id ``described_by``, say the caption), and entity nodes and ``H#`` labels are
    focusable toggle buttons (``aria-pressed``) named ``E1: name`` / ``H1: description``; each
    item is one Tab stop, its copy in the first panel (the others ``tabindex="-1"``)."""
    width = as_float(export.get("width")) or 800.0
    height = as_float(export.get("height")) or 600.0
    style = _style(export)
    ew = float(style["edge_width"])
    panels = [_Panel(m, width, height) for m in _dicts(export.get("panels"))] or [
        _Panel({}, width, height)
    ]

    def panel(idx: int | None) -> _Panel | None:
        return panels[idx] if idx is not None and 0 <= idx < len(panels) else None

    hyperedges = _dicts(export.get("hyperedges"))
    colors = {str(h.get("id", "")): safe_color(h.get("color"), i) for i, h in enumerate(hyperedges)}
    for h in hyperedges:
        hid = str(h.get("id", ""))
        color, dash = colors[hid], _dasharray(h.get("dash"), ew)
        for region in _dicts(h.get("regions")):
            target = panel(_panel_of(region))
            polys = region.get("polygons")
            rings = [_points(p) for p in (polys if isinstance(polys, list | tuple) else [])]
            rings = [p for p in rings if len(p) >= 3]
            if target is None or not rings:
                continue
            d = "".join(
                f"M{fmt(p[0][0])} {fmt(p[0][1])}"
                + "".join(f"L{fmt(x)} {fmt(y)}" for x, y in p[1:])
                + "Z"
                for p in rings
            )
            target.regions.append((
                -sum(_area(p) for p in rings), str(h.get("key", hid)),
                f'<path class="hv-region" data-id="{esc(hid)}" d="{d}" fill="{color}" '
                f'fill-opacity="{fmt(style["region_alpha"])}" stroke="{color}" '
                f'stroke-width="{fmt(ew)}" stroke-linejoin="round"{dash}/>',
            ))  # fmt: skip
            for seg in region.get("connectors") or []:
                ends = [_point(p) for p in seg] if isinstance(seg, list | tuple) else []
                if len(ends) == 2 and ends[0] and ends[1]:
                    extra = (
                        f'data-hid="{esc(hid)}" stroke="{color}" stroke-width="{fmt(ew)}"'
                        f"{_dasharray('dotted', ew)}"
                    )
                    target.lines.append(_line("hv-conn", ends[0], ends[1], extra))
        for node in _dicts(h.get("node")):
            target, xy = panel(_panel_of(node)), _xy(node)
            if target is not None and xy is not None:
                target.hnode_pos[hid] = (xy[0], xy[1], as_float(node.get("r")))

    paint = f'fill="{style["node_fill"]}" stroke="{style["node_outline"]}" stroke-width="1.4"'
    for e in _dicts(export.get("entities")):
        eid = str(e.get("id", ""))
        aria = esc(f"{eid}: {e.get('name', '')}")
        spots: list[tuple[int, tuple[float, float], float | None]] = []
        for pos in _dicts(e.get("panel_positions")):
            idx, xy = _panel_of(pos), _xy(pos)
            if idx is not None and panel(idx) is not None and xy is not None:
                spots.append((idx, xy, as_float(pos.get("r"))))
        stop = min((idx for idx, *_ in spots), default=None)
        for idx, xy, r in spots:  # one Tab stop per entity: its node in the first panel
            attrs = (f'{paint} tabindex="{0 if idx == stop else -1}" role="button" '
                     f'aria-pressed="false" aria-label="{aria}"')
            r = r if r is not None and r > 0 else 11.0
            panels[idx].entity_pos[eid] = (xy[0], xy[1], r)
            panels[idx].entities.append(
                _node_shape(eid, xy[0], xy[1], r, str(style["node_shape"]), attrs)
            )

    inc_w, inc_dash = max(0.6, ew * 0.7), _dasharray(style["incidence_style"], max(0.6, ew * 0.7))
    frame = str(style["hyperedge_node_color"])  # "hyperedge": each square in its own colour
    for h in hyperedges:
        hid = str(h.get("id", ""))
        color = colors[hid]
        members = [m for m in h.get("members") or [] if isinstance(m, str)]
        for target in panels:
            placed = [m for m in members if m in target.entity_pos]
            if target.layout == "cli-exp":
                extra = (
                    f'data-hid="{esc(hid)}" stroke="#9a9a9a" stroke-width="{fmt(max(0.6, ew / 2))}"'
                )
                for a in range(len(placed)):
                    for b in range(a + 1, len(placed)):
                        pa, pb = target.entity_pos[placed[a]], target.entity_pos[placed[b]]
                        target.lines.append(_line("hv-clique", pa[:2], pb[:2], extra))
            if hid not in target.hnode_pos:
                continue
            hx, hy, hr = target.hnode_pos[hid]
            for m in placed:
                extra = (
                    f'data-hid="{esc(hid)}" data-eid="{esc(m)}" stroke="{color}" '
                    f'stroke-width="{fmt(inc_w)}"{inc_dash}'
                )
                target.lines.append(_line("hv-inc", target.entity_pos[m][:2], (hx, hy), extra))
            radii = sorted(target.entity_pos[m][2] for m in placed) or [11.0]
            q = hr / math.sqrt(2.0) if hr else radii[len(radii) // 2] * 0.85
            target.hnodes.append(
                f'<rect class="hv-hnode" data-id="{esc(hid)}" x="{fmt(hx - q)}" y="{fmt(hy - q)}" '
                f'width="{fmt(2 * q)}" height="{fmt(2 * q)}" fill="#ffffff" '
                f'stroke="{frame if frame != "hyperedge" else color}" stroke-width="2"/>'
                f'<rect class="hv-hstripe" data-hid="{esc(hid)}" x="{fmt(hx - q + 2)}" '
                f'y="{fmt(hy - q + 2)}" '
                f'width="{fmt(max(0.0, 2 * q - 4))}" height="4" fill="{color}"/>'
            )

    on_node = on_fill(str(style["node_fill"]))
    names = {hid: f"{hid}: {_hyperedge_name(h)}" for h in hyperedges
             if (hid := str(h.get("id", "")))}
    todo: list[tuple[int, Mapping[str, Any], tuple[float, float, float, float], str]] = []
    for lab in _dicts(export.get("labels")):
        idx = _panel_of(lab)
        target, box, lid = panel(idx), _bbox(lab.get("bbox")), str(lab.get("id", ""))
        if target is None or idx is None or box is None or not lid:
            continue
        color, kind = "#222222", lab.get("kind")
        if kind == "entity" or (kind is None and lid in target.entity_pos):
            color = on_node
        elif lid in colors and target.kind == "set":  # as the PNG: readable, same hue
            color = region_label_color(colors[lid], style["background"], style["region_alpha"])
            target.leaders.append(_leader(lab, colors[lid]))
        todo.append((idx, lab, box, color))
    labelled = {(idx, str(lab["id"])) for idx, lab, *_ in todo}
    for idx, target in enumerate(panels):  # IDs the renderer did not place: centred on the node
        for eid, (x, y, r) in target.entity_pos.items():
            if (idx, eid) not in labelled:
                todo.append((idx, {"id": eid}, (x - r, y - 6, x + r, y + 6), on_node))
        for hid, (x, y, _) in target.hnode_pos.items():
            if (idx, hid) not in labelled:
                todo.append((idx, {"id": hid}, (x - 9, y - 6, x + 9, y + 6), "#222222"))
    stops: dict[str, int] = {}  # the panel of each H#'s Tab stop (the first in page order)
    for idx, lab, *_ in todo:
        stops[str(lab["id"])] = min(idx, stops.get(str(lab["id"]), idx))
    for idx, lab, box, color in todo:
        lid = str(lab["id"])
        panels[idx].labels.append(_label(lab, box, color, names.get(lid, ""), stops[lid] == idx))

    # light panel titles and notes on a dark background (a class: the page's CSP forbids
    # inline styles)
    # light panel titles on a dark background, a dark highlight behind white entity IDs
    classes = " ".join(c for c, on in (("hv-dark", is_dark(style["background"])),
                                       ("hv-darkfill", on_node == "#ffffff")) if on)
    dark = f' class="{classes}"' if classes else ""
    described = f' aria-describedby="{esc(described_by)}"' if described_by else ""
    out = [
        f'<svg id="hv-svg"{dark} xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {fmt(width)} '
        f'{fmt(height)}" preserveAspectRatio="xMidYMid meet" role="group" '
        f'aria-label="{esc(_svg_label(export))}"{described}>',
        '<g id="hv-viewport" transform="translate(0 0) scale(1)">',
        f'<rect class="hv-canvas" x="0" y="0" width="{fmt(width)}" height="{fmt(height)}" '
        f'fill="{style["background"]}"/>',
    ]
    for idx, target in enumerate(panels):
        out.extend(target.head(idx, style))
        groups: Iterable[tuple[str, list[str]]] = (
            ("hv-regions", [svg for *_, svg in sorted(target.regions)]),
            ("hv-links", target.lines),
            ("hv-hnodes", target.hnodes),
            ("hv-ents", target.entities),
            ("hv-leaders", [line for line in target.leaders if line]),
            ("hv-labels", target.labels),
        )
        for group, items in groups:
            out.append(f'<g class="{group}">')
            out.extend(items)
            out.append("</g>")
        out.append("</g>")
    if png_data_uri:
        out.append(
            f'<image id="hv-png" class="hv-png hv-off" x="0" y="0" width="{fmt(width)}" '
            f'height="{fmt(height)}" href="{esc(png_data_uri)}" aria-hidden="true"/>'
        )
    out.append("</g></svg>")
    return "\n".join(out)
