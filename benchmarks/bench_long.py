"""Long-document sets of ``retrieval_bench.py``: the novels (answer in the top-5 chunks, and
with ``--triples`` the novels' other questions) and UltraDomain *mix* (the question's
context and the answer's words among the top-5 chunks).

The flat baselines rank windows of the engine's average chunk size (25% overlap) over the
same documents; the engine rows (``naive``, ``hyper-lite``, ``vizrag`` and its ablations)
rank the engine's chunks; every row is scored by the same rule on its own units.
"""

from __future__ import annotations

import argparse
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import bench_rank as br
from bench_corpus import (
    Corpus,
    Row,
    answer_hit,
    context_scores,
    pair_hit,
    print_ceiling,
    print_margins,
    print_split,
    print_table,
    triple_questions,
    windows,
)

from hyperviz_core.rag import VizRAG

K = 5
BASELINES = ("flat-bm25", "flat-dense")


@dataclass
class LongUnits:
    """What a long-document set is ranked on: the flat windows and the engine's chunks,
    each as (document index, text) in ranking-index order, and the rows' rankers."""

    windows: list[tuple[int, str]]
    chunks: list[tuple[int, str]]
    size: int
    flat: list[tuple[str, br.Ranker]]
    engine: list[tuple[str, br.Ranker]]


def long_units(corpus: Corpus, engine: VizRAG, embedder: Any, args: argparse.Namespace
               ) -> LongUnits:
    """Windows of the engine's average chunk size and the rankers of every row."""
    chunks = sorted(engine.store.chunks(), key=lambda c: c.id)
    size = round(statistics.fmean(len(c.text) for c in chunks)) if chunks else 1200
    wins = windows(corpus.texts, size)
    wtexts = [w for _, w in wins]
    doc_index = {d.id: i for i, d in enumerate(corpus.docs)}
    order = {c.id: i for i, c in enumerate(chunks)}

    def engine_hits(mode: str, **over: Any) -> br.Ranker:
        def rank(q: str) -> list[int]:
            res = engine.retrieve(q, mode=mode, top_k=K, render=False, **over)
            return [order[c.chunk_id] for c in res.chunks]
        return rank

    eng = [(m, engine_hits(m)) for m in ("naive", "hyper-lite", "vizrag")]
    if not args.quick:
        eng += [(n, engine_hits("vizrag", weights=w))
                for n, w in br.ablations(embedder, titled=False)]
    return LongUnits(wins, [(doc_index.get(c.doc_id, -1), c.text) for c in chunks], size,
                     br.flat_rankers(wtexts, embedder, args.cache, K), eng)


def _rows(u: LongUnits, questions: Sequence[dict[str, Any]],
          scorer: Callable[[Sequence[tuple[int, str]]], br.Scorer]) -> list[Row]:
    """Flat rows scored on the windows, engine rows on the chunks (``scorer(units)``)."""
    return (br.run_rows(u.flat, questions, scorer(u.windows))
            + br.run_rows(u.engine, questions, scorer(u.chunks)))


def _texts(units: Sequence[tuple[int, str]]) -> list[str]:
    return [t for _, t in units]


def bench_answers(corpus: Corpus, engine: VizRAG, embedder: Any,
                  questions: Sequence[dict[str, Any]], args: argparse.Namespace
                  ) -> dict[str, Any]:
    """The novels: a hit = the answer occurs in one of the top-5 units."""
    u = long_units(corpus, engine, embedder, args)

    def answer_in(q: dict[str, Any], top: list[str]) -> bool:
        return answer_hit(str(q["answer"]), top)

    rows = _rows(u, questions,
                 lambda units: br.top_scorer("hit@5", answer_in, _texts(units), K))
    br.print_header(args, embedder)
    print(f"answer in top-5 (hit@5); flat rows rank {len(u.windows)} windows of {u.size} "
          f"chars (25% overlap), the engine {len(u.chunks)} chunks")
    print_table(rows, ["hit@5"])
    print_margins(rows, "hit@5", BASELINES)
    print_ceiling(questions, _texts(u.chunks), _texts(u.windows), args.split)
    if args.split:
        print_split(rows, questions, ["hit@5"], "hit@5", BASELINES)
    if args.triples:
        bench_triples(corpus, questions, u)
    engine.close()
    return br.summary(corpus, questions, rows)


def bench_triples(corpus: Corpus, scored: Sequence[dict[str, Any]], u: LongUnits) -> None:
    """``--triples``: the same rows on the novels' other questions (not the scored ones),
    a hit = the evidence triple's head and tail in one top-5 unit."""
    if corpus.data is None:
        return
    qs = triple_questions(corpus.data, {str(q["id"]) for q in scored}, _texts(u.chunks))

    def pair_in(q: dict[str, Any], top: list[str]) -> bool:
        return pair_hit(str(q["head"]), str(q["tail"]), top)

    rows = _rows(u, qs, lambda units: br.top_scorer("pair@5", pair_in, _texts(units), K))
    print(f"\nthe other {len(qs)} questions of these novels (not the {len(scored)} above; "
          "their evidence triple's head and tail occur together in 1-50 chunks): pair@5 = "
          "head and tail in one top-5 unit")
    print_table(rows, ["pair@5"])
    print_margins(rows, "pair@5", BASELINES)


def context_scorer(units: Sequence[tuple[int, str]]) -> br.Scorer:
    """``doc@5`` and ``ans@5`` (:func:`bench_corpus.context_scores`) of the top-5 units."""
    def score(q: dict[str, Any], ranked: list[int]) -> dict[str, float]:
        return context_scores(q, [units[i] for i in ranked[:K]], K)
    return score


def bench_contexts(corpus: Corpus, engine: VizRAG, embedder: Any,
                   questions: Sequence[dict[str, Any]], args: argparse.Namespace
                   ) -> dict[str, Any]:
    """UltraDomain *mix*: each question has one (inferred, "silver") context and a long
    answer; ``doc@5`` = share of the top-5 units from that context, ``ans@5`` = share of
    the answer's content words found in the top-5 units."""
    u = long_units(corpus, engine, embedder, args)
    rows = _rows(u, questions, context_scorer)
    br.print_header(args, embedder)
    print(f"doc@5 = share of the top-5 units from the question's context; ans@5 = share of "
          f"the answer's content words in the top-5 units; flat rows rank {len(u.windows)} "
          f"windows of {u.size} chars (25% overlap), the engine {len(u.chunks)} chunks")
    print_table(rows, ["doc@5", "ans@5"])
    for metric in ("ans@5", "doc@5"):
        print_margins(rows, metric, BASELINES)
    if args.split:
        print_split(rows, questions, ["doc@5", "ans@5"], "ans@5", BASELINES)
    engine.close()
    return br.summary(corpus, questions, rows)
