"""Query latency of a long-lived reader while another process writes the store.

A reader process (this one) opens ``STORE`` with ``VizRAG(store, lazy=...)`` and retrieves one
question (top 3, no rendering) in a loop: ``--idle`` seconds alone, then while a writer
process inserts one small document a second (``--writes`` of them), then deletes them all.
It prints the query count, p50 and max latency of both phases. The store is written: give a
copy (e.g. of the MuSiQue store ``retrieval_bench.py`` caches under ``~/.cache/vizrag-bench``).

Usage::

    cp -r ~/.cache/vizrag-bench/musique-<hash> /tmp/store
    .venv/bin/python benchmarks/reader_under_writes.py /tmp/store [--lazy auto|on|off]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hyperviz_core.rag import VizRAG

QUESTION = "Where did the band form that made the live album Maiden Japan?"
WRITER = """
import sys, time
from hyperviz_core.rag import Document, VizRAG
rag, n = VizRAG(sys.argv[1], show_progress=False), int(sys.argv[2])
for i in range(n):
    rag.insert([Document(id=f"tick{i}", title=f"Tick {i}",
                         text=f"Tick number {i} is a small note about clocks.")])
    time.sleep(1)
rag.delete_many([f"tick{i}" for i in range(n)])
"""


def _loop(rag: VizRAG, seconds: float, question: str) -> list[float]:
    t0, out = time.time(), []
    while time.time() - t0 < seconds:
        t = time.perf_counter()
        rag.retrieve(question, top_k=3, render=False)
        out.append((time.perf_counter() - t) * 1000)
    return out


def _show(ms: list[float]) -> str:
    return f"n={len(ms)} p50={statistics.median(ms):.0f} ms max={max(ms):.0f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("store", help="a store directory or URL (it is written: use a copy)")
    ap.add_argument("--lazy", choices=("auto", "on", "off"), default="auto")
    ap.add_argument("--idle", type=float, default=8.0)
    ap.add_argument("--writes", type=int, default=20)
    ap.add_argument("--question", default=QUESTION, help="what the reader asks")
    args = ap.parse_args()
    lazy = {"auto": None, "on": True, "off": False}[args.lazy]
    rag = VizRAG(args.store, show_progress=False, lazy=lazy)
    rag.retrieve(args.question, render=False)  # warm
    idle = _loop(rag, args.idle, args.question)
    writer = subprocess.Popen([sys.executable, "-c", WRITER, args.store, str(args.writes)],
                              env={**os.environ,
                                   "PYTHONPATH": str(Path(__file__).resolve().parents[1])})
    time.sleep(1.0)
    busy = _loop(rag, args.writes - 2.0, args.question)
    writer.wait()
    print(f"lazy={args.lazy} | idle: {_show(idle)} | one small write a second by another "
          f"process: {_show(busy)}")


if __name__ == "__main__":
    main()
