"""Collision-free label placement (hyperedge IDs inside their regions, entity names beside
their nodes). A label is only placed where it touches no node, no other label and stays in the
panel, so label collisions are zero by construction; a name that finds no free slot is left
out (the ID on the node and the caption still identify the entity).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import shapely
from shapely.geometry import Point, box
from shapely.geometry.base import BaseGeometry

__all__ = ["Label", "Occupancy", "box_disk_distance", "near_spots", "place_near"]

Box = tuple[float, float, float, float]


@dataclass
class Label:
    """A text label and its box (pixels, y down)."""

    id: str
    kind: str  # "entity" | "hyperedge" | "name"
    text: str
    x: float
    y: float
    bbox: Box
    size: float
    bold: bool = False
    boxed: bool = False
    color: str = "#000000"
    leader: tuple[tuple[float, float], tuple[float, float]] | None = None
    """A thin line from the label to its item, when the label had to sit outside it."""


class Occupancy:
    """What a new label must avoid in one panel: node disks, placed labels, the frame."""

    def __init__(self, frame: Box, disks: list[tuple[float, float, float]]) -> None:
        self.frame = frame
        self.disks = disks
        arr = np.asarray(disks, dtype=float).reshape(-1, 3)
        self._x, self._y, self._r = arr[:, 0], arr[:, 1], arr[:, 2] + 1.0
        self.boxes: list[Box] = []
        self._disk_polys: list[BaseGeometry] | None = None
        self._box_buf = np.empty((32, 4))  # rows [0, _box_n) mirror ``_box_src``
        self._box_n = 0
        self._box_src: list[Box] | None = None

    def _box_array(self) -> np.ndarray:
        """``np.asarray(self.boxes)``, extended as boxes are added instead of rebuilt."""
        boxes = self.boxes
        if self._box_src is not boxes or self._box_n > len(boxes):
            self._box_src, self._box_n = boxes, 0  # the list was replaced: rebuild
        n = len(boxes)
        if n > self._box_n:
            if n > len(self._box_buf):
                buf = np.empty((max(n, 2 * len(self._box_buf)), 4))
                buf[: self._box_n] = self._box_buf[: self._box_n]
                self._box_buf = buf
            self._box_buf[self._box_n:n] = boxes[self._box_n:n]
            self._box_n = n
        return self._box_buf[:n]

    def free(self, b: Box) -> bool:
        """True when box ``b`` is inside the frame and clear of nodes and labels."""
        fx0, fy0, fx1, fy1 = self.frame
        if b[0] < fx0 or b[1] < fy0 or b[2] > fx1 or b[3] > fy1:
            return False
        if self.boxes:
            arr = self._box_array()
            w = np.minimum(arr[:, 2], b[2]) - np.maximum(arr[:, 0], b[0])
            h = np.minimum(arr[:, 3], b[3]) - np.maximum(arr[:, 1], b[1])
            if np.any((w > -1.0) & (h > -1.0)):
                return False
        if len(self._x):
            # distance from each disk centre to the box (0 inside) against the radius
            dx = np.maximum(np.maximum(b[0] - self._x, self._x - b[2]), 0.0)
            dy = np.maximum(np.maximum(b[1] - self._y, self._y - b[3]), 0.0)
            if np.any(dx * dx + dy * dy < self._r * self._r):
                return False
        return True

    def free_many(self, xs: np.ndarray, ys: np.ndarray, w: float, h: float) -> np.ndarray:
        """Vectorised :meth:`free` for w×h boxes centred at (xs, ys)."""
        x0, y0, x1, y1 = xs - w / 2.0, ys - h / 2.0, xs + w / 2.0, ys + h / 2.0
        fx0, fy0, fx1, fy1 = self.frame
        ok = (x0 >= fx0) & (y0 >= fy0) & (x1 <= fx1) & (y1 <= fy1)
        if len(self._x):
            dx = np.maximum(np.maximum(x0[:, None] - self._x, self._x - x1[:, None]), 0.0)
            dy = np.maximum(np.maximum(y0[:, None] - self._y, self._y - y1[:, None]), 0.0)
            ok &= ~np.any(dx * dx + dy * dy < self._r * self._r, axis=1)
        if self.boxes:
            arr = self._box_array()
            bw = np.minimum(arr[:, 2], x1[:, None]) - np.maximum(arr[:, 0], x0[:, None])
            bh = np.minimum(arr[:, 3], y1[:, None]) - np.maximum(arr[:, 1], y0[:, None])
            ok &= ~np.any((bw > -1.0) & (bh > -1.0), axis=1)
        return ok

    def add(self, b: Box) -> None:
        self.boxes.append(b)

    def nodes_near(self, bounds: Box) -> list[BaseGeometry]:
        """Disk polygons of the nodes whose disks reach into ``bounds``."""
        x0, y0, x1, y1 = bounds
        hit = ((self._x + self._r >= x0) & (self._x - self._r <= x1)
               & (self._y + self._r >= y0) & (self._y - self._r <= y1))
        if self._disk_polys is None:  # every node's disk, built once (vectorised)
            self._disk_polys = list(shapely.buffer(
                shapely.points(np.column_stack([self._x, self._y])), self._r, quad_segs=6))
        return [self._disk_polys[int(i)] for i in np.flatnonzero(hit)]


def _box(x: float, y: float, w: float, h: float) -> Box:
    return (x - w / 2.0, y - h / 2.0, x + w / 2.0, y + h / 2.0)


def place_in_region(
    occ: Occupancy, region: BaseGeometry, others: list[BaseGeometry], w: float, h: float
) -> tuple[float, float] | None:
    """A centre for a w×h box inside ``region`` (preferably outside ``others``), or None."""
    nodes = [g for g in occ.nodes_near(region.bounds) if g.intersects(region)]
    area = region.difference(shapely.union_all(nodes)) if nodes else region
    rx0, ry0, rx1, ry1 = region.bounds
    near = [box(*b) for b in occ.boxes
            if b[2] >= rx0 and b[0] <= rx1 and b[3] >= ry0 and b[1] <= ry1]
    if near:
        area = area.difference(shapely.union_all(near).buffer(1.0))
    shrink = min(w, h) / 2.0
    candidates: list[BaseGeometry] = []
    touching = [o for o in others if o.intersects(area)]
    if touching:
        # only the parts of the other regions near ``area`` matter: clip them first
        ax0, ay0, ax1, ay1 = area.bounds
        clipped = shapely.clip_by_rect(touching, ax0 - 1.0, ay0 - 1.0, ax1 + 1.0, ay1 + 1.0)
        candidates.append(area.difference(shapely.union_all(clipped)))
    candidates.append(area)
    for cand in candidates:
        core = cand.buffer(-shrink)
        if core.is_empty:
            continue
        pieces = sorted(getattr(core, "geoms", [core]), key=lambda g: -g.area)
        for piece in pieces[:3]:
            try:
                p = shapely.polylabel(piece, tolerance=1.0)
            except Exception:  # pragma: no cover - degenerate geometry
                p = piece.representative_point()
            b = _box(p.x, p.y, w, h)
            if occ.free(b) and region.contains(Point(p.x, p.y)):
                return p.x, p.y
    # sample centres inside the region on a grid (nearest its inner point first); the box
    # may stick out of the region but must stay clear of nodes and labels
    return _grid_search(occ, region, w, h)


def _grid_search(
    occ: Occupancy, region: BaseGeometry, w: float, h: float
) -> tuple[float, float] | None:
    x0, y0, x1, y1 = region.bounds
    step = 2.0
    while (x1 - x0) * (y1 - y0) / (step * step) > 20000:
        step *= 1.5
    gx, gy = np.meshgrid(np.arange(x0, x1 + 0.01, step), np.arange(y0, y1 + 0.01, step))
    xs, ys = gx.ravel(), gy.ravel()
    inside = shapely.contains_xy(region, xs, ys)
    xs, ys = xs[inside], ys[inside]
    if not len(xs):
        return None
    ok = occ.free_many(xs, ys, w, h)
    if not ok.any():
        return None
    c = region.representative_point()
    d = np.hypot(xs - c.x, ys - c.y)
    d[~ok] = np.inf
    i = int(np.argmin(d))
    return float(xs[i]), float(ys[i])


def place_near(
    occ: Occupancy, x: float, y: float, r: float, w: float, h: float, rings: int = 1
) -> tuple[float, float] | None:
    """A centre for a w×h box beside a node at (x, y, r): right, left, below, above, diagonals."""
    spots = near_spots(occ, x, y, r, w, h, rings)
    return spots[0] if spots else None


def box_disk_distance(b: Box, x: np.ndarray, y: np.ndarray, r: np.ndarray) -> np.ndarray:
    """Distance from box ``b`` to each disk (0 when they touch or overlap)."""
    dx = np.maximum(np.maximum(b[0] - x, x - b[2]), 0.0)
    dy = np.maximum(np.maximum(b[1] - y, y - b[3]), 0.0)
    return np.maximum(np.hypot(dx, dy) - r, 0.0)


def near_spots(
    occ: Occupancy, x: float, y: float, r: float, w: float, h: float, rings: int = 1
) -> list[tuple[float, float]]:
    """Every free centre for a w×h box beside a node at (x, y, r), in preference order:
    right, left, below, above, the diagonals, then the same one ring further out."""
    cands: list[tuple[float, float]] = []
    for ring in range(rings):
        gap = 2.0 + ring * (h + 2.0)
        dx = r + gap + w / 2.0
        dy = r + gap + h / 2.0
        diag = (r + gap) / math.sqrt(2.0)
        cands += [
            (x + dx, y), (x - dx, y), (x, y + dy), (x, y - dy),
            (x + diag + w / 2.0, y + diag + h / 2.0), (x - diag - w / 2.0, y + diag + h / 2.0),
            (x + diag + w / 2.0, y - diag - h / 2.0), (x - diag - w / 2.0, y - diag - h / 2.0),
        ]
    arr = np.asarray(cands)
    ok = np.flatnonzero(occ.free_many(arr[:, 0], arr[:, 1], w, h))
    return [cands[int(i)] for i in ok]


def spiral_free(
    occ: Occupancy, x: float, y: float, w: float, h: float, max_radius: float = 200.0
) -> tuple[float, float] | None:
    """The first free w×h box centre on a spiral around (x, y)."""
    step = max(4.0, h / 2.0)
    rad = 0.0
    while rad <= max_radius:
        n = max(1, int(2 * math.pi * rad / step))
        for k in range(n):
            a = 2 * math.pi * k / n
            cx, cy = x + rad * math.cos(a), y + rad * math.sin(a)
            if occ.free(_box(cx, cy, w, h)):
                return cx, cy
        rad += step
    return None


def make_box(x: float, y: float, w: float, h: float) -> Box:
    """Box of size w×h centred at (x, y)."""
    return _box(x, y, w, h)
