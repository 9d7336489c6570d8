"""Indexing benchmark: offline MuSiQue corpus, and LLM-bound concurrency with a fake model.

Usage::

    python benchmarks/index_bench.py [--data ../shared/data/musique/corpus.json]
                                     [--subset 96] [--latency 0.3] [--skip-offline]

Part 1 indexes the whole corpus (1,890 passages) offline — heuristic extraction, heuristic
themes, hashed embeddings — into a fresh store and prints wall/CPU seconds and peak RSS
(targets: ≤ 60 s and ≤ 1 GiB on 2 cores).

Part 2 replaces the model with a fake chat model that sleeps ``--latency`` seconds per call
(asyncio.sleep) and answers canned JSON; it indexes documents sequentially (concurrency 1)
and with concurrency 16 and prints the throughput ratio (target ≥ 12×). Chunk images are
not rendered here (``index_visualization=False``) so the figure measures LLM-call
concurrency, not rendering CPU. Then it re-runs: on the same store (documents unchanged →
0 calls) and after deleting the documents (every call answered from the store's LLM cache
→ 0 calls).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import resource
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hyperviz_core.rag.index.indexer import Indexer  # noqa: E402
from hyperviz_core.rag.index.loaders import load_documents  # noqa: E402
from hyperviz_core.rag.store import HypergraphStore  # noqa: E402
from hyperviz_core.rag.types import Document  # noqa: E402

DEFAULT_DATA = ROOT.parent / "shared" / "data" / "musique" / "corpus.json"
_CAPS = re.compile(r"\b[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\b")


class SlowFakeChat:
    """Fake chat model: ``latency`` seconds per call, canned extraction/theme JSON."""

    model_name = "fake-slow"

    def __init__(self, latency: float) -> None:
        self.latency = latency
        self.calls = 0

    def _answer(self, prompt: str) -> str:
        self.calls += 1
        text = prompt.rsplit("<<<TEXT", 1)[-1]
        names = list(dict.fromkeys(m.group(0) for m in _CAPS.finditer(text)))[:6]
        if '"key_entities"' in prompt:
            return json.dumps({"theme": f"About {names[0] if names else 'it'}",
                               "keywords": ["fake"], "key_entities": names[:2]})
        return json.dumps({
            "entities": [{"name": n, "type": "concept", "description": f"{n} appears."}
                         for n in names],
            "hyperedges": [{"members": names[:3], "description": "They appear together."}]
            if len(names) >= 2 else [],
        })

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        time.sleep(self.latency)
        return self._answer(prompt)

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        await asyncio.sleep(self.latency)
        return self._answer(prompt)


def peak_rss_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def offline(docs: list[Document], workdir: Path) -> None:
    print(f"== offline indexing: {len(docs)} passages "
          f"(load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs)")
    ix = Indexer(workdir / "offline", show_progress=False)
    c0, t0 = time.process_time(), time.perf_counter()
    rep = ix.index(docs)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    s = rep.store
    assert s is not None
    print(f"  {rep.summary()}")
    print(f"  store: documents {s.documents}, chunks {s.chunks}, entities {s.entities}, "
          f"relation hyperedges {s.relation_hyperedges}, theme hyperedges "
          f"{s.theme_hyperedges}, key entities {s.key_entities}")
    size = sum(p.stat().st_size for p in (workdir / "offline").iterdir())
    print(f"  wall {wall:.1f} s (target <= 60), CPU {cpu:.1f} s, peak RSS "
          f"{peak_rss_mib():.0f} MiB (target <= 1024), store files {size / 2**20:.1f} MiB")
    reopened = HypergraphStore(workdir / "offline")
    t1 = time.perf_counter()
    bot, top = reopened.bottom(), reopened.top()
    t2 = time.perf_counter()
    for space in ("entity", "hyperedge", "theme", "chunk"):
        reopened.vector_index(space)
    t3 = time.perf_counter()
    q = ix.embedder.embed(["Hank Snow"])[0]
    hits = reopened.search("entity", q, 10)
    t4 = time.perf_counter()
    print(f"  reopen: bottom()+top() {t2 - t1:.2f} s ({len(bot.entities)} + {len(top.entities)}"
          f" entities), 4 vector indexes {t3 - t2:.2f} s, one entity search "
          f"{(t4 - t3) * 1000:.1f} ms (top hit {hits[0][0]!r})")
    reopened.close()
    t1 = time.perf_counter()
    again = ix.index(docs)
    print(f"  re-run: {again.documents_skipped} unchanged, {again.embedded} embedded, "
          f"{time.perf_counter() - t1:.1f} s")
    ix.store.close()


def llm_bound(docs: list[Document], workdir: Path, latency: float, subset: int) -> None:
    seq_docs = docs[: max(4, subset // 8)]
    conc_docs = docs[:subset]
    print(f"== LLM-bound indexing with a fake model of {latency * 1000:.0f} ms latency")
    chat1 = SlowFakeChat(latency)
    ix1 = Indexer(workdir / "seq", chat=chat1, concurrency=1, index_visualization=False,
                  show_progress=False)
    t0 = time.perf_counter()
    r1 = ix1.index(seq_docs)
    t_seq = time.perf_counter() - t0
    thr_seq = len(seq_docs) / t_seq
    print(f"  sequential: {len(seq_docs)} docs, {r1.llm_calls} calls in {t_seq:.2f} s "
          f"= {thr_seq:.2f} docs/s")
    chat16 = SlowFakeChat(latency)
    ix16 = Indexer(workdir / "c16", chat=chat16, concurrency=16, index_visualization=False,
                   show_progress=False)
    t0 = time.perf_counter()
    r16 = ix16.index(conc_docs)
    t_c = time.perf_counter() - t0
    thr_c = len(conc_docs) / t_c
    print(f"  concurrency 16: {len(conc_docs)} docs, {r16.llm_calls} calls in {t_c:.2f} s "
          f"= {thr_c:.2f} docs/s")
    print(f"  speed-up {thr_c / thr_seq:.1f}x (target >= 12x)")
    r2 = ix16.index(conc_docs)
    print(f"  second run (same store): {r2.llm_calls} calls, {r2.documents_skipped} docs "
          f"unchanged")
    store = ix16.store
    for d in conc_docs:
        store.delete_document(d.id)
    before = chat16.calls
    t0 = time.perf_counter()
    r3 = Indexer(store, chat=chat16, concurrency=16, index_visualization=False,
                 show_progress=False).index(conc_docs)
    print(f"  re-index after deleting the documents: {r3.llm_calls} calls "
          f"({chat16.calls - before} reached the model), {r3.cache_hits} cache hits, "
          f"{r3.documents_added} docs in {time.perf_counter() - t0:.2f} s")
    store.close()
    ix1.store.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--subset", type=int, default=96, help="documents for the LLM-bound part")
    ap.add_argument("--latency", type=float, default=0.3)
    ap.add_argument("--skip-offline", action="store_true")
    ap.add_argument("--skip-llm", action="store_true")
    args = ap.parse_args()
    docs = load_documents(args.data)
    with tempfile.TemporaryDirectory(prefix="vizrag-bench-") as tmp:
        work = Path(tmp)
        if not args.skip_offline:
            offline(docs, work)
        if not args.skip_llm:
            llm_bound(docs, work, args.latency, args.subset)


if __name__ == "__main__":
    main()
