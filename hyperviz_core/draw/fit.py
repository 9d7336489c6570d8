"""Fit abstract layout positions to a panel (pixel space, y down) and remove node overlaps."""

from __future__ import annotations

import math
from itertools import pairwise

import numpy as np

from .spacing import ensure_spacing

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
    Each step moves disk ``i`` by the sum, over ``j`` in index order, of the pushes of the
    pairs that are too close; only those pairs are evaluated (the others push by zero).
    """
    xy = xy.astype(float).copy()
    n = len(xy)
    if n < 2:
        return xy
    x0, y0, x1, y1 = box
    need = radii[:, None] + radii[None, :] + sep
    np.fill_diagonal(need, 0.0)
    limit = need - 1e-6  # the diagonal (distance 0) is never below it
    idx = np.arange(n, dtype=float)
    fallback = np.stack([np.cos(idx * 2.399963), np.sin(idx * 2.399963)], axis=1)
    for _ in range(iterations):
        pairs = _short_pairs(xy, limit)
        if pairs is None:
            break
        ii, jj, dx, dy, dist = pairs
        with np.errstate(invalid="ignore", divide="ignore"):
            far = dist > 1e-9
            ux = np.where(far, dx / dist, 0.0)
            uy = np.where(far, dy / dist, 0.0)
        if not far.all():  # coincident centres: a fixed direction per index pair
            ux[~far] = fallback[ii[~far], 0] - fallback[jj[~far], 0]
            uy[~far] = fallback[ii[~far], 1] - fallback[jj[~far], 1]
        push = (need[ii, jj] - dist) * 0.52
        # bincount adds in input order: per disk, its pairs' pushes summed in ``j`` order
        xy[:, 0] += np.bincount(ii, weights=ux * push, minlength=n)
        xy[:, 1] += np.bincount(ii, weights=uy * push, minlength=n)
        xy[:, 0] = np.clip(xy[:, 0], x0, x1)
        xy[:, 1] = np.clip(xy[:, 1], y0, y1)
    return xy


KD_PAIRS = 150
"""Above this many disks close pairs come from a k-d tree instead of every pair."""


def _short_pairs(
    xy: np.ndarray, limit: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """(i, j, x_i - x_j, y_i - y_j, distance) of every ordered pair closer than
    ``limit[i, j]`` (symmetric), sorted by ``i`` then ``j``; None when there is none."""
    n = len(xy)
    if n <= KD_PAIRS:
        dx = xy[:, None, 0] - xy[None, :, 0]
        dy = xy[:, None, 1] - xy[None, :, 1]
        dist = np.sqrt(dx * dx + dy * dy)
        ii, jj = np.nonzero(dist < limit)
        return (ii, jj, dx[ii, jj], dy[ii, jj], dist[ii, jj]) if len(ii) else None
    from scipy.spatial import cKDTree

    # candidates: the pairs within the largest limit (+1 px against rounding), then the
    # exact test, as for every pair; (j, i) mirrors (i, j) exactly (x_j - x_i = -(x_i - x_j))
    near = cKDTree(xy).query_pairs(float(limit.max()) + 1.0, output_type="ndarray")
    a, b = near[:, 0], near[:, 1]
    dx = xy[a, 0] - xy[b, 0]
    dy = xy[a, 1] - xy[b, 1]
    dist = np.sqrt(dx * dx + dy * dy)
    k = np.flatnonzero(dist < limit[a, b])
    if not len(k):
        return None
    a, b, dx, dy, dist = a[k], b[k], dx[k], dy[k], dist[k]
    ii, jj = np.concatenate([a, b]), np.concatenate([b, a])
    order = _row_major(ii, jj, n)
    return (ii[order], jj[order], np.concatenate([dx, -dx])[order],
            np.concatenate([dy, -dy])[order], np.concatenate([dist, dist])[order])


def _row_major(ii: np.ndarray, jj: np.ndarray, n: int) -> np.ndarray:
    """The permutation sorting the (distinct) pairs by ``ii``, then ``jj``: two stable
    passes, which numpy does by radix sort on 16-bit indices."""
    if n > np.iinfo(np.int16).max:
        return np.lexsort((jj, ii))
    by_j = np.argsort(jj.astype(np.int16), kind="stable")
    return by_j[np.argsort(ii.astype(np.int16)[by_j], kind="stable")]


def _blocks(columns: list[list[float]], box: Box, sep: float, extra: list[float]
            ) -> list[tuple[int, float, float]]:
    """(sub-columns, radius, sub-column pitch) of each column of :func:`stack_columns`: the
    pitch ``2·r + sep`` along the column (it sets the sub-columns), ``extra[c]`` more
    across it."""
    h = max(box[3] - box[1], 1.0)
    blocks: list[tuple[int, float, float]] = []
    for radii, more in zip(columns, extra, strict=True):
        n = len(radii)
        r = max(radii, default=0.0)
        pitch = 2.0 * r + sep
        k = max(1, math.ceil(pitch * (n - 1) / h - 1e-9)) if n > 1 else 1
        blocks.append((min(k, max(n, 1)), r, pitch + more))
    return blocks


def _extra(columns: list[list[float]], extra: list[float] | None) -> list[float]:
    return list(extra) if extra is not None else [0.0] * len(columns)


def columns_width(columns: list[list[float]], box: Box, sep: float,
                  extra: list[float] | None = None) -> float:
    """The width :func:`stack_columns` needs for ``columns`` at gap ``sep`` (sub-columns and
    the gaps between neighbouring columns); more than the box's width: it returns None."""
    more = _extra(columns, extra)
    blocks = _blocks(columns, box, sep, more)
    return (sum((k - 1) * q for k, _, q in blocks)
            + sum(a[1] + b[1] + sep + m for (a, b), m in zip(pairwise(blocks), more,
                                                              strict=False)))


def stack_columns(
    columns: list[list[float]], box: Box, sep: float, extra: list[float] | None = None
) -> list[np.ndarray] | None:
    """Pixel centres for two-layer layouts: column ``c`` holds disks of radii ``columns[c]``.

    Each column runs top to bottom over the box's height; when its items do not fit one
    above the other (pitch ``2·r + sep``) it is dealt round-robin over as many sub-columns
    as the height requires (the column capacity rule), so item ``i`` and ``i + 1`` sit side
    by side and item ``i + k`` (same sub-column) at least one pitch below item ``i``.
    Sub-columns are ``pitch + extra[c]`` apart (``extra``: room beside each node, for its
    name; none by default). The first column is flush left, the last flush right, any
    others evenly between. ``None`` when the box is too narrow for the sub-columns plus a
    gap of ``r_a + r_b + sep + extra[a]`` between neighbouring columns ``a`` and ``b`` (the
    caller then lowers ``extra`` or ``sep``).

    >>> left, right = stack_columns([[10.0] * 4, [10.0] * 2], (0.0, 0.0, 400.0, 60.0),
    ...                             10.0, [50.0, 0.0])
    >>> left[:, 0].tolist(), right[:, 0].tolist()  # two sub-columns, 80 px apart
    ([0.0, 80.0, 0.0, 80.0], [400.0, 400.0])
    """
    x0, y0, x1, y1 = box
    more = _extra(columns, extra)
    blocks = _blocks(columns, box, sep, more)
    widths = [(k - 1) * q for k, _, q in blocks]
    free = (x1 - x0) - sum(widths)
    gaps = [a[1] + b[1] + sep + m for (a, b), m in zip(pairwise(blocks), more, strict=False)]
    if free < sum(gaps) - 1e-6:
        return None
    h = max(y1 - y0, 1.0)
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
    for radii, (k, _, across), left in zip(columns, blocks, lefts, strict=True):
        n = len(radii)
        pts = np.empty((n, 2), dtype=float)
        for i in range(n):
            pts[i, 0] = left + (i % k) * across
            pts[i, 1] = y0 + (h * i / (n - 1) if n > 1 else h / 2.0)
        out.append(pts)
    return out
