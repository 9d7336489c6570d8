"""The indexing progress bar ends at 100%: its total is the exact input size, not one rounded
down to 0.01 MB (which the documents' exact sizes overshot, with a tqdm warning)."""

from __future__ import annotations

import io
import time
import warnings

from hyperviz_core.rag.index.report import IndexReport, progress, tick


def test_the_bar_ends_at_its_total() -> None:
    sizes = [200_000, 122_037]  # 0.322037 MB: rounded to 0.32 the bar went to 101%
    bar = progress(sum(sizes), disable=False)
    bar.fp = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # TqdmWarning: clamp frac to range [0, 1]
        for size in sizes:
            tick(bar, size, IndexReport(), time.perf_counter())
        assert bar.n == bar.total
        text = str(bar)
    bar.close()
    assert "100%" in text and "0.32/0.32 MB" in text
