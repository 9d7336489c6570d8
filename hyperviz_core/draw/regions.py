"""Member-exclusive hyperedge regions (purity 1.0 by construction).

For each hyperedge: the union of a disk around every member (radius ``r + 4 + 2.5·k``, ``k``
the nesting rank of the hyperedge among that member's hyperedges, smallest innermost) and a
skeleton (a Euclidean minimum spanning tree of the members, with the layout's anchor — the
hyperedge's node in the Graphviz incidence layout — as an extra junction), buffered to
``0.55·r``. The disks of all non-members are subtracted (``STRtree`` finds the nearby ones),
padded to at least ``r + gap`` and up to the node's outermost ring + 1 px where its neighbours
leave room (:func:`_clearances`): a region then keeps off the rings other hyperedges draw
around that node, which would read as a shared member. Necks under 1 px are cut. Pieces
without members are dropped; if the members end up in several pieces they are reconnected
with a corridor found by breadth-first search through free grid cells, then the obstacles
are subtracted again. Whatever remains split is reported (and drawn with a dashed
connector); a non-member is never inside a region.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import shapely
from shapely.geometry import LineString, MultiPolygon, Point, Polygon, box
from shapely.geometry.base import BaseGeometry
from shapely.ops import unary_union
from shapely.strtree import STRtree

__all__ = ["Region", "build_regions", "nesting_ranks", "ring_radius"]

Pt = tuple[float, float]


@dataclass
class Region:
    """The drawn region of one hyperedge in one panel."""

    hid: str
    geom: BaseGeometry
    connectors: list[tuple[Pt, Pt]] = field(default_factory=list)

    def polygons(self) -> list[Polygon]:
        """The polygon pieces, largest first."""
        geoms = list(getattr(self.geom, "geoms", [self.geom]))
        polys = [g for g in geoms if isinstance(g, Polygon) and not g.is_empty]
        return sorted(polys, key=lambda p: -p.area)

    def rings(self) -> list[list[list[float]]]:
        """Rings for export: each polygon's exterior followed by its interiors (even-odd)."""
        out: list[list[list[float]]] = []
        for poly in self.polygons():
            for ring in [poly.exterior, *poly.interiors]:
                out.append(np.round(np.asarray(ring.coords)[:, :2], 2).tolist())
        return out


RING_PAD = 4.0
RING_STEP = 2.5
MAX_RANK = 6
SKELETON = 0.55
HALO = 1.0
MEMBER_PAD = 2.0
NECK = 0.5


def ring_radius(radius: float, rank: int) -> float:
    """Radius of a member's disk in a region of nesting rank ``rank``."""
    return radius + RING_PAD + RING_STEP * min(rank, MAX_RANK)


def nesting_ranks(edges: list[tuple[str, list[str]]]) -> dict[tuple[str, str], int]:
    """(hid, member) → rank of the hyperedge among the member's hyperedges (small first)."""
    per: dict[str, list[tuple[int, int, str]]] = {}
    for i, (hid, members) in enumerate(edges):
        for m in members:
            per.setdefault(m, []).append((len(members), i, hid))
    out: dict[tuple[str, str], int] = {}
    for m, lst in per.items():
        for k, (_, _, hid) in enumerate(sorted(lst)):
            out[(hid, m)] = k
    return out


def _emst(points: list[Pt]) -> list[tuple[Pt, Pt]]:
    n = len(points)
    if n < 2:
        return []
    xy = np.array(points, dtype=float)
    in_tree = np.zeros(n, dtype=bool)
    in_tree[0] = True
    best = np.hypot(*(xy - xy[0]).T)
    parent = np.zeros(n, dtype=int)
    segs: list[tuple[Pt, Pt]] = []
    for _ in range(n - 1):
        cand = np.where(in_tree, np.inf, best)
        j = int(np.argmin(cand))
        segs.append((points[int(parent[j])], points[j]))
        in_tree[j] = True
        d = np.hypot(*(xy - xy[j]).T)
        closer = d < best
        parent[closer] = j
        best = np.minimum(best, d)
    return segs


def _disks(centres: list[Pt], radii: list[float]) -> list[BaseGeometry]:
    """Disk polygons (``quad_segs=8``) around ``centres``, built in one vectorised call."""
    if not centres:
        return []
    return list(shapely.buffer(shapely.points(centres), radii, quad_segs=8))


def _open(geom: BaseGeometry) -> BaseGeometry:
    """Cut necks thinner than ``2·NECK`` px (left between two obstacles): they would read as
    joined but split once rounded, so the pieces are reconnected or bridged instead."""
    return geom.buffer(-NECK, quad_segs=2).buffer(NECK, quad_segs=2, join_style="mitre")


def _polys(geom: BaseGeometry) -> list[Polygon]:
    if geom.is_empty:
        return []
    if isinstance(geom, Polygon):
        return [geom]
    return [g for g in getattr(geom, "geoms", []) if isinstance(g, Polygon) and not g.is_empty]


_MOVES: tuple[tuple[int, int], ...] = (
    (0, 1), (1, 0), (0, -1), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1)
)


class _Grid:
    """Free-space grid of a panel for corridor search (cell size ``step``)."""

    def __init__(self, frame: tuple[float, float, float, float], step: float) -> None:
        x0, y0, x1, y1 = frame
        self.x0, self.y0, self.step = x0, y0, step
        self.nx = max(2, int((x1 - x0) / step))
        self.ny = max(2, int((y1 - y0) / step))
        xs = x0 + (np.arange(self.nx) + 0.5) * step
        ys = y0 + (np.arange(self.ny) + 0.5) * step
        self.cx, self.cy = np.meshgrid(xs, ys)

    def free(self, obstacles: list[tuple[Pt, float]]) -> np.ndarray:
        """Cells farther than its radius from every (centre, radius) obstacle."""
        ok = np.ones(self.cx.shape, dtype=bool)
        for (ox, oy), radius in obstacles:
            # only the cells near the obstacle: those outside the window are at least 1.5
            # cells farther than ``radius`` from it, so the test below holds for them anyway
            i0, i1 = self._span(oy, radius, self.y0, self.ny)
            j0, j1 = self._span(ox, radius, self.x0, self.nx)
            if i0 < i1 and j0 < j1:
                cx, cy = self.cx[i0:i1, j0:j1], self.cy[i0:i1, j0:j1]
                ok[i0:i1, j0:j1] &= (cx - ox) ** 2 + (cy - oy) ** 2 > radius**2
        return ok

    def _span(self, c: float, radius: float, origin: float, n: int) -> tuple[int, int]:
        """Cell index range [lo, hi) whose centres may lie within ``radius`` of ``c``."""
        lo = math.floor((c - radius - origin) / self.step) - 1
        hi = math.ceil((c + radius - origin) / self.step) + 2
        return max(lo, 0), min(hi, n)

    def cell(self, p: Pt) -> tuple[int, int]:
        i = int((p[1] - self.y0) / self.step)
        j = int((p[0] - self.x0) / self.step)
        return min(max(i, 0), self.ny - 1), min(max(j, 0), self.nx - 1)

    def center(self, c: tuple[int, int]) -> Pt:
        return float(self.cx[c]), float(self.cy[c])

    def path(self, free: np.ndarray, src: list[Pt], dst: list[Pt]) -> list[Pt] | None:
        """Shortest 8-connected path of free cells from any src point to any dst point.

        Breadth-first search as numpy wavefronts (one dilation per step), then a walk back
        along decreasing distance in a fixed neighbour order (deterministic).
        """
        src_m = np.zeros(free.shape, dtype=bool)
        dst_m = np.zeros(free.shape, dtype=bool)
        for p in src:
            src_m[self.cell(p)] = True
        for p in dst:
            dst_m[self.cell(p)] = True
        # the grid with a False border, flattened: the neighbours of a cell are ±1 (same
        # row) and ±w (next rows), contiguous shifts; the border stops any wrap-around
        w = free.shape[1] + 2

        def flat(mask: np.ndarray) -> np.ndarray:
            out = np.zeros((free.shape[0] + 2, w), dtype=bool)
            out[1:-1, 1:-1] = mask
            return out.ravel()

        avail = flat((free | dst_m) & ~src_m)  # passable cells not reached yet
        frontier, target = flat(src_m), flat(dst_m)
        grown, row = np.zeros_like(frontier), np.zeros_like(frontier)
        dist_flat = np.full(frontier.shape, -1, dtype=np.int32)
        dist_flat[frontier] = 0
        step = 0
        while not (frontier & target).any():
            # the 8 neighbours of the frontier: a 3×3 dilation, separable (rows, then
            # columns); the frontier itself is already reached, so ``avail`` drops it
            np.copyto(row, frontier)
            row[1:] |= frontier[:-1]
            row[:-1] |= frontier[1:]
            np.copyto(grown, row)
            grown[w:] |= row[:-w]
            grown[:-w] |= row[w:]
            grown &= avail
            if not grown.any():
                return None
            step += 1
            dist_flat[grown] = step
            avail &= ~grown
            frontier, grown = grown, frontier
        hits = np.argwhere(frontier.reshape(-1, w)[1:-1, 1:-1] & dst_m)
        return self._walk_back(dist_flat.reshape(-1, w)[1:-1, 1:-1],
                               (int(hits[0][0]), int(hits[0][1])))

    def _walk_back(self, dist: np.ndarray, cur: tuple[int, int]) -> list[Pt]:
        """Cell centres from a source to ``cur`` along decreasing ``dist`` (the first
        neighbour one step nearer, in ``_MOVES`` order)."""
        out = [self.center(cur)]
        while dist[cur] > 0:
            for di, dj in _MOVES:
                nxt = (cur[0] + di, cur[1] + dj)
                if (0 <= nxt[0] < self.ny and 0 <= nxt[1] < self.nx
                        and dist[nxt] == dist[cur] - 1):
                    cur = nxt
                    break
            out.append(self.center(cur))
        return out[::-1]


def _clearances(
    keys: list[str], pos: dict[str, Pt], outer: dict[str, int], radius: float, gap: float
) -> dict[str, float]:
    """How far every region stays from a node that is not its member.

    At least ``radius + gap``; up to the node's outermost ring (+ ``HALO``), so a region
    never touches the rings that *other* hyperedges draw around that node (a false shared
    member), but never so far that it would reach within ``MEMBER_PAD`` px of a neighbour's
    node disk: every member's disk stays wholly inside its region, with a visible rim.
    """
    if not keys:
        return {}
    xy = np.array([pos[k] for k in keys], dtype=float).reshape(-1, 2)
    d = np.hypot(xy[:, None, 0] - xy[None, :, 0], xy[:, None, 1] - xy[None, :, 1])
    np.fill_diagonal(d, np.inf)
    nearest = d.min(axis=1)
    out: dict[str, float] = {}
    for k, near in zip(keys, nearest.tolist(), strict=True):
        want = ring_radius(radius, outer.get(k, 0)) + HALO
        room = near - radius - MEMBER_PAD
        out[k] = max(radius + gap, min(want, room))
    return out


def build_regions(
    edges: list[tuple[str, list[str]]],
    pos: dict[str, Pt],
    radius: float,
    frame: tuple[float, float, float, float],
    anchors: dict[str, Pt] | None = None,
    gap: float = 4.0,
) -> dict[str, Region]:
    """Member-exclusive regions of ``edges`` ((hid, member keys) in drawing order)."""
    anchors = anchors or {}
    keys = list(pos)
    ranks = nesting_ranks(edges)
    outer: dict[str, int] = {}
    for (_, m), k in ranks.items():
        outer[m] = max(outer.get(m, 0), k)
    clear = _clearances(keys, pos, outer, radius, gap)
    obstacle = _disks([pos[k] for k in keys], [clear[k] for k in keys])
    tree = STRtree(obstacle) if obstacle else None
    frame_box = box(*frame)
    grid: _Grid | None = None
    out: dict[str, Region] = {}
    for hid, members in edges:
        mem = [m for m in members if m in pos]
        if not mem:
            continue
        mset = set(mem)
        pts = [pos[m] for m in mem]
        parts = _disks(pts, [ring_radius(radius, ranks.get((hid, m), 0)) for m in mem])
        anchor = anchors.get(hid)
        # Euclidean MST of the members, with the layout's anchor as a Steiner point
        segs = _emst(pts)
        if anchor is not None and len(mem) >= 3:
            with_anchor = _emst([anchor, *pts])
            # use the anchor only as a junction: a leaf anchor would draw an empty spur
            if sum(anchor in s for s in with_anchor) >= 2:
                segs = with_anchor
        if segs:
            parts.append(shapely.MultiLineString([list(s) for s in segs]).buffer(
                SKELETON * radius, quad_segs=4))
        geom = unary_union(parts).intersection(frame_box)
        blockers: list[int] = []
        if tree is not None:
            blockers = [int(i) for i in tree.query(geom, predicate="intersects")
                        if keys[int(i)] not in mset]
        blockers.sort()
        if blockers:
            geom = _open(geom.difference(unary_union([obstacle[i] for i in blockers])))
        member_pts = [Point(p) for p in pts]
        pieces = [p for p in _polys(geom) if any(p.intersects(q) for q in member_pts)]
        connectors: list[tuple[Pt, Pt]] = []
        if len(pieces) > 1:
            if grid is None:
                grid = _Grid(frame, max(3.0, radius / 3.0))
            pieces, connectors = _reconnect(pieces, mem, pos, keys, mset, radius, clear,
                                            grid, tree, obstacle)
        geom = unary_union(pieces) if pieces else Polygon()
        if isinstance(geom, Polygon | MultiPolygon) and not geom.is_empty:
            out[hid] = Region(hid, geom, connectors)
    return out


def _reconnect(
    pieces: list[Polygon], mem: list[str], pos: dict[str, Pt], keys: list[str],
    mset: set[str], radius: float, clear: dict[str, float], grid: _Grid,
    tree: STRtree | None, obstacle: list[BaseGeometry],
) -> tuple[list[Polygon], list[tuple[Pt, Pt]]]:
    others = [(pos[k], clear[k] + grid.step * 0.8) for k in keys if k not in mset]
    free = grid.free(others)
    width = min(0.45 * radius, grid.step * 0.7)
    main = pieces[0]
    rest = pieces[1:]
    connectors: list[tuple[Pt, Pt]] = []
    corridors: list[BaseGeometry] = []
    for piece in rest:
        src = [pos[m] for m in mem if main.intersects(Point(pos[m]))]
        dst = [pos[m] for m in mem if piece.intersects(Point(pos[m]))]
        if not src or not dst:
            continue
        path = grid.path(free, src, dst)
        if path is None or len(path) < 2:
            connectors.append(_closest(src, dst))
            continue
        corridors.append(LineString(path).buffer(width, quad_segs=4))
        main = main.union(piece)
    geom = unary_union([*pieces, *corridors])
    if tree is not None and corridors:
        hits = [int(i) for i in tree.query(geom, predicate="intersects")
                if keys[int(i)] not in mset]
        if hits:
            geom = _open(geom.difference(unary_union([obstacle[i] for i in sorted(hits)])))
    member_pts = [Point(pos[m]) for m in mem]
    kept = [p for p in _polys(geom) if any(p.intersects(q) for q in member_pts)]
    if len(kept) > 1:
        _bridge(kept, mem, pos, connectors)
    return kept, connectors


def _bridge(
    kept: list[Polygon], mem: list[str], pos: dict[str, Pt], connectors: list[tuple[Pt, Pt]]
) -> None:
    """Add connectors until every piece is linked to the largest one (through pieces and
    connectors whose ends touch them), each between the closest members of the two sides."""
    ordered = sorted(kept, key=lambda p: (-p.area, p.bounds))
    holds = [[pos[m] for m in mem if p.intersects(Point(pos[m]))] for p in ordered]

    def touches(pt: Pt, k: int) -> bool:
        return bool(ordered[k].distance(Point(pt)) <= 1.0)

    joined = [0]
    rest = list(range(1, len(ordered)))
    while rest:
        linked = [k for k in rest if any(
            (touches(a, k) and any(touches(b, j) for j in joined))
            or (touches(b, k) and any(touches(a, j) for j in joined))
            for a, b in connectors)]
        if not linked:
            k = rest[0]
            near = [p for j in joined for p in holds[j]]
            if near and holds[k]:
                connectors.append(_closest(near, holds[k]))
            linked = [k]
        joined += linked
        rest = [k for k in rest if k not in linked]


def _closest(a: list[Pt], b: list[Pt]) -> tuple[Pt, Pt]:
    best = min(((p, q) for p in a for q in b), key=lambda pq: math.dist(pq[0], pq[1]))
    return best
