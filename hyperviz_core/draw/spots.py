"""Searches for a free label spot around a point, ring by ring: the spiral of last resort
(:func:`spiral_free`) and the pocket beside a crowded region (:func:`pocket_spot`); and the
spot beside a node that is its own (:func:`owned_near_spot`). Each ring
is tested in one vectorised call; its points are those the point-by-point loops visited
(``math``'s sine and cosine), so the first free one is the same."""

from __future__ import annotations

import functools
import math

import numpy as np
import shapely
from shapely.geometry import box
from shapely.geometry.base import BaseGeometry

from .labels import Occupancy, make_box, near_candidates

__all__ = ["box_owned_mask", "centre_owned_mask", "owned_near_spot", "pocket_spot",
           "spiral_free"]


def spiral_free(
    occ: Occupancy, x: float, y: float, w: float, h: float, max_radius: float = 200.0
) -> tuple[float, float] | None:
    """The first free w×h box centre on a spiral around (x, y) (one ring at a time)."""
    step = max(4.0, h / 2.0)
    rad = 0.0
    while rad <= max_radius:
        n = max(1, int(2 * math.pi * rad / step))
        xs, ys = _ring_xy(x, y, rad, n)
        ok = occ.free_many(xs, ys, w, h)
        if ok.any():
            k = int(np.argmax(ok))
            return float(xs[k]), float(ys[k])
        rad += step
    return None


def centre_owned_mask(
    c: np.ndarray, i: int, all_xy: np.ndarray, all_r: np.ndarray, margin: float
) -> np.ndarray:
    """Which rows of ``c`` (label box centres, n × 2) are at least ``margin`` px nearer the
    disk of node ``i`` (of ``all_xy``/``all_r``) than any other node's disk: the centre of a
    label is where it is read, so a long name beside its node whose middle lies by another
    node is not its node's (a lone node owns every centre).

    >>> xy, r = np.array([[50.0, 50.0], [110.0, 28.0]]), np.array([10.0, 10.0])
    >>> centre_owned_mask(np.array([[112.0, 50.0], [82.0, 50.0]]), 0, xy, r, 2.0).tolist()
    [False, True]
    """
    d = np.hypot(c[:, 0:1] - all_xy[None, :, 0], c[:, 1:2] - all_xy[None, :, 1])
    return _owns(np.maximum(d - all_r[None, :], 0.0), i, margin)  # centre to disk


def box_owned_mask(
    c: np.ndarray, i: int, w: float, h: float, all_xy: np.ndarray, all_r: np.ndarray,
    margin: float,
) -> np.ndarray:
    """Which w×h boxes centred at the rows of ``c`` are at least ``margin`` px nearer the
    disk of node ``i`` (of ``all_xy``/``all_r``) than any other node's disk."""
    x0, y0 = c[:, 0] - w / 2.0, c[:, 1] - h / 2.0  # the boxes of make_box, vectorised
    x1, y1 = c[:, 0] + w / 2.0, c[:, 1] + h / 2.0
    x, y = all_xy[:, 0], all_xy[:, 1]
    dx = np.maximum(np.maximum(x0[:, None] - x, x - x1[:, None]), 0.0)
    dy = np.maximum(np.maximum(y0[:, None] - y, y - y1[:, None]), 0.0)
    return _owns(np.maximum(np.hypot(dx, dy) - all_r, 0.0), i, margin)  # box_disk_distance


def _owns(d: np.ndarray, i: int, margin: float) -> np.ndarray:
    """Which rows of ``d`` (distances, spots × nodes) are at least ``margin`` nearer node
    ``i`` than any other node (``d`` is changed)."""
    own = d[:, i].copy()
    d[:, i] = np.inf
    owned: np.ndarray = own + margin <= d.min(axis=1)
    return owned


def owned_near_spot(
    occ: Occupancy, i: int, all_xy: np.ndarray, all_r: np.ndarray, r: float, w: float,
    h: float, margin: float, rings: int = 3,
) -> tuple[float, float] | None:
    """The first free centre beside node ``i`` (:func:`~.labels.near_spots`) whose centre
    (:func:`centre_owned_mask`) and box (:func:`box_owned_mask`) are its node's, or None: the
    three tests one after the other, on one array of the candidates."""
    cands = near_candidates(float(all_xy[i, 0]), float(all_xy[i, 1]), r, w, h, rings)
    c = np.asarray(cands)
    idx = np.flatnonzero(occ.free_many(c[:, 0], c[:, 1], w, h))
    if len(idx) and len(all_xy) >= 2:
        idx = idx[centre_owned_mask(c[idx], i, all_xy, all_r, margin)]
    if len(idx):
        idx = idx[box_owned_mask(c[idx], i, w, h, all_xy, all_r, margin)]
    return cands[int(idx[0])] if len(idx) else None


def _ring_xy(x: float, y: float, rad: float, n: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``n`` points ``(x + rad·cos a, y + rad·sin a)``, ``a = 2π·k/n``, on a circle
    around (x, y)."""
    cos, sin = _unit_circle(n)
    return x + rad * cos, y + rad * sin


@functools.lru_cache(maxsize=512)
def _unit_circle(n: int) -> tuple[np.ndarray, np.ndarray]:
    """``math``'s cosines and sines of ``2π·k/n`` (as the point-by-point loops had them)."""
    angles = [2 * math.pi * k / n for k in range(n)]
    return (np.array([math.cos(a) for a in angles], dtype=float),
            np.array([math.sin(a) for a in angles], dtype=float))


def pocket_spot(
    occ: Occupancy, geom: BaseGeometry, others: np.ndarray, clear: float, w: float, h: float
) -> tuple[float, float, BaseGeometry] | None:
    """A free w×h box centre on rings (up to 160 px) around ``geom``'s inner point whose box,
    grown 3 px, touches ``geom`` and stays ``clear`` px from every centre in ``others``;
    with that grown box (the pocket), or None."""
    c = geom.representative_point()
    step = max(3.0, h / 2.0)
    rad = step
    while rad <= 160.0:
        n = max(6, int(2 * math.pi * rad / step))
        xs, ys = _ring_xy(c.x, c.y, rad, n)
        k = _first_pocket(occ, geom, others, clear, xs, ys, w, h)
        if k is not None:
            x, y = float(xs[k]), float(ys[k])
            return x, y, box(*make_box(x, y, w, h)).buffer(3.0, join_style="mitre")
        rad += step
    return None


def _first_pocket(
    occ: Occupancy, geom: BaseGeometry, others: np.ndarray, clear: float, xs: np.ndarray,
    ys: np.ndarray, w: float, h: float,
) -> int | None:
    """Index of the first centre of ``xs``/``ys`` that :func:`pocket_spot` accepts (the
    cheapest tests first; a centre must pass all of them)."""
    # the grown box (±3 px) cannot touch ``geom`` beyond its bounds
    gx0, gy0, gx1, gy1 = geom.bounds
    idx = np.flatnonzero((xs + w / 2.0 + 4.0 >= gx0) & (xs - w / 2.0 - 4.0 <= gx1)
                         & (ys + h / 2.0 + 4.0 >= gy0) & (ys - h / 2.0 - 4.0 <= gy1))
    if len(idx):
        idx = idx[occ.free_many(xs[idx], ys[idx], w, h)]
    if len(others) and len(idx):
        x0, y0 = xs[idx] - w / 2.0, ys[idx] - h / 2.0  # the boxes of ``_box``
        x1, y1 = xs[idx] + w / 2.0, ys[idx] + h / 2.0
        ox, oy = others[:, 0], others[:, 1]
        dx = np.maximum(np.maximum(x0[:, None] - 3 - ox, ox - x1[:, None] - 3), 0)
        dy = np.maximum(np.maximum(y0[:, None] - 3 - oy, oy - y1[:, None] - 3), 0)
        idx = idx[~np.any(dx * dx + dy * dy < clear * clear, axis=1)]
    if not len(idx):
        return None
    x, y = xs[idx], ys[idx]
    grown = shapely.buffer(shapely.box(x - w / 2.0, y - h / 2.0, x + w / 2.0, y + h / 2.0),
                           3.0, join_style="mitre")
    hit = np.flatnonzero(shapely.intersects(grown, geom))
    return int(idx[hit[0]]) if len(hit) else None
