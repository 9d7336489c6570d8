"""Long-document sets of ``retrieval_bench.py``: the novels (answer in the top-5 chunks, with
``--triples`` the novels' other questions, with ``--misses`` where the missed answers rank)
and UltraDomain *mix* (the question's context and the answer's words among the top-5 chunks).

The flat baselines rank windows of the engine's average chunk size (25% overlap) over the
same documents; the engine rows (``naive``, ``hyper-lite``, ``vizrag`` and its ablations)
rank the engine's chunks; every row is scored by the same rule on its own units.
"""

from __future__ import annotations

import argparse
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import bench_rank as br
import numpy as np
from bench_corpus import (
    Corpus,
    Row,
    answer_hit,
    answerable,
    context_scores,
    half_of,
    margin,
    mean_scores,
    pair_hit,
    print_ceiling,
    print_margins,
    print_split,
    print_table,
    triple_questions,
    windows,
)

from hyperviz_core.rag import Chunk, VizRAG
from hyperviz_core.rag.retrieve.lexical import bm25_scores, passage_tokens, query_tokens

K = 5
BASELINES = ("flat-bm25", "flat-dense")
SPREAD = 7  # --chunk-spread: chunk sizes within 2*SPREAD characters of the engine's, step 2
DEEP = 100  # how far down ``--misses`` looks for the first unit holding the answer
HUB = 5  # ``--misses`` lists the chunks in vizrag's top 5 for this many questions or more


@dataclass
class LongUnits:
    """What a long-document set is ranked on: the flat windows and the engine's chunks,
    each as (document index, text) in ranking-index order, and the rows' rankers."""

    windows: list[tuple[int, str]]
    chunks: list[tuple[int, str]]
    size: int
    flat: list[tuple[str, br.Ranker]]
    engine: list[tuple[str, br.Ranker]]
    order: dict[str, int]
    """chunk id → its index in :attr:`chunks`"""


def chunk_ranker(engine: VizRAG, order: dict[str, int], mode: str, k: int = K, **over: Any
                 ) -> br.Ranker:
    """The engine's ``mode`` as a ranker of the chunk indices of ``order`` (its chunks, not
    their documents as ``retrieval_bench.engine_ranker`` ranks)."""
    def rank(q: str) -> list[int]:
        res = engine.retrieve(q, mode=mode, top_k=k, render=False, **over)
        return [order[c.chunk_id] for c in res.chunks]
    return rank


def engine_windows(corpus: Corpus, engine: VizRAG
                   ) -> tuple[list[tuple[int, str]], list[Chunk], int, dict[str, int]]:
    """The flat windows of the engine's average chunk size (25% overlap), the engine's
    chunks in ranking-index order (by id), that size, and chunk id → ranking index (shared
    with ``weights_cv.py``, so both rank the same units)."""
    chunks = sorted(engine.store.chunks(), key=lambda c: c.id)
    size = round(statistics.fmean(len(c.text) for c in chunks)) if chunks else 1200
    order = {c.id: i for i, c in enumerate(chunks)}
    return windows(corpus.texts, size), chunks, size, order


def long_units(corpus: Corpus, engine: VizRAG, embedder: Any, args: argparse.Namespace
               ) -> LongUnits:
    """Windows of the engine's average chunk size and the rankers of every row."""
    wins, chunks, size, order = engine_windows(corpus, engine)
    wtexts = [w for _, w in wins]
    doc_index = {d.id: i for i, d in enumerate(corpus.docs)}
    eng = [(m, chunk_ranker(engine, order, m)) for m in ("naive", "hyper-lite", "vizrag")]
    if not args.quick:
        eng += [(n, chunk_ranker(engine, order, "vizrag", weights=w))
                for n, w in br.ablations(embedder, titled=False)]
    return LongUnits(wins, [(doc_index.get(c.doc_id, -1), c.text) for c in chunks], size,
                     br.flat_rankers(wtexts, embedder, args.cache, K), eng, order)


def _rows(u: LongUnits, questions: Sequence[dict[str, Any]],
          scorer: Callable[[Sequence[tuple[int, str]]], br.Scorer]) -> list[Row]:
    """Flat rows scored on the windows, engine rows on the chunks (``scorer(units)``)."""
    return (br.run_rows(u.flat, questions, scorer(u.windows))
            + br.run_rows(u.engine, questions, scorer(u.chunks)))


def _texts(units: Sequence[tuple[int, str]]) -> list[str]:
    return [t for _, t in units]


def answer_in(q: dict[str, Any], top: list[str]) -> bool:
    """The novels' hit rule: the question's answer occurs in one of the ``top`` texts."""
    return answer_hit(str(q["answer"]), top)


def bench_answers(corpus: Corpus, engine: VizRAG, embedder: Any,
                  questions: Sequence[dict[str, Any]], args: argparse.Namespace
                  ) -> dict[str, Any]:
    """The novels: a hit = the answer occurs in one of the top-5 units."""
    u = long_units(corpus, engine, embedder, args)
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
    if args.misses:
        print_misses(questions, engine, u)
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


def spread_hits(corpus: Corpus, questions: Sequence[dict[str, Any]], engine: VizRAG
                ) -> tuple[int, list[float], list[float]]:
    """One chunking of ``--chunk-spread``: the flat windows' size (the engine's average
    chunk), and the hit of each question for ``vizrag`` over the engine's chunks and for
    flat BM25 over those windows (25% overlap)."""
    wins, chunks, size, order = engine_windows(corpus, engine)
    units = _texts(wins)
    hits = []
    for rank, texts in ((chunk_ranker(engine, order, "vizrag"), [c.text for c in chunks]),
                        (br.bm25_ranker(units, K), units)):
        score = br.top_scorer("hit@5", answer_in, texts, K)
        hits.append([score(q, rank(q["question"]))["hit@5"] for q in questions])
    return size, hits[0], hits[1]


def print_chunk_spread(corpus: Corpus, questions: Sequence[dict[str, Any]], center: int,
                       open_at: Callable[[int], VizRAG]) -> None:
    """``--chunk-spread``: both sides of the novels' margin move with an arbitrary grid —
    the engine's chunks and the flat windows that follow their size — so index the novels
    at the 15 chunk sizes within 14 characters of ``center`` (``open_at(size)``, cached
    stores), rank ``vizrag`` and flat BM25 on each, and compare the two averaged over the
    chunkings (each question scored by its share of chunkings that hit it)."""
    sizes = [center + 2 * d for d in range(-SPREAD, SPREAD + 1)]
    runs = []
    for size in sizes:
        engine = open_at(size)
        runs.append(spread_hits(corpus, questions, engine))
        engine.close()
    n = len(questions)
    viz, flat = [int(sum(r[1])) for r in runs], [int(sum(r[2])) for r in runs]
    print(f"\nvizrag and flat-bm25 at {len(sizes)} chunk sizes around the engine's {center} "
          f"(flat windows of each store's average chunk, 25% overlap); hits of {n}:")
    for name, cells in (("chunk", sizes), ("window", [r[0] for r in runs]), ("vizrag", viz),
                        ("flat-bm25", flat)):
        print(f"{name:<10}" + "".join(f"{c:>6}" for c in cells))
    print(f"{'margin':<10}" + "".join(f"{v - f:>+6}" for v, f in zip(viz, flat, strict=True)))
    need = sum(v - f >= 0.05 * n for v, f in zip(viz, flat, strict=True))
    print(f"mean hits: vizrag {statistics.fmean(viz):.1f}, flat-bm25 "
          f"{statistics.fmean(flat):.1f}; vizrag >= flat-bm25 + 0.05 at {need} of {len(sizes)} "
          "chunk sizes")
    rows = []
    for name, hits in (("vizrag", [r[1] for r in runs]), ("flat-bm25", [r[2] for r in runs])):
        per_q = [{"hit@5": statistics.fmean(h[q] for h in hits)} for q in range(n)]
        rows.append(Row(f"{name} (mean of the chunk sizes)", mean_scores(per_q),
                        float("nan"), float("nan"), per_q=per_q))
    print(f"{rows[0].name} hit@5 {rows[0].scores['hit@5']:.3f}: "
          f"{margin(rows[0], rows[1], 'hit@5')}")


@dataclass
class Miss:
    """An answerable question that some method leaves out of its top ``K``."""

    half: str
    ranks: dict[str, int | None]
    """method → 1-based rank of its first unit holding the answer (None: not in its list)"""
    holding: list[int]
    """the engine chunks (indices) that hold the answer"""
    answer: str
    question: str


def first_holding(answer: str, ranked: Sequence[int], texts: Sequence[str]) -> int | None:
    """1-based rank of the first unit of ``ranked`` whose text holds ``answer`` (the rule of
    hit@5: its words in order, as whole words), or None.

    >>> first_holding("Nova Scotia", [2, 0, 1], ["born in Nova Scotia", "x", "Nova"])
    2
    >>> first_holding("Halifax", [0, 1], ["born in Nova Scotia", "x"]) is None
    True
    """
    return next((rank for rank, i in enumerate(ranked, 1) if answer_hit(answer, [texts[i]])),
                None)


def misses(questions: Sequence[dict[str, Any]], ranked: Mapping[str, Sequence[list[int]]],
           texts: Mapping[str, Sequence[str]], chunks: Sequence[str]) -> list[Miss]:
    """The questions whose answer some engine chunk holds and that some method of
    ``ranked`` (method → the ranked unit indices of each question, over ``texts[method]``)
    leaves out of its top ``K``; ordered by the first method's rank (absent last), then
    by question.

    >>> qs = [{"id": "1", "question": "Who?", "answer": "Ann"},
    ...       {"id": "2", "question": "Where?", "answer": "Rome"},
    ...       {"id": "3", "question": "What?", "answer": "a sentence no chunk holds"}]
    >>> chunks = ["Ann met Bo.", "x", "y", "z", "w", "v", "In Rome, Ann."]
    >>> got = misses(qs, {"vizrag": [[1, 2, 3, 4, 5, 6], [6, 0], [0]]},
    ...              {"vizrag": chunks}, chunks)
    >>> [(m.question, m.ranks, m.holding) for m in got]
    [('Who?', {'vizrag': 6}, [0, 6])]
    """
    answers = [str(q["answer"]) for q in questions]
    held = [answerable(answers, [t]) for t in chunks]  # per chunk: which answers it holds
    out = []
    for n, q in enumerate(questions):
        holding = [i for i, h in enumerate(held) if h[n]]
        if not holding:
            continue
        ranks = {m: first_holding(answers[n], r[n], texts[m]) for m, r in ranked.items()}
        if any(r is None or r > K for r in ranks.values()):
            out.append(Miss(half_of(str(q["id"])), ranks, holding, answers[n],
                            str(q["question"])))
    first = next(iter(ranked), "")
    return sorted(out, key=lambda m: (m.ranks.get(first) is None, m.ranks.get(first) or 0,
                                      m.question))


def dominated(query: str, holding: Sequence[int], toks: Sequence[Sequence[str]]) -> int:
    """The fewest chunks that *dominate* one of the ``holding`` chunks word by word: BM25
    (the engine's, per token of ``query``; query repair aside) at least the held chunk's for
    every token and above it for one. A chunk dominated by ``K`` or more enters no top ``K``
    under any non-negative weighting of the query's words. ``toks``: every chunk's BM25
    tokens (:func:`passage_tokens`), which give the corpus statistics.

    >>> toks = passage_tokens(["apple cherry", "apple banana", "banana cherry"])
    >>> dominated("apple banana", [0], toks), dominated("apple banana", [1], toks)
    (1, 0)
    """
    total = sum(map(len, toks))
    avg = total / len(toks) if total else 1.0
    words = sorted(set(query_tokens(query)))
    # one row per word (a zero row without any: every chunk ties, none dominates)
    per = np.stack([bm25_scores([w], toks, len(toks), avg) for w in words]
                   or [np.zeros(len(toks), dtype=np.float32)])
    counts = [int(((per >= per[:, [h]]).all(axis=0) & (per > per[:, [h]]).any(axis=0)).sum())
              for h in holding]
    return min(counts, default=0)


def passages(engine: VizRAG) -> list[str]:
    """The text the engine's BM25 reads of each chunk (title + newline + text,
    :meth:`ChunkIndex.passage_text` of the engine's own loaded index), in chunk-id order
    like :attr:`LongUnits.chunks`."""
    index = engine.retriever.corpus().chunks
    return [index.passage_text(i) for i in range(len(index))]


def print_misses(questions: Sequence[dict[str, Any]], engine: VizRAG, u: LongUnits) -> None:
    """``--misses``: the answerable questions vizrag or flat BM25 misses, with the rank of
    the first unit holding the answer in each one's top ``DEEP``, and the chunks that sit in
    vizrag's top 5 for ``HUB`` or more questions."""
    deep = {"vizrag": chunk_ranker(engine, u.order, "vizrag", DEEP),
            "flat-bm25": br.bm25_ranker(_texts(u.windows), DEEP)}
    ranked = {m: [rank(q["question"]) for q in questions] for m, rank in deep.items()}
    texts = {"vizrag": _texts(u.chunks), "flat-bm25": _texts(u.windows)}
    rows = misses(questions, ranked, texts, _texts(u.chunks))
    toks = passage_tokens(passages(engine))
    print(f"\nmisses: the answerable questions vizrag or flat-bm25 leaves out of its top {K}; "
          f"rank = of the method's first unit holding the answer (- = not in its top {DEEP}), "
          "chunks = engine chunks holding it, dom = the fewest chunks that dominate one of "
          "them word by word (BM25 of every question word at least its, of one above; "
          f"{K}+ = no weighting of the question's words lifts it into a top {K})")
    print(f"half  {'vizrag':>6}  {'flat-bm25':>9}  {'chunks':>6}  {'dom':>5}  answer | question")
    for m in rows:
        v, b = (str(m.ranks[x]) if m.ranks[x] is not None else "-"
                for x in ("vizrag", "flat-bm25"))
        q = m.question if len(m.question) <= 90 else m.question[:87] + "..."
        dom = dominated(m.question, m.holding, toks)
        print(f"{m.half:<4}  {v:>6}  {b:>9}  {len(m.holding):>6}  {dom:>5}  {m.answer} | {q}")
    tops = Counter(i for r in ranked["vizrag"] for i in r[:K])
    hubs = sorted((i for i, n in tops.items() if n >= HUB), key=lambda i: (-tops[i], i))
    print(f"chunks in vizrag's top {K} for {HUB} or more of the {len(questions)} questions: "
          f"{len(hubs)}")
    for i in hubs:
        text = " ".join(u.chunks[i][1].split())
        print(f"  {tops[i]:>3} questions  doc {u.chunks[i][0]}  {text[:80]}")


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
