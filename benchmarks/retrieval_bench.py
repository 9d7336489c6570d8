"""Retrieval benchmark: recall@k of gold passages for VizRAG modes vs flat BM25 (offline).

Usage (from the repository root)::

    python benchmarks/retrieval_bench.py --data ../shared/data/musique
    python benchmarks/retrieval_bench.py --data ../shared/data/hotpotqa --limit 20 \
        --modes vizrag,naive

The corpus is indexed with the offline defaults (heuristic extractor, hashed embeddings) into
``--store`` (a temporary directory unless given; an existing store is reused). Every question
is answered with ``VizRAG.retrieve`` (no LLM), the ranked chunks are mapped to their passages
(first occurrence of each passage counts) and recall@k = |top-k passages ∩ gold| / |gold| is
averaged over the questions. The flat baseline is BM25 (``bm25s``, English stop words) over
``title + newline + text`` of the same passages. Latency is the wall time of ``retrieve``
(p50/p95 in ms, plus the process CPU time, which load from other processes inflates less)
without rendering, and for ``vizrag`` with the two renderings as well. ``--ablations`` adds
``vizrag`` rows without hypergraph evidence (``-graph``), without the feedback pass
(``-feedback``) and without the document-title ("home") evidence (``-titles``).

Dataset layout (``../shared/data/README.md``): ``corpus.json`` is a list of ``{"title",
"text"}`` (MuSiQue) or a dict title → list of sentences (HotpotQA); ``queries_dev.jsonl`` has
``question`` and ``gold_corpus_idx`` (indices into the corpus in that order).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from hyperviz_core.rag.engine import VizRAG
from hyperviz_core.rag.rank import RankWeights
from hyperviz_core.rag.types import Document

KS = (2, 5)


def load_dataset(data: Path) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """(passages as (title, text), questions) of a benchmark folder."""
    raw = json.loads((data / "corpus.json").read_text(encoding="utf-8"))
    if isinstance(raw, dict):
        passages = [(str(t), "".join(str(s) for s in sents)) for t, sents in raw.items()]
    else:
        passages = [(str(p["title"]), str(p["text"])) for p in raw]
    questions = [
        json.loads(line)
        for line in (data / "queries_dev.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return passages, questions


def doc_id(idx: int) -> str:
    """Document id of passage ``idx``."""
    return f"p{idx:05d}"


def recall(ranked: Sequence[int], gold: Sequence[int], k: int) -> float:
    """|first k of ranked ∩ gold| / |gold|."""
    g = set(gold)
    return len(set(ranked[:k]) & g) / len(g) if g else 0.0


def flat_bm25(passages: Sequence[tuple[str, str]], questions: Sequence[dict[str, Any]], k: int
              ) -> tuple[list[list[int]], list[float]]:
    """Ranked passage indices per question and per-query latency (ms) of flat BM25."""
    corpus = [f"{t}\n{x}" for t, x in passages]
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(corpus, stopwords="en", show_progress=False),
                    show_progress=False)
    ranked, lat = [], []
    for q in questions:
        t0 = time.perf_counter()
        docs, _ = retriever.retrieve(
            bm25s.tokenize([q["question"]], stopwords="en", show_progress=False),
            k=min(k, len(corpus)), show_progress=False)
        lat.append((time.perf_counter() - t0) * 1000)
        ranked.append([int(d) for d in docs[0]])
    return ranked, lat


def run_mode(engine: VizRAG, questions: Sequence[dict[str, Any]], mode: str, k: int,
             render: bool, cpu: list[float] | None = None, **overrides: Any
             ) -> tuple[list[list[int]], list[float]]:
    """Ranked passage indices per question and retrieve() wall latency (ms) for one mode;
    the process CPU time per query (ms) is appended to ``cpu`` when given."""
    ranked, lat = [], []
    for q in questions:
        t0, c0 = time.perf_counter(), time.process_time()
        res = engine.retrieve(q["question"], mode=mode, top_k=2 * k, render=render,
                              **overrides)
        lat.append((time.perf_counter() - t0) * 1000)
        if cpu is not None:
            cpu.append((time.process_time() - c0) * 1000)
        seen: list[int] = []
        for c in res.chunks:
            idx = int(c.doc_id[1:]) if c.doc_id.startswith("p") else -1
            if idx >= 0 and idx not in seen:
                seen.append(idx)
        ranked.append(seen[:k])
    return ranked, lat


def pct(values: Sequence[float], q: float) -> float:
    """Percentile ``q`` (0–100) of ``values``."""
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", required=True, type=Path, help="dataset folder")
    parser.add_argument("--limit", type=int, default=None, help="first N questions only")
    parser.add_argument("--modes", default="vizrag,hyper-lite,naive",
                        help="comma-separated VizRAG modes")
    parser.add_argument("--store", type=Path, default=None,
                        help="store directory (reused when it holds the corpus)")
    parser.add_argument("--render-limit", type=int, default=None,
                        help="questions timed with rendering (default: all)")
    parser.add_argument("--no-render", action="store_true", help="skip the rendering timing")
    parser.add_argument("--json", action="store_true", help="print one JSON summary at the end")
    parser.add_argument("--ablations", action="store_true",
                        help="also run vizrag without graph evidence / without feedback")
    args = parser.parse_args(argv)

    passages, questions = load_dataset(args.data)
    if args.limit is not None:
        questions = questions[: args.limit]
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    k_max = max(KS)
    tmp = None
    store_dir = args.store
    if store_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="vizrag-bench-")
        store_dir = Path(tmp.name)
    engine = VizRAG(store_dir, show_progress=False)
    docs = [Document(id=doc_id(i), title=t, text=x) for i, (t, x) in enumerate(passages)]
    t0 = time.perf_counter()
    engine.insert(docs)
    index_s = time.perf_counter() - t0
    stats = engine.stats()
    print(f"dataset {args.data.name}: {len(passages)} passages, {len(questions)} questions; "
          f"index {index_s:.1f} s ({stats.documents} docs, {stats.chunks} chunks, "
          f"{stats.entities} entities, {stats.relation_hyperedges} relations, "
          f"{stats.theme_hyperedges} themes)")
    engine.retrieve("warm up", render=False)  # load indexes once, outside the timings

    gold = [list(q["gold_corpus_idx"]) for q in questions]
    rows: list[tuple[str, dict[int, float], float, float, float]] = []
    ranked, lat = flat_bm25(passages, questions, k_max)
    rows.append(("flat-bm25", {k: statistics.fmean(recall(r, g, k) for r, g in
                                                    zip(ranked, gold, strict=True)) for k in KS},
                 pct(lat, 50), pct(lat, 95), float("nan")))
    for mode in modes:
        cpu: list[float] = []
        ranked, lat = run_mode(engine, questions, mode, k_max, render=False, cpu=cpu)
        rows.append((mode, {k: statistics.fmean(recall(r, g, k) for r, g in
                                                zip(ranked, gold, strict=True)) for k in KS},
                     pct(lat, 50), pct(lat, 95), pct(cpu, 50)))
    if args.ablations:
        for name, weights in (("-graph", RankWeights(graph=0.0)),
                              ("-feedback", RankWeights(feedback=0.0)),
                              ("-titles", RankWeights(home=0.0))):
            cpu = []
            ranked, lat = run_mode(engine, questions, "vizrag", k_max, render=False, cpu=cpu,
                                   weights=weights)
            rows.append((f"vizrag{name}", {k: statistics.fmean(
                recall(r, g, k) for r, g in zip(ranked, gold, strict=True)) for k in KS},
                pct(lat, 50), pct(lat, 95), pct(cpu, 50)))
    render_lat: list[float] = []
    if not args.no_render and "vizrag" in modes:
        subset = questions[: args.render_limit] if args.render_limit else questions
        _, render_lat = run_mode(engine, subset, "vizrag", k_max, render=True)

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"latency = wall time of one retrieve() without LLM; CPU = process time "
          f"(1-min load average at the end: {load:.1f} on {os.cpu_count()} CPUs)")
    print(f"{'method':<13} {'R@2':>6} {'R@5':>6} {'p50 ms':>8} {'p95 ms':>8} {'CPU p50':>8}")
    for name, rec, p50, p95, c50 in rows:
        print(f"{name:<13} {rec[2]:6.3f} {rec[5]:6.3f} {p50:8.1f} {p95:8.1f} {c50:8.1f}")
    if render_lat:
        print(f"{'vizrag+render':<13} {'':>6} {'':>6} {pct(render_lat, 50):8.1f} "
              f"{pct(render_lat, 95):8.1f}          (I_top + I_bot rendered, "
              f"{len(render_lat)} questions)")
    best_flat = rows[0][1][5]
    for name, rec, _, _, _ in rows[1:]:
        print(f"{name}: recall@5 {rec[5] - best_flat:+.3f} vs flat BM25")
    if args.json:
        print(json.dumps({
            "dataset": args.data.name, "questions": len(questions), "index_s": round(index_s, 2),
            "rows": [{"method": n, "recall@2": round(r[2], 4), "recall@5": round(r[5], 4),
                      "p50_ms": round(a, 2), "p95_ms": round(b, 2),
                      "cpu_p50_ms": None if c != c else round(c, 2)}
                     for n, r, a, b, c in rows],
            "render_p50_ms": round(pct(render_lat, 50), 2) if render_lat else None,
            "render_p95_ms": round(pct(render_lat, 95), 2) if render_lat else None,
        }))
    engine.close()
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
