"""Rendered retrieval on a dense store: many facts about a few hub entities.

Indexes :func:`hyperviz_core.testing.dense_reports` (150 reports in which 17 people meet in
17 cities, by default) into a temporary store with the offline defaults, then times
``retrieve(question, render=True)`` — both views drawn — and prints, per run, the time of
each view, the size of the neighbourhood each view was given and what the drawing kept.
The default run uses the safety limits ``RetrievalConfig.render_max_hyperedges`` (I_bot) and
``render_max_themes`` (I_top); ``--unlimited`` adds one run without them (about a minute on
the 2-core development machine). ``--async`` also runs one rendered ``aretrieve`` beside a
coroutine that ticks every 10 ms on the same event loop and prints how often it ran and its
longest gap (how long the loop was blocked).

Usage::

    .venv/bin/python benchmarks/dense_view_bench.py
    .venv/bin/python benchmarks/dense_view_bench.py --docs 300 --repeats 3 --unlimited
    .venv/bin/python benchmarks/dense_view_bench.py --repeats 1 --async
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hyperviz_core.rag import Document, RetrievalConfig, VizRAG
from hyperviz_core.testing import dense_reports

QUESTION = "When did Alice Morgan meet someone in Oslo?"


def _drawn(view: Any) -> str:
    export = view.export if view is not None else {}
    return f"{len(export.get('entities', []))}e/{len(export.get('hyperedges', []))}h"


def run_once(rag: VizRAG, label: str, **options: Any) -> None:
    """One rendered retrieval; prints its timings and sizes."""
    sizes: dict[str, dict[str, Any]] = {}

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if name in ("top_view", "bottom_view") and phase == "end":
            sizes[name] = payload
        if name == "render" and phase == "start":
            sizes[payload["view"]] = payload

    t0 = time.perf_counter()
    res = rag.retrieve(QUESTION, render=True, hooks=[hook], **options)
    total = time.perf_counter() - t0
    cells = []
    for view, stage, drawing in (("top", "top_view", res.top_view),
                                 ("bottom", "bottom_view", res.bottom_view)):
        near, given = sizes[stage], sizes[view]
        cells.append(f"{view} {res.timings[stage] / 1000:5.1f} s "
                     f"(neighbourhood {near['entities']}e/{near['hyperedges']}h, "
                     f"given {given['entities']}e/{given['hyperedges']}h, "
                     f"drawn {_drawn(drawing)})")
    print(f"{label:9} total {total:5.1f} s | " + " | ".join(cells), flush=True)


async def ticking(rag: VizRAG) -> tuple[float, int, float]:
    """(seconds of one rendered ``aretrieve``, ticks of a 10 ms ticker meanwhile, the
    longest time without a tick in that span, in seconds)."""
    ticks: list[float] = []
    running = True

    async def ticker() -> None:
        while running:
            await asyncio.sleep(0.01)
            ticks.append(time.perf_counter())

    task = asyncio.create_task(ticker())
    t0 = time.perf_counter()
    await rag.aretrieve(QUESTION, render=True)
    t1 = time.perf_counter()
    running = False
    await task
    inside = [t for t in ticks if t <= t1]
    marks = [t0, *inside, t1]
    return t1 - t0, len(inside), max(b - a for a, b in pairwise(marks))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=150, help="reports to index (150)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs with the limits")
    parser.add_argument("--async", dest="use_async", action="store_true",
                        help="also time the event loop during one rendered aretrieve")
    parser.add_argument("--unlimited", action="store_true",
                        help="add one run without the safety limits (slow)")
    args = parser.parse_args(argv)
    cfg = RetrievalConfig()
    print(f"{args.docs} dense reports; limits: render_max_hyperedges="
          f"{cfg.render_max_hyperedges}, render_max_themes={cfg.render_max_themes}")
    with tempfile.TemporaryDirectory() as tmp, VizRAG(tmp, show_progress=False) as rag:
        t0 = time.perf_counter()
        rag.insert([Document(**d) for d in dense_reports(args.docs)])
        print(f"indexed in {time.perf_counter() - t0:.1f} s; question: {QUESTION}")
        rag.retrieve(QUESTION, render=False)  # warm: layers loaded
        for i in range(args.repeats):
            run_once(rag, f"limits #{i + 1}")
        if args.use_async:
            took, ticks, gap = asyncio.run(ticking(rag))
            print(f"aretrieve {took:5.1f} s: a 10 ms ticker on the same loop ran {ticks} "
                  f"times meanwhile, longest gap {gap * 1000:.0f} ms", flush=True)
        if args.unlimited:
            run_once(rag, "unlimited", render_max_hyperedges=10**6, render_max_themes=10**6)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
