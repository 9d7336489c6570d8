"""Framework-wrapper overhead over the core VizRAG retriever (LangChain, LlamaIndex).

Usage (from the repository root)::

    python benchmarks/wrapper_overhead.py                  # every framework section
    python benchmarks/wrapper_overhead.py --only langchain --repeats 50

One offline store is built from the bundled MuSiQue demo passages
(``hyperviz_core/data/demo``, 60 passages; heuristic extraction, hashed embeddings) in a
temporary directory. Each section times, per query and repeat, (a) the core
``VizRAG.retrieve(q, top_k=k, render=False)`` and (b) the framework retriever's public call,
and reports the *paired* overhead: the wrapper's wall time minus the time spent inside the
engine call it made (measured around that call), so the core's own jitter does not enter the
figure. Percentiles are over all
``queries × repeats`` calls after one warm-up pass; no rendering (no image asked for).

Layout: shared helpers first, then one section per framework. Each section defines a
function ``<framework>_overhead(rag, queries, *, k, repeats) -> Overhead`` and registers it
in ``SECTIONS``, and the wrapper package it needs in ``PACKAGES`` (a missing extra is then
named in one line before any work); edit only your own section.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hyperviz_core.rag import Document, VizRAG  # noqa: E402

DATA = ROOT / "hyperviz_core" / "data" / "demo"


# ============================================================================ shared helpers
@dataclass
class Overhead:
    """Timings of one framework section (milliseconds per call)."""

    framework: str
    call: str
    core_ms: list[float] = field(default_factory=list)
    wrapper_ms: list[float] = field(default_factory=list)
    overhead_ms: list[float] = field(default_factory=list)

    def line(self, k: int) -> str:
        """The printed result line."""
        def pct(xs: Sequence[float], q: float) -> float:
            xs = sorted(xs)
            return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]

        o, c, w = self.overhead_ms, self.core_ms, self.wrapper_ms
        return (f"{self.framework}: {self.call} overhead over VizRAG.retrieve (k={k}, "
                f"render=False, n={len(o)}): p50 {statistics.median(o):.3f} ms, "
                f"p95 {pct(o, 0.95):.3f} ms | core p50 {statistics.median(c):.2f} ms, "
                f"wrapper p50 {statistics.median(w):.2f} ms")


def build_store(root: Path) -> VizRAG:
    """The benchmark store: the 60 bundled MuSiQue passages, offline defaults."""
    passages = json.loads((DATA / "musique_demo_passages.json").read_text(encoding="utf-8"))
    rag = VizRAG(root / "store", show_progress=False)
    rag.insert([Document(id=f"musique-{p['musique_corpus_idx']}", title=p["title"],
                         text=p["text"]) for p in passages])
    return rag


def questions() -> list[str]:
    """The bundled demo questions plus a few short entity queries."""
    items = json.loads((DATA / "musique_demo_questions.json").read_text(encoding="utf-8"))
    return [str(q["question"]) for q in items] + ["Iron Maiden", "Prague", "Kim Jong-il"]


class TimedEngine:
    """Wraps ``rag.retrieve``/``aretrieve`` and records the time of the last call (ms)."""

    def __init__(self, rag: VizRAG) -> None:
        self.rag, self.last_ms = rag, 0.0
        self._retrieve = rag.retrieve

    def __enter__(self) -> TimedEngine:
        def retrieve(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return self._retrieve(*args, **kwargs)
            finally:
                self.last_ms = (time.perf_counter() - t) * 1e3

        self.rag.retrieve = retrieve  # type: ignore[method-assign]
        return self

    def __exit__(self, *exc: object) -> None:
        del self.rag.retrieve  # back to the class method


def time_core(rag: VizRAG, query: str, k: int) -> float:
    t = time.perf_counter()
    rag.retrieve(query, top_k=k, render=False)
    return (time.perf_counter() - t) * 1e3


SECTIONS: dict[str, Callable[..., Overhead]] = {}
#: section → the wrapper package it imports (which names its extra when that is missing)
PACKAGES: dict[str, str] = {}


def check_packages(names: Sequence[str]) -> None:
    """Import the wrapper package of every section in ``names``; a missing one (its extra
    not installed) is one line on stderr naming the pip command, and exit status 2."""
    for name in names:
        try:
            importlib.import_module(PACKAGES[name])
        except ModuleNotFoundError as exc:
            print(f"wrapper_overhead: the {name} section: {exc}", file=sys.stderr)
            raise SystemExit(2) from None


# ============================================================================ LangChain
# Owner: the LangChain wrapper (issue 12). VizRAGRetriever.invoke(q) vs VizRAG.retrieve.
def langchain_overhead(rag: VizRAG, queries: Sequence[str], *, k: int = 4,
                       repeats: int = 20) -> Overhead:
    """Paired overhead of ``VizRAGRetriever.invoke`` (text documents, no image)."""
    from vizrag_langchain import VizRAGRetriever

    retriever = VizRAGRetriever(store=rag, k=k)
    out = Overhead("langchain", "VizRAGRetriever.invoke")
    for q in queries:  # warm-up
        retriever.invoke(q)
    for _ in range(repeats):
        for q in queries:  # core and wrapper interleaved: same machine load for both
            out.core_ms.append(time_core(rag, q, k))
            with TimedEngine(rag) as timed:
                t = time.perf_counter()
                docs = retriever.invoke(q)
                total = (time.perf_counter() - t) * 1e3
            assert len(docs) <= k
            out.wrapper_ms.append(total)
            out.overhead_ms.append(total - timed.last_ms)
    return out


SECTIONS["langchain"] = langchain_overhead
PACKAGES["langchain"] = "vizrag_langchain"


# ============================================================================ LlamaIndex
# Owner: the LlamaIndex wrapper (issue 11). VizRAGRetriever.retrieve(q) vs VizRAG.retrieve,
# without the image (render=False on both sides) and with it (render=True on both sides).
def _llamaindex_run(rag: VizRAG, queries: Sequence[str], out: Overhead, *, k: int,
                    repeats: int, image: bool) -> Overhead:
    from vizrag_llamaindex import VizRAGImageNode, VizRAGRetriever

    retriever = VizRAGRetriever(rag, top_k=k, include_image=image)
    with TimedEngine(rag) as timed:
        for q in queries:  # warm-up
            retriever.retrieve(q)
        for _ in range(repeats):
            for q in queries:
                t = time.perf_counter()
                nodes = retriever.retrieve(q)
                total = (time.perf_counter() - t) * 1e3
                n_images = sum(isinstance(n.node, VizRAGImageNode) for n in nodes)
                assert len(nodes) - n_images <= k and n_images == (1 if image else 0)
                out.wrapper_ms.append(total)
                out.overhead_ms.append(total - timed.last_ms)
    for _ in range(repeats):
        for q in queries:
            t = time.perf_counter()
            rag.retrieve(q, top_k=k, render=image)
            out.core_ms.append((time.perf_counter() - t) * 1e3)
    return out


def llamaindex_overhead(rag: VizRAG, queries: Sequence[str], *, k: int = 4,
                        repeats: int = 20) -> Overhead:
    """Paired overhead of ``VizRAGRetriever.retrieve`` (text nodes, no image)."""
    out = Overhead("llamaindex", "VizRAGRetriever.retrieve")
    return _llamaindex_run(rag, queries, out, k=k, repeats=repeats, image=False)


@dataclass
class ImageOverhead(Overhead):
    """Like :class:`Overhead`, rendered side: the overhead is also given relative to core."""

    def line(self, k: int) -> str:
        o, c, w = self.overhead_ms, self.core_ms, self.wrapper_ms
        rel = 100 * statistics.median(o) / statistics.median(c)
        return (f"{self.framework}: {self.call} overhead over VizRAG.retrieve (k={k}, "
                f"render=True, n={len(o)}): p50 {statistics.median(o):.3f} ms "
                f"({rel:.2f}% of core p50) | core p50 {statistics.median(c):.2f} ms, "
                f"wrapper p50 {statistics.median(w):.2f} ms")


def llamaindex_image_overhead(rag: VizRAG, queries: Sequence[str], *, k: int = 4,
                              repeats: int = 20) -> Overhead:
    """Paired overhead of ``VizRAGRetriever.retrieve`` with the image node (I_bot).

    Rendering costs ~100x a text retrieval, so this section runs ``max(1, repeats // 10)``
    repeats."""
    out = ImageOverhead("llamaindex-image", "VizRAGRetriever.retrieve(+image)")
    return _llamaindex_run(rag, queries, out, k=k, repeats=max(1, repeats // 10), image=True)


SECTIONS["llamaindex"] = llamaindex_overhead
SECTIONS["llamaindex-image"] = llamaindex_image_overhead
PACKAGES["llamaindex"] = PACKAGES["llamaindex-image"] = "vizrag_llamaindex"


# ============================================================================ main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=sorted(SECTIONS), help="run one framework section")
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args(argv)
    if args.k < 1 or args.repeats < 1:
        parser.error("--k and --repeats must be at least 1")
    names = [args.only] if args.only else sorted(SECTIONS)
    check_packages(names)
    with tempfile.TemporaryDirectory() as tmp:
        rag = build_store(Path(tmp))
        queries = questions()
        for q in queries:
            rag.retrieve(q, top_k=args.k, render=False)  # warm the engine's caches
        for name in names:
            print(SECTIONS[name](rag, queries, k=args.k, repeats=args.repeats).line(args.k),
                  flush=True)
        rag.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
