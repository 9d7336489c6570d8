"""The SQLite store's persisted ANN index (issue 17) against today's exact search, on a big store.

Usage (from the repository root)::

    python benchmarks/ann_store_bench.py --source /tmp/scale50/store/vizrag.sqlite \\
        --questions /tmp/scale50/questions.json --work /tmp/ann-store-bench
    python benchmarks/ann_store_bench.py --musique ~/.cache/vizrag-bench/musique-*/

The big-store run copies the vectors of ``--spaces`` (and the embedder metadata) of the
read-only ``--source`` store into a vectors-only store under ``--work`` (the source is never
written), then, for each space:

* **exact** (today, ``ann_threshold=None``): the first search loads the space (what the
  retrieval stages do: ``store.vectors`` + a transposed normalised copy), then one search
  per question (``retrieve.search.search``, k = 10);
* **build**: first search of a store with ``--threshold`` and no index files (build + save;
  what the indexer's ``close`` pays once);
* **restore**: a new store object: open, then first search (the graph memory-mapped; the
  page cache is warm, the files were just written);
* **ann**: one search per question through the restored index: p50/p95, recall@10 against
  exact (a hit when the returned id's exact score reaches the 10th best exact score: ties
  count);
* **mmap exact** (``--mmap-exact``, a comparison, not in the engine): the normalised
  vectors as a float16 (dim, n) ``.npy``, memory-mapped; a query reads the rows of its
  non-zero features only;
* **fresh process** per mode (exact / persisted ANN): open the store and search every
  space for 10 questions: wall time and peak RSS growth;
* **update**: a document of ``--add`` new vectors written, then the next search (the index
  brought up to date from the table and saved), then the document deleted and searched again.

``--musique STORE`` checks that a store below the threshold ranks exactly as before: the
MuSiQue questions retrieved (no render) with the default threshold and with ANN disabled,
the chunk rankings compared, and no index file written; ``--force N`` also ranks with
``ann_threshold=N`` (the graphs built in memory: the store is opened read-only).

Both runs need their input, so there is no default run: without ``--source`` or
``--musique`` the script prints its usage and exits with status 2.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import numpy.typing as npt

from hyperviz_core.rag import Chunk, Document, HashingEmbedder, HypergraphStore, VizRAG
from hyperviz_core.rag.retrieve.search import search as stage_search
from hyperviz_core.rag.retrieve.search import unit_columns
from hyperviz_core.rag.store.compact import decode
from hyperviz_core.rag.store.sqlite.ann_files import AnnParams

ROOT = Path(__file__).resolve().parents[1]
K = 10


def now() -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())


def make_store(source: Path, work: Path, spaces: list[str]) -> Path:
    """A vectors-only store under ``work`` with the ``spaces`` of ``source`` (read-only)."""
    if work.exists():
        shutil.rmtree(work)
    HypergraphStore(work, ann_threshold=None).close()
    path = work / "vizrag.sqlite"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute("ATTACH DATABASE ? AS src", (f"file:{source}?mode=ro",))
    conn.execute("BEGIN")
    marks = ",".join("?" * len(spaces))
    conn.execute(f"INSERT INTO embeddings SELECT * FROM src.embeddings WHERE space IN ({marks})",
                 spaces)
    conn.execute("INSERT OR REPLACE INTO meta SELECT * FROM src.meta WHERE key IN "
                 "('embedder_dim', 'embedder_name', 'vector_dtype', 'vector_spaces')")
    conn.execute("COMMIT")
    conn.execute("DETACH DATABASE src")
    conn.close()
    return path


def timed(fn: Any, *args: Any) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def pct(values: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(values) * 1e3, q))


def exact_phase(path: Path, space: str, queries: npt.NDArray[np.float32]) -> dict[str, Any]:
    with HypergraphStore(path, ann_threshold=None) as store:
        corpus = SimpleNamespace(matrices={})
        _, first = timed(stage_search, store, corpus, space, queries[:1], K)
        lat, results = [], []
        for q in queries:
            res, dt = timed(stage_search, store, corpus, space, q[None, :], K)
            lat.append(dt)
            results.append(res[0])
        ids, mat_t = corpus.matrices[space]
    return {"first_s": first, "lat": lat, "results": results, "ids": ids, "mat_t": mat_t}


def ann_phase(path: Path, space: str, queries: npt.NDArray[np.float32], params: AnnParams,
              threshold: int) -> dict[str, Any]:
    for old in (path.parent / "vizrag.ann").glob(f"{space}[-.]*"):  # this space's files
        old.unlink()
    with HypergraphStore(path, ann_threshold=threshold) as store:
        store.ann_files.params = params
        _, build = timed(store.search, space, queries[0], K)
        built = dict(store.ann_files.stats)
    size = sum(p.stat().st_size for p in (path.parent / "vizrag.ann").glob(f"{space}*"))
    store, opened = timed(lambda: HypergraphStore(path, ann_threshold=threshold))
    store.ann_files.params = params
    _, first = timed(store.search, space, queries[0], K)
    restored = dict(store.ann_files.stats)
    lat, results = [], []
    for q in queries:
        res, dt = timed(store.search, space, q, K)
        lat.append(dt)
        results.append(res)
    store.close()
    return {"build_s": build, "built": built, "bytes": size, "open_s": opened,
            "first_s": first, "restored": restored, "lat": lat, "results": results}


def mmap_phase(path: Path, space: str, queries: npt.NDArray[np.float32]) -> dict[str, Any]:
    """The alternative measured for comparison (not in the engine): the normalised rows as
    the columns of a float16 (dim, n) ``.npy`` beside the store, memory-mapped; a query
    reads only the rows of its non-zero features (exact search, like the stages')."""
    out = path.parent / f"{space}.mmap-exact.npy"
    t = time.perf_counter()
    with HypergraphStore(path, ann_threshold=None) as store:
        ids, mat = store.vectors(space)
    np.save(out, unit_columns(mat).astype(np.float16))
    del mat
    build = time.perf_counter() - t
    mat_t, opened = timed(np.load, out, "r")

    def one(q: npt.NDArray[np.float32]) -> list[tuple[str, float]]:
        qn = q / (np.linalg.norm(q) or 1.0)
        nz = np.flatnonzero(qn)
        row = qn[nz] @ np.asarray(mat_t[nz], dtype=np.float32)
        top = np.argpartition(-row, K)[:K]
        return sorted(((ids[c], float(row[c])) for c in top), key=lambda h: (-h[1], h[0]))

    _, first = timed(one, queries[0])
    lat, results = [], []
    for q in queries:
        res, dt = timed(one, q)
        lat.append(dt)
        results.append(res)
    return {"build_s": build, "bytes": out.stat().st_size, "open_s": opened, "first_s": first,
            "lat": lat, "results": results}


_RSS = """
import json, sys, time
from types import SimpleNamespace
import numpy as np
from hyperviz_core.rag import HashingEmbedder, HypergraphStore
from hyperviz_core.rag.retrieve.search import search
path, threshold, spaces, texts = json.loads(sys.argv[1])
queries = np.asarray(HashingEmbedder().embed(texts), dtype=np.float32)
def kib(field):  # /proc/self/status: ru_maxrss would count the parent's pages (fork)
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return int(line.split()[1])
base = kib("VmRSS")
t = time.perf_counter()
with HypergraphStore(path, ann_threshold=threshold) as store:
    corpus = SimpleNamespace(matrices={})
    for space in spaces:
        search(store, corpus, space, queries, 10)
print(json.dumps([time.perf_counter() - t, (kib("VmHWM") - base) / 1024]))
"""


def rss_phase(path: Path, spaces: list[str], texts: list[str], ann_threshold: int) -> None:
    """A fresh process per mode: open, search every space (10 questions): wall time and
    peak resident memory growth over the interpreter with its imports."""
    for name, threshold in (("exact", None), ("persisted ANN", ann_threshold)):
        arg = json.dumps([str(path), threshold, spaces, texts[:10]])
        out = subprocess.run([sys.executable, "-c", _RSS, arg], check=True,
                             capture_output=True, text=True).stdout
        wall, mib = json.loads(out.strip().splitlines()[-1])
        print(f"fresh process, {name}: open + 10 questions on {', '.join(spaces)}: "
              f"{wall:.2f} s, peak RSS growth {mib:.0f} MiB")


def update_phase(path: Path, space: str, params: AnnParams, n: int, dim: int,
                 threshold: int) -> dict[str, Any]:
    rng = np.random.default_rng(7)
    # restores the index saved by ann_phase (same threshold: the space is above it)
    with HypergraphStore(path, ann_threshold=threshold) as store:
        store.ann_files.params = params
        store.search(space, np.ones(dim, dtype=np.float32), K)  # restored
        doc = Document(id="ann-bench-doc", text="ann bench")
        chunks = [Chunk(id=f"ann-bench-{i}", doc_id=doc.id, text=f"x {i}", index=i)
                  for i in range(n)]
        # new vectors like the stored ones (a stored vector each, slightly moved): HNSW
        # finds what resembles its graph; an isolated random vector may be unreachable
        rows = store._q("SELECT vector FROM embeddings WHERE space = ? ORDER BY id "
                        "LIMIT ?", (space, n))
        mat = decode([r[0] for r in rows], dim)
        mat += 0.05 * np.abs(mat).mean() * rng.normal(size=mat.shape).astype(np.float32)
        _, write = timed(store.add_document, doc, chunks, (), (),
                         {space: ([c.id for c in chunks], mat)})
        hits, after_add = timed(store.search, space, mat[0], 1)
        _, delete = timed(store.delete_document, doc.id)
        gone, after_delete = timed(store.search, space, mat[0], K)
        stats = dict(store.ann_files.stats)
    ok = hits[0][0] == chunks[0].id and not any(h[0].startswith("ann-bench-") for h in gone)
    return {"write_s": write, "add_s": after_add, "delete_s": delete,
            "del_search_s": after_delete, "ok": ok, "stats": stats}


def recall(exact: dict[str, Any], results: list[list[tuple[str, float]]],
           queries: npt.NDArray[np.float32]) -> float:
    pos = {i: n for n, i in enumerate(exact["ids"])}
    hits = 0
    for q, want, got in zip(queries, exact["results"], results, strict=True):
        qn = q / (np.linalg.norm(q) or 1.0)
        kth = want[-1][1] - 1e-6
        hits += sum(float(qn @ exact["mat_t"][:, pos[i]]) >= kth for i, _ in got if i in pos)
    return hits / (K * len(queries))


def big_store(args: argparse.Namespace) -> None:
    params = AnnParams(connectivity=args.connectivity, expansion_add=args.expansion_add,
                       expansion_search=args.expansion_search)
    texts = json.loads(args.questions.read_text(encoding="utf-8"))[: args.queries]
    embedder = HashingEmbedder()
    queries = np.asarray(embedder.embed(texts), dtype=np.float32)
    path, copy_s = timed(make_store, args.source, args.work, args.spaces)
    print(f"{now()}: {args.source} -> {path} (vectors only, {copy_s:.1f} s); "
          f"{len(texts)} questions of {args.questions}; embedder {embedder.name}; HNSW "
          f"connectivity {params.connectivity}, expansion_add {params.expansion_add}, "
          f"expansion_search {params.expansion_search}, metric {params.metric}, "
          f"{params.dtype}; threshold {args.threshold}; k = {K}")
    print("\n| space | vectors | exact first search | exact p50 / p95 ms | ANN build + save "
          "| index files | open | ANN first search (restore) | ANN p50 / p95 ms | recall@10 |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for space in args.spaces:
        ex = exact_phase(path, space, queries)
        an = ann_phase(path, space, queries, params, args.threshold)
        print(f"| {space} | {len(ex['ids']):,} | {ex['first_s'] * 1e3:.0f} ms | "
              f"{pct(ex['lat'], 50):.2f} / {pct(ex['lat'], 95):.2f} | {an['build_s']:.1f} s | "
              f"{an['bytes'] / 2**20:.1f} MiB | {an['open_s'] * 1e3:.1f} ms | "
              f"{an['first_s'] * 1e3:.1f} ms | {pct(an['lat'], 50):.2f} / "
              f"{pct(an['lat'], 95):.2f} | {recall(ex, an['results'], queries):.3f} |",
              flush=True)
        assert an["restored"] == {"restored": 1}, an["restored"]
        if args.mmap_exact:
            mm = mmap_phase(path, space, queries)
            print(f"| {space} (mmap exact, not in the engine) | {len(ex['ids']):,} | | | "
                  f"{mm['build_s']:.1f} s | {mm['bytes'] / 2**20:.1f} MiB | "
                  f"{mm['open_s'] * 1e3:.1f} ms | {mm['first_s'] * 1e3:.1f} ms | "
                  f"{pct(mm['lat'], 50):.2f} / {pct(mm['lat'], 95):.2f} | "
                  f"{recall(ex, mm['results'], queries):.3f} |", flush=True)
    print()
    rss_phase(path, args.spaces, texts, args.threshold)
    if args.add:
        up = update_phase(path, args.spaces[0], params, args.add, queries.shape[1],
                          args.threshold)
        print(f"\nupdate ({args.spaces[0]}): write of {args.add} vectors {up['write_s']:.2f} s, "
              f"next search {up['add_s']:.2f} s (update + save); delete "
              f"{up['delete_s']:.2f} s, next search {up['del_search_s']:.2f} s; new ids found "
              f"and deleted ids gone: {up['ok']}; {up['stats']}")
    print(f"finished {now()}")


def musique(args: argparse.Namespace) -> None:
    store_dir = args.musique
    lines = (ROOT.parent / "shared/data/musique/queries_dev.jsonl").read_text().splitlines()
    questions = [json.loads(x)["question"] for x in lines if x.strip()][: args.queries]
    ranks = {}
    runs: list[tuple[str, int | None]] = [("default", 20_000), ("off", None)]
    if args.force:  # every space of at least --force vectors through HNSW (built in memory)
        runs.append(("forced", args.force))
    for name, threshold in runs:
        store = HypergraphStore(store_dir, read_only=True, ann_threshold=threshold)
        with VizRAG(store, show_progress=False) as rag:
            used = {s: store.replaced_vector_index(s) is not None
                    for s in store.vector_spaces()}
            sizes = {s: len(store.vectors(s)[0]) for s in store.vector_spaces()}
            ranks[name] = [[c.chunk_id for c in rag.retrieve(q, render=False).chunks]
                           for q in questions]
        print(f"{now()}: {store_dir} ann_threshold={threshold}: vectors {sizes}, "
              f"ANN used {used}")
    same = sum(a == b for a, b in zip(ranks["default"], ranks["off"], strict=True))
    files = list(Path(store_dir).glob("*.ann"))
    print(f"MuSiQue: {same} / {len(questions)} questions ranked identically with the default "
          f"threshold and with ANN off; index folders beside the store: {files}")
    if args.force:
        same = sum(a == b for a, b in zip(ranks["forced"], ranks["off"], strict=True))
        top5 = np.mean([len(set(a[:5]) & set(b[:5])) / max(len(b[:5]), 1)
                        for a, b in zip(ranks["forced"], ranks["off"], strict=True)])
        print(f"with ann_threshold={args.force}: {same} / {len(questions)} ranked identically; "
              f"top-5 chunks shared with exact: {top5:.3f}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--source", type=Path, help="big store to read vectors from")
    parser.add_argument("--questions", type=Path, help="JSON list of question strings")
    parser.add_argument("--work", type=Path, default=Path("/tmp/ann-store-bench"))
    parser.add_argument("--spaces", nargs="+", default=["chunk"])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--threshold", type=int, default=20_000)
    parser.add_argument("--connectivity", type=int, default=AnnParams.connectivity)
    parser.add_argument("--expansion-add", type=int, default=AnnParams.expansion_add)
    parser.add_argument("--expansion-search", type=int, default=AnnParams.expansion_search)
    parser.add_argument("--add", type=int, default=100, help="vectors of the update test")
    parser.add_argument("--mmap-exact", action="store_true",
                        help="also measure a memory-mapped exact float16 matrix (comparison)")
    parser.add_argument("--musique", type=Path, help="a MuSiQue store: rankings unchanged?")
    parser.add_argument("--force", type=int, default=0,
                        help="--musique: also rank with this (small) threshold")
    args = parser.parse_args(argv)
    if not (args.musique or args.source):  # both runs need their input: no default run
        parser.error("give --source STORE --questions JSON (the big-store run) and/or "
                     "--musique STORE")
    if args.musique:
        musique(args)
    if args.source:
        if not args.questions:
            sys.exit("--source needs --questions")
        big_store(args)


if __name__ == "__main__":
    main()
