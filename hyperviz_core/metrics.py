"""Readability metrics computed from a rendering's export geometry alone.

:func:`compute_metrics` reads the export dict of a rendering (schema in ``docs/contracts.md``;
pixel coordinates, origin top-left) and never imports the renderer, so any drawing —
ours, HyperNetX's, XGI's — can be measured the same way once it is written in that schema.
Only these keys are read: ``width``, ``height``, ``panels[i].bbox``,
``entities[].id/panel_positions[{panel, x, y, r}]``,
``hyperedges[].id/members/regions[{panel, polygons}]/node[{panel, x, y, r?}]`` and
``labels[{id, panel, bbox}]``. A panel is the index into ``panels``.

Geometry conventions
    * A **node** is an entity disk (centre ``x, y``, radius ``r``) or a hyperedge node of an
      induced panel: an axis-aligned square inscribed in the circle of radius ``r``
      (half-side r/√2; a point when the export gives no ``r``).
    * A **region** is the even-odd fill of a hyperedge's ``polygons`` (each a ring of
      points) in one panel: disjoint rings are separate pieces and a ring inside another is
      a hole — so export a polygon with holes as its exterior followed by its interiors.
    * A **label** is its axis-aligned ``bbox``. A label *belongs to* the node with the same
      ``id`` in the same panel.

Metrics (totals; per panel ``i`` the same names prefixed ``panel{i}.``)
    ``nodes`` (entity disks drawn), ``node_overlaps`` (entity disk pairs with centre distance
    < r1 + r2 − 0.05 px, as exports round to 0.01 px; plus pairs involving a hyperedge
    square whose shapes share area),
    ``min_node_distance`` (smallest centre distance over all nodes, px), ``min_node_gap``
    (smallest distance − r1 − r2 between entity disks), ``max_node_diameter`` (entities);
    ``labels``, ``label_label_collisions`` (pairs of boxes sharing > 1 px²),
    ``label_node_collisions`` ((label, node) pairs sharing > 1 px²; a label's **own** node
    does not count when the label's box centre lies inside that node's shape — the ID is
    written on its node; a label beside its node that covers part of it does count),
    ``labels_clipped`` (boxes not wholly inside the canvas, 0.5 px tolerance),
    ``labels_outside_panel`` (boxes not wholly inside their panel's ``bbox``, same tolerance);
    ``regions`` ((hyperedge, panel) pairs with a non-empty region), ``pure_regions``,
    ``purity`` (centre variant: share of regions containing no non-member node centre),
    ``purity_disk`` (share touching no non-member disk, 0.5 px tolerance for polygonised
    circles), ``intruder_pairs`` ((region, non-member) pairs, centre inside),
    ``disk_intruder_pairs``, ``uncovered_members`` ((region, member) pairs whose member
    centre lies outside the region), ``disjoint_pairs`` (pairs of hyperedges with regions in
    one panel and no shared member), ``spurious_overlaps`` (those of them whose regions
    share > 1 px², suggesting a false shared member), ``split_regions`` (regions whose
    members lie in more than one connected piece), ``fragmentation`` (Σ pieces − 1),
    ``unbridged_splits`` (split regions whose pieces stay apart even when the region's
    ``connectors`` — segments ``[[x, y], [x, y]]`` drawn between pieces — join the pieces
    their ends touch, 2 px tolerance), ``edge_labels_outside`` (hyperedge labels whose box
    centre is not inside their own region in that panel);
    ``incidence_edges`` and ``incidence_crossings`` (proper crossings of the straight
    segments member entity → hyperedge node, in panels where hyperedges have a ``node``;
    segments sharing an endpoint never cross);
    ``canvas_utilisation`` (bounding box of the drawn elements ÷ panel area; the total is
    Σ used area ÷ Σ panel area, or ÷ canvas area without panels).

Undefined values: ``purity``/``purity_disk`` are 1.0 without regions; distances are -1.0
with fewer than two nodes. Every value is an ``int`` or a finite ``float``.

Example:
    >>> export = {
    ...     "width": 200, "height": 100,
    ...     "panels": [{"layout": "set-force", "bbox": [0, 0, 200, 100]}],
    ...     "entities": [
    ...         {"id": "E1", "panel_positions": [{"panel": 0, "x": 40, "y": 50, "r": 10}]},
    ...         {"id": "E2", "panel_positions": [{"panel": 0, "x": 100, "y": 50, "r": 10}]},
    ...         {"id": "E3", "panel_positions": [{"panel": 0, "x": 160, "y": 50, "r": 10}]}],
    ...     "hyperedges": [{"id": "H1", "members": ["E1", "E3"], "regions": [
    ...         {"panel": 0, "polygons": [[[20, 30], [180, 30], [180, 70], [20, 70]]]}]}],
    ...     "labels": [{"id": "E1", "panel": 0, "bbox": [34, 45, 46, 55]}],
    ... }
    >>> m = compute_metrics(export)
    >>> m["purity"], m["intruder_pairs"], m["label_node_collisions"], m["node_overlaps"]
    (0.0, 1, 0, 0)
    >>> m["panel0.min_node_distance"]
    60.0
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping
from itertools import combinations
from typing import Any

import numpy as np
import shapely
from pydantic import BaseModel
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry
from shapely.strtree import STRtree

__all__ = ["PanelMetrics", "ReadabilityMetrics", "compute_metrics", "readability_metrics"]

AREA_TOL = 1.0  # px²: shared area below this is not a collision / overlap
TOUCH_TOL = 0.5  # px: a region closer than r - TOUCH_TOL to a centre touches the disk
CLIP_TOL = 0.5  # px: label boxes may stick out of the canvas by this much
ROUND_TOL = 0.05  # px: disks closer than r1 + r2 by less than this are tangent (rounding)
BRIDGE_TOL = 2.0  # px: a connector end this close to a region piece joins it
_EPS = 1e-9

Pt = tuple[float, float]
_Reg = tuple[str, frozenset[str], BaseGeometry, list[tuple[Pt, Pt]]]


class PanelMetrics(BaseModel):
    """Readability metrics of one panel (see the module docstring for definitions)."""

    panel: int | None = None
    nodes: int = 0
    node_overlaps: int = 0
    min_node_distance: float = -1.0
    min_node_gap: float = -1.0
    max_node_diameter: float = 0.0
    labels: int = 0
    label_label_collisions: int = 0
    label_node_collisions: int = 0
    labels_clipped: int = 0
    labels_outside_panel: int = 0
    regions: int = 0
    pure_regions: int = 0
    pure_regions_disk: int = 0
    purity: float = 1.0
    purity_disk: float = 1.0
    intruder_pairs: int = 0
    disk_intruder_pairs: int = 0
    uncovered_members: int = 0
    disjoint_pairs: int = 0
    spurious_overlaps: int = 0
    split_regions: int = 0
    fragmentation: int = 0
    unbridged_splits: int = 0
    edge_labels_outside: int = 0
    incidence_edges: int = 0
    incidence_crossings: int = 0
    used_area: float = 0.0
    panel_area: float = 0.0
    canvas_utilisation: float = 0.0


_SUMMED = (
    "nodes", "node_overlaps", "labels", "label_label_collisions", "label_node_collisions",
    "labels_clipped", "labels_outside_panel", "regions", "pure_regions", "pure_regions_disk",
    "intruder_pairs", "disk_intruder_pairs", "uncovered_members", "disjoint_pairs",
    "spurious_overlaps", "split_regions", "fragmentation", "unbridged_splits",
    "edge_labels_outside", "incidence_edges", "incidence_crossings", "used_area", "panel_area",
)
_PER_PANEL_HIDDEN = ("panel", "used_area", "panel_area", "pure_regions_disk")


class ReadabilityMetrics(PanelMetrics):
    """Totals over all panels plus the per-panel breakdown."""

    panels: list[PanelMetrics] = []

    def to_flat(self) -> dict[str, float | int]:
        """Plain JSON-serialisable dict: totals, then ``panel{i}.<name>`` per panel."""
        out: dict[str, float | int] = {}
        for name, value in self.model_dump(exclude={"panels", "panel"}).items():
            out[name] = _num(value)
        for pm in self.panels:
            if pm.panel is None:
                continue
            for name, value in pm.model_dump(exclude=set(_PER_PANEL_HIDDEN)).items():
                out[f"panel{pm.panel}.{name}"] = _num(value)
        return out


def _num(value: Any) -> float | int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, int):
        return value
    f = float(value)
    return round(f, 6) if math.isfinite(f) else -1.0


# ------------------------------------------------------------------ parsing
class _Node:
    __slots__ = ("id", "kind", "r", "x", "y")

    def __init__(self, id_: str, kind: str, x: float, y: float, r: float) -> None:
        self.id, self.kind, self.x, self.y, self.r = id_, kind, x, y, r

    def holds(self, x: float, y: float) -> bool:
        """Whether the point lies inside the node's shape (boundary included)."""
        if self.kind == "E":
            return math.hypot(x - self.x, y - self.y) <= self.r
        h = self.r / math.sqrt(2.0)
        return abs(x - self.x) <= h and abs(y - self.y) <= h


def _shapes(nodes: list[_Node]) -> np.ndarray:
    """Node shapes: entity disks, hyperedge squares inscribed in the circle, points if r = 0."""
    xy = np.array([(n.x, n.y) for n in nodes], dtype=float).reshape(-1, 2)
    r = np.array([n.r for n in nodes], dtype=float)
    disk = np.array([n.kind == "E" for n in nodes], dtype=bool) & (r > 0)
    square = ~disk & (r > 0)
    out = shapely.points(xy)
    out[disk] = shapely.buffer(out[disk], r[disk], quad_segs=16)
    h = r[square] / math.sqrt(2.0)
    sx, sy = xy[square, 0], xy[square, 1]
    out[square] = shapely.box(sx - h, sy - h, sx + h, sy + h)
    return np.asarray(out, dtype=object)


def _panel_of(value: Any) -> int | None:
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def _region(polygons: Iterable[Any]) -> BaseGeometry | None:
    """Even-odd union of the rings; ``None`` when empty."""
    geom: BaseGeometry | None = None
    for ring in polygons or ():
        pts = np.asarray(ring, dtype=float).reshape(-1, 2)
        if len(pts) < 3:
            continue
        poly = shapely.make_valid(shapely.polygons(pts))
        if poly.is_empty or poly.area <= 0:
            continue
        geom = poly if geom is None else geom.symmetric_difference(poly)
    if geom is None or geom.is_empty or geom.area <= 0:
        return None
    return geom


def _bbox(value: Any) -> tuple[float, float, float, float] | None:
    try:
        x0, y0, x1, y1 = (float(v) for v in value)
    except (TypeError, ValueError):
        return None
    return min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1)


# ------------------------------------------------------------------ per-panel metrics
def _node_metrics(pm: PanelMetrics, nodes: list[_Node], geoms: np.ndarray) -> None:
    disks = [n for n in nodes if n.kind == "E"]
    pm.nodes = len(disks)
    pm.max_node_diameter = max((2 * n.r for n in disks), default=0.0)
    if len(nodes) < 2:
        return
    xy = np.array([(n.x, n.y) for n in nodes], dtype=float)
    i, j = np.triu_indices(len(nodes), k=1)
    pm.min_node_distance = float(np.hypot(xy[i, 0] - xy[j, 0], xy[i, 1] - xy[j, 1]).min())
    if len(disks) >= 2:  # entity disks: exact test d < r1 + r2
        dxy = np.array([(n.x, n.y) for n in disks], dtype=float)
        r = np.array([n.r for n in disks], dtype=float)
        a, b = np.triu_indices(len(disks), k=1)
        d = np.hypot(dxy[a, 0] - dxy[b, 0], dxy[a, 1] - dxy[b, 1])
        reach = r[a] + r[b]
        pm.node_overlaps = int(np.count_nonzero((d < reach - ROUND_TOL) | (d < _EPS)))
        pm.min_node_gap = float((d - reach).min())
    squares = [k for k, n in enumerate(nodes) if n.kind != "E"]
    if squares:  # hyperedge squares against every node: shared area
        si, oi = STRtree(geoms).query(geoms[squares], predicate="intersects")
        for s, o in zip(si.tolist(), oi.tolist(), strict=True):
            k = squares[s]
            if o == k or (nodes[o].kind != "E" and o < k):
                continue  # each pair once
            shared = geoms[o].intersection(geoms[k]).area
            same = math.hypot(nodes[o].x - nodes[k].x, nodes[o].y - nodes[k].y) < _EPS
            pm.node_overlaps += shared > _EPS or same


def _label_metrics(
    pm: PanelMetrics,
    labels: list[tuple[str, tuple[float, float, float, float]]],
    nodes: list[_Node],
    shapes: np.ndarray,
) -> None:
    pm.labels = len(labels)
    if not labels:
        return
    boxes = np.array([b for _, b in labels], dtype=float)
    i, j = np.triu_indices(len(labels), k=1)
    w = np.minimum(boxes[i, 2], boxes[j, 2]) - np.maximum(boxes[i, 0], boxes[j, 0])
    h = np.minimum(boxes[i, 3], boxes[j, 3]) - np.maximum(boxes[i, 1], boxes[j, 1])
    shared = np.clip(w, 0, None) * np.clip(h, 0, None)
    pm.label_label_collisions = int(np.count_nonzero(shared > AREA_TOL))
    keep = [k for k, n in enumerate(nodes) if n.r > 0]
    if not keep:
        return
    shaped, geoms = [nodes[k] for k in keep], shapes[keep]
    lboxes = shapely.box(boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3])
    li, ni = STRtree(geoms).query(lboxes, predicate="intersects")
    if not len(li):
        return
    areas = shapely.area(shapely.intersection(lboxes[li], geoms[ni]))
    for a, k, area in zip(li.tolist(), ni.tolist(), areas.tolist(), strict=True):
        node, (x0, y0, x1, y1) = shaped[k], labels[a][1]
        if node.id == labels[a][0] and node.holds((x0 + x1) / 2, (y0 + y1) / 2):
            continue  # the label is written on its own node
        pm.label_node_collisions += area > AREA_TOL


def _bridged_groups(pieces: list[BaseGeometry], connectors: list[tuple[Pt, Pt]]) -> list[int]:
    """Union-find root of every piece once connectors join the pieces their ends touch."""
    root = list(range(len(pieces)))

    def find(i: int) -> int:
        while root[i] != i:
            root[i] = root[root[i]]
            i = root[i]
        return i

    for a, b in connectors:
        ends = [[k for k, p in enumerate(pieces) if p.distance(Point(q)) <= BRIDGE_TOL]
                for q in (a, b)]
        for i in ends[0]:
            for j in ends[1]:
                root[find(i)] = find(j)
    return [find(i) for i in range(len(pieces))]


def _region_metrics(
    pm: PanelMetrics,
    regions: list[_Reg],
    entities: list[_Node],
    labels: list[tuple[str, tuple[float, float, float, float]]],
) -> None:
    pm.regions = len(regions)
    if not regions:
        return
    centres = shapely.points(np.array([(n.x, n.y) for n in entities]).reshape(-1, 2))
    geoms = np.array([g for _, _, g, _ in regions], dtype=object)
    inside_of: list[set[int]] = [set() for _ in regions]
    near_of: list[set[int]] = [set() for _ in regions]
    if len(centres):
        tree = STRtree(centres)
        for g, k in zip(*tree.query(geoms, predicate="intersects").tolist(), strict=True):
            inside_of[g].add(k)
        max_r = max(n.r for n in entities)
        for g, k in zip(*tree.query(geoms, predicate="dwithin", distance=max_r).tolist(),
                        strict=True):
            near_of[g].add(k)
    for (_hid, members, geom, connectors), inside, near in zip(
            regions, inside_of, near_of, strict=True):
        touched = {k for k in near - inside if entities[k].id not in members
                   and geom.distance(centres[k]) < entities[k].r - TOUCH_TOL}
        intruders = [k for k in inside if entities[k].id not in members]
        pm.intruder_pairs += len(intruders)
        pm.disk_intruder_pairs += len(intruders) + len(touched)
        pm.pure_regions += not intruders
        pm.pure_regions_disk += not intruders and not touched
        member_pts = [centres[k] for k, n in enumerate(entities) if n.id in members]
        pm.uncovered_members += sum(1 for k, n in enumerate(entities)
                                    if n.id in members and k not in inside)
        pieces = list(getattr(geom, "geoms", [geom]))
        holding = [k for k, p in enumerate(pieces) if any(p.intersects(q) for q in member_pts)]
        if len(holding) > 1:
            pm.split_regions += 1
            pm.fragmentation += len(holding) - 1
            groups = _bridged_groups(pieces, connectors)
            pm.unbridged_splits += len({groups[k] for k in holding}) > 1
    pm.purity = pm.pure_regions / pm.regions
    pm.purity_disk = pm.pure_regions_disk / pm.regions
    own = {hid: geom for hid, _, geom, _ in regions}
    for lid, (x0, y0, x1, y1) in labels:
        if lid in own and own[lid].distance(Point((x0 + x1) / 2, (y0 + y1) / 2)) > _EPS:
            pm.edge_labels_outside += 1
    rtree = STRtree(geoms)
    hits = rtree.query(geoms, predicate="intersects")
    candidates = {(int(a), int(b)) for a, b in zip(hits[0], hits[1], strict=True) if a < b}
    for a, b in combinations(range(len(regions)), 2):
        if regions[a][1] & regions[b][1]:
            continue
        pm.disjoint_pairs += 1
        if (a, b) in candidates and geoms[a].intersection(geoms[b]).area > AREA_TOL:
            pm.spurious_overlaps += 1


def _crossings(segments: list[tuple[Pt, Pt]]) -> int:
    if len(segments) < 2:
        return 0
    lines = shapely.linestrings(np.array(segments, dtype=float))
    tree = STRtree(lines)
    hits = tree.query(lines, predicate="crosses")
    count = 0
    for a, b in zip(hits[0], hits[1], strict=True):
        if a < b:
            ends = {segments[a][0], segments[a][1]}
            if segments[b][0] not in ends and segments[b][1] not in ends:
                count += 1
    return count


def _utilisation(
    pm: PanelMetrics, bounds: list[tuple[float, float, float, float]],
    frame: tuple[float, float, float, float],
) -> None:
    fx0, fy0, fx1, fy1 = frame
    pm.panel_area = max(0.0, (fx1 - fx0) * (fy1 - fy0))
    if not bounds or pm.panel_area <= 0:
        return
    arr = np.array(bounds, dtype=float)
    x0, y0 = max(arr[:, 0].min(), fx0), max(arr[:, 1].min(), fy0)
    x1, y1 = min(arr[:, 2].max(), fx1), min(arr[:, 3].max(), fy1)
    pm.used_area = max(0.0, x1 - x0) * max(0.0, y1 - y0)
    pm.canvas_utilisation = pm.used_area / pm.panel_area


# ------------------------------------------------------------------ entry points
def readability_metrics(export: Mapping[str, Any]) -> ReadabilityMetrics:
    """Compute :class:`ReadabilityMetrics` (totals + per panel) from an export dict."""
    width = float(export.get("width") or 0)
    height = float(export.get("height") or 0)
    canvas = (0.0, 0.0, width, height)
    frames: dict[int, tuple[float, float, float, float]] = {}
    for i, panel in enumerate(export.get("panels") or []):
        frames[i] = _bbox((panel or {}).get("bbox")) or canvas
    ents: dict[int | None, list[_Node]] = defaultdict(list)
    pos: dict[tuple[int | None, str], tuple[float, float]] = {}
    for ent in export.get("entities") or []:
        for pp in ent.get("panel_positions") or []:
            p = _panel_of(pp.get("panel"))
            node = _Node(str(ent["id"]), "E", float(pp["x"]), float(pp["y"]), float(pp.get("r", 0)))
            ents[p].append(node)
            pos[(p, node.id)] = (node.x, node.y)
    hnodes: dict[int | None, list[_Node]] = defaultdict(list)
    regions: dict[int | None, list[_Reg]] = defaultdict(list)
    segments: dict[int | None, list[tuple[Pt, Pt]]]
    segments = defaultdict(list)
    for edge in export.get("hyperedges") or []:
        hid, members = str(edge["id"]), frozenset(str(m) for m in edge.get("members") or [])
        for reg in edge.get("regions") or []:
            geom = _region(reg.get("polygons") or [])
            if geom is not None:
                conns = [((float(a[0]), float(a[1])), (float(b[0]), float(b[1])))
                         for a, b in reg.get("connectors") or []]
                regions[_panel_of(reg.get("panel"))].append((hid, members, geom, conns))
        for hn in edge.get("node") or []:
            p = _panel_of(hn.get("panel"))
            node = _Node(hid, "H", float(hn["x"]), float(hn["y"]), float(hn.get("r", 0) or 0))
            hnodes[p].append(node)
            for m in sorted(members):
                if (p, m) in pos:
                    segments[p].append((pos[(p, m)], (node.x, node.y)))
    labels: dict[int | None, list[tuple[str, tuple[float, float, float, float]]]]
    labels = defaultdict(list)
    clipped: dict[int | None, int] = defaultdict(int)
    for lab in export.get("labels") or []:
        b = _bbox(lab.get("bbox"))
        if b is None:
            continue
        p = _panel_of(lab.get("panel"))
        labels[p].append((str(lab.get("id", "")), b))
        if (b[0] < -CLIP_TOL or b[1] < -CLIP_TOL
                or b[2] > width + CLIP_TOL or b[3] > height + CLIP_TOL):
            clipped[p] += 1
    keys = sorted({*frames, *(k for k in (*ents, *hnodes, *regions, *labels) if k is not None)})
    panels: list[PanelMetrics] = []
    all_bounds: list[tuple[float, float, float, float]] = []
    for p in keys:
        pm = PanelMetrics(panel=p)
        nodes = ents.get(p, []) + hnodes.get(p, [])
        shapes = _shapes(nodes)
        _node_metrics(pm, nodes, shapes)
        _label_metrics(pm, labels.get(p, []), nodes, shapes)
        pm.labels_clipped = clipped.get(p, 0)
        if p in frames:
            fx0, fy0, fx1, fy1 = frames[p]
            pm.labels_outside_panel = sum(
                1 for _, (x0, y0, x1, y1) in labels.get(p, [])
                if x0 < fx0 - CLIP_TOL or y0 < fy0 - CLIP_TOL
                or x1 > fx1 + CLIP_TOL or y1 > fy1 + CLIP_TOL)
        _region_metrics(pm, regions.get(p, []), ents.get(p, []), labels.get(p, []))
        pm.incidence_edges = len(segments.get(p, []))
        pm.incidence_crossings = _crossings(segments.get(p, []))
        bounds: list[tuple[float, float, float, float]]
        bounds = [(n.x - n.r, n.y - n.r, n.x + n.r, n.y + n.r) for n in nodes]
        bounds += [tuple(g.bounds) for _, _, g, _ in regions.get(p, [])]
        bounds += [b for _, b in labels.get(p, [])]
        _utilisation(pm, bounds, frames.get(p, canvas))
        all_bounds += bounds
        panels.append(pm)
    # items with no panel index (e.g. legend labels) count in the totals only
    loose = PanelMetrics(panel=None)
    _label_metrics(loose, labels.get(None, []), [], _shapes([]))
    loose.labels_clipped = clipped.get(None, 0)
    total = ReadabilityMetrics(panels=panels)
    for name in _SUMMED:
        setattr(total, name, sum(getattr(pm, name) for pm in [*panels, loose]))
    dists = [pm.min_node_distance for pm in panels if pm.min_node_distance >= 0]
    gaps = [pm.min_node_gap for pm in panels if pm.min_node_distance >= 0]
    total.min_node_distance = min(dists, default=-1.0)
    total.min_node_gap = min(gaps, default=-1.0)
    total.max_node_diameter = max((pm.max_node_diameter for pm in panels), default=0.0)
    if total.regions:
        total.purity = total.pure_regions / total.regions
        total.purity_disk = total.pure_regions_disk / total.regions
    if frames:
        total.canvas_utilisation = total.used_area / total.panel_area if total.panel_area else 0.0
    else:
        _utilisation(total, all_bounds, canvas)
    return total


def compute_metrics(export: Mapping[str, Any]) -> dict[str, float | int]:
    """Readability metrics of an export dict as a flat, JSON-serialisable dict.

    Totals use the plain names of the module docstring; per-panel values are
    ``"panel{i}.<name>"``. See :func:`readability_metrics` for the structured form.
    """
    return readability_metrics(export).to_flat()
