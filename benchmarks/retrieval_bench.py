"""Retrieval benchmark: where VizRAG's recall comes from, side by side with flat baselines.

Usage (from the repository root)::

    python benchmarks/retrieval_bench.py --data ../shared/data/musique
    python benchmarks/retrieval_bench.py --data ../shared/data/hotpotqa --untitled
    python benchmarks/retrieval_bench.py --data ../shared/data/graphrag_bench_novel
    python benchmarks/retrieval_bench.py --data ../shared/data/ultradomain_mix
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
the engine's average chunk size with 25% overlap. Both sides move with that arbitrary grid:
``--chunk-spread`` indexes the novels again at the 15 chunk sizes within 14 characters of the
default 1,200 (cached stores) and compares ``vizrag`` with flat BM25 averaged over them.

UltraDomain *mix* (``ultradomain_mix``): 61 long untitled contexts, 130 questions with a long
answer and one inferred context each; ``doc@5`` = share of the top-5 units from the
question's context, ``ans@5`` = share of the answer's content words (3+ letters, not stop
words) in the top-5 units; same windows. Nothing of the engine was tuned on it. The
long-document sets live in :mod:`bench_long`, the shared rankers and rows in
:mod:`bench_rank`.

Each margin line (``vizrag`` and ``hyper-lite`` against every flat baseline) gives the
difference of the means, its 95% paired-bootstrap interval (2,000 resamples of the
questions, fixed seed) and on how many questions the method scored above / below the
baseline — how far a margin on 47 to 689 questions can be told apart from noise.

``--split`` also prints every table for two fixed halves of the questions (half A: the
SHA-256 of the question id is even; half B: odd), so a setting developed on one half can be
checked on questions it was not developed on.

Built stores are cached under ``--cache`` (default ``$VIZRAG_BENCH_CACHE`` or
``~/.cache/vizrag-bench``), keyed by the corpus content, the embedder, the chunking and the
source of the extraction code; ``--rebuild`` forces a new index. ``--store DIR`` (one
dataset) builds into DIR instead, or uses the store an earlier ``--store`` run finished there
for the same dataset; any other store in DIR (e.g. one ``vizrag index`` built) is refused
before anything is built (exit status 2).
"""

from __future__ import annotations

import argparse
import hashlib
import inspect
import json
import os
import re
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NoReturn

from bench_corpus import (
    Corpus,
    Row,
    answer_hit,
    load_corpus,
    missing_file,
    print_margins,
    print_split,
    print_table,
)
from bench_long import bench_answers, bench_contexts, print_chunk_spread
from bench_rank import (
    Ranker,
    Scorer,
    ablations,
    flat_rankers,
    print_header,
    run_rows,
    summary,
)
from bench_vectors import StoredVectors, load_vectors

from hyperviz_core.rag import HashingEmbedder, HypergraphStore, RankWeights, VizRAG

KS = (2, 5)
QUICK = 20
#: VizRAG's default chunk size (characters; the stores' overlap is its default 100)
CHUNK_SIZE: int = inspect.signature(VizRAG).parameters["chunk_size"].default


# ------------------------------------------------------------------ usage errors
def fail(message: str, who: str = "retrieval_bench") -> NoReturn:
    """Stop before any work: ``who: message`` as one line on stderr, exit status 2."""
    print(f"{who}: {message}", file=sys.stderr)
    raise SystemExit(2)


def check_data(folders: Sequence[Path], who: str = "retrieval_bench") -> None:
    """Stop (:func:`fail`) naming the first file a ``--data`` folder lacks."""
    for data in folders:
        missing = missing_file(data)
        if missing is not None:
            fail(f"--data {data}: {missing} not found (give a dataset folder, e.g. "
                 "../shared/data/musique)", who)


# ------------------------------------------------------------------ embedders and cache
def local_minilm(who: str = "retrieval_bench", **options: Any) -> Any:
    """:class:`LocalMiniLMEmbedder` with ``options``; without the ``local`` extra, one line
    saying what to install (:func:`fail`) instead of a traceback."""
    try:
        from hyperviz_core.rag import LocalMiniLMEmbedder  # type: ignore[attr-defined]

        return LocalMiniLMEmbedder(**options)
    except ImportError as exc:
        fail(f"--embed local-minilm: {exc}", who)


def make_embedder(spec: str) -> Any:
    """``hashing`` (offline default) or ``local-minilm`` (needs ``vizrag[local]``)."""
    if spec in ("hashing", "offline"):
        return HashingEmbedder()
    if spec == "local-minilm":
        # no in-process text cache: the timed second pass must embed every query again
        return local_minilm(show_progress=sys.stderr.isatty(), cache_size=0)
    raise SystemExit(f"retrieval_bench: unknown --embed {spec!r} (hashing, local-minilm)")


def _code_hash() -> str:
    """Hash of the source of the extraction and chunking code (what a built index depends
    on): every module of the extractors' package (word lists and span finding included)
    and the chunking and title modules; found through the public names, wherever they live."""
    from hyperviz_core.rag import (
        HeuristicExtractor,
        HeuristicThemeExtractor,
        chunk_document,
        with_inferred_title,
    )

    files: set[Path] = {Path(inspect.getfile(f)) for f in (chunk_document, with_inferred_title)}
    for obj in (HeuristicExtractor, HeuristicThemeExtractor):
        files.update(Path(inspect.getfile(obj)).parent.rglob("*.py"))
    h = hashlib.sha256()
    for f in sorted(files):
        h.update(f.read_bytes())
    return h.hexdigest()[:12]


def cache_key(corpus: Corpus, embedder: Any, infer_titles: bool = True,
              chunk_size: int = CHUNK_SIZE) -> str:
    """Key of a built store: documents, embedder, chunking, title inference and extraction
    code."""
    h = hashlib.sha256()
    for d in corpus.docs:
        h.update(f"{d.id}\x1f{d.hash}\n".encode())
    h.update(f"{embedder.name}:{embedder.dim}:{chunk_size}:100:{_code_hash()}".encode())
    if not infer_titles:
        h.update(b":no-infer-titles")
    return f"{re.sub(r'[^a-z0-9]+', '-', corpus.name.lower())}-{h.hexdigest()[:16]}"


def foreign_store(store: Path, corpus: Corpus, rebuild: bool) -> str | None:
    """Why ``--store`` ``store`` is not one to build into or use, or None.

    A missing or empty folder gets the index built into it. Otherwise the folder must hold
    a store this bench finished (its ``complete`` marker) whose documents are the
    corpus's (ids and content hashes; not needed with ``rebuild``, which replaces it): a
    store built otherwise (``vizrag index``: no marker, other ids) is never ranked,
    written or deleted."""
    if not store.exists() or (store.is_dir() and not any(store.iterdir())):
        return None
    if not store.is_dir():
        return "it is not a directory"
    if not (store / "complete").exists():
        return "it has no 'complete' marker (e.g. a store `vizrag index` built)"
    if rebuild:
        return None
    try:
        with HypergraphStore(store, read_only=True) as found:
            ids = set(found.document_titles())
            same = (ids == {d.id for d in corpus.docs}
                    and all(found.document_hash(d.id) == d.hash for d in corpus.docs))
    except Exception as exc:  # damaged or not a store: say so, never rebuild over it
        detail = " ".join(str(exc).split())
        return f"it is not a readable store ({type(exc).__name__}: {detail})"
    if not same:
        return (f"its {len(ids)} documents are not this dataset's {len(corpus.docs)} (other "
                "ids or contents: built for another one)")
    return None


def open_engine(corpus: Corpus, embedder: Any, cache: Path, rebuild: bool,
                progress: bool, store: Path | None = None,
                vectors_from: Sequence[Path] = (), infer_titles: bool = True,
                chunk_size: int = CHUNK_SIZE) -> tuple[VizRAG, str]:
    """The engine over a cached (or freshly built) store, and a line saying which.

    A store is built under a ``.partial`` name and renamed when complete, so an interrupted
    build is never reused; ``store`` (``--store``) replaces the cache entry. A build reuses
    the vectors of the ``vectors_from`` stores (``--vectors-from``, :mod:`bench_vectors`);
    queries always embed with ``embedder`` itself. ``infer_titles=False``
    (``--no-infer-titles``) indexes untitled long documents without an inferred title.
    """
    if store is not None and (why := foreign_store(store, corpus, rebuild)) is not None:
        fail(f"--store {store}: refused, not built by this bench for {corpus.name}: {why}; "
             "give a new or empty folder, or one an earlier --store run built for this "
             "dataset")
    key = (cache_key(corpus, embedder, infer_titles, chunk_size) if store is None
           else store.name)
    final = cache / key if store is None else store
    if rebuild and final.exists():
        shutil.rmtree(final)
    if (final / "complete").exists():
        return (VizRAG(final, embedder=embedder, show_progress=False, chunk_size=chunk_size),
                f"index cached ({key})")
    part = final.with_name(f"{final.name}.partial-{os.getpid()}")
    shutil.rmtree(part, ignore_errors=True)
    part.mkdir(parents=True)
    t0 = time.perf_counter()
    build = embedder
    if vectors_from:
        build = StoredVectors(embedder, load_vectors(vectors_from, embedder.name, embedder.dim))
    engine = VizRAG(part, embedder=build, show_progress=progress, infer_titles=infer_titles,
                    chunk_size=chunk_size)
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
    return (VizRAG(final, embedder=embedder, show_progress=False, chunk_size=chunk_size),
            f"index built in {seconds:.1f} s ({key})")


# ------------------------------------------------------------------ rankers
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
def recall(ranked: Sequence[int], gold: Sequence[int], k: int) -> float:
    """|first k of ranked ∩ gold| / |gold|; ``ValueError`` without gold (no recall to take:
    :func:`passage_scorer` leaves such a question out of the recall columns)."""
    g = set(gold)
    if not g:
        raise ValueError("recall of a question without gold passages")
    return len(set(ranked[:k]) & g) / len(g)


def _aic() -> Callable[..., Any] | None:
    try:
        from hyperviz_core.eval import answer_in_context  # type: ignore[attr-defined]
    except ImportError:
        return None
    return answer_in_context  # type: ignore[no-any-return]


def passage_scorer(texts: Sequence[str]) -> Scorer:
    """Recall@2/@5, per-hop recall@5 and answer-in-top-5 (passage corpora). A question
    without gold passages gets no recall columns, one without gold answers no ``AiC@5``:
    the means (:func:`bench_corpus.mean_scores`) are over the questions that have them."""
    aic = _aic()

    def score(q: dict[str, Any], ranked: list[int]) -> dict[str, float]:
        gold = list(q.get("gold_corpus_idx") or [])
        out = {f"R@{k}": recall(ranked, gold, k) for k in KS} if gold else {}
        if gold and q.get("hops"):
            out[f"{q['hops']}hop"] = out["R@5"]
        answers = [str(a) for a in q.get("answers") or [] if str(a).strip()]
        if answers:
            top = [texts[i] for i in ranked[:5]]
            hit = (aic(answers, top) if aic is not None
                   else any(answer_hit(a, top) for a in answers))
            out["AiC@5"] = float(bool(hit))
        return out

    return score


def without_gold(questions: Sequence[dict[str, Any]]) -> tuple[int, int]:
    """(questions without gold passages, questions without gold answers): left out of the
    recall columns and of ``AiC@5`` respectively."""
    return (sum(1 for q in questions if not q.get("gold_corpus_idx")),
            sum(1 for q in questions
                if not any(str(a).strip() for a in q.get("answers") or [])))


def print_passage_tables(rows: Sequence[Row], questions: Sequence[dict[str, Any]],
                         args: argparse.Namespace, embedder: Any) -> None:
    """The recall table of a passage corpus, its margins and (``--split``) its halves; says
    how many questions were left out for want of gold passages or answers."""
    recalled = [q for q in questions if q.get("gold_corpus_idx")]
    hops = sorted({int(q["hops"]) for q in recalled if q.get("hops")})
    columns = ["R@2", "R@5", *[f"{h}hop" for h in hops if len(hops) > 1], "AiC@5"]
    print_header(args, embedder)
    counts = ", ".join(f"{h}-hop {sum(1 for q in recalled if q.get('hops') == h)}"
                       for h in hops) if len(hops) > 1 else ""
    counts = f": {counts}" if counts else ""
    print(f"recall of gold passages (R@k; Nhop = R@5 on N-hop questions{counts}); "
          "AiC@5 = a gold answer occurs in the top-5 passages")
    no_passages, no_answers = without_gold(questions)
    if no_passages or no_answers:
        print(f"left out: {no_passages} question(s) without gold passages (recall columns), "
              f"{no_answers} without gold answers (AiC@5)")
    print_table(rows, columns)
    print_margins(rows, "R@5", ("flat-bm25", "flat-dense", "titles-only"))
    if args.split:
        print_split(rows, questions, columns, "R@5", ("flat-bm25", "flat-dense", "titles-only"))


# ------------------------------------------------------------------ main
def bench(corpus: Corpus, args: argparse.Namespace, embedder: Any) -> dict[str, Any]:
    k = max(KS)
    cache: Path = args.cache
    engine, how = open_engine(corpus, embedder, cache, args.rebuild, args.progress,
                              args.store, args.vectors_from, args.infer_titles)
    if not args.infer_titles:
        how += "; untitled long documents indexed without an inferred title"
    stats = engine.stats()
    questions = corpus.questions[: QUICK if args.quick else args.limit]
    print(f"dataset {corpus.name}: {len(corpus.docs)} documents, {len(questions)} questions; "
          f"{how}; {stats.chunks} chunks, {stats.entities} entities, "
          f"{stats.relation_hyperedges} relations, {stats.theme_hyperedges} themes; "
          f"embedder {embedder.name}")
    engine.retrieve("warm up", render=False)
    if corpus.kind == "answers":
        result = bench_answers(corpus, engine, embedder, questions, args)
        if args.chunk_spread:
            print_chunk_spread(corpus, questions, CHUNK_SIZE, lambda size: open_engine(
                corpus, embedder, cache, rebuild=False, progress=args.progress,
                vectors_from=args.vectors_from, infer_titles=args.infer_titles,
                chunk_size=size)[0])
        return result
    if corpus.kind == "contexts":
        return bench_contexts(corpus, engine, embedder, questions, args)
    texts = corpus.texts
    position = {d.id: i for i, d in enumerate(corpus.docs)}

    def unit_of(doc_id: str) -> int:
        return position.get(doc_id, -1)

    methods = flat_rankers(texts, embedder, cache, k)
    if corpus.titled:
        methods.append(("titles-only", titles_ranker(engine, unit_of, k)))
    for mode in ("naive", "hyper-lite", "vizrag"):
        methods.append((mode, engine_ranker(engine, unit_of, k, mode)))
    if not args.quick:
        for name, weights in ablations(embedder, corpus.titled):
            methods.append((name, engine_ranker(engine, unit_of, k, "vizrag", weights=weights)))
    if not any(q.get("gold_corpus_idx") for q in questions):
        fail(f"{corpus.name}: no question has gold passages (gold_corpus_idx) to recall")
    rows = run_rows(methods, questions, passage_scorer(texts))
    print_passage_tables(rows, questions, args, embedder)
    engine.close()
    return summary(corpus, questions, rows)


def corpus_arguments(parser: argparse.ArgumentParser) -> None:
    """The options that say what is ranked and where its stores are cached (shared with
    ``weights_cv.py``): ``--data``, ``--untitled``, ``--embed``, ``--limit``, ``--cache``,
    ``--vectors-from``."""
    parser.add_argument("--data", required=True, type=Path, nargs="+", help="dataset folders")
    parser.add_argument("--untitled", action="store_true",
                        help="remove the titles from the passages (index and baselines)")
    parser.add_argument("--embed", default="hashing", help="hashing (default) or local-minilm")
    parser.add_argument("--limit", type=int, default=None, help="first N questions only")
    parser.add_argument("--cache", type=Path, default=Path(os.environ.get(
        "VIZRAG_BENCH_CACHE", Path.home() / ".cache" / "vizrag-bench")),
        help="where built stores and dense vectors are cached")
    parser.add_argument("--vectors-from", type=Path, nargs="+", default=[], metavar="STORE",
                        help="when building, reuse the vectors these stores of the same "
                        "embedder hold for the same texts (by text hash; the rest is "
                        "embedded)")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    corpus_arguments(parser)
    parser.add_argument("--quick", action="store_true",
                        help=f"first {QUICK} questions, no ablation rows")
    parser.add_argument("--rebuild", action="store_true", help="rebuild cached stores")
    parser.add_argument("--store", type=Path, default=None, metavar="DIR",
                        help="use this store directory instead of the cache (one dataset): "
                        "a new or empty DIR gets the index built into it; a DIR an earlier "
                        "--store run of this bench finished for the same dataset (its "
                        "'complete' marker, the same documents) is used as it is, or built "
                        "again with --rebuild; any other store (e.g. one `vizrag index` "
                        "built) is refused (exit 2)")
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
    parser.add_argument("--misses", action="store_true",
                        help="novels: list the answerable questions vizrag or flat BM25 "
                        "misses, with the rank of the first unit holding the answer")
    parser.add_argument("--chunk-spread", action="store_true",
                        help="novels: also index at the 15 chunk sizes within 14 characters "
                        "of the default and compare vizrag with flat BM25 averaged over them")
    parser.add_argument("--no-infer-titles", dest="infer_titles", action="store_false",
                        help="index untitled long documents without the title their opening "
                        "states (the engine's default infers it; a store of its own)")
    parser.add_argument("--json", action="store_true", help="print a JSON summary at the end")
    args = parser.parse_args(argv)
    args.progress = args.progress and sys.stderr.isatty()
    if args.store is not None and len(args.data) > 1:
        parser.error("--store takes one --data folder")
    check_data(args.data)
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
