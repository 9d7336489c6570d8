"""The dense-render speed-ups (twenty-sixth stop) change no drawing: ``separate`` and
``ensure_spacing`` give, bit for bit, what the straightforward code they replaced gives
(kept here as references) on random panels, jammed ones and coincident points included."""

from __future__ import annotations

import numpy as np
import pytest

from hyperviz_core.draw.fit import ensure_spacing, separate

Box = tuple[float, float, float, float]


def _reference_separate(xy: np.ndarray, radii: np.ndarray, box: Box, sep: float,
                        iterations: int = 400) -> np.ndarray:
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
        xy += (unit * push[..., None]).sum(axis=1)
        xy[:, 0] = np.clip(xy[:, 0], x0, x1)
        xy[:, 1] = np.clip(xy[:, 1], y0, y1)
    return xy


def _reference_free_spot(xy: np.ndarray, i: int, reach_i: np.ndarray,
                         seps: tuple[float, float], kept: np.ndarray, others: np.ndarray,
                         box: Box, step: float, max_rings: int) -> np.ndarray | None:
    x0, y0, x1, y1 = box
    best: list[np.ndarray | None] = [None, None, None]
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


def _reference_ensure_spacing(xy: np.ndarray, radii: np.ndarray, box: Box, sep: float,
                              min_sep: float = 2.0, max_rings: int = 120) -> np.ndarray:
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
            spot = _reference_free_spot(xy, i, reach[i], (sep, min_sep), kept, others, box,
                                        step, max_rings)
            if spot is not None:
                xy[i] = spot
        kept[i] = True
    xy[:, 0] = np.clip(xy[:, 0], x0, x1)
    xy[:, 1] = np.clip(xy[:, 1], y0, y1)
    return xy


def _panel(rng: np.random.Generator, trial: int, lo: int, hi: int
           ) -> tuple[np.ndarray, np.ndarray, Box]:
    n = int(rng.integers(lo, hi))
    w, h = float(rng.uniform(150, 700)), float(rng.uniform(120, 500))
    box = (10.0, 20.0, 10.0 + w, 20.0 + h)
    radii = np.where(rng.random(n) < 0.5, 11.0, 17.5) if trial % 2 else rng.uniform(4, 20, n)
    xy = np.column_stack([rng.uniform(box[0], box[2], n), rng.uniform(box[1], box[3], n)])
    if trial % 3 == 0:
        xy[: n // 4] = xy[0]  # coincident points
    if trial % 4 == 1:
        xy[:, 1] = box[1] + h / 2  # a jammed rank squeezed onto one line
    return xy, radii, box


@pytest.mark.parametrize("lo,hi", [(2, 40), (140, 260)])  # below / above the k-d tree
def test_separate_is_bit_identical(lo: int, hi: int) -> None:
    rng = np.random.default_rng(5 + lo)
    for trial in range(12):
        xy, radii, box = _panel(rng, trial, lo, hi)
        sep = float(rng.choice([10.0, 3.0]))
        got = separate(xy, radii, box, sep, iterations=60)
        assert got.tobytes() == _reference_separate(xy, radii, box, sep, 60).tobytes(), trial


def test_ensure_spacing_is_bit_identical() -> None:
    rng = np.random.default_rng(11)
    for trial in range(16):
        xy, radii, box = _panel(rng, trial, 2, 90)
        sep = float(rng.choice([10.0, 4.0]))
        got = ensure_spacing(xy, radii, box, sep)
        assert got.tobytes() == _reference_ensure_spacing(xy, radii, box, sep).tobytes(), trial
