"""How much of vizrag's margin is owed to weights tuned on the same questions: a grid of
``RankWeights`` around the shipped ones, and nested cross-validation over it.

Usage (from the repository root)::

    python benchmarks/weights_cv.py --data ../shared/data/musique
    python benchmarks/weights_cv.py --data ../shared/data/musique --untitled
    python benchmarks/weights_cv.py --data ../shared/data/hotpotqa --embed local-minilm
    python benchmarks/weights_cv.py --data ../shared/data/graphrag_bench_novel
    python benchmarks/weights_cv.py --data ../shared/data/musique ../shared/data/hotpotqa \
        ../shared/data/graphrag_bench_novel --with-untitled --pooled

``RankWeights`` (and ``SEMANTIC_VECTOR_WEIGHT``) were tuned on the MuSiQue / HotpotQA dev
questions, the same questions ``retrieval_bench.py`` reports, so its ``vizrag`` row is an
in-sample figure. This script ranks the questions with every setting of a grid over the
weights that were tuned — ``graph``, ``ppr``, ``feedback``, ``mention`` (= ``hyperedge``)
and, with a semantic embedder, ``vector`` — each at the shipped value and on both sides of
it, then

* prints how the score spreads over the grid (every setting scored on all questions:
  in-sample), and where the shipped weights fall in it;
* cross-validates: the questions are cut into ``--folds`` folds (by the SHA-256 of
  ``cut:id``, ``--repeats`` different cuts); each fold is ranked with the grid setting that
  scores best on the *other* folds (ties go to the setting nearest the shipped one), so no
  question is ranked with weights chosen on it. ``vizrag-cv`` is the per-question score
  averaged over the cuts: an estimate of what the tuning procedure gives on questions it
  has not seen, on the same corpus;
* prints ``flat-bm25``, ``flat-dense`` (same embedder), ``vizrag`` (shipped weights) and
  ``vizrag-cv`` side by side with the margins of both and their 95% paired-bootstrap
  intervals (:func:`bench_corpus.margin`);
* with ``--pooled`` and several sets (``--with-untitled`` adds each passage set with its
  titles removed), the same for *one* setting shared by every set, as a shipped default is:
  the in-sample best of the summed per-set means, and ``vizrag-pooled``, fold ``f`` of
  every set ranked with the setting best on the other folds of every set.

Scores are ``retrieval_bench.py``'s: R@2 / R@5 / R@5 per hop count of the gold passages
(MuSiQue, HotpotQA; the folds select on R@5) or, on the novels, hit@5 (the answer in one of
the top-5 chunks; flat rows rank windows of the engine's average chunk size, 25% overlap).
The engine, stores and cache are ``retrieval_bench.py``'s (``--cache``, ``--vectors-from``);
nothing is timed.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import statistics
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import retrieval_bench as rb
from bench_corpus import Corpus, Row, answer_hit, load_corpus, margin, mean_scores
from bench_long import chunk_ranker, engine_windows
from bench_rank import flat_rankers

from hyperviz_core.rag import RankWeights, VizRAG

K = 5
#: the grid: each tuned weight at its shipped value and on both sides (ppr also off)
AXES: dict[str, tuple[float, ...]] = {
    "graph": (0.3, 0.6, 1.0),
    "ppr": (0.0, 0.5, 1.0, 2.0),
    "feedback": (0.4, 0.8, 1.2),
    "mention": (0.1, 0.25, 0.5),  # hyperedge moves with it
}
VECTOR_AXIS = (0.5, 1.0, 2.0)


def grid(semantic: bool) -> tuple[list[dict[str, float]], dict[str, float]]:
    """Every setting of the grid, nearest the shipped one first (grid steps, then values),
    and the shipped setting itself."""
    base = RankWeights()
    axes = dict(AXES)
    shipped = {name: float(getattr(base, name)) for name in axes}
    if semantic:
        from hyperviz_core.rag.retrieve.rank import SEMANTIC_VECTOR_WEIGHT

        axes["vector"] = VECTOR_AXIS
        shipped["vector"] = SEMANTIC_VECTOR_WEIGHT
    for name, values in axes.items():
        if shipped[name] not in values:
            raise SystemExit(f"weights_cv: shipped {name}={shipped[name]} is not on the grid")
    names = list(axes)
    settings = [dict(zip(names, combo, strict=True))
                for combo in itertools.product(*(axes[n] for n in names))]

    def steps(s: dict[str, float]) -> int:
        return sum(abs(axes[n].index(s[n]) - axes[n].index(shipped[n])) for n in names)

    settings.sort(key=lambda s: (steps(s), [s[n] for n in names]))
    return settings, shipped


def weights_of(setting: dict[str, float]) -> RankWeights:
    """The shipped ``RankWeights`` with a grid setting's values (``hyperedge`` = ``mention``)."""
    update = dict(setting)
    update["hyperedge"] = update["mention"]
    return RankWeights().model_copy(update=update)


def label(setting: dict[str, float]) -> str:
    return " ".join(f"{k} {v:g}" for k, v in setting.items())


def folds_of(ids: Sequence[str], cut: int, folds: int) -> list[int]:
    """The fold of each question in one cut: the questions sorted by the SHA-256 of
    ``cut:id`` and dealt round-robin, so folds differ in size by one at most.

    >>> folds_of(["a", "b", "c", "d", "e"], 0, 2).count(0)
    3
    >>> folds_of(["a", "b", "c"], 0, 3) != folds_of(["a", "b", "c"], 1, 3)
    True
    """
    keys = sorted(range(len(ids)),
                  key=lambda q: hashlib.sha256(f"{cut}:{ids[q]}".encode()).hexdigest())
    fold = [0] * len(ids)
    for pos, q in enumerate(keys):
        fold[q] = pos % folds
    return fold


def mean_metric(per_q: Sequence[dict[str, float]], metric: str) -> float:
    vals = [s[metric] for s in per_q if metric in s]
    return statistics.fmean(vals) if vals else 0.0


def row(name: str, per_q: list[dict[str, float]]) -> Row:
    return Row(name, mean_scores(per_q), float("nan"), float("nan"), float("nan"), per_q)


def cross_validate(scores: list[list[dict[str, float]]], metric: str, ids: Sequence[str],
                   folds: int, repeats: int) -> tuple[list[dict[str, float]], Counter[int]]:
    """Per-question scores of the nested cross-validation (averaged over the repeats) and
    how often each grid setting was chosen. ``scores[s][q]`` = setting ``s`` on question
    ``q``; settings earlier in the list win ties. :func:`nested` with one set."""
    sums, chosen = nested([(scores, metric, ids)], folds, repeats)
    return sums[0], chosen


def nested(sets: Sequence[tuple[list[list[dict[str, float]]], str, Sequence[str]]],
           folds: int, repeats: int) -> tuple[list[list[dict[str, float]]], Counter[int]]:
    """Nested cross-validation of *one* setting for all ``sets`` (each ``(scores, metric,
    ids)`` over the same grid) together: in each cut, fold ``f`` of every set is ranked with
    the setting whose summed mean ``metric`` over the other folds of every set is best (each
    set weighs the same; earlier settings win ties). Per set, the per-question scores
    averaged over the cuts; and how often each setting was chosen."""
    vals = [[[s.get(metric, 0.0) for s in per_q] for per_q in scores]
            for scores, metric, _ in sets]
    sums: list[list[dict[str, float]]] = [[{} for _ in ids] for _, _, ids in sets]
    chosen: Counter[int] = Counter()
    for cut in range(repeats):
        fold = [folds_of(ids, cut, folds) for _, _, ids in sets]
        for f in range(folds):
            train = [[q for q, g in enumerate(fd) if g != f] for fd in fold]

            def score(s: int, train: list[list[int]] = train) -> float:
                return sum(statistics.fmean(v[s][q] for q in tr) if tr else 0.0
                           for v, tr in zip(vals, train, strict=True))

            best = max(range(len(vals[0])), key=lambda s: (round(score(s), 9), -s))
            chosen[best] += 1
            for d, (scores, _, _) in enumerate(sets):
                for q, g in enumerate(fold[d]):
                    if g == f:
                        for k, v in scores[best][q].items():
                            sums[d][q][k] = sums[d][q].get(k, 0.0) + v / repeats
    return sums, chosen


def print_rows(rows: Sequence[Row], columns: Sequence[str]) -> None:
    width = max(10, *(len(r.name) for r in rows))
    print(f"{'method':<{width}} " + " ".join(f"{c:>6}" for c in columns))
    for r in rows:
        cells = " ".join(f"{r.scores[c]:6.3f}" if c in r.scores else f"{'-':>6}"
                         for c in columns)
        print(f"{r.name:<{width}} {cells}")


def make_embedder(spec: str) -> Any:
    """As ``retrieval_bench.py``'s, but MiniLM keeps its query cache: every question is
    embedded once for the whole grid (nothing here is timed)."""
    if spec == "local-minilm":
        return rb.local_minilm("weights_cv", show_progress=False)
    return rb.make_embedder(spec)


@dataclass
class Target:
    """What one dataset is scored on: the flat baselines' per-question scores, a ranker of
    the engine for given weights, the metric the folds select on and the table's columns."""

    flat: dict[str, list[dict[str, float]]]
    ranker: Callable[[RankWeights], Callable[[str], list[int]]]
    score: Callable[[dict[str, Any], list[int]], dict[str, float]]
    metric: str
    columns: list[str]


def passage_target(corpus: Corpus, engine: VizRAG, embedder: Any, cache: Path,
                   questions: Sequence[dict[str, Any]]) -> Target:
    """MuSiQue / HotpotQA: recall of the gold passages (``retrieval_bench.py``'s rows)."""
    position = {d.id: i for i, d in enumerate(corpus.docs)}
    score = rb.passage_scorer(corpus.texts)

    def unit_of(doc_id: str) -> int:
        return position.get(doc_id, -1)

    flat = {name: [score(q, r(q["question"])) for q in questions]
            for name, r in rb.flat_rankers(corpus.texts, embedder, cache, K)}
    hops = sorted({int(q["hops"]) for q in questions if q.get("hops")})
    return Target(flat, lambda w: rb.engine_ranker(engine, unit_of, K, "vizrag", weights=w),
                  score, "R@5", ["R@2", "R@5", *[f"{h}hop" for h in hops if len(hops) > 1]])


def answer_target(corpus: Corpus, engine: VizRAG, embedder: Any, cache: Path,
                  questions: Sequence[dict[str, Any]]) -> Target:
    """The novels: the answer in one of the top-5 units (``bench_long``'s rule; the flat
    rows rank windows of the engine's average chunk size, 25% overlap)."""
    spans, chunks, _, order = engine_windows(corpus, engine)
    wins = [t for _, t in spans]
    texts = [c.text for c in chunks]

    def scorer(units: Sequence[str]) -> Callable[[dict[str, Any], list[int]], dict[str, float]]:
        return lambda q, ranked: {"hit@5": float(answer_hit(str(q["answer"]),
                                                            [units[i] for i in ranked[:K]]))}

    flat = {name: [scorer(wins)(q, r(q["question"])) for q in questions]
            for name, r in flat_rankers(wins, embedder, cache, K)}
    return Target(flat, lambda w: chunk_ranker(engine, order, "vizrag", weights=w),
                  scorer(texts), "hit@5", ["hit@5"])


@dataclass
class SetResult:
    """One dataset's scores: ``scores[s][q]`` = grid setting ``s`` on question ``q``."""

    name: str
    ids: list[str]
    settings: list[dict[str, float]]
    scores: list[list[dict[str, float]]]
    target: Target
    data: Path
    titled: bool
    """the ranked passages carry titles (``--with-untitled`` runs the set again without)"""


def evaluate(data: Path, untitled: bool, embedder: Any, args: argparse.Namespace
             ) -> SetResult:
    """Rank every question of one dataset with every grid setting."""
    corpus = load_corpus(data, untitled)
    if corpus.kind not in ("passages", "answers"):
        raise SystemExit(f"weights_cv: {data} is neither a passage set nor the novels")
    engine, how = rb.open_engine(corpus, embedder, args.cache, False, False, None,
                                 args.vectors_from)
    questions = corpus.questions[: args.limit]
    settings, shipped = grid(bool(RankWeights().for_embedder(embedder).vector))
    make = passage_target if corpus.kind == "passages" else answer_target
    t = make(corpus, engine, embedder, args.cache, questions)
    print(f"dataset {corpus.name}: {len(questions)} questions; {how}; "
          f"embedder {embedder.name}")
    print(f"grid: {len(settings)} settings of {', '.join(settings[0])} "
          f"(hyperedge = mention); shipped: {label(shipped)}")
    scores = []
    for i, s in enumerate(settings):
        ranker = t.ranker(weights_of(s))
        scores.append([t.score(q, ranker(q["question"])) for q in questions])
        if args.verbose:
            print(f"  {i + 1:3d}/{len(settings)} {t.metric} "
                  f"{mean_metric(scores[-1], t.metric):.3f} {label(s)}", file=sys.stderr)
    engine.close()
    return SetResult(corpus.name, [str(q["id"]) for q in questions], settings, scores, t,
                     data, corpus.titled)


def print_compared(res: SetResult, name: str, per_q: list[dict[str, float]]) -> None:
    """The flat rows, ``vizrag`` (shipped weights) and ``name`` with its margins."""
    t, m = res.target, res.target.metric
    rows = [row(n, q) for n, q in t.flat.items()]
    rows += [row("vizrag", res.scores[0]), row(name, per_q)]
    print_rows(rows, t.columns)
    by = {r.name: r for r in rows}
    for target in ("vizrag", name):
        for base in ("flat-bm25", "flat-dense"):
            print(f"{target} {m}: {margin(by[target], by[base], m)}")


def print_chosen(settings: Sequence[dict[str, float]], chosen: Counter[int]) -> None:
    print(f"settings chosen (of {sum(chosen.values())} folds): " + "; ".join(
        f"{n}× {label(settings[s])}" for s, n in sorted(chosen.items(),
                                                         key=lambda kv: (-kv[1], kv[0]))))


def report(res: SetResult, args: argparse.Namespace) -> None:
    """The grid's spread and the cross-validation of one dataset."""
    m, settings = res.target.metric, res.settings
    vals = [mean_metric(per_q, m) for per_q in res.scores]
    best = max(range(len(settings)), key=lambda s: (vals[s], -s))
    above = sum(v > vals[0] for v in vals)
    print(f"{m} over the grid, every setting on all {len(res.ids)} questions (in-sample): "
          f"min {min(vals):.3f}, median {statistics.median(vals):.3f}, max {vals[best]:.3f} "
          f"({label(settings[best])}); shipped {vals[0]:.3f} ({above} settings above it)")
    cv, chosen = cross_validate(res.scores, m, res.ids, args.folds, args.repeats)
    print(f"{args.folds}-fold cross-validation, {args.repeats} cuts of the questions: each "
          "fold ranked with the grid setting best on the other folds; vizrag-cv = the "
          "per-question score averaged over the cuts")
    print_compared(res, "vizrag-cv", cv)
    print_chosen(settings, chosen)


def report_pooled(results: Sequence[SetResult], args: argparse.Namespace) -> None:
    """One setting for every set: the in-sample best of the pooled score, and the nested
    cross-validation of choosing it (:func:`nested`)."""
    settings = results[0].settings
    means = [[mean_metric(per_q, r.target.metric) for per_q in r.scores] for r in results]
    total = [sum(m[s] for m in means) for s in range(len(settings))]
    best = max(range(len(settings)), key=lambda s: (round(total[s], 9), -s))
    names = ", ".join(r.name for r in results)
    print(f"\npooled over {len(results)} sets ({names}): one grid setting for all, each set "
          "weighing the same (the mean of its questions)")
    print(f"in-sample best: {label(settings[best])}: " + "; ".join(
        f"{r.name} {m[best]:.3f} (shipped {m[0]:.3f})" for r, m in zip(results, means,
                                                                      strict=True)))
    cv, chosen = nested([(r.scores, r.target.metric, r.ids) for r in results], args.folds,
                        args.repeats)
    print(f"{args.folds}-fold cross-validation, {args.repeats} cuts: fold f of every set "
          "ranked with the setting best on the other folds of every set; vizrag-pooled = "
          "the per-question score averaged over the cuts")
    for r, per_q in zip(results, cv, strict=True):
        print(f"-- {r.name}")
        print_compared(r, "vizrag-pooled", per_q)
    print_chosen(settings, chosen)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    rb.corpus_arguments(parser)
    parser.add_argument("--folds", type=int, default=5, help="folds of each cut")
    parser.add_argument("--repeats", type=int, default=5, help="different cuts into folds")
    parser.add_argument("--with-untitled", action="store_true",
                        help="also run every passage set with its titles removed")
    parser.add_argument("--pooled", action="store_true",
                        help="also cross-validate one setting chosen for all sets together")
    parser.add_argument("--verbose", action="store_true", help="each setting's score to stderr")
    args = parser.parse_args(argv)
    if args.folds < 2 or args.repeats < 1:
        parser.error("--folds must be >= 2 and --repeats >= 1")
    rb.check_data(args.data, "weights_cv")
    embedder = make_embedder(args.embed)  # loaded once for every set
    results: list[SetResult] = []

    def run(data: Path, untitled: bool) -> None:
        if results:
            print()
        results.append(evaluate(data, untitled, embedder, args))
        report(results[-1], args)

    for data in args.data:
        run(data, args.untitled)
    if args.with_untitled:
        for res in [r for r in results if r.titled]:
            run(res.data, True)
    if args.pooled and len(results) > 1:
        report_pooled(results, args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
