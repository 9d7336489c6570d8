"""The indexing bar ends exactly at its total (a scale review, 2026-12-04: summing
0.1 + 0.1 + 0.1 MB as floats went past 0.3, with tqdm's "clamping frac" warning and a
negative time left)."""

from __future__ import annotations

import io
import time
import warnings

from hyperviz_core.rag.index.report import IndexReport, progress, tick


def test_the_bar_ends_at_its_total_without_a_warning() -> None:
    bar = progress(300_000, disable=False)
    bar.fp = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # TqdmWarning: clamping frac ...
        for _ in range(3):
            tick(bar, 100_000, IndexReport(), time.perf_counter())
        bar.refresh()
    assert bar.n == bar.total == 0.3
    bar.close()
