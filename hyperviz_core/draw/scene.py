"""One panel's geometry in pixels: node positions, regions, hyperedge nodes, labels.

:func:`build_panel` runs a layout, fits it to the panel, separates overlapping nodes, builds
member-exclusive regions (set layouts) and places every label without collisions. The result
(:class:`PanelScene`) is what both the rasteriser and the export read, so the PNG and the JSON
geometry always agree.
"""

from __future__ import annotations

import functools
import math
import numbers
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from shapely.geometry import MultiPolygon, Point, Polygon
from shapely.ops import nearest_points, unary_union
from shapely.strtree import STRtree

from ..idmap import IdMap
from ..layouts import LayoutOrder, LayoutResult, get_layout
from ..model import Hypergraph
from ..style import Style
from ..unitext import search_fold
from .fit import (
    columns_width,
    ensure_spacing,
    fit_points,
    fit_transform,
    separate,
    stack_columns,
)
from .labels import (
    Label,
    Occupancy,
    cut_lengths,
    make_box,
    place_in_region,
)
from .names import display_name, display_names, looks_like_id
from .regions import Region, build_regions, nesting_ranks, ring_radius
from .spacing import overlapping_nodes
from .spots import owned_near_spot, pocket_spot, spiral_free
from .text import measure

__all__ = ["HEADER_PX", "PanelScene", "build_geometry", "build_panel", "display_name",
           "display_names", "looks_like_id", "place_labels", "visual_order"]

Pt = tuple[float, float]
Box = tuple[float, float, float, float]
HEADER_PX = 18.0
SEP_PX = 10.0
MIN_SEP_PX = 3.0
NAME_GAP = 0.6
"""A free induced layout (``cli-exp``) keeps this share of the widest name's room (at most
a quarter of the panel) between nodes, so names find a spot that is their node's."""

@dataclass
class PanelScene:
    """Everything drawn in one panel (pixel coordinates of the whole canvas, y down)."""

    index: int
    layout: str
    bbox: Box
    kind: str = "set"
    engine: str = ""
    radius: float = 11.0
    hnode_half: float = 10.0
    nodes: dict[str, Pt] = field(default_factory=dict)
    hnodes: dict[str, Pt] = field(default_factory=dict)
    regions: dict[str, Region] = field(default_factory=dict)
    incidence: list[tuple[str, str]] = field(default_factory=list)
    clique: list[tuple[str, str]] = field(default_factory=list)
    rings: list[float] = field(default_factory=list)
    ring_stretch: Pt = (1.0, 1.0)
    """Ring ``i`` is the ellipse with half-axes ``rings[i]`` times these (circles: 1, 1)."""
    ring_names: list[str] = field(default_factory=list)
    center: Pt | None = None
    labels: list[Label] = field(default_factory=list)
    message: str | None = None
    label_failures: int = 0
    scale: tuple[float, float] = (0.0, 0.0)
    """Pixels per layout unit along x and y (one uniform scale: always equal)."""
    unnamed: list[str] = field(default_factory=list)
    """Entity keys whose name found no unambiguous spot (shown by ID only)."""
    overflow: float = 1.0
    """Above 1 when an induced panel is full and nodes overlap: the needed width of its
    columns over the panel's (two-column layouts), at least 1 + the share of overlapping
    nodes. Congestion control does not accept such a drawing."""


def visual_order(hg: Hypergraph, ids: IdMap) -> LayoutOrder:
    """Keys and ids sorted by their visual ID number (E1, E2, ..., H1, ...)."""
    ents = sorted(hg.entities, key=lambda k: int(ids.entities[k][1:]))
    edges = sorted(hg.hyperedges, key=lambda h: int(ids.hyperedges[h][1:]))
    return LayoutOrder(entities=ents, hyperedges=edges)


def node_radius(ids: IdMap, style: Style) -> float:
    """Radius that fits the widest entity ID inside its node."""
    widest = max((measure(v, style.font_size, True, style.dpi)[0]
                  for v in ids.entities.values()), default=0.0)
    return max(style.node_radius, widest / 2.0 + 2.5)


def _inner(bbox: Box, style: Style) -> Box:
    m = style.margin
    return (bbox[0] + m, bbox[1] + HEADER_PX + m * 0.5, bbox[2] - m, bbox[3] - m)


def _shrink(b: Box, pad: float) -> Box:
    x0, y0, x1, y1 = b
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    return (min(x0 + pad, cx), min(y0 + pad, cy), max(x1 - pad, cx), max(y1 - pad, cy))


def build_panel(
    hg: Hypergraph, ids: IdMap, order: LayoutOrder, layout: str, index: int, bbox: Box,
    style: Style,
) -> PanelScene:
    """Lay out ``hg`` with ``layout`` in panel ``bbox`` and place regions and labels."""
    scene = build_geometry(hg, ids, order, layout, index, bbox, style)
    place_labels(scene, hg, ids, order, style)
    return scene


def _checked(layout: str, result: Any, order: LayoutOrder) -> LayoutResult:
    """``result`` if it is a usable :class:`LayoutResult` (a custom layout's bug is named
    here, not met as a crash of the geometry library on a NaN point)."""
    if not isinstance(result, LayoutResult):
        raise TypeError(f"layout {layout!r} returned {type(result).__name__}, not a "
                        "LayoutResult")
    if result.kind not in ("set", "induced"):
        raise ValueError(f"layout {layout!r} gave kind {result.kind!r}; use 'set' or 'induced'")
    missing = [k for k in order.entities if k not in result.entities]
    if missing:
        raise ValueError(f"layout {layout!r} gave no position for {len(missing)} entities")
    for what, points in (("entity", result.entities), ("hyperedge", result.hyperedges)):
        for key, point in points.items():
            if not _finite_pair(point):
                raise ValueError(f"layout {layout!r} gave {what} {key!r} the position "
                                 f"{point!r:.60}, not two finite numbers")
    if result.rings and not _finite_pair(result.ring_stretch, above=0.0):
        raise ValueError(f"layout {layout!r} gave the ring stretch "
                         f"{result.ring_stretch!r:.60}, not two finite numbers above 0")
    return result


def _finite_pair(pair: Any, above: float = -math.inf) -> bool:
    """Two finite numbers (not text that reads as one), each above ``above``."""
    try:
        return len(pair) == 2 and all(isinstance(c, numbers.Real) and not isinstance(c, bool)
                                      and math.isfinite(float(c)) and float(c) > above
                                      for c in pair)
    except (TypeError, ValueError):
        return False


def build_geometry(
    hg: Hypergraph, ids: IdMap, order: LayoutOrder, layout: str, index: int, bbox: Box,
    style: Style,
) -> PanelScene:
    """Everything but the labels: layout, one uniform fit to the panel, spacing, regions."""
    scene = PanelScene(index=index, layout=layout, bbox=bbox)
    if not order.entities:
        scene.message = "empty hypergraph (nothing to draw)"
        return scene
    inner = _inner(bbox, style)
    wide, high = inner[2] - inner[0], inner[3] - inner[1]
    if wide > 0 and high > 0:  # the layout may shape itself to its panel
        order = replace(order, aspect=round(wide / high, 6))
    result = _checked(layout, get_layout(layout)(hg, order), order)
    scene.kind, scene.engine = result.kind, result.engine
    r = node_radius(ids, style)
    scene.radius = r
    edges = [(h, hg.members(h)) for h in order.hyperedges]
    if result.kind == "set":
        ranks = nesting_ranks(edges)
        kmax = max(ranks.values(), default=0)
        pad = ring_radius(r, kmax) + 2.0
    else:
        hw = max(measure(v, style.font_size, True, style.dpi)[0]
                 for v in ids.hyperedges.values()) if ids.hyperedges else 0.0
        scene.hnode_half = max(r * 0.85, hw / 2.0 + 2.5)
        pad = max(r, scene.hnode_half * math.sqrt(2.0)) + 2.0
    frame = _shrink(inner, pad)
    hkeys = [h for h in order.hyperedges if h in result.hyperedges]
    pts = np.array([result.entities[k] for k in order.entities]
                   + [result.hyperedges[h] for h in hkeys], dtype=float)
    sx, sy, mx, my, cx, cy = fit_transform(pts, frame, uniform=True)
    scene.scale = (sx, sy)
    xy = fit_points(pts, frame, uniform=True)
    n = len(order.entities)
    if result.kind == "set":
        radii = np.full(n, r)
        ent_xy = ensure_spacing(separate(xy[:n], radii, frame, SEP_PX), radii, frame, SEP_PX)
        anchors = {h: (float(x), float(y)) for h, (x, y) in zip(hkeys, xy[n:], strict=True)}
        scene.nodes = {k: (float(x), float(y)) for k, (x, y) in
                       zip(order.entities, ent_xy, strict=True)}
        scene.regions = build_regions(edges, scene.nodes, r, inner, anchors=anchors)
    else:
        hr = scene.hnode_half * math.sqrt(2.0)
        radii = np.concatenate([np.full(n, r), np.full(len(hkeys), hr)])
        sep, capacity = SEP_PX, 1.0
        if result.columns is not None:
            room = _name_room(hg, order, style, frame)
            xy, sep, unit, capacity = _columns(result.columns, order.entities, hkeys, r, hr,
                                               frame, room)
            scene.scale = (unit, unit)
        elif not result.rings:  # a free layout (cli-exp): names' room between nodes
            sep = max(SEP_PX, NAME_GAP * _name_room(hg, order, style, frame))
        moved = ensure_spacing(separate(xy, radii, frame, sep), radii, frame, sep)
        clashing = overlapping_nodes(moved[:n], r, moved[n:], scene.hnode_half)  # full
        if clashing:
            scene.overflow = max(capacity, 1.0 + clashing / len(moved))
        scene.nodes = {k: (float(x), float(y)) for k, (x, y) in
                       zip(order.entities, moved[:n], strict=True)}
        scene.hnodes = {h: (float(x), float(y)) for h, (x, y) in
                        zip(hkeys, moved[n:], strict=True)}
        scene.incidence = [(m, h) for h in hkeys for m in hg.members(h)]
        scene.clique = list(result.clique_edges)
    if result.rings and result.center is not None:
        scene.center = (cx + (result.center[0] - mx) * sx, cy - (result.center[1] - my) * sy)
        scene.rings = [float(rad * sx) for rad in result.rings]
        scene.ring_stretch = (float(result.ring_stretch[0]), float(result.ring_stretch[1]))
        scene.ring_names = list(result.ring_names)
    return scene


def _name_room(hg: Hypergraph, order: LayoutOrder, style: Style, frame: Box) -> float:
    """Room left of a two-column layout for the names of its leftmost sub-column (names
    beside a staggered column would sit next to a neighbour's node); ≤ 25 % of the width."""
    if not (style.show_entity_names and style.name_max_chars > 0) or not order.entities:
        return 0.0
    names = display_names([hg.entities[k].name for k in order.entities], style.name_max_chars)
    widest = max(measure(text, style.font_size, False, style.dpi)[0] for text in names)
    return float(min(widest + 8.0, 0.25 * (frame[2] - frame[0])))


def _columns(
    columns: tuple[list[str], list[str]], ents: list[str], hkeys: list[str], r: float,
    hr: float, frame: Box, names: float = 0.0,
) -> tuple[np.ndarray, float, float, float]:
    """Pixel positions (entities, then ``hkeys``) of a two-column layout, the gap used, the
    scale (pixels per row of the longer column, the layout unit along both axes) and the
    overflow (needed width over the panel's at the smallest gap; above 1 nodes overlap).

    Capacity rule (:func:`stack_columns`): each column gets as many sub-columns as the panel
    height needs. The entity sub-columns, and the entity column and the hyperedge column,
    are ``names`` px (the widest name's room) farther apart, so each name fits right of its
    node: without it a name beside an inner sub-column's node lay nearer a neighbour's node
    and was left out (shown by ID only). When that does not fit the width, ``names`` px are
    kept left of the columns for the first sub-column's names and the room between
    sub-columns shrinks by quarters (names are then cut shorter); then the gap between
    nodes shrinks from ``SEP_PX`` towards ``MIN_SEP_PX`` (nodes never overlap, they just
    pack closer); past that the panel is overfull.
    """
    def complete(col: list[str], keys: list[str]) -> list[str]:
        known = set(keys)
        out = [k for k in col if k in known]
        seen = set(out)
        return out + [k for k in keys if k not in seen]

    ecol, hcol = complete(columns[0], ents), complete(columns[1], hkeys)
    radii = [[r] * len(ecol), [hr] * len(hcol)]
    sep = SEP_PX
    stacked = stack_columns(radii, frame, sep, [names, 0.0])
    if stacked is None and names > 0:
        frame = (frame[0] + names, frame[1], frame[2], frame[3])
        for share in (0.75, 0.5, 0.25, 0.0):
            stacked = stacked or stack_columns(radii, frame, sep, [names * share, 0.0])
    while stacked is None and sep > MIN_SEP_PX:
        sep = max(MIN_SEP_PX, sep - 1.0)
        stacked = stack_columns(radii, frame, sep)
    overflow = 1.0
    if stacked is None:  # beyond capacity: overlapping columns, ensure_spacing sorts it out
        overflow = columns_width(radii, frame, MIN_SEP_PX) / max(frame[2] - frame[0], 1.0)
        sep = MIN_SEP_PX
        stacked = [np.column_stack([np.full(len(c), x), np.linspace(frame[1], frame[3], len(c))])
                   for c, x in zip(radii, (frame[0], frame[2]), strict=True)]
    epts, hpts = stacked
    rows = max(len(ecol), len(hcol)) - 1
    unit = (frame[3] - frame[1]) / rows if rows > 0 else 0.0
    epos = {k: p for k, p in zip(ecol, epts, strict=True)}
    hpos = {h: p for h, p in zip(hcol, hpts, strict=True)}
    return np.array([epos[k] for k in ents] + [hpos[h] for h in hkeys],
                    dtype=float).reshape(-1, 2), sep, float(unit), overflow


def place_labels(
    scene: PanelScene, hg: Hypergraph, ids: IdMap, order: LayoutOrder, style: Style
) -> None:
    """IDs on nodes, hyperedge IDs in their regions, ring names, then entity names where a
    spot is free *and* unambiguous (box and centre nearer its own node than any other); an
    entity whose name finds no such spot is listed in ``scene.unnamed`` (shown by ID only)."""
    if scene.message:
        return
    r, fs, dpi = scene.radius, style.font_size, style.dpi
    disks = [(x, y, r) for x, y in scene.nodes.values()]
    q = scene.hnode_half
    disks += [(x, y, q * math.sqrt(2.0)) for x, y in scene.hnodes.values()]
    occ = Occupancy(scene.bbox, disks)
    for k in order.entities:
        x, y = scene.nodes[k]
        vid = ids.entities[k]
        w, h = measure(vid, fs, True, dpi)
        scene.labels.append(Label(vid, "entity", vid, x, y, make_box(x, y, w, h), fs, True))
    for hid, (x, y) in scene.hnodes.items():
        vid = ids.hyperedges[hid]
        w, h = measure(vid, fs, True, dpi)
        scene.labels.append(Label(vid, "hyperedge", vid, x, y, make_box(x, y, w, h), fs, True))
    if scene.regions and style.show_edge_labels:
        _region_labels(scene, hg, ids, order, style, occ)
    if scene.center is not None and scene.rings:
        _ring_labels(scene, style, occ)
    if style.show_entity_names and style.name_max_chars > 0:
        _name_labels(scene, hg, ids, order, style, occ)


OWN_MARGIN = 2.0
"""px: a name's box, and its centre, must be this much nearer its own node than any other
node."""


def _name_labels(
    scene: PanelScene, hg: Hypergraph, ids: IdMap, order: LayoutOrder, style: Style,
    occ: Occupancy,
) -> None:
    """Entity names beside their nodes, only where the box is unambiguously theirs (its
    nearest point and its centre both ``OWN_MARGIN`` px nearer their node than any other:
    :func:`_place_name`); two different names never read alike (:func:`display_names`).
    The names that find no such spot are tried again, once all the others are placed, cut
    shorter (:func:`~.labels.cut_lengths`, down to ``MIN_CUT`` characters): the longest cut
    that finds an owned spot, and reads like no other name placed, is shown."""
    keys = list(scene.nodes)
    hr = scene.hnode_half * math.sqrt(2.0)
    nodes = (np.array(list(scene.nodes.values()) + list(scene.hnodes.values()),
                      dtype=float).reshape(-1, 2),
             np.array([scene.radius] * len(keys) + [hr] * len(scene.hnodes), dtype=float))
    names = [hg.entities[k].name for k in keys]
    texts = display_names(names, style.name_max_chars)
    placed: dict[int, str] = {}
    for i, k in enumerate(keys):
        if _place_name(scene, occ, style, nodes, i, ids.entities[k], texts[i]):
            placed[i] = texts[i]
    cut = functools.cache(lambda m: display_names(names, m))  # told apart as the full cuts
    folded = [search_fold(n) for n in names]
    shown = {j: search_fold(t) for j, t in placed.items()}
    for i in [i for i in range(len(keys)) if i not in placed]:
        width = measure(texts[i], style.font_size, False, style.dpi)[0]
        for text in (cut(m)[i] for m in cut_lengths(style.name_max_chars)):
            cut_width, fold = measure(text, style.font_size, False, style.dpi)[0], search_fold(text)
            if cut_width >= width or any(f == fold and folded[j] != folded[i]
                                         for j, f in shown.items()):
                continue  # no smaller, or it reads like another name shown
            if _place_name(scene, occ, style, nodes, i, ids.entities[keys[i]], text):
                placed[i], shown[i] = text, fold
                break
            width = cut_width
    scene.unnamed += [k for i, k in enumerate(keys) if i not in placed]
    scene.label_failures += len(keys) - len(placed)


def _place_name(
    scene: PanelScene, occ: Occupancy, style: Style, nodes: tuple[np.ndarray, np.ndarray],
    i: int, vid: str, text: str,
) -> bool:
    """Place ``text``, the name of ``vid`` (the ``i``-th entity of ``scene.nodes``), at the
    first free spot beside its node whose centre (:func:`~.spots.centre_owned_mask`) and box
    (:func:`~.spots.box_owned_mask`) are ``OWN_MARGIN`` px nearer it than any other node
    of ``nodes`` (centres, radii; hyperedge nodes after the entities); False when there is
    none (:func:`~.spots.owned_near_spot`)."""
    fs = style.font_size
    w, h = measure(text, fs, False, style.dpi)
    w, h = w + 4.0, h + 2.0
    all_xy, all_r = nodes
    spot = owned_near_spot(occ, i, all_xy, all_r, scene.radius, w, h, OWN_MARGIN)
    if spot is None:
        return False
    b = make_box(spot[0], spot[1], w, h)
    occ.add(b)
    scene.labels.append(Label(vid, "name", text, spot[0], spot[1], b, fs, boxed=True,
                              color="#333333"))
    return True


def _ring_labels(scene: PanelScene, style: Style, occ: Occupancy) -> None:
    """``d=1``, ``d=2`` ... on the distance rings of radial layouts, where there is room."""
    assert scene.center is not None
    cx, cy = scene.center
    size = max(4.0, style.font_size - 1.0)
    kx, ky = scene.ring_stretch
    for i, rad in enumerate(scene.rings, 1):
        names = scene.ring_names
        text = names[i - 1] if i <= len(names) else f"d={i}"
        w, h = measure(text, size, False, style.dpi)
        for deg in (-90, -60, -120, -30, -150, 90, 60, 120):
            x = cx + kx * rad * math.cos(math.radians(deg))
            y = cy + ky * rad * math.sin(math.radians(deg))
            b = make_box(x, y, w + 2.0, h)
            if occ.free(b):
                occ.add(b)
                scene.labels.append(Label(f"d{i}", "ring", text, x, y, b, size,
                                          color="#999999"))
                break


def _pocket(
    scene: PanelScene, hg: Hypergraph, hid: str, occ: Occupancy, w: float, h: float
) -> Pt | None:
    """A free spot just outside a crowded region; the region grows a pocket to hold it.

    The pocket keeps the non-member clearance of the region (``r + 4`` px), so purity holds.
    """
    region = scene.regions[hid]
    members = set(hg.members(hid))
    others = np.array([p for k, p in scene.nodes.items() if k not in members],
                      dtype=float).reshape(-1, 2)
    found = pocket_spot(occ, region.geom, others, scene.radius + 4.0 + 1.0, w, h)
    if found is None:
        return None
    x, y, grown = found
    merged = unary_union([region.geom, grown])
    if isinstance(merged, Polygon | MultiPolygon):
        region.geom = merged
    return x, y


def _region_labels(
    scene: PanelScene, hg: Hypergraph, ids: IdMap, order: LayoutOrder, style: Style,
    occ: Occupancy,
) -> None:
    fs, dpi = style.label_font_size, style.dpi
    hids = [h for h in order.hyperedges if h in scene.regions]
    geoms = [scene.regions[h].geom for h in hids]
    tree = STRtree(geoms)
    # small regions first: they have the least room
    for i in sorted(range(len(hids)), key=lambda j: (geoms[j].area, j)):
        hid = hids[i]
        vid = ids.hyperedges[hid]
        others = [geoms[int(j)] for j in tree.query(geoms[i], predicate="intersects")
                  if int(j) != i]
        spot: Pt | None = None
        size = fs
        for size in (fs, fs * 0.8):  # a smaller label before leaving the region
            w, h = measure(vid, size, True, dpi)
            w, h = w + 3.0, h + 1.0
            spot = place_in_region(occ, geoms[i], others, w, h)
            if spot is not None:
                break
        leader = None
        if spot is None:
            spot = _pocket(scene, hg, hid, occ, w, h)
        if spot is None:
            c = geoms[i].representative_point()
            spot = spiral_free(occ, c.x, c.y, w, h)
            if spot is not None:
                near = nearest_points(geoms[i], Point(spot))[0]
                leader = ((spot[0], spot[1]), (float(near.x), float(near.y)))
        if spot is None:
            scene.label_failures += 1
            continue
        b = make_box(spot[0], spot[1], w, h)
        occ.add(b)
        scene.labels.append(Label(vid, "hyperedge", vid, spot[0], spot[1], b, size, True,
                                  boxed=True, leader=leader))
