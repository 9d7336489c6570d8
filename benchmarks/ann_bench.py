"""ANN benchmark: usearch vs hnswlib vs faiss-cpu (HNSW) vs exact search, on the same vectors.

Usage::

    python benchmarks/ann_bench.py --sizes 20000 50000 200000 --queries 200
    python benchmarks/ann_bench.py --quick          # 5,000 vectors, 50 queries

Vectors are what a store's vector spaces hold, embedded with the engine's offline default
:class:`~hyperviz_core.rag.HashingEmbedder` (512 dimensions): MuSiQue chunk texts (title, newline,
text) and entity texts (``name: description``, the first description the offline
``HeuristicExtractor`` gives each entity name; 16,260 texts in all), then paragraphs of
``scale_bench.py``'s synthetic corpus up to the size asked (a smaller size is a prefix of the
largest). Queries are held out: the MuSiQue and HotpotQA questions, then the first
sentence of synthetic paragraphs generated after the indexed ones.

Every index builds and answers with one thread (numpy/BLAS limited to one thread,
``threads=1`` / ``num_threads=1`` / ``omp_set_num_threads(1)``). HNSW parameters
are equal for all libraries (``--m`` = usearch ``connectivity``; ``--ef-construction`` =
``expansion_add``; each ``--ef-search`` = ``expansion_search``). Latency: each query runs
``--repeat`` times and its fastest run counts (less noise from other jobs). recall@k is measured
against exact search and counts a hit when its exact score reaches the k-th best exact score (ties
with the k-th item count). Footprint: the files written by ``save`` and the process' resident
memory growth while the index is built (after ``malloc_trim``; approximate).
"""

from __future__ import annotations

import argparse
import contextlib
import ctypes
import gc
import importlib
import json
import os
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from threadpoolctl import threadpool_limits  # type: ignore[import-untyped]
from tqdm import tqdm

from hyperviz_core.rag import ExactVectorIndex, HashingEmbedder, HeuristicExtractor

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
sys.path.insert(0, str(ROOT / "benchmarks"))
from scale_bench import paragraphs  # noqa: E402

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Params:
    """HNSW parameters shared by every library, and the k of recall@k."""

    m: int = 16
    ef_construction: int = 128
    ef_search: tuple[int, ...] = (64, 128)
    k: int = 10
    repeat: int = 3


@dataclass(frozen=True)
class Row:
    """One measured configuration (one index, one ``ef_search``)."""

    library: str
    dtype: str
    ef_search: int | None
    build_s: float
    recall: float
    recall_questions: float
    p50_ms: float
    p95_ms: float
    disk_mib: float
    mem_mib: float


@dataclass
class Measurement:
    rows: list[Row] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)


class Backend:
    """An index under test: ``build``, ``set_ef``, ``search`` (row numbers), ``save``."""

    library = "exact"
    module = "numpy"

    def __init__(self, dtype: str, p: Params) -> None:
        self.dtype, self.p = dtype, p
        self.index: Any = None

    def build(self, data: Matrix) -> None:
        self.index = ExactVectorIndex()
        self.index.add([str(i) for i in range(len(data))], data)

    def set_ef(self, ef: int) -> None:
        """Exact search has no search breadth."""

    def search(self, q: Matrix) -> list[int]:
        return [int(i) for i, _ in self.index.search(q, self.p.k)]

    def save(self, path: Path) -> None:
        np.save(path, self.index._matrix[: len(self.index)])


class Usearch(Backend):
    library, module = "usearch", "usearch.index"

    def build(self, data: Matrix) -> None:  # metric and defaults as in rag/ann.py
        ix = importlib.import_module(self.module).Index
        self.index = ix(ndim=data.shape[1], metric="cos", dtype=self.dtype, connectivity=self.p.m,
                        expansion_add=self.p.ef_construction)
        self.index.add(np.arange(len(data), dtype=np.uint64), data, threads=1)

    def set_ef(self, ef: int) -> None:
        self.index.expansion_search = ef

    def search(self, q: Matrix) -> list[int]:
        return [int(k) for k in self.index.search(q[0], self.p.k, threads=1).keys]

    def save(self, path: Path) -> None:
        self.index.save(str(path))


class Hnswlib(Backend):
    library, module = "hnswlib", "hnswlib"

    def build(self, data: Matrix) -> None:
        self.index = importlib.import_module(self.module).Index(space="ip", dim=data.shape[1])
        self.index.init_index(max_elements=len(data), M=self.p.m,
                              ef_construction=self.p.ef_construction, random_seed=7)
        self.index.set_num_threads(1)
        self.index.add_items(data, np.arange(len(data)), num_threads=1)

    def set_ef(self, ef: int) -> None:
        self.index.set_ef(ef)

    def search(self, q: Matrix) -> list[int]:
        return [int(i) for i in self.index.knn_query(q, k=self.p.k, num_threads=1)[0][0]]

    def save(self, path: Path) -> None:
        self.index.save_index(str(path))


class Faiss(Backend):
    library, module = "faiss", "faiss"

    def build(self, data: Matrix) -> None:
        faiss = importlib.import_module(self.module)
        faiss.omp_set_num_threads(1)
        d, ip = data.shape[1], faiss.METRIC_INNER_PRODUCT
        self.index = (faiss.IndexHNSWFlat(d, self.p.m, ip) if self.dtype == "f32" else
                      faiss.IndexHNSWSQ(d, faiss.ScalarQuantizer.QT_fp16, self.p.m, ip))
        self.index.hnsw.efConstruction = self.p.ef_construction
        self.index.train(data)
        self.index.add(data)

    def set_ef(self, ef: int) -> None:
        self.index.hnsw.efSearch = ef

    def search(self, q: Matrix) -> list[int]:
        return [int(i) for i in self.index.search(q, self.p.k)[1][0] if i >= 0]

    def save(self, path: Path) -> None:
        importlib.import_module(self.module).write_index(self.index, str(path))


BACKENDS: tuple[tuple[type[Backend], str], ...] = (
    (Backend, "f32"), (Usearch, "f32"), (Usearch, "f16"), (Hnswlib, "f32"),
    (Faiss, "f32"), (Faiss, "f16"))


def _rss() -> int:
    """Resident memory now (bytes), after returning freed heap pages to the OS."""
    gc.collect()
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def thresholds(base: Matrix, queries: Matrix, k: int) -> npt.NDArray[np.float32]:
    """The k-th best exact cosine score of each query (rows are L2-normalised)."""
    scores = base @ queries.T
    kth = min(k, len(base))
    return np.partition(scores, len(base) - kth, axis=0)[len(base) - kth].astype(np.float32)


def _time(backend: Backend, base: Matrix, queries: Matrix, thr: npt.NDArray[np.float32],
          k: int, repeat: int) -> tuple[npt.NDArray[np.float64], float, float]:
    """(recall@k per query, p50 ms, p95 ms) of one configuration, one query at a time."""
    for q in queries[:5]:  # warm-up
        backend.search(q[None, :])
    lat, hits = [], []
    for qi, q in enumerate(queries):
        best = float("inf")
        for _ in range(repeat):  # the fastest of ``repeat`` runs: less noise from other jobs
            t0 = time.perf_counter()
            found = backend.search(q[None, :])
            best = min(best, (time.perf_counter() - t0) * 1e3)
        lat.append(best)
        got = np.unique(np.asarray(found, dtype=np.int64))
        hits.append(int(np.sum(base[got] @ q >= thr[qi] - 1e-5)) / min(k, len(base)))
    p50, p95 = np.percentile(lat, [50, 95])
    return np.minimum(1.0, np.asarray(hits)), float(p50), float(p95)


def measure(base: Matrix, queries: Matrix, p: Params | None = None, *, questions: int = 0,
            libraries: tuple[str, ...] | None = None, progress: bool = False) -> Measurement:
    """Build every installed index over ``base`` and measure it on ``queries``.

    ``base`` and ``queries`` must be L2-normalised float32 rows; the first ``questions``
    queries are real questions (their recall is also reported alone). A library that is not
    installed is listed in ``skipped``. ``libraries`` limits the run to these libraries or
    library-dtype pairs (e.g. ``("exact", "usearch-f16")``).
    """
    p = p or Params()
    out = Measurement()
    thr = thresholds(base, queries, p.k)
    todo = [(cls, dt) for cls, dt in BACKENDS
            if libraries is None or {cls.library, f"{cls.library}-{dt}"} & set(libraries)]
    for cls, dtype in tqdm(todo, desc=f"{len(base)} vectors", disable=not progress):
        try:
            importlib.import_module(cls.module)
        except ImportError:
            note = f"{cls.library}: not installed, skipped"
            out.skipped += [] if note in out.skipped else [note]
            continue
        backend = cls(dtype, p)
        rss0 = _rss()
        t0 = time.perf_counter()
        backend.build(base)
        build_s = time.perf_counter() - t0
        mem = (_rss() - rss0) / 2**20
        with tempfile.TemporaryDirectory() as tmp:
            backend.save(Path(tmp) / "index")
            disk = sum(f.stat().st_size for f in Path(tmp).iterdir()) / 2**20
        efs: tuple[int | None, ...] = (None,) if cls is Backend else p.ef_search
        for ef in efs:
            if ef is not None:
                backend.set_ef(ef)
            hits, p50, p95 = _time(backend, base, queries, thr, p.k, p.repeat)
            real = float(np.mean(hits[:questions])) if questions else float("nan")
            out.rows.append(Row(cls.library, dtype, ef, build_s, float(np.mean(hits)), real,
                                p50, p95, disk, mem))
        del backend
    return out


def table(rows: list[Row], p: Params) -> str:
    """The Markdown table of ``rows``."""
    lines = [f"| library | dtype | M / ef_c / ef_s | build | recall@{p.k} all / questions "
             "| p50 / p95 ms | disk | RSS growth |", "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        hnsw = "exact" if r.ef_search is None else f"{p.m} / {p.ef_construction} / {r.ef_search}"
        lines.append(f"| {r.library} | {r.dtype} | {hnsw} | {r.build_s:.1f} s | {r.recall:.3f} / "
                     f"{r.recall_questions:.3f} "
                     f"| {r.p50_ms:.2f} / {r.p95_ms:.2f} | {r.disk_mib:.1f} MiB "
                     f"| {r.mem_mib:.1f} MiB |")
    return "\n".join(lines)


def conclusion(rows: list[Row]) -> str:
    """One line computed from the rows: recall/latency Pareto front, footprint winners."""
    ann = [r for r in rows if r.ef_search is not None]
    if not ann:
        return "Conclusion: no ANN library measured."
    def name(r: Row) -> str:
        return f"{r.library} {r.dtype} ef={r.ef_search}"
    def beats(o: Row, r: Row) -> bool:
        return (o.recall >= r.recall and o.p50_ms <= r.p50_ms
                and (o.recall > r.recall or o.p50_ms < r.p50_ms))
    front = [r for r in ann if not any(beats(o, r) for o in ann)]
    front.sort(key=lambda r: r.p50_ms)
    best = max(ann, key=lambda r: (r.recall, -r.p50_ms))
    disk = min(ann, key=lambda r: r.disk_mib)
    mem = min(ann, key=lambda r: r.mem_mib)
    exact = [r for r in rows if r.ef_search is None]
    tail = f"; exact p50 {exact[0].p50_ms:.2f} ms" if exact else ""
    pareto = ", ".join(f"{name(r)} ({r.recall:.3f} @ {r.p50_ms:.2f} ms)" for r in front)
    return (f"Conclusion: best recall {name(best)} ({best.recall:.3f} @ {best.p50_ms:.2f} ms); "
            f"recall-vs-p50 Pareto front: {pareto}; smallest on disk {disk.library} {disk.dtype} "
            f"({disk.disk_mib:.1f} MiB), in memory {mem.library} {mem.dtype} "
            f"({mem.mem_mib:.1f} MiB){tail}.")


def corpus_texts(n: int, n_queries: int, seed: int = 7) -> tuple[list[str], list[str], int]:
    """``n`` distinct texts to index (MuSiQue chunks + entities, then synthetic paragraphs),
    ``n_queries`` held-out query texts and how many of them are real questions."""
    texts: dict[str, None] = {}
    entities: dict[str, str] = {}  # one text per entity name (the store keeps one vector each)
    corpus = json.loads((DATA / "musique" / "corpus.json").read_text(encoding="utf-8"))
    extractor = HeuristicExtractor()
    for i, doc in enumerate(corpus):
        texts[f"{doc['title']}\n{doc['text']}"] = None
        ex = extractor.extract_text(doc["text"], f"c{i}", {"title": doc["title"]})
        for e in ex.entities:
            entities.setdefault(e.name, f"{e.name}: {e.description}" if e.description else e.name)
    texts.update(dict.fromkeys(entities.values()))
    queries: list[str] = []
    for name in ("musique", "hotpotqa"):
        with (DATA / name / "queries_dev.jsonl").open(encoding="utf-8") as fh:
            queries += [json.loads(line)["question"] for line in fh if line.strip()]
    synthetic = paragraphs(600 * (n + n_queries), seed)
    while len(texts) < n:
        texts[next(synthetic)[0]] = None
    out, real = list(texts)[:n], min(len(queries), n_queries)
    while len(queries) < n_queries:
        queries.append(next(synthetic)[0].split(". ")[0] + ".")
    return out, queries[:n_queries], real


def embed(texts: list[str], progress: bool) -> Matrix:
    """Rows of the engine's default embedder, in batches of 2,000 texts."""
    emb = HashingEmbedder()
    parts = [emb.embed(texts[i:i + 2000]) for i in
             tqdm(range(0, len(texts), 2000), desc="embedding", disable=not progress)]
    return np.ascontiguousarray(np.vstack(parts), dtype=np.float32)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[20_000, 50_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--m", type=int, default=16)
    ap.add_argument("--ef-construction", type=int, default=128)
    ap.add_argument("--ef-search", type=int, nargs="+", default=[64, 128])
    ap.add_argument("--repeat", type=int, default=3, help="runs per query, the fastest kept")
    ap.add_argument("--quick", action="store_true", help="5,000 vectors, 50 queries")
    ap.add_argument("--libraries", nargs="+", default=None,
                    help="only these libraries or library-dtype pairs, e.g. exact usearch-f16")
    ap.add_argument("--no-progress", action="store_true")
    args = ap.parse_args(argv)
    sizes, n_q = ([5_000], 50) if args.quick else (sorted(args.sizes), args.queries)
    if min(sizes) < 1 or n_q < 1 or args.m < 2 or min(args.ef_search) < 10 or args.repeat < 1:
        ap.error("sizes, --queries, --repeat must be >= 1, --m >= 2, --ef-search >= k (10)")
    p = Params(args.m, args.ef_construction, tuple(args.ef_search), repeat=args.repeat)
    threadpool_limits(1)
    texts, qtexts, real = corpus_texts(max(sizes), n_q)
    base, queries = embed(texts, not args.no_progress), embed(qtexts, False)
    base = base[np.linalg.norm(base, axis=1) > 0]  # featureless texts: no direction
    print(f"machine: {os.cpu_count()} cores, one thread per index; HashingEmbedder "
          f"dim {base.shape[1]}; {len(queries)} held-out queries ({real} MuSiQue/HotpotQA "
          "questions, the rest synthetic sentences)")
    for size in sizes:
        libs = tuple(args.libraries) if args.libraries else None
        m = measure(base[:size], queries, p, questions=real, libraries=libs,
                    progress=not args.no_progress)
        print(f"\n### {min(size, len(base))} vectors\n")
        for note in m.skipped:
            print(f"note: {note}")
        print(table(m.rows, p))
        print(f"\n{conclusion(m.rows)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
