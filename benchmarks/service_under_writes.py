"""Concurrent ``aretrieve`` tasks on one engine while the same engine keeps writing.

A service's shape: ``--tasks`` asyncio tasks each retrieve a question in a loop (top 3, no
rendering) on one ``VizRAG`` engine, for ``--seconds`` without writes, then as long again
while a writer task inserts one small document through the same engine ``--rate`` times a
second (in a worker thread, as a service would). Prints, per phase: queries completed, p50
and max latency, how many queries read the whole store loaded (a ``load`` stage event with
``lazy`` false: the fallback of a query the writes kept restarting) and the longest the event
loop was blocked (a ticker's lateness). The store is written: give a copy.

``--model-ms MS`` gives the engine a stand-in for a provider's chat model: each call waits
MS milliseconds, then answers a keyword prompt with the heuristic keywords and a locate
prompt with the first two entity ids it lists; the writes still index offline. The
phases then also print the model calls per query: a query the writes made run again asked
its keyword prompt twice before stop 52.

Usage::

    cp -r ~/.cache/vizrag-bench/hotpotqa-<hash> /tmp/store
    .venv/bin/python benchmarks/service_under_writes.py /tmp/store [--lazy on|auto]
        [--model-ms 200]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract import HeuristicExtractor, HeuristicThemeExtractor
from hyperviz_core.rag.extract.heuristic import heuristic_keywords

QUESTIONS = ["Where did the band form that made the live album Maiden Japan?",
             "Who founded the bank in Porto?", "What river flows through the capital?",
             "Which author wrote the novel about the whale?"]


class SlowModel:
    """A provider's chat model stand-in: ``ms`` milliseconds a call; heuristic keywords for
    a keyword prompt, the first two entity ids listed for a locate prompt. Counts its
    calls."""

    model_name = "slow-stand-in"

    def __init__(self, ms: float) -> None:
        self.seconds, self.calls = ms / 1000, 0

    def _answer(self, prompt: str) -> str:
        self.calls += 1
        if "search keywords" in prompt:
            return json.dumps(heuristic_keywords(prompt.split("Question:", 1)[-1]))
        listing = prompt.split("Themes and entities shown:", 1)[-1]
        return json.dumps({"entities": list(dict.fromkeys(re.findall(r"\bE\d+\b", listing)))[:2]})

    def complete(self, prompt: str, **kw: Any) -> str:
        time.sleep(self.seconds)
        return self._answer(prompt)

    async def acomplete(self, prompt: str, **kw: Any) -> str:
        await asyncio.sleep(self.seconds)
        return self._answer(prompt)


async def _phase(rag: VizRAG, tasks: int, seconds: float, rate: float) -> dict[str, Any]:
    """One phase: latencies (ms), loaded-store queries, the loop's longest block (ms)."""
    ms: list[float] = []
    loaded: list[int] = []
    late: list[float] = [0.0]
    end = time.perf_counter() + seconds

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if (name, phase) == ("load", "end") and payload.get("lazy") is False:
            loaded.append(1)

    async def reader(i: int) -> None:
        while time.perf_counter() < end:
            t = time.perf_counter()
            await rag.aretrieve(QUESTIONS[i % len(QUESTIONS)], top_k=3, render=False,
                                hooks=[hook])
            ms.append((time.perf_counter() - t) * 1000)

    async def writer() -> None:
        n = 0
        while rate > 0 and time.perf_counter() < end:
            n += 1
            doc = Document(id=f"svc{n}-{time.monotonic_ns()}", title=f"Note {n}",
                           text=f"Note number {n} is a small remark about clocks.")
            await asyncio.to_thread(rag.insert, [doc])
            await asyncio.sleep(1 / rate)

    async def ticker() -> None:
        while time.perf_counter() < end:
            t = time.perf_counter()
            await asyncio.sleep(0.01)
            late.append((time.perf_counter() - t - 0.01) * 1000)

    await asyncio.gather(*(reader(i) for i in range(tasks)), writer(), ticker())
    return {"n": len(ms), "p50": statistics.median(ms) if ms else 0.0,
            "max": max(ms, default=0.0), "loaded": len(loaded), "blocked": max(late)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", help="a store directory (it is written: use a copy)")
    ap.add_argument("--tasks", type=int, default=20)
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--rate", type=float, default=1.5, help="writes a second")
    ap.add_argument("--lazy", choices=("auto", "on"), default="on")
    ap.add_argument("--model-ms", type=float, default=None,
                    help="a chat model stand-in taking this long a call (default: none)")
    args = ap.parse_args(argv)
    lazy = {"auto": None, "on": True}[args.lazy]
    model = SlowModel(args.model_ms) if args.model_ms is not None else None
    with VizRAG(args.store, show_progress=False, lazy=lazy, chat=model,  # queries only:
                extractor=HeuristicExtractor(),  # the writes index offline as without it
                theme_extractor=HeuristicThemeExtractor()) as rag:
        rag.retrieve(QUESTIONS[0], render=False)  # warm
        for label, rate in (("idle", 0.0), ("writes", args.rate)):
            before = model.calls if model else 0
            r = asyncio.run(_phase(rag, args.tasks, args.seconds, rate))
            calls = (f", {(model.calls - before) / max(r['n'], 1):.2f} model calls a query"
                     if model else "")
            print(f"{label:>6}: {r['n']} queries, p50 {r['p50']:.0f} ms, max "
                  f"{r['max']:.0f} ms, {r['loaded']} read the store loaded, event loop "
                  f"blocked up to {r['blocked']:.0f} ms{calls}")


if __name__ == "__main__":
    main()
