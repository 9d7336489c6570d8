"""Probe-driven dual-view selection (paper §3.2(2)) and the settings saved with a store.

:func:`select_dual_view` renders the same ``k`` probes with each of the 9 pairs
(set layout × induced layout) and asks the vision model (a probe identical to an earlier one
— same image, question and answer, as when a small source is drawn whole — is asked once, so
a row's ``probes`` can be below ``k``); the pair with the best exact
accuracy wins (ties: partial credit, then readability, then the default order). Without a
model the pairs are ranked by :func:`~hyperviz_core.probe.score.readability_score` instead,
and the result says so (``mode="readability-metrics"``).

The choice is saved beside a store (``<store file stem>.hyperviz.json``) with
:func:`save_view_settings`; :func:`load_view_settings` reads it back (the engine's default
layouts when present).

Example:
    >>> from hyperviz_core.testing import random_hypergraph
    >>> choice = select_dual_view([random_hypergraph(16, 8, seed=1)], None, k=1,
    ...                           progress=False)
    >>> choice.mode, len(choice.table), choice.pair in [r.pair for r in choice.table]
    ('readability-metrics', 9, True)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from ..layouts import INDUCED_LAYOUTS, SET_LAYOUTS
from ..model import Hypergraph
from ..prune import Budget
from ..render import HyperViz
from ..view_settings import (
    ViewSettings,
    load_view_settings,
    save_view_settings,
    saved_view_settings,
    settings_path,
)
from .make import SpecStream
from .score import run_specs

__all__ = ["DualViewChoice", "PairScore", "ViewSettings", "load_view_settings",
           "save_view_settings", "saved_view_settings", "select_dual_view", "settings_path"]

PAIRS: list[tuple[str, str]] = [(s, i) for s in SET_LAYOUTS for i in INDUCED_LAYOUTS]


class PairScore(BaseModel):
    """One row of the selection table."""

    pair: tuple[str, str]
    probes: int
    accuracy: float | None = None
    partial: float | None = None
    readability: float
    coverage: float
    errors: int = 0
    """Failed vision-model calls (not graded)."""


class DualViewChoice(BaseModel):
    """The selected pair and the full table."""

    pair: tuple[str, str]
    mode: str
    """``"vision-model"`` or ``"readability-metrics"`` (no model given)."""
    model: str = ""
    k: int
    seed: int
    table: list[PairScore] = Field(default_factory=list)
    error: str = ""
    """The first failed vision-model call's error (empty when none failed)."""

    @property
    def errors(self) -> int:
        """Failed vision-model calls over the whole table."""
        return sum(r.errors for r in self.table)

    def table_text(self) -> str:
        """The table as printed by ``vizrag tune``/``probes``."""
        rows = [f"{'set':<11} {'induced':<8} {'probes':>6} {'exact':>6} {'partial':>7} "
                f"{'readab.':>7} {'cover':>6}"]
        for r in self.table:
            acc = "-" if r.accuracy is None else f"{r.accuracy:.3f}"
            part = "-" if r.partial is None else f"{r.partial:.3f}"
            mark = "  <- selected" if r.pair == self.pair else ""
            rows.append(f"{r.pair[0]:<11} {r.pair[1]:<8} {r.probes:>6} {acc:>6} {part:>7} "
                        f"{r.readability:>7.3f} {r.coverage:>6.3f}{mark}")
        return "\n".join(rows)


def _rank(row: PairScore) -> tuple[float, ...]:
    pos = PAIRS.index(row.pair) if row.pair in PAIRS else len(PAIRS)
    return (-(row.accuracy or 0.0), -(row.partial or 0.0), -row.readability, float(pos))


def select_dual_view(
    hypergraphs: Hypergraph | Sequence[Hypergraph], vlm: Any | None, k: int = 15,
    seed: int = 0, *, budget: Budget | None = None, progress: bool = True,
) -> DualViewChoice:
    """Score all 9 set × induced pairs on ``k`` probes; best pair + full table."""
    if k < 1:
        raise ValueError(f"k must be >= 1, got {k}")
    specs = SpecStream(hypergraphs, k, seed)
    viz = HyperViz(budget=budget)
    items: Any = PAIRS
    if progress:
        from tqdm import tqdm

        items = tqdm(PAIRS, desc="pairs", unit="pair")
    table = []
    error = ""
    for pair in items:
        res = run_specs(specs, pair, viz, vlm)
        error = error or res["error"]
        table.append(PairScore(pair=pair, probes=res["probes"], accuracy=res["accuracy"],
                               partial=res["partial"], readability=res["readability"],
                               coverage=res["coverage"], errors=res["errors"]))
    best = min(table, key=_rank)
    return DualViewChoice(pair=best.pair, k=k, seed=seed, table=table, error=error,
                          mode="vision-model" if vlm is not None else "readability-metrics",
                          model=str(getattr(vlm, "model_name", "")) if vlm else "")
