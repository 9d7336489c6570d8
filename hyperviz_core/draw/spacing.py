"""The no-overlap guarantee of a fitted layout: :func:`ensure_spacing` moves each disk that
still clashes to the nearest free point on rings around it.

The search is exhaustive (up to ``max_rings`` rings of candidate points); two shortcuts
leave its answer unchanged. Every ring's points are made once (:class:`_Rings`). And a
raster of the panel (:class:`_Cover`) marks the cells that lie wholly inside the exclusion
zone of a disk already kept: a candidate in such a cell fails every tier of the search, so
only the other candidates are measured, ring by ring as before — in a jammed panel, where no
ring point is free and the search used to measure every point of every ring, that is few.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["ensure_spacing", "overlapping_nodes"]

Box = tuple[float, float, float, float]

CELL = 2.0
"""px: the side of a :class:`_Cover` cell."""
COVER_MARGIN = 1e-3
"""px: a covered cell ends this far inside the zone (rounding is about 1e-12 px)."""
MAX_COVER_RADII = 4
"""Above this many distinct radii no raster is kept (one per radius): every point is measured."""


def ensure_spacing(
    xy: np.ndarray, radii: np.ndarray, box: Box, sep: float, min_sep: float = 2.0,
    max_rings: int = 120,
) -> np.ndarray:
    """Guarantee ``|c_i - c_j| >= r_i + r_j + min_sep`` for every pair (centres in ``box``).

    :func:`~hyperviz_core.draw.fit.separate` is a relaxation: it can stall when the fitted
    layout is jammed (e.g. a ``dot`` rank wider than the panel, squeezed onto one line, where
    every push is parallel to the line), leaving disks that overlap. This pass turns "no
    overlap" into a guarantee: disks without a hard clash (gap below ``min_sep``) keep their
    place, even if their gap is below ``sep``; the others are taken in index order and kept
    where they are if they clash with no disk kept so far, or else moved to the nearest free
    point on rings of growing radius around their position — preferably ``sep`` clear of
    every other disk, else ``min_sep`` clear of every other disk, else of the kept ones (the
    rest is checked when its turn comes). Deterministic; a disk stays put (overlapping) only
    when no ring point within ``max_rings`` rings is free, i.e. the box is full.
    """
    xy = xy.astype(float).copy()
    n = len(xy)
    if n < 2:
        return xy
    x0, y0, x1, y1 = box
    reach = radii[:, None] + radii[None, :]
    np.fill_diagonal(reach, 0.0)
    hard = reach + min_sep
    diff = xy[:, None, :] - xy[None, :, :]
    dist = np.sqrt((diff**2).sum(axis=2))
    clash = (dist < hard - 1e-6) & ~np.eye(n, dtype=bool)
    kept = ~clash.any(axis=1)
    if kept.all():
        return xy
    step = max(float(reach[reach > 0].min() + min_sep) / 4.0, 1.0)
    rings = _Rings(step, max_rings)
    cover = _Cover.build(box, radii, min(sep, min_sep), xy, kept)
    for i in np.flatnonzero(~kept).tolist():
        d = np.hypot(xy[kept, 0] - xy[i, 0], xy[kept, 1] - xy[i, 1])
        if np.any(d < hard[i, kept] - 1e-6):
            spot = _free_spot(xy, i, reach[i], (sep, min_sep), kept, box, rings,
                              cover, float(radii[i]))
            if spot is not None:
                xy[i] = spot
        kept[i] = True
        if cover:
            cover.add(float(xy[i, 0]), float(xy[i, 1]), float(radii[i]))
    xy[:, 0] = np.clip(xy[:, 0], x0, x1)
    xy[:, 1] = np.clip(xy[:, 1], y0, y1)
    return xy


def overlapping_nodes(disks: np.ndarray, r: float, squares: np.ndarray, half: float) -> int:
    """How many nodes of an induced panel overlap another, beyond rounding: ``disks`` (entity
    centres, radius ``r``) and axis-aligned ``squares`` (hyperedge centres, half side
    ``half``); 0 after :func:`ensure_spacing` unless its box was full.

    >>> overlapping_nodes(np.array([[0.0, 0.0], [5.0, 0.0]]), 3.0,
    ...                   np.array([[20.0, 0.0], [26.0, 0.0], [9.0, 9.0]]), 4.0)
    4
    """
    xy = np.concatenate([disks.reshape(-1, 2), squares.reshape(-1, 2)])
    n, tol = len(disks), 1e-6
    if len(xy) < 2:
        return 0
    dx = np.abs(xy[:, None, 0] - xy[None, :, 0])
    dy = np.abs(xy[:, None, 1] - xy[None, :, 1])
    hit = np.zeros(dx.shape, dtype=bool)
    hit[:n, :n] = np.hypot(dx[:n, :n], dy[:n, :n]) < 2 * r - tol
    hit[n:, n:] = (dx[n:, n:] < 2 * half - tol) & (dy[n:, n:] < 2 * half - tol)
    gap = np.hypot(np.maximum(dx[:n, n:] - half, 0.0), np.maximum(dy[:n, n:] - half, 0.0))
    hit[:n, n:] = gap < r - tol
    hit[n:, :n] = hit[:n, n:].T
    np.fill_diagonal(hit, False)
    return int(hit.any(axis=1).sum())


class _Rings:
    """The candidate points of every ring around the origin: ring ``k`` (1-based) has radius
    ``k·step`` and ``max(8, ⌊2π·radius/step⌋)`` points counter-clockwise from +x."""

    def __init__(self, step: float, max_rings: int) -> None:
        rads, units = [], []
        for k in range(1, max_rings + 1):
            rad = k * step
            m = max(8, int(2 * np.pi * rad / step))
            ang = np.arange(m) * (2 * np.pi / m)
            rads.append(np.full(m, rad))
            units.append(np.stack([np.cos(ang), np.sin(ang)], axis=1))
        self.radius = [k * step for k in range(1, max_rings + 1)]
        self.rad = np.concatenate(rads)
        self.unit = np.concatenate(units)
        self.ring = np.repeat(np.arange(max_rings), [len(u) for u in units])
        self.start = np.concatenate([[0], np.cumsum([len(u) for u in units])])

    def around(self, p: np.ndarray) -> np.ndarray:
        """Every ring's points around ``p``, ring after ring (``p + radius·unit``)."""
        return p + self.rad[:, None] * self.unit


class _Cover:
    """For each distinct disk radius ``a``: the cells of the box that lie wholly within
    ``a + r_j + s - 1e-6 - COVER_MARGIN`` of a kept disk ``j`` (radius ``r_j``), i.e. where a
    disk of radius ``a`` would have a gap below ``s`` to it."""

    def __init__(self, box: Box, values: np.ndarray, s: float) -> None:
        self.x0, self.y0 = box[0], box[1]
        self.nx = int((box[2] - box[0]) / CELL) + 1
        self.ny = int((box[3] - box[1]) / CELL) + 1
        self.values = [float(v) for v in values]
        self.s = s
        self.cells = {v: np.zeros((self.ny, self.nx), dtype=bool) for v in self.values}

    @classmethod
    def build(cls, box: Box, radii: np.ndarray, s: float, xy: np.ndarray,
              kept: np.ndarray) -> _Cover | None:
        values = np.unique(radii)
        if len(values) > MAX_COVER_RADII:
            return None
        cover = cls(box, values, s)
        for j in np.flatnonzero(kept).tolist():
            cover.add(float(xy[j, 0]), float(xy[j, 1]), float(radii[j]))
        return cover

    def add(self, px: float, py: float, r: float) -> None:
        """Mark the cells covered by the zones of a (newly) kept disk at (px, py)."""
        for a in self.values:
            zone = (a + r) + self.s - 1e-6 - COVER_MARGIN
            if zone <= 0:
                continue
            i0, i1 = self._span(py, zone, self.y0, self.ny)
            j0, j1 = self._span(px, zone, self.x0, self.nx)
            if i0 >= i1 or j0 >= j1:
                continue
            # the farthest point of each cell from the centre, along each axis
            xs = self.x0 + np.arange(j0, j1 + 1) * CELL
            ys = self.y0 + np.arange(i0, i1 + 1) * CELL
            fx = np.maximum(np.abs(px - xs[:-1]), np.abs(px - xs[1:]))
            fy = np.maximum(np.abs(py - ys[:-1]), np.abs(py - ys[1:]))
            self.cells[a][i0:i1, j0:j1] |= fy[:, None] ** 2 + fx[None, :] ** 2 <= zone * zone

    def _span(self, c: float, zone: float, origin: float, n: int) -> tuple[int, int]:
        lo = math.floor((c - zone - origin) / CELL)
        hi = math.floor((c + zone - origin) / CELL) + 1
        return max(lo, 0), min(hi, n)

    def open_mask(self, radius: float, pts: np.ndarray) -> np.ndarray:
        """False for the points (inside the box) in a covered cell for a disk of ``radius``."""
        j = np.clip(np.floor((pts[:, 0] - self.x0) / CELL).astype(np.intp), 0, self.nx - 1)
        i = np.clip(np.floor((pts[:, 1] - self.y0) / CELL).astype(np.intp), 0, self.ny - 1)
        return ~self.cells[radius][i, j]


def _free_spot(
    xy: np.ndarray, i: int, reach_i: np.ndarray, seps: tuple[float, float],
    kept: np.ndarray, box: Box, rings: _Rings, cover: _Cover | None, radius: float,
) -> np.ndarray | None:
    """The nearest ring point around ``xy[i]`` (of ``radius``) clear of every other disk by
    ``seps[0]``, else by ``seps[1]``, else clear of the ``kept`` disks by ``seps[1]``.

    A point in a cell that ``cover`` (built with the smaller of ``seps``) marks for
    ``radius`` is within that distance of a kept disk: it fails all three tests, so it is
    not measured."""
    x0, y0, x1, y1 = box
    best: list[np.ndarray | None] = [None, None, None]
    # only disks whose centre is within ``reach`` of a ring can be too close to a point on
    # it: the others are left out of the distance matrix (same answers, far less work)
    dist_i = np.hypot(xy[:, 0] - xy[i, 0], xy[:, 1] - xy[i, 1])
    reach = float(reach_i.max(initial=0.0)) + max(seps) + 1.0
    others = np.ones(len(xy), dtype=bool)
    others[i] = False
    pts = rings.around(xy[i])
    live = ((pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1))
    if cover is not None:
        live &= cover.open_mask(radius, pts)
    for k in np.unique(rings.ring[live]).tolist():
        rad = rings.radius[k]
        lo, hi = int(rings.start[k]), int(rings.start[k + 1])
        cand = pts[lo:hi][live[lo:hi]]
        cols = np.flatnonzero((np.abs(dist_i - rad) <= reach) & others)
        gap = (np.hypot(cand[:, None, 0] - xy[None, cols, 0],
                        cand[:, None, 1] - xy[None, cols, 1]) - reach_i[None, cols] + 1e-6)
        # a point is clear of a set of disks when its smallest gap to them is wide enough
        # (the same test as every gap; no set left means clear)
        least = gap.min(axis=1) if len(cols) else np.full(len(cand), np.inf)
        tiers = [least >= seps[0], least >= seps[1]]
        if best[1] is None and best[2] is None:  # the kept-only tier still matters
            near_kept = kept[cols]
            least_kept = (gap[:, near_kept].min(axis=1) if near_kept.any()
                          else np.full(len(cand), np.inf))
            tiers.append(least_kept >= seps[1])
        for t, ok in enumerate(tiers):
            if best[t] is None and ok.any():
                best[t] = np.asarray(cand[int(np.argmax(ok))])
        if best[0] is not None:
            break
    return next((b for b in best if b is not None), None)
