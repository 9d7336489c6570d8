"""Fit abstract layout positions to a panel (pixel space, y down) and remove node overlaps."""

from __future__ import annotations

import numpy as np

__all__ = ["fit_points", "fit_transform", "separate"]

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
