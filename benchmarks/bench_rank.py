"""Rankers and result rows shared by ``retrieval_bench.py`` and :mod:`bench_long`: the flat
baselines (BM25, dense), the timed pass over the questions that makes a :class:`Row`, the
``vizrag`` ablation weights, the latency header and the JSON summary.

Example:
    >>> rank = bm25_ranker(["the cat sat", "a dog barked", "cats and dogs"], k=2)
    >>> rank("dog")[0]  # "dogs" is another word: no stemming
    1
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
from bench_corpus import Corpus, Row, mean_scores

from hyperviz_core.rag import RankWeights

Ranker = Callable[[str], list[int]]  # question → unit indices (passages) best first
Scorer = Callable[[dict[str, Any], list[int]], dict[str, float]]


def bm25_ranker(texts: Sequence[str], k: int) -> Ranker:
    """Flat BM25 over ``texts``."""
    retriever = bm25s.BM25()
    retriever.index(bm25s.tokenize(list(texts), stopwords="en", show_progress=False),
                    show_progress=False)

    def rank(q: str) -> list[int]:
        docs, _ = retriever.retrieve(bm25s.tokenize([q], stopwords="en", show_progress=False),
                                     k=min(k, len(texts)), show_progress=False)
        return [int(d) for d in docs[0]]

    return rank


def dense_ranker(mat: np.ndarray, embedder: Any, k: int) -> Ranker:
    """Flat dense retrieval: cosine of the query vector to every row of ``mat``."""
    def rank(q: str) -> list[int]:
        sims = mat @ np.asarray(embedder.embed([q])[0], dtype=np.float32)
        return [int(i) for i in np.lexsort((np.arange(len(sims)), -sims))[:k]]

    return rank


def dense_matrix(texts: Sequence[str], embedder: Any, cache: Path) -> np.ndarray:
    """Embeddings of ``texts`` (cached on disk by content and embedder)."""
    h = hashlib.sha256(embedder.name.encode())
    for t in texts:
        h.update(hashlib.sha256(t.encode()).digest())
    path = cache / f"dense-{h.hexdigest()[:20]}.npy"
    if path.exists():
        return np.load(path)
    mat = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, mat)
    return mat


def flat_rankers(texts: Sequence[str], embedder: Any, cache: Path, k: int
                 ) -> list[tuple[str, Ranker]]:
    """The flat baselines over ``texts``: ``flat-bm25`` and ``flat-dense`` (``embedder``'s
    vectors, cached under ``cache``)."""
    return [("flat-bm25", bm25_ranker(texts, k)),
            ("flat-dense", dense_ranker(dense_matrix(texts, embedder, cache), embedder, k))]


def pct(values: Sequence[float], q: float) -> float:
    """Percentile ``q`` (0–100) of ``values``."""
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def run_rows(methods: Sequence[tuple[str, Ranker]], questions: Sequence[dict[str, Any]],
             score: Scorer) -> list[Row]:
    """Rank every question with every method; mean scores and latency percentiles (each
    method is timed on its second pass over the questions, so lazily filled caches do not
    charge whichever row runs first)."""
    rows = []
    for name, ranker in methods:
        for q in questions:  # untimed pass: lazily built per-entity arrays, word caches
            ranker(q["question"])
        lat, cpu, per_q = [], [], []
        for q in questions:
            t0, c0 = time.perf_counter(), time.process_time()
            ranked = ranker(q["question"])
            lat.append((time.perf_counter() - t0) * 1000)
            cpu.append((time.process_time() - c0) * 1000)
            per_q.append(score(q, ranked))
        rows.append(Row(name, mean_scores(per_q), pct(lat, 50), pct(lat, 95), pct(cpu, 50),
                        per_q))
    return rows


def top_scorer(metric: str, hit: Callable[[dict[str, Any], list[str]], bool],
               units: Sequence[str], k: int = 5) -> Scorer:
    """Score ``metric`` = 1 when ``hit(question, top-k unit texts)``, else 0."""
    def score(q: dict[str, Any], ranked: list[int]) -> dict[str, float]:
        return {metric: float(hit(q, [units[i] for i in ranked[:k]]))}
    return score


def ablations(embedder: Any = None, titled: bool = True) -> list[tuple[str, RankWeights]]:
    """vizrag variants with one evidence weight set to 0 (weights that exist only); with a
    semantic embedder also ``-minmax``: chunk-vector cosines scaled by their maximum only.
    Without titles (``titled=False``) the home evidence left is the inferred lead entity, so
    ``-titles`` is named ``-lead``."""
    base = RankWeights()
    fields = base.model_dump()
    out = []
    for name, attr in (("-titles" if titled else "-lead", "home"), ("-feedback", "feedback"),
                       ("-ppr", "ppr"), ("-graph", "graph")):
        if attr in fields and fields[attr] > 0:
            out.append((f"vizrag{name}", base.model_copy(update={attr: 0.0})))
    # no query repair (spelling variants of entity names, word forms of unknown words)
    if fields.get("spelling", 0) > 0 or fields.get("word_forms"):
        out.append(("vizrag-repair", base.model_copy(update={"spelling": 0.0,
                                                              "word_forms": False})))
    if "vector_scaling" in fields and embedder is not None and base.for_embedder(
            embedder).vector:
        out.append(("vizrag-minmax", base.model_copy(update={"vector_scaling": "max"})))
    return out


def print_header(args: argparse.Namespace, embedder: Any) -> None:
    """The latency line every table opens with (CPUs, 1-minute load, embedder)."""
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"latency = wall ms per query, no LLM, no rendering; CPU = process time, which "
          f"load from other processes inflates less ({os.cpu_count()} CPUs, 1-min load "
          f"{load:.1f}); embedder {embedder.name}")


def summary(corpus: Corpus, questions: Sequence[Any], rows: Sequence[Row]) -> dict[str, Any]:
    """The ``--json`` summary of one dataset's rows."""
    return {"dataset": corpus.name, "questions": len(questions),
            "rows": [{"method": r.name, **{k: round(v, 4) for k, v in r.scores.items()},
                      "p50_ms": round(r.p50, 2), "p95_ms": round(r.p95, 2),
                      "cpu_p50_ms": round(r.cpu50, 2)} for r in rows]}
