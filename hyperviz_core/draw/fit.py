"""Fit abstract layout positions to a panel (pixel space, y down) and remove node overlaps."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

__all__ = ["ensure_spacing", "fit_points", "fit_transform", "separate", "stack_columns"]

Box = tuple[float, float, float, float]


def fit_points(points: np.ndarray, box: Box, uniform: bool = True) -> np.ndarray:
    """Scale ``points`` (layout units, y up) into ``box`` (x0, y0, x1, y1; y down).

    One global scale (``uniform``) or one per axis; the result is centred in the box, so
    no margin is wasted beyond the box itself.
    """
    out = np.empty_like(points, dtype=float)
    if len(points) == 0:
        return out
    sx, sy, mx, my, cx, cy = fit_transform(points, box, uniform)
    out[:, 0] = cx + (points[:, 0] - mx) * sx
    out[:, 1] = cy - (points[:, 1] - my) * sy
    return out


def fit_transform(
    points: np.ndarray, box: Box, uniform: bool = True
) -> tuple[float, float, float, float, float, float]:
    """(sx, sy, mid_x, mid_y, centre_x, centre_y) of :func:`fit_points`:
    ``x' = centre_x + (x - mid_x)·sx`` and ``y' = centre_y - (y - mid_y)·sy``."""
    x0, y0, x1, y1 = box
    lo, hi = points.min(axis=0), points.max(axis=0)
    span = hi - lo
    bw, bh = max(x1 - x0, 1.0), max(y1 - y0, 1.0)
    sx = bw / span[0] if span[0] > 1e-9 else np.inf
    sy = bh / span[1] if span[1] > 1e-9 else np.inf
    if uniform:
        s = min(sx, sy)
        sx = sy = 0.0 if not np.isfinite(s) else s
    else:
        sx = 0.0 if not np.isfinite(sx) else sx
        sy = 0.0 if not np.isfinite(sy) else sy
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    mid = (lo + hi) / 2.0
    return float(sx), float(sy), float(mid[0]), float(mid[1]), cx, cy


def separate(
    xy: np.ndarray, radii: np.ndarray, box: Box, sep: float, iterations: int = 400
) -> np.ndarray:
    """Push apart disks closer than ``r_i + r_j + sep``, keeping centres inside ``box``.

    Deterministic (no randomness; coincident points split along a fixed direction per index).
    """
    xy = xy.astype(float).copy()
    n = len(xy)
    if n < 2:
        return xy
    x0, y0, x1, y1 = box
    need = radii[:, None] + radii[None, :] + sep
    np.fill_diagonal(need, 0.0)
    idx = np.arange(n, dtype=float)
    fallback = np.stack([np.cos(idx * 2.399963), np.sin(idx * 2.399963)], axis=1)
    for _ in range(iterations):
        diff = xy[:, None, :] - xy[None, :, :]
        dist = np.sqrt((diff**2).sum(axis=2))
        short = (dist < need - 1e-6) & ~np.eye(n, dtype=bool)
        if not short.any():
            break
        with np.errstate(invalid="ignore", divide="ignore"):
            unit = np.where(dist[..., None] > 1e-9, diff / dist[..., None], 0.0)
        coincident = short & (dist <= 1e-9)
        if coincident.any():
            unit = unit + coincident[..., None] * (fallback[:, None, :] - fallback[None, :, :])
        push = np.where(short, (need - dist) * 0.52, 0.0)
        move = (unit * push[..., None]).sum(axis=1)
        xy += move
        xy[:, 0] = np.clip(xy[:, 0], x0, x1)
        xy[:, 1] = np.clip(xy[:, 1], y0, y1)
    return xy


def ensure_spacing(
    xy: np.ndarray, radii: np.ndarray, box: Box, sep: float, min_sep: float = 2.0,
    max_rings: int = 120,
) -> np.ndarray:
    """Guarantee ``|c_i - c_j| >= r_i + r_j + min_sep`` for every pair (centres in ``box``).

    :func:`separate` is a relaxation: it can stall when the fitted layout is jammed (e.g. a
    ``dot`` rank wider than the panel, squeezed onto one line, where every push is parallel
    to the line), leaving disks that overlap. This pass turns "no overlap" into a
    guarantee: disks without a hard clash (gap below ``min_sep``) keep their place, even if
    their gap is below ``sep``; the others are taken in index order and kept where they
    are if they clash with no disk kept so far, or else moved to the nearest free point on
    rings of growing radius around their position — preferably ``sep`` clear of every
    other disk, else ``min_sep`` clear of every other disk, else of the kept ones (the rest
    is checked when its turn comes). Deterministic; a disk stays put (overlapping) only
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
    for i in np.flatnonzero(~kept).tolist():
        d = np.hypot(xy[kept, 0] - xy[i, 0], xy[kept, 1] - xy[i, 1])
        if np.any(d < hard[i, kept] - 1e-6):
            others = np.ones(n, dtype=bool)
            others[i] = False
            spot = _free_spot(xy, i, reach[i], (sep, min_sep), kept, others, box, step,
                              max_rings)
            if spot is not None:
                xy[i] = spot
        kept[i] = True
    xy[:, 0] = np.clip(xy[:, 0], x0, x1)
    xy[:, 1] = np.clip(xy[:, 1], y0, y1)
    return xy


def _free_spot(
    xy: np.ndarray, i: int, reach_i: np.ndarray, seps: tuple[float, float],
    kept: np.ndarray, others: np.ndarray, box: Box, step: float, max_rings: int,
) -> np.ndarray | None:
    """The nearest ring point around ``xy[i]`` clear of ``others`` by ``seps[0]``, else by
    ``seps[1]``, else clear of the ``kept`` disks by ``seps[1]``."""
    x0, y0, x1, y1 = box
    best: list[np.ndarray | None] = [None, None, None]
    # only disks whose centre is within ``reach`` of a ring can be too close to a point on
    # it: the others are left out of the distance matrix (same answers, far less work)
    dist_i = np.hypot(xy[:, 0] - xy[i, 0], xy[:, 1] - xy[i, 1])
    reach = float(reach_i.max(initial=0.0)) + max(seps) + 1.0
    for k in range(1, max_rings + 1):
        rad = k * step
        m = max(8, int(2 * np.pi * rad / step))
        ang = np.arange(m) * (2 * np.pi / m)
        cand = xy[i] + rad * np.stack([np.cos(ang), np.sin(ang)], axis=1)
        inside = ((cand[:, 0] >= x0) & (cand[:, 0] <= x1)
                  & (cand[:, 1] >= y0) & (cand[:, 1] <= y1))
        cand = cand[inside]
        if not len(cand):
            continue
        cols = np.flatnonzero((np.abs(dist_i - rad) <= reach) & (others | kept))
        gap = (np.hypot(cand[:, None, 0] - xy[None, cols, 0],
                        cand[:, None, 1] - xy[None, cols, 1]) - reach_i[None, cols] + 1e-6)
        near_others, near_kept = others[cols], kept[cols]
        tiers = ((gap[:, near_others] >= seps[0]).all(axis=1),
                 (gap[:, near_others] >= seps[1]).all(axis=1),
                 (gap[:, near_kept] >= seps[1]).all(axis=1))
        for t, ok in enumerate(tiers):
            if best[t] is None and ok.any():
                best[t] = np.asarray(cand[int(np.argmax(ok))])
        if best[0] is not None:
            break
    return next((b for b in best if b is not None), None)


def stack_columns(
    columns: list[list[float]], box: Box, sep: float
) -> list[np.ndarray] | None:
    """Pixel centres for two-layer layouts: column ``c`` holds disks of radii ``columns[c]``.

    Each column runs top to bottom over the box's height; when its items do not fit one
    above the other (pitch ``2·r + sep``) it is dealt round-robin over as many sub-columns,
    ``pitch`` apart, as the height requires (the column capacity rule), so item ``i`` and
    ``i + 1`` sit side by side and item ``i + k`` (same sub-column) at least one pitch below
    item ``i``. The first column is flush left, the last flush right, any others evenly
    between. ``None`` when the box is too narrow for the sub-columns plus a gap of
    ``r_a + r_b + sep`` between neighbouring columns (the caller then lowers ``sep``).
    """
    x0, y0, x1, y1 = box
    h = max(y1 - y0, 1.0)
    blocks: list[tuple[int, float, float]] = []  # (sub-columns, pitch, radius)
    for radii in columns:
        n = len(radii)
        r = max(radii, default=0.0)
        pitch = 2.0 * r + sep
        k = max(1, math.ceil(pitch * (n - 1) / h - 1e-9)) if n > 1 else 1
        blocks.append((min(k, max(n, 1)), pitch, r))
    widths = [(k - 1) * p for k, p, _ in blocks]
    free = (x1 - x0) - sum(widths)
    gaps = [a[2] + b[2] + sep for a, b in pairwise(blocks)]
    if free < sum(gaps) - 1e-6:
        return None
    lefts: list[float] = []
    if len(blocks) == 1:
        lefts = [x0 + free / 2.0]
    else:
        gap = free / (len(blocks) - 1)
        x = x0
        for w in widths:
            lefts.append(x)
            x += w + gap
    out: list[np.ndarray] = []
    for radii, (k, pitch, _), left in zip(columns, blocks, lefts, strict=True):
        n = len(radii)
        pts = np.empty((n, 2), dtype=float)
        for i in range(n):
            pts[i, 0] = left + (i % k) * pitch
            pts[i, 1] = y0 + (h * i / (n - 1) if n > 1 else h / 2.0)
        out.append(pts)
    return out
