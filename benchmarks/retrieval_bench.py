"""Retrieval benchmark: where VizRAG's recall comes from, side by side with flat baselines.

Usage (from the repository root)::

    python benchmarks/retrieval_bench.py --data ../shared/data/musique
    python benchmarks/retrieval_bench.py --data ../shared/data/hotpotqa --untitled
    python benchmarks/retrieval_bench.py --data ../shared/data/graphrag_bench_novel
    python benchmarks/retrieval_bench.py --data ../shared/data/musique --embed local-minilm
    python benchmarks/retrieval_bench.py --data ../shared/data/musique --quick

One run indexes the corpus once (offline: heuristic extractor, ``--embed`` embeddings) and
ranks *the same passages* with every method:

* ``flat-bm25`` — BM25 (``bm25s``, English stop words) over ``title + newline + text``;
* ``flat-dense`` — cosine similarity of the same texts under the index's embedder;
* ``titles-only`` — BM25 + document-title matching (a title named by the query or by the
  best BM25 passages boosts that document: one feedback round) and no hypergraph, using the
  engine's own ranking code with an empty bottom layer;
* ``naive``, ``hyper-lite``, ``vizrag`` — :meth:`VizRAG.retrieve` (no LLM, no rendering);
* ablations of ``vizrag``: ``-titles`` (no home evidence: the chunks of the document titled
  by a retrieved entity; with ``--untitled`` the row is ``-lead``, the home inferred from
  the entity a document opens with), ``-feedback`` (no feedback pass), ``-ppr`` (no
  personalised PageRank over the entity–hyperedge graph), ``-graph`` (no hypergraph
  evidence at all), ``-repair`` (no repair of query words no chunk contains: spelling
  variants of entity names, word forms) and, with a semantic embedder, ``-minmax``
  (chunk-vector cosines scaled by their maximum instead of min-max over the vector top-k).

Recall@k = |top-k passages ∩ gold| / |gold| averaged over the questions (MuSiQue passages are
matched by index, ``gold_corpus_idx``), also per hop count; latency = wall time of one query
(p50/p95, ms, second pass over the questions). ``--untitled`` removes the titles from the
passages: the index and the flat baselines see text only, so no title can help (the title
rows are then skipped).

Long untitled documents (``graphrag_bench_novel``): each novel is one document without a
title; the 86 Fact Retrieval questions whose answer has at most 4 words; a hit = the answer
(lower-cased, words only) occurs in one of the top-5 chunks. Flat BM25/dense rank windows of
the engine's average chunk size with 25% overlap.

Each margin line (``vizrag`` and ``hyper-lite`` against every flat baseline) gives the
difference of the means, its 95% paired-bootstrap interval (2,000 resamples of the
questions, fixed seed) and on how many questions the method scored above / below the
baseline — how far a margin on 47 to 689 questions can be told apart from noise.

``--split`` also prints every table for two fixed halves of the questions (half A: the
SHA-256 of the question id is even; half B: odd), so a setting developed on one half can be
checked on questions it was not developed on.

Built stores are cached under ``--cache`` (default ``$VIZRAG_BENCH_CACHE`` or
``~/.cache/vizrag-bench``), keyed by the corpus content, the embedder, the chunking and the
source of the extraction code; ``--rebuild`` forces a new index.
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import re
import shutil
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import bm25s
import numpy as np
from bench_corpus import (
    Corpus,
    Row,
    answer_hit,
    load_corpus,
    pair_hit,
    print_ceiling,
    print_margins,
    print_split,
    print_table,
    triple_questions,
    windows,
)
from bench_vectors import StoredVectors, load_vectors

from hyperviz_core.rag import HashingEmbedder, RankWeights, VizRAG

KS = (2, 5)
QUICK = 20


# ------------------------------------------------------------------ embedders and cache
def make_embedder(spec: str) -> Any:
    """``hashing`` (offline default) or ``local-minilm`` (needs ``vizrag[local]``)."""
    if spec in ("hashing", "offline"):
        return HashingEmbedder()
    if spec == "local-minilm":
        from hyperviz_core.rag import LocalMiniLMEmbedder  # type: ignore[attr-defined]

        # no in-process text cache: the timed second pass must embed every query again
        return LocalMiniLMEmbedder(show_progress=sys.stderr.isatty(), cache_size=0)
    raise SystemExit(f"retrieval_bench: unknown --embed {spec!r} (hashing, local-minilm)")


def _code_hash() -> str:
    """Hash of the source of the extraction and chunking code (what a built index depends
    on): every module of the extractors' package (word lists and span finding included)
    and the chunking module; found through the public classes, wherever they live."""
    from hyperviz_core.rag import HeuristicExtractor, HeuristicThemeExtractor, chunk_document

    files: set[Path] = {Path(inspect.getfile(chunk_document))}
    for obj in (HeuristicExtractor, HeuristicThemeExtractor):
        files.update(Path(inspect.getfile(obj)).parent.rglob("*.py"))
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def cache_key(corpus: Corpus, embedder: Any) -> str:
    """Key of a built store: documents, embedder, chunking and extraction code."""
    h = hashlib.sha256()
    for d in corpus.docs:
        h.update(f"{d.id}\x1f{d.hash}\n".encode())
    h.update(f"{embedder.name}:{embedder.dim}:1200:100:{_code_hash()}".encode())
    return f"{re.sub(r'[^a-z0-9]+', '-', corpus.name.lower())}-{h.hexdigest()[:16]}"


def open_engine(corpus: Corpus, embedder: Any, cache: Path, rebuild: bool,
                progress: bool, store: Path | None = None,
                vectors_from: Sequence[Path] = ()) -> tuple[VizRAG, str]:
    """The engine over a cached (or freshly built) store, and a line saying which.

    A store is built under a ``.partial`` name and renamed when complete, so an interrupted
    build is never reused; ``store`` (``--store``) replaces the cache entry. A build reuses
    the vectors of the ``vectors_from`` stores (``--vectors-from``, :mod:`bench_vectors`);
    queries always embed with ``embedder`` itself.
    """
    key = cache_key(corpus, embedder) if store is None else store.name
    final = cache / key if store is None else store
    if rebuild and final.exists():
        shutil.rmtree(final)
    if (final / "complete").exists():
        return VizRAG(final, embedder=embedder, show_progress=False), f"index cached ({key})"
    part = final.with_name(f"{final.name}.partial-{os.getpid()}")
    shutil.rmtree(part, ignore_errors=True)
    part.mkdir(parents=True)
    t0 = time.perf_counter()
    build = embedder
    if vectors_from:
        build = StoredVectors(embedder, load_vectors(vectors_from, embedder.name, embedder.dim))
    engine = VizRAG(part, embedder=build, show_progress=progress)
    engine.insert(corpus.docs)
    engine.close()
    seconds = time.perf_counter() - t0
    (part / "complete").write_text(f"{seconds:.1f}\n")
    if isinstance(build, StoredVectors):
        print(f"vectors: {build.reused} reused from {', '.join(map(str, vectors_from))}, "
              f"{build.embedded} embedded")
    try:
        part.rename(final)
    except OSError:  # another run finished the same store first
        shutil.rmtree(part, ignore_errors=True)
    return (VizRAG(final, embedder=embedder, show_progress=False),
            f"index built in {seconds:.1f} s ({key})")


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


# ------------------------------------------------------------------ rankers
Ranker = Callable[[str], list[int]]  # question → unit indices (passages) best first


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


def _ranking(name: str) -> Any:
    """``ChunkIndex`` / ``rank_chunks`` of the engine, found beside :class:`RankWeights`
    (the public package first, then the modules of the ranking's package)."""
    import importlib
    import pkgutil

    import hyperviz_core.rag as rag

    if hasattr(rag, name):
        return getattr(rag, name)
    mod = sys.modules[RankWeights.__module__]
    if hasattr(mod, name):
        return getattr(mod, name)
    pkg = importlib.import_module(RankWeights.__module__.rsplit(".", 1)[0])
    for info in pkgutil.iter_modules(getattr(pkg, "__path__", [])):
        sub = importlib.import_module(f"{pkg.__name__}.{info.name}")
        if hasattr(sub, name):
            return getattr(sub, name)
    raise SystemExit(f"retrieval_bench: the engine's {name} was not found")


def titles_ranker(engine: VizRAG, unit_of: Callable[[str], int], k: int) -> Ranker:
    """BM25 + title matching + one feedback round with the engine's ranking, no hypergraph."""
    chunk_index, rank_chunks = _ranking("ChunkIndex"), _ranking("rank_chunks")
    titles = {d.id: d.title for d in engine.store.documents()}
    index = chunk_index(engine.store.chunks(), titles, None)

    def rank(q: str) -> list[int]:
        ranked = rank_chunks(index, q, query_entities=index.link(q), top_k=2 * k)
        return _dedupe(unit_of(index.chunks[sc.index].doc_id) for sc in ranked)[:k]

    return rank


def engine_ranker(engine: VizRAG, unit_of: Callable[[str], int], k: int, mode: str,
                  **overrides: Any) -> Ranker:
    """:meth:`VizRAG.retrieve` (no rendering) mapped to units."""
    def rank(q: str) -> list[int]:
        res = engine.retrieve(q, mode=mode, top_k=2 * k, render=False, **overrides)
        return _dedupe(unit_of(c.doc_id) for c in res.chunks)[:k]

    return rank


def _dedupe(items: Any) -> list[int]:
    return [i for i in dict.fromkeys(items) if i >= 0]


# ------------------------------------------------------------------ scoring
def pct(values: Sequence[float], q: float) -> float:
    """Percentile ``q`` (0–100) of ``values``."""
    return float(np.percentile(np.asarray(values), q)) if values else float("nan")


def run_rows(methods: Sequence[tuple[str, Ranker]], questions: Sequence[dict[str, Any]],
             score: Callable[[dict[str, Any], list[int]], dict[str, float]]) -> list[Row]:
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
        keys = sorted({k for s in per_q for k in s})
        means = {k: statistics.fmean(s[k] for s in per_q if k in s) for k in keys}
        rows.append(Row(name, means, pct(lat, 50), pct(lat, 95), pct(cpu, 50), per_q))
    return rows


def recall(ranked: Sequence[int], gold: Sequence[int], k: int) -> float:
    """|first k of ranked ∩ gold| / |gold|."""
    g = set(gold)
    return len(set(ranked[:k]) & g) / len(g) if g else 0.0


def _aic() -> Callable[..., Any] | None:
    try:
        from hyperviz_core.eval import answer_in_context  # type: ignore[attr-defined]
    except ImportError:
        return None
    return answer_in_context  # type: ignore[no-any-return]


def passage_scorer(texts: Sequence[str]) -> Callable[[dict[str, Any], list[int]], dict[str, float]]:
    """Recall@2/@5, per-hop recall@5 and answer-in-top-5 (passage corpora)."""
    aic = _aic()

    def score(q: dict[str, Any], ranked: list[int]) -> dict[str, float]:
        gold = list(q["gold_corpus_idx"])
        out = {f"R@{k}": recall(ranked, gold, k) for k in KS}
        if q.get("hops"):
            out[f"{q['hops']}hop"] = out["R@5"]
        top = [texts[i] for i in ranked[:5]]
        answers = [str(a) for a in q.get("answers", [])]
        hit = (aic(answers, top) if aic is not None
               else any(answer_hit(a, top) for a in answers))
        out["AiC@5"] = float(bool(hit))
        return out

    return score


# ------------------------------------------------------------------ main
def ablations(embedder: Any = None) -> list[tuple[str, RankWeights]]:
    """vizrag variants with one evidence weight set to 0 (weights that exist only); with a
    semantic embedder also ``-minmax``: chunk-vector cosines scaled by their maximum only."""
    base = RankWeights()
    fields = base.model_dump()
    out = []
    for name, attr in (("-titles", "home"), ("-feedback", "feedback"), ("-ppr", "ppr"),
                       ("-graph", "graph")):
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


def _ablation_name(name: str, titled: bool) -> str:
    """Without titles the home evidence left is the inferred lead entity: ``-lead``."""
    return name if titled or name != "vizrag-titles" else "vizrag-lead"


def bench(corpus: Corpus, args: argparse.Namespace, embedder: Any) -> dict[str, Any]:
    k = max(KS)
    cache: Path = args.cache
    engine, how = open_engine(corpus, embedder, cache, args.rebuild, args.progress,
                              args.store, args.vectors_from)
    stats = engine.stats()
    questions = corpus.questions[: QUICK if args.quick else args.limit]
    print(f"dataset {corpus.name}: {len(corpus.docs)} documents, {len(questions)} questions; "
          f"{how}; {stats.chunks} chunks, {stats.entities} entities, "
          f"{stats.relation_hyperedges} relations, {stats.theme_hyperedges} themes; "
          f"embedder {embedder.name}")
    engine.retrieve("warm up", render=False)
    if corpus.kind == "answers":
        return _bench_answers(corpus, engine, embedder, questions, args)
    texts = corpus.texts
    position = {d.id: i for i, d in enumerate(corpus.docs)}

    def unit_of(doc_id: str) -> int:
        return position.get(doc_id, -1)

    methods: list[tuple[str, Ranker]] = [
        ("flat-bm25", bm25_ranker(texts, k)),
        ("flat-dense", dense_ranker(dense_matrix(texts, embedder, cache), embedder, k))]
    if corpus.titled:
        methods.append(("titles-only", titles_ranker(engine, unit_of, k)))
    for mode in ("naive", "hyper-lite", "vizrag"):
        methods.append((mode, engine_ranker(engine, unit_of, k, mode)))
    if not args.quick:
        for name, weights in ablations(embedder):
            methods.append((_ablation_name(name, corpus.titled),
                            engine_ranker(engine, unit_of, k, "vizrag", weights=weights)))
    rows = run_rows(methods, questions, passage_scorer(texts))
    hops = sorted({int(q["hops"]) for q in questions if q.get("hops")})
    columns = ["R@2", "R@5", *[f"{h}hop" for h in hops if len(hops) > 1], "AiC@5"]
    _header(args, embedder)
    counts = ", ".join(f"{h}-hop {sum(1 for q in questions if q.get('hops') == h)}"
                       for h in hops) if len(hops) > 1 else ""
    counts = f": {counts}" if counts else ""
    print(f"recall of gold passages (R@k; Nhop = R@5 on N-hop questions{counts}); "
          "AiC@5 = a gold answer occurs in the top-5 passages")
    print_table(rows, columns)
    print_margins(rows, "R@5", ("flat-bm25", "flat-dense", "titles-only"))
    if args.split:
        print_split(rows, questions, columns, "R@5", ("flat-bm25", "flat-dense", "titles-only"))
    engine.close()
    return _summary(corpus, questions, rows)


def top_scorer(metric: str, hit: Callable[[dict[str, Any], list[str]], bool],
               units: Sequence[str], k: int = 5
               ) -> Callable[[dict[str, Any], list[int]], dict[str, float]]:
    """Score ``metric`` = 1 when ``hit(question, top-k unit texts)``, else 0."""
    def score(q: dict[str, Any], ranked: list[int]) -> dict[str, float]:
        return {metric: float(hit(q, [units[i] for i in ranked[:k]]))}
    return score


def _bench_answers(corpus: Corpus, engine: VizRAG, embedder: Any,
                   questions: Sequence[dict[str, Any]], args: argparse.Namespace
                   ) -> dict[str, Any]:
    chunks = engine.store.chunks()
    size = round(statistics.fmean(len(c.text) for c in chunks)) if chunks else 1200
    wins = windows(corpus.texts, size)
    wtexts = [w for _, w in wins]
    ctext = {c.id: c.text for c in chunks}
    k = 5

    def engine_hits(mode: str, **over: Any) -> Ranker:
        def rank(q: str) -> list[int]:
            res = engine.retrieve(q, mode=mode, top_k=k, render=False, **over)
            return [order[c.chunk_id] for c in res.chunks]
        return rank

    order = {cid: i for i, cid in enumerate(sorted(ctext))}
    by_index = [ctext[c] for c in sorted(ctext)]
    flat = [("flat-bm25", bm25_ranker(wtexts, k)),
            ("flat-dense", dense_ranker(dense_matrix(wtexts, embedder, args.cache), embedder,
                                        k))]
    eng = [(m, engine_hits(m)) for m in ("naive", "hyper-lite", "vizrag")]
    if not args.quick:
        eng += [(_ablation_name(n, False), engine_hits("vizrag", weights=w))
                for n, w in ablations(embedder)]

    def answer_in(q: dict[str, Any], top: list[str]) -> bool:
        return answer_hit(str(q["answer"]), top)

    rows = (run_rows(flat, questions, top_scorer("hit@5", answer_in, wtexts, k))
            + run_rows(eng, questions, top_scorer("hit@5", answer_in, by_index, k)))
    _header(args, embedder)
    print(f"answer in top-5 (hit@5); flat rows rank {len(wins)} windows of {size} chars "
          f"(25% overlap), the engine {len(chunks)} chunks")
    print_table(rows, ["hit@5"])
    print_margins(rows, "hit@5", ("flat-bm25", "flat-dense"))
    print_ceiling(questions, by_index, wtexts, args.split)
    if args.split:
        print_split(rows, questions, ["hit@5"], "hit@5", ("flat-bm25", "flat-dense"))
    if args.triples:
        _bench_triples(corpus, questions, flat, eng, wtexts, by_index)
    engine.close()
    return _summary(corpus, questions, rows)


def _bench_triples(corpus: Corpus, scored: Sequence[dict[str, Any]],
                   flat: Sequence[tuple[str, Ranker]], eng: Sequence[tuple[str, Ranker]],
                   wtexts: Sequence[str], chunk_texts: Sequence[str]) -> None:
    """``--triples``: the same rows on the novels' other questions (not the scored ones),
    a hit = the evidence triple's head and tail in one top-5 unit."""
    if corpus.data is None:
        return
    qs = triple_questions(corpus.data, {str(q["id"]) for q in scored}, chunk_texts)

    def pair_in(q: dict[str, Any], top: list[str]) -> bool:
        return pair_hit(str(q["head"]), str(q["tail"]), top)

    rows = (run_rows(flat, qs, top_scorer("pair@5", pair_in, wtexts))
            + run_rows(eng, qs, top_scorer("pair@5", pair_in, chunk_texts)))
    print(f"\nthe other {len(qs)} questions of these novels (not the {len(scored)} above; "
          "their evidence triple's head and tail occur together in 1-50 chunks): pair@5 = "
          "head and tail in one top-5 unit")
    print_table(rows, ["pair@5"])
    print_margins(rows, "pair@5", ("flat-bm25", "flat-dense"))


def _header(args: argparse.Namespace, embedder: Any) -> None:
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"latency = wall ms per query, no LLM, no rendering; CPU = process time, which "
          f"load from other processes inflates less ({os.cpu_count()} CPUs, 1-min load "
          f"{load:.1f}); embedder {embedder.name}")


def _summary(corpus: Corpus, questions: Sequence[Any], rows: Sequence[Row]) -> dict[str, Any]:
    return {"dataset": corpus.name, "questions": len(questions),
            "rows": [{"method": r.name, **{k: round(v, 4) for k, v in r.scores.items()},
                      "p50_ms": round(r.p50, 2), "p95_ms": round(r.p95, 2),
                      "cpu_p50_ms": round(r.cpu50, 2)} for r in rows]}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", required=True, type=Path, nargs="+", help="dataset folders")
    parser.add_argument("--untitled", action="store_true",
                        help="remove the titles from the passages (index and baselines)")
    parser.add_argument("--embed", default="hashing", help="hashing (default) or local-minilm")
    parser.add_argument("--limit", type=int, default=None, help="first N questions only")
    parser.add_argument("--quick", action="store_true",
                        help=f"first {QUICK} questions, no ablation rows")
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "VIZRAG_BENCH_CACHE", Path.home() / ".cache" / "vizrag-bench")),
        help="where built stores and dense vectors are cached")
    parser.add_argument("--rebuild", action="store_true", help="rebuild cached stores")
    parser.add_argument("--store", type=Path, default=None,
                        help="use this store directory instead of the cache (one dataset; "
                        "a store holding a finished index is used as it is)")
    parser.add_argument("--vectors-from", type=Path, nargs="+", default=[], metavar="STORE",
                        help="when building, reuse the vectors these stores of the same "
                        "embedder hold for the same texts (by text hash; the rest is "
                        "embedded)")
    parser.add_argument("--ablations", action="store_true",
                        help="(kept for old commands; ablation rows are always printed)")
    parser.add_argument("--no-progress", dest="progress", action="store_false",
                        help="no progress bar while indexing")
    parser.add_argument("--split", action="store_true",
                        help="also print the tables for half A (sha256 of the question id "
                        "even) and half B (odd) of the questions")
    parser.add_argument("--triples", action="store_true",
                        help="novels: also rank the other questions of the novels, scored "
                        "by their evidence triple (head and tail in one top-5 unit)")
    parser.add_argument("--json", action="store_true", help="print a JSON summary at the end")
    args = parser.parse_args(argv)
    args.progress = args.progress and sys.stderr.isatty()
    if args.store is not None and len(args.data) > 1:
        parser.error("--store takes one --data folder")
    embedder = make_embedder(args.embed)
    summaries = []
    for i, data in enumerate(args.data):
        if i:
            print()
        corpus = load_corpus(data, args.untitled)
        summaries.append(bench(corpus, args, embedder))
    if args.json:
        print(json.dumps(summaries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
