"""Hyper-RAG interop benchmark: working-dir import time and memory, live-wrapper overhead.

Usage::

    python benchmarks/interop_bench.py [--workdir tests/data/hyperrag] [--scale 20]
                                       [--reps 200] [--repeat 3] [--skip-import]
                                       [--skip-live]

Part 1 imports the fixture working dir (a real Hyper-RAG run, 666 hyperedges) and a synthetic
one ``--scale`` times its size written in the same formats (``.hgdb`` pickle, kv stores,
nano-vectordb; see :func:`hyperviz_core.interop.scale_workdir`) into fresh stores, twice
each: re-embedding everything with the offline embedder (the default) and reusing
Hyper-RAG's vectors (``--reuse-embeddings``, embedder ``hashing:64``), ``--repeat`` times
each (default 3). It prints the best run's wall seconds and hyperedges/s (target ≥ 5,000/s
on 2 cores) and the median run's, the best no-op re-import into the imported store, then, in
a separate child process
per working dir, the peak of Python allocations during the import (tracemalloc) and the
peak RSS growth over the process's size before the import (sampled every 2 ms; includes
SQLite's page cache of up to 16 MiB, numpy buffers and the modules the first import
loads), cold and "warm" (in a process that imported the fixture once before, so fixed
costs are not counted), all relative to the ``.hgdb`` size (target ≤ 3×).

Part 2 measures the live wrapper's overhead over the replayed query (render excluded): a
fake ``HyperRAG`` whose ``aquery`` returns the recorded ``queries.json`` result; p50 of
(wrapped call − bare ``aquery``) for :func:`~hyperviz_core.interop.aquery_hyperrag` and for
the LlamaIndex and LangChain ``HyperRAGVisualRetriever`` (``include_image=False``); target
≤ 5 ms.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hyperviz_core.interop import (  # noqa: E402
    aquery_hyperrag,
    import_hyperrag,
    read_workdir,
    scale_workdir,
    write_workdir,
)
from hyperviz_core.interop.hyperrag_read import HGDB_FILE  # noqa: E402
from hyperviz_core.rag import HashingEmbedder  # noqa: E402

DEFAULT_WORKDIR = ROOT / "tests" / "data" / "hyperrag"


# ---------------------------------------------------------------------------- part 1
def _import_once(workdir: Path, reuse: bool) -> tuple[float, float, Any]:
    """(wall s, CPU s, report) of one import into a fresh store."""
    with tempfile.TemporaryDirectory() as tmp:
        embedder = HashingEmbedder(dim=64) if reuse else HashingEmbedder()
        t0, c0 = time.perf_counter(), time.process_time()
        rep = import_hyperrag(workdir, Path(tmp) / "store", embedder=embedder,
                              reuse_embeddings=reuse, show_progress=False)
        return time.perf_counter() - t0, time.process_time() - c0, rep


def _reimport(workdir: Path, repeat: int) -> tuple[float, Any]:
    """(best wall s, report) of re-importing an unchanged working dir into its store (each
    unchanged document's stored extraction is compared with the planned one)."""
    with tempfile.TemporaryDirectory() as tmp:
        store = Path(tmp) / "store"
        import_hyperrag(workdir, store, show_progress=False)
        runs = []
        for _ in range(repeat):
            t0 = time.perf_counter()
            rep = import_hyperrag(workdir, store, show_progress=False)
            runs.append((time.perf_counter() - t0, rep))
        return min(runs, key=lambda r: r[0])


def _rss() -> int:
    """Current resident set size in bytes (Linux ``/proc/self/statm``)."""
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _child_memory(workdir: str, reuse: bool, traced: bool, warm: bool = False) -> None:
    """Run in a fresh process: the peak traced allocations (tracemalloc) or, without
    tracemalloc (whose own bookkeeping inflates RSS), the sampled peak RSS growth."""
    import threading
    import tracemalloc

    import tqdm.auto  # noqa: F401 - imported by the import itself; keep it out of the growth

    if warm:  # one import of the fixture first: modules, SQLite and numpy set up already
        _import_once(DEFAULT_WORKDIR, reuse)
    base = _rss()
    peak = [base]
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], _rss())
            time.sleep(0.002)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    if traced:
        tracemalloc.start()
    _import_once(Path(workdir), reuse)
    traced_peak = tracemalloc.get_traced_memory()[1] if traced else 0
    done.set()
    sampler.join()
    print(json.dumps({"traced_peak": traced_peak, "rss_growth": max(peak[0], _rss()) - base}))


def _memory(workdir: Path, reuse: bool) -> dict[str, int]:
    got: dict[str, int] = {}
    for what in ("traced_peak", "rss_growth", "rss_warm"):
        cmd = [sys.executable, __file__, "--child-memory", str(workdir)]
        cmd += (["--reuse"] if reuse else []) + (["--traced"] if what == "traced_peak" else [])
        cmd += ["--warm"] if what == "rss_warm" else []
        out = subprocess.run(cmd, check=True, capture_output=True, text=True)
        res = json.loads(out.stdout.strip().splitlines()[-1])
        got[what] = res["traced_peak" if what == "traced_peak" else "rss_growth"]
    return got


def bench_import(workdir: Path, scale: int, repeat: int = 3) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        big = Path(tmp) / f"workdir_x{scale}"
        write_workdir(scale_workdir(read_workdir(workdir), scale), big)
        for label, wd in (("fixture", workdir), (f"synthetic x{scale}", big)):
            size = (wd / HGDB_FILE).stat().st_size
            for reuse in (False, True):
                runs = [_import_once(wd, reuse) for _ in range(repeat)]
                secs, cpu, rep = min(runs, key=lambda r: r[0])
                median = statistics.median(r[0] for r in runs)
                mode = "reuse-embeddings" if reuse else "re-embed (offline)"
                print(f"import {label:<14} {mode:<19} {rep.hyperedges:>6} hyperedges "
                      f"{rep.vertices:>5} vertices {rep.documents:>4} docs: {secs:6.2f} s wall "
                      f"= {rep.hyperedges / secs:5.0f} hyperedges/s; {cpu:6.2f} s CPU = "
                      f"{rep.hyperedges / cpu:5.0f} hyperedges/CPU-s; store writes "
                      f"{rep.write_seconds:.2f} s; {rep.embedded} embedded; best of {repeat}, "
                      f"median {median:.2f} s = {rep.hyperedges / median:5.0f}/s")
            secs, rep = _reimport(wd, repeat)
            print(f"re-import {label:<11} unchanged (no-op)   {rep.documents_skipped:>4} of "
                  f"{rep.documents} docs skipped, {rep.documents_replaced} replaced: "
                  f"{secs:6.2f} s wall, best of {repeat}")
            for reuse in (False, True):
                mem = _memory(wd, reuse)
                mode = "reuse-embeddings" if reuse else "re-embed (offline)"
                print(f"memory {label:<14} {mode:<19} .hgdb {size / 2**20:6.2f} MiB: traced "
                      f"peak {mem['traced_peak'] / 2**20:6.2f} MiB = "
                      f"{mem['traced_peak'] / size:4.2f}x, RSS growth "
                      f"{mem['rss_growth'] / 2**20:6.2f} MiB = {mem['rss_growth'] / size:4.2f}x"
                      f" (warm {mem['rss_warm'] / 2**20:6.2f} MiB = "
                      f"{mem['rss_warm'] / size:4.2f}x)")


# ---------------------------------------------------------------------------- part 2
class ReplayRAG:
    """``aquery`` returns the recorded result (no copy: the wrapper must not mutate it)."""

    def __init__(self, results: dict[str, Any]) -> None:
        self.results = results

    async def aquery(self, query: str, param: Any) -> Any:
        return self.results[query]


async def _p50_overhead(call: Any, rag: ReplayRAG, queries: list[str], reps: int
                        ) -> tuple[float, float]:
    """p50 of (wrapped − bare ``aquery``) in wall and in CPU milliseconds."""
    from hyperviz_core.interop import default_query_param

    param = default_query_param()
    wall: list[float] = []
    cpu: list[float] = []
    clock, cpu_clock = time.perf_counter, time.process_time
    for _ in range(reps):
        for q in queries:
            w0, c0 = clock(), cpu_clock()
            await rag.aquery(q, param)
            w1, c1 = clock(), cpu_clock()
            await call(q)
            w2, c2 = clock(), cpu_clock()
            wall.append((w2 - w1) - (w1 - w0))
            cpu.append((c2 - c1) - (c1 - c0))
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000


def _calls(rag: ReplayRAG) -> dict[str, Any]:
    async def with_graph(q: str) -> Any:
        live = await aquery_hyperrag(rag, q)
        return live.hypergraph  # what a rendering needs, minus the rendering

    calls: dict[str, Any] = {
        "core: result + sub-hypergraph": with_graph,
        "core: result, passages only": lambda q: aquery_hyperrag(rag, q),
    }
    try:
        from vizrag_llamaindex.hyperrag import HyperRAGVisualRetriever as LI

        calls["LlamaIndex aretrieve (no image)"] = LI(rag, include_image=False).aretrieve
    except ImportError as exc:
        print(f"LlamaIndex skipped: {exc}")
    try:
        from vizrag_langchain.hyperrag import HyperRAGVisualRetriever as LC

        calls["LangChain ainvoke (no image)"] = LC(rag=rag).ainvoke
    except ImportError as exc:
        print(f"LangChain skipped: {exc}")
    return calls


def bench_live(workdir: Path, reps: int) -> None:
    recorded = json.loads((workdir / "queries.json").read_text("utf-8"))
    rag = ReplayRAG({r["query"]: r["result"] for r in recorded})
    queries = [r["query"] for r in recorded]
    for name, call in _calls(rag).items():
        wall, cpu = asyncio.run(_p50_overhead(call, rag, queries, reps))
        print(f"live overhead {name:<32} p50 {wall:6.2f} ms wall, {cpu:6.2f} ms CPU over "
              f"{reps * len(queries)} replayed queries (render excluded)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workdir", type=Path, default=DEFAULT_WORKDIR)
    ap.add_argument("--scale", type=int, default=20)
    ap.add_argument("--reps", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3, help="imports timed per row (best shown)")
    ap.add_argument("--skip-import", action="store_true")
    ap.add_argument("--skip-live", action="store_true")
    ap.add_argument("--child-memory", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--reuse", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--traced", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--warm", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child_memory:
        _child_memory(args.child_memory, args.reuse, args.traced, args.warm)
        return
    print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f} (1 min)")
    if not args.skip_import:
        bench_import(args.workdir, args.scale, args.repeat)
    if not args.skip_live:
        bench_live(args.workdir, args.reps)


if __name__ == "__main__":
    main()
