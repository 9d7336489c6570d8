"""Parameter search for congestion control (paper App. B.2): a grid over w_v, w_e, γ, α, β.

Every grid point renders the same probes (one pair of layouts; a probe identical to an
earlier one is scored once) with ``Budget(w_v=…, w_e=…, gamma=…, alpha=…, beta=…)`` and is
scored by

* with a vision model: exact probe accuracy × coverage,
* without one: :func:`~hyperviz_core.probe.score.readability_score` × coverage,

where coverage is the share of each probe's entities that survive pruning (accuracy or
readability alone would reward pruning everything). Probes carry no query, so α and β only
matter through their ratio to each other when a query is present: on probes they do not
change the drawing (the default grid keeps them fixed; grid them to confirm).

Ties (same score, coverage, partial credit and readability) go to the point closest to the
:class:`~hyperviz_core.prune.Budget` defaults (each parameter's distance as a share of its
range), never to the smallest values. When every point of a grid of two or more ties,
``TuneResult.tie`` is set: the probes did not separate the settings (small samples are often
drawn whole by every budget) and ``vizrag tune`` saves nothing.

Example:
    >>> from hyperviz_core.testing import random_hypergraph
    >>> grid = {"gamma": [0.3, 0.44], "w_v": [10.0], "w_e": [1.0]}
    >>> res = tune([random_hypergraph(14, 7, seed=2)], None, grid=grid, k=1, progress=False)
    >>> len(res.table), sorted(res.best)
    (2, ['alpha', 'beta', 'gamma', 'w_e', 'w_v'])
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, Field

from ..model import Hypergraph
from ..prune import Budget
from ..render import HyperViz
from .make import DEFAULT_PAIR, SpecStream
from .score import run_specs

__all__ = ["DEFAULT_GRID", "TuneResult", "TuneRow", "parse_grid", "tune"]

PARAMS = ("w_v", "w_e", "gamma", "alpha", "beta")
DEFAULT_GRID: dict[str, list[float]] = {
    "w_v": [1.0, 5.0, 10.0], "w_e": [1.0, 3.0], "gamma": [0.3, 0.44, 0.6],
    "alpha": [0.6], "beta": [0.4],
}
_RANGES = {"w_v": (1.0, 10.0), "w_e": (1.0, 10.0), "gamma": (0.0, 1.0), "alpha": (0.0, 1.0),
           "beta": (0.0, 1.0)}


class TuneRow(BaseModel):
    """One grid point and its scores."""

    params: dict[str, float]
    probes: int
    accuracy: float | None = None
    partial: float | None = None
    readability: float
    coverage: float
    objective: float
    errors: int = 0
    """Failed vision-model calls (not graded)."""

    def scores(self) -> tuple[float, ...]:
        """What ranks the row (higher is better): objective, coverage, partial, readability."""
        return (self.objective, self.coverage, self.partial or 0.0, self.readability)


class TuneResult(BaseModel):
    """The best parameters and the full table (best first)."""

    best: dict[str, float]
    mode: str
    model: str = ""
    layouts: tuple[str, str]
    k: int
    seed: int
    table: list[TuneRow] = Field(default_factory=list)
    tie: bool = False
    """Every grid point (two or more) scored the same: the grid did not separate them."""
    error: str = ""
    """The first failed vision-model call's error (empty when none failed)."""

    @property
    def errors(self) -> int:
        """Failed vision-model calls over the whole grid."""
        return sum(r.errors for r in self.table)

    def table_text(self, limit: int | None = None) -> str:
        """The table as printed by ``vizrag tune`` (best first)."""
        head = " ".join(f"{p:>5}" for p in PARAMS)
        rows = [f"{head} {'probes':>6} {'exact':>6} {'partial':>7} {'readab.':>7} "
                f"{'cover':>6} {'score':>6}"]
        for r in self.table[:limit]:
            vals = " ".join(f"{r.params[p]:>5g}" for p in PARAMS)
            acc = "-" if r.accuracy is None else f"{r.accuracy:.3f}"
            part = "-" if r.partial is None else f"{r.partial:.3f}"
            rows.append(f"{vals} {r.probes:>6} {acc:>6} {part:>7} {r.readability:>7.3f} "
                        f"{r.coverage:>6.3f} {r.objective:>6.3f}")
        return "\n".join(rows)


def parse_grid(items: Sequence[str]) -> dict[str, list[float]]:
    """``["gamma=0.3,0.5", "w_v=1,10"]`` → grid (other parameters keep their defaults). A
    value given twice is tried once (``alpha=0.5,0.5`` = ``alpha=0.5``); a parameter given
    twice is an error.

    >>> parse_grid(["gamma=0.3,0.5,0.30"])["gamma"]
    [0.3, 0.5]
    """
    grid = {k: list(v) for k, v in DEFAULT_GRID.items()}
    given: set[str] = set()
    for item in items:
        name, _, values = item.partition("=")
        name = name.strip()
        if name not in PARAMS:
            raise ValueError(f"unknown grid parameter {name!r}; choose from {', '.join(PARAMS)}")
        if name in given:
            raise ValueError(f"grid {name} given twice: list all its values in one --grid "
                             f"{name}=V1,V2")
        given.add(name)
        try:
            vals = [float(v) for v in values.split(",") if v.strip()]
        except ValueError:
            raise ValueError(f"grid {name}: not a list of numbers: {values!r}") from None
        lo, hi = _RANGES[name]
        bad = [v for v in vals if not lo <= v <= hi]
        if not vals:
            raise ValueError(f"grid {name}: no value given (e.g. {name}={lo:g},{hi:g})")
        if bad:
            raise ValueError(f"grid {name}: values must lie in [{lo:g}, {hi:g}], got {values!r}")
        grid[name] = list(dict.fromkeys(vals))  # a repeated value once (0.5 = 0.50)
    return grid


def _default_distance(params: Mapping[str, float]) -> float:
    """How far ``params`` lie from the :class:`Budget` defaults (sum of range shares)."""
    default = Budget()
    return round(sum(abs(params[p] - float(getattr(default, p))) / (hi - lo)
                     for p, (lo, hi) in _RANGES.items()), 9)


def _rank(row: TuneRow) -> tuple[Any, ...]:
    return (*(-v for v in row.scores()), _default_distance(row.params),
            [row.params[p] for p in PARAMS])


def tune(
    hypergraphs: Hypergraph | Sequence[Hypergraph], vlm: Any | None, *,
    grid: Mapping[str, Sequence[float]] | None = None, layouts: Sequence[str] = DEFAULT_PAIR,
    k: int = 15, seed: int = 0, progress: bool = True,
) -> TuneResult:
    """Score every grid point on ``k`` probes; the table is sorted best first (ties: closest
    to the :class:`Budget` defaults; ``tie`` when the whole grid scored the same).

    ``grid`` overrides :data:`DEFAULT_GRID` per parameter (the others keep theirs); a value
    listed twice is tried once."""
    full = {**DEFAULT_GRID, **{p: list(dict.fromkeys(float(x) for x in v))  # each value once
                               for p, v in (grid or {}).items()}}
    unknown = sorted(set(full) - set(PARAMS))
    if unknown:
        raise ValueError(f"unknown grid parameter {unknown[0]!r}")
    empty = [p for p in PARAMS if not full[p]]
    if empty:
        raise ValueError(f"grid parameter {empty[0]!r} has no value to try")
    specs = SpecStream(hypergraphs, k, seed)
    points = [dict(zip(PARAMS, vals, strict=True))
              for vals in itertools.product(*(full[p] for p in PARAMS))]
    items: Any = points
    if progress:
        from tqdm import tqdm

        items = tqdm(points, desc="grid", unit="point")
    rows, error = [], ""
    for params in items:
        viz = HyperViz(budget=Budget(**params))
        res = run_specs(specs, layouts, viz, vlm)
        error = error or res["error"]
        base = res["accuracy"] if vlm is not None else res["readability"]
        rows.append(TuneRow(params=params, probes=res["probes"], accuracy=res["accuracy"],
                            partial=res["partial"], readability=res["readability"],
                            coverage=res["coverage"], errors=res["errors"],
                            objective=round(float(base or 0.0) * res["coverage"], 4)))
    rows.sort(key=_rank)
    tie = len(rows) > 1 and len({r.scores() for r in rows}) == 1
    return TuneResult(best=rows[0].params, table=rows, k=k, seed=seed, tie=tie, error=error,
                      layouts=(layouts[0], layouts[1]) if len(layouts) > 1
                      else (layouts[0], layouts[0]),
                      mode="vision-model" if vlm is not None else "readability-metrics",
                      model=str(getattr(vlm, "model_name", "")) if vlm else "")
