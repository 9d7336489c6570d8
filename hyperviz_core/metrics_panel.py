"""Per-panel readability measures of an export: its shapes and what is counted in one panel.

The seam of :mod:`hyperviz_core.metrics`: this module parses an export's geometry (entity
disks, hyperedge squares, even-odd regions, label boxes) and fills one :class:`PanelMetrics`
per panel (node overlaps and distances, label collisions, region purity, splits and
bridges, incidence crossings, canvas utilisation); :mod:`hyperviz_core.metrics` sums the
panels and is the public entry point (definitions in its module docstring).

Example:
    >>> PanelMetrics(panel=0).purity
    1.0
    >>> _crossings([((0, 0), (10, 10)), ((0, 10), (10, 0)), ((0, 0), (5, 0))])
    1
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from itertools import combinations
from typing import Any

import numpy as np
import shapely
from pydantic import BaseModel
from shapely.geometry import Point
from shapely.geometry.base import BaseGeometry
from shapely.strtree import STRtree

from .metrics_cost import NodeArrays

__all__ = ["AREA_TOL", "BRIDGE_TOL", "CLIP_TOL", "ROUND_TOL", "TOUCH_TOL", "PanelMetrics"]


AREA_TOL = 1.0  # px²: shared area below this is not a collision / overlap
TOUCH_TOL = 0.5  # px: a region closer than r - TOUCH_TOL to a centre touches the disk
CLIP_TOL = 0.5  # px: label boxes may stick out of the canvas by this much
ROUND_TOL = 0.05  # px: disks closer than r1 + r2 by less than this are tangent (rounding)
BRIDGE_TOL = 2.0  # px: a connector end this close to a region piece joins it
_EPS = 1e-9

Pt = tuple[float, float]
_Reg = tuple[str, frozenset[str], BaseGeometry, list[tuple[Pt, Pt]]]


class PanelMetrics(BaseModel):
    """Readability metrics of one panel (definitions: :mod:`hyperviz_core.metrics`)."""

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
    ambiguous_labels: int = 0
    duplicate_labels: int = 0
    unnamed_entities: int = 0
    cost: float = 0.0
    used_area: float = 0.0
    panel_area: float = 0.0
    canvas_utilisation: float = 0.0


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


def _arrays(nodes: list[_Node]) -> NodeArrays:
    return NodeArrays(ids=[n.id for n in nodes], x=np.array([n.x for n in nodes], dtype=float),
                      y=np.array([n.y for n in nodes], dtype=float),
                      r=np.array([n.r for n in nodes], dtype=float),
                      disk=np.array([n.kind == "E" for n in nodes], dtype=bool))


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
