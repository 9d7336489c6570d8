"""Scale benchmark: index a synthetic (or real) corpus of a given size, then query the store.

Usage::

    python benchmarks/scale_bench.py --mb 5                 # synthetic 5 MB plain-text file
    python benchmarks/scale_bench.py --mb 50 --files 500    # 50 MB as a directory of 500 files
    python benchmarks/scale_bench.py --input path/to/file.txt
    python benchmarks/scale_bench.py --mb 1 --keep out/scale  # keep corpus + store

The synthetic corpus is deterministic (``--seed``) and entity-rich: encyclopaedia-style
paragraphs about people, places, organisations and works that share names across paragraphs,
so extraction finds overlapping n-ary relations as it would in real text. Every figure comes
from a separate process so that peak RSS is the command's own:

- ``vizrag index`` (the CLI, offline defaults): wall time, input MB/s and chunks/s over that
  wall time, and peak RSS of the indexing process;
- the store's size on disk and its size per input MB, after indexing and again after the
  queries (the first lazy query makes the chunks' full-text index, and a vector space past
  the ANN threshold gets its persisted index: files the user's store then holds too);
- queries without rendering (``render=False``): time to open the store, p50/p95 latency over
  ``--queries`` questions generated from the corpus' facts, and the query process' peak RSS;
  also the p50/p95 CPU time (``process_time``) of a query, which other processes on a busy
  machine inflate less than wall time.

Prints one Markdown table row per corpus, the format of the README's scale table.

``--lazy on|off`` forces the lazy or the loaded query path (default ``auto``: lazy from
4,000 chunks on). ``--query-only`` re-runs the queries on the store of an earlier run kept
with ``--keep DIR`` (no indexing; the index columns print ``–``)::

    python benchmarks/scale_bench.py --input ../shared/data/musique/corpus.json --keep out/mq
    python benchmarks/scale_bench.py --keep out/mq --query-only --lazy on
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

_FIRST = ("Ada", "Bruno", "Clara", "Dmitri", "Elena", "Farid", "Greta", "Hugo", "Ines", "Jonas",
          "Kira", "Lars", "Mira", "Nils", "Olga", "Pavel", "Quinn", "Rosa", "Sven", "Tara",
          "Ulla", "Viktor", "Wanda", "Xavier", "Yara", "Zeno")
_LAST = ("Albrecht", "Baranov", "Castell", "Dorn", "Eklund", "Falk", "Gruber", "Hallam",
         "Ivanic", "Jarvik", "Kessler", "Lindqvist", "Morrow", "Novak", "Ortega", "Petrov",
         "Quast", "Reyes", "Sorensen", "Talbot", "Ueda", "Varga", "Weller", "Yilmaz", "Zorn")
_PLACE_A = ("North", "South", "East", "West", "Upper", "Lower", "New", "Old", "Port", "Fort")
_PLACE_B = ("Harbor", "Valley", "Ridge", "Haven", "Field", "Brook", "Crest", "Moor", "Gate",
            "Falls", "Hollow", "Mere", "Stead", "Wick")
_ORG_A = ("Royal", "National", "Northern", "Imperial", "Coastal", "Central", "Federal", "Free")
_ORG_B = ("Academy", "Institute", "Observatory", "Orchestra", "Company", "Society", "Museum",
          "Railway", "Library", "Conservatory")
_WORK_A = ("Silent", "Golden", "Distant", "Hidden", "Broken", "Winter", "Crimson", "Last")
_WORK_B = ("River", "Garden", "Archive", "Symphony", "Engine", "Atlas", "Voyage", "Theorem")
_ROLES = ("physicist", "composer", "architect", "novelist", "engineer", "painter", "historian",
          "botanist", "cartographer", "chemist")
_TEMPLATES = (
    "{p} was a {role} born in {pl} in {y}. {p} studied at the {o} and later taught there.",
    "In {y}, {p} and {p2} founded the {o} in {pl}, which published {w} a decade later.",
    "{w} is a work by {p}, first presented at the {o} in {pl} in {y}.",
    "The {o} moved from {pl} to {pl2} in {y} under the direction of {p}.",
    "{p2} married {p} in {pl} in {y}; both were members of the {o}.",
    "{p} received the {o} medal in {y} for {w}, written with {p2} in {pl2}.",
)


class Vocabulary:
    """Deterministic pools of entity names (sizes grow with the corpus, so names recur)."""

    def __init__(self, rng: random.Random, people: int, places: int, orgs: int,
                 works: int) -> None:
        self.people = sorted({f"{rng.choice(_FIRST)} {rng.choice(_LAST)}" for _ in range(people)})
        self.places = sorted({f"{rng.choice(_PLACE_A)} {rng.choice(_PLACE_B)}"
                              for _ in range(places)})
        self.orgs = sorted({f"{rng.choice(_ORG_A)} {rng.choice(_ORG_B)} of "
                            f"{rng.choice(_PLACE_B)}" for _ in range(orgs)})
        self.works = sorted({f"{rng.choice(_WORK_A)} {rng.choice(_WORK_B)}"
                             for _ in range(works)})


def paragraphs(total_bytes: int, seed: int) -> Iterator[tuple[str, list[str]]]:
    """Yield ``(paragraph, [entity names])`` until about ``total_bytes`` were produced."""
    rng = random.Random(seed)
    scale = max(1, total_bytes // 200_000)
    vocab = Vocabulary(rng, 60 * scale, 15 * scale, 12 * scale, 20 * scale)
    produced = 0
    while produced < total_bytes:
        sentences, names = [], []
        for _ in range(rng.randint(3, 6)):
            fill = {"p": rng.choice(vocab.people), "p2": rng.choice(vocab.people),
                    "pl": rng.choice(vocab.places), "pl2": rng.choice(vocab.places),
                    "o": rng.choice(vocab.orgs), "w": rng.choice(vocab.works),
                    "role": rng.choice(_ROLES), "y": rng.randint(1820, 1990)}
            sentences.append(rng.choice(_TEMPLATES).format(**fill))
            names.extend([fill["p"], fill["o"]])
        text = " ".join(sentences)
        produced += len(text.encode()) + 2
        yield text, names


def write_corpus(out: Path, mb: float, files: int, seed: int) -> tuple[list[Path], list[str]]:
    """Write the corpus (one file or ``files`` files) and return paths + sample questions."""
    out.mkdir(parents=True, exist_ok=True)
    total = int(mb * 1024 * 1024)
    per_file = max(1, total // max(1, files))
    paths: list[Path] = []
    questions: list[str] = []
    handle = None
    written = 0
    for i, (para, names) in enumerate(paragraphs(total, seed)):
        if handle is None or (files > 1 and written >= per_file * (len(paths)) and
                              len(paths) < files):
            if handle is not None:
                handle.close()
            paths.append(out / f"part-{len(paths):05d}.txt")
            handle = paths[-1].open("w", encoding="utf-8")
        handle.write(para + "\n\n")
        written += len(para.encode()) + 2
        if i % 97 == 0 and len(questions) < 2000:
            questions.append(f"What is the connection between {names[0]} and {names[1]}?")
    if handle is not None:
        handle.close()
    return paths, questions


def dir_size(path: Path) -> int:
    """Bytes of every file below ``path``."""
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def run_measured(cmd: list[str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run ``cmd``; return wall seconds, the child's peak RSS in MiB and the process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    if proc.returncode != 0:
        sys.stderr.write(proc.stdout[-2000:] + proc.stderr[-4000:])
        raise SystemExit(f"command failed ({proc.returncode}): {' '.join(cmd)}")
    # ru_maxrss of children is the maximum over all children so far (KiB on Linux)
    return wall, max(before, after) / 1024, proc


_QUERY_SCRIPT = r"""
import json, resource, sys, time
from hyperviz_core.rag import VizRAG
store, qfile, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
lazy = {"auto": None, "on": True, "off": False}[sys.argv[4]]
questions = json.load(open(qfile))[:n]
t0 = time.perf_counter()
rag = VizRAG(store, show_progress=False, lazy=lazy)
opened = time.perf_counter() - t0
lat, cpu = [], []
for q in questions:
    t, c = time.perf_counter(), time.process_time()
    rag.retrieve(q, render=False)
    lat.append((time.perf_counter() - t) * 1000)
    cpu.append((time.process_time() - c) * 1000)
lat.sort()
cpu.sort()
at = lambda xs, f: xs[min(len(xs) - 1, int(len(xs) * f))]
print(json.dumps({"open_ms": opened * 1000, "p50": lat[len(lat) // 2], "p95": at(lat, 0.95),
                  "cpu_p50": cpu[len(cpu) // 2], "cpu_p95": at(cpu, 0.95), "n": len(lat),
                  "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def index_store(inputs: list[Path], store: Path, mb: float, compact: bool = False
                ) -> dict[str, float | str]:
    """Index ``inputs`` into ``store`` with the CLI; return wall, peak RSS and size."""
    cmd = [sys.executable, "-m", "hyperviz_core", "index", *map(str, inputs), "--store",
           str(store), "--no-progress", "--json", *(["--compact"] if compact else [])]
    wall, rss, proc = run_measured(cmd)
    report = json.loads(proc.stdout)
    size = dir_size(store)
    chunks = report.get("chunks_indexed", report.get("chunks", "?"))
    return {"index_s": wall, "index_rss_mib": rss, "chunks": chunks,
            "store_mib": size / 2**20, "store_per_mb": size / 2**20 / mb}


def query_store(store: Path, qfile: Path, queries: int, lazy: str = "auto"
                ) -> dict[str, float]:
    """Run the questions of ``qfile`` on ``store`` in a fresh process; its figures."""
    _, _, qproc = run_measured([sys.executable, "-c", _QUERY_SCRIPT, str(store), str(qfile),
                                str(queries), lazy])
    q = json.loads(qproc.stdout.strip().splitlines()[-1])
    return {"open_ms": q["open_ms"], "p50": q["p50"], "p95": q["p95"],
            "cpu_p50": q["cpu_p50"], "cpu_p95": q["cpu_p95"],
            "query_rss_mib": q["rss_mib"], "queries": q["n"]}


def bench(inputs: list[Path], questions: list[str], work: Path, label: str, mb: float,
          queries: int, compact: bool = False, lazy: str = "auto",
          query_only: bool = False) -> dict[str, float | str]:
    """Index ``inputs`` with the CLI (unless ``query_only``), then query; the figures."""
    store, qfile = work / "store", work / "questions.json"
    row: dict[str, float | str] = {"input": label, "mb": mb}
    if query_only:
        if not (store.exists() and qfile.exists()):
            raise SystemExit(f"--query-only: no store and questions.json in {work}")
        row.update({"index_s": "–", "index_rss_mib": "–", "chunks": "–",
                    "store_mib": dir_size(store) / 2**20, "store_per_mb": "–"})
    else:
        row.update(index_store(inputs, store, mb, compact))
        qfile.write_text(json.dumps(questions))
    row.update(query_store(store, qfile, queries, lazy))
    row["store_after_mib"] = dir_size(store) / 2**20
    return row


def _fmt(value: float | str, spec: str, unit: str = "") -> str:
    return value if isinstance(value, str) else f"{value:{spec}}{unit}"


def print_row(row: dict[str, float | str], mb: float) -> None:
    """The Markdown table (header and one row) and the query CPU times."""
    print(f"machine: {os.cpu_count()} cores; offline defaults (heuristic extraction, "
          "hashed embeddings); queries without rendering")
    print("| input | chunks | index wall | MB/s | chunks/s | peak RSS | store size | store/MB "
          "| store after queries | open | query p50 / p95 | query RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    chunks, wall = row["chunks"], row["index_s"]
    timed = isinstance(wall, float)
    rate = f"{chunks / float(wall):.0f}" if isinstance(chunks, int) and timed else "?"
    print(f"| {row['input']} | {row['chunks']} | {_fmt(wall, '.1f', ' s')} | "
          f"{f'{mb / float(wall):.3f}' if timed else '–'} | {rate if timed else '–'} | "
          f"{_fmt(row['index_rss_mib'], '.0f', ' MiB')} | {row['store_mib']:.1f} MiB | "
          f"{_fmt(row['store_per_mb'], '.1f', 'x')} | {row['store_after_mib']:.1f} MiB | "
          f"{row['open_ms']:.0f} ms | "
          f"{row['p50']:.1f} / {row['p95']:.1f} ms | {row['query_rss_mib']:.0f} MiB |")
    print(f"query CPU time p50 / p95: {row['cpu_p50']:.1f} / {row['cpu_p95']:.1f} ms "
          f"({row['queries']} queries)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=1.0, help="synthetic corpus size in MB")
    ap.add_argument("--files", type=int, default=1, help="split the corpus into N files")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--input", type=Path, default=None, help="index this file/dir instead")
    ap.add_argument("--queries", type=int, default=50)
    ap.add_argument("--keep", type=Path, default=None, help="keep corpus and store here")
    ap.add_argument("--compact", action="store_true",
                    help="index with `vizrag index --compact` (VACUUM at the end)")
    ap.add_argument("--lazy", choices=("auto", "on", "off"), default="auto",
                    help="query path: auto (lazy from 4,000 chunks), on (lazy), off (loaded)")
    ap.add_argument("--query-only", action="store_true",
                    help="only query the store kept by an earlier run with --keep DIR")
    args = ap.parse_args(argv)
    if args.query_only and args.keep is None:
        ap.error("--query-only needs --keep DIR (the directory of an earlier run)")
    work = args.keep or Path(tempfile.mkdtemp(prefix="vizrag-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    inputs: list[Path] = []
    questions: list[str] = []
    if args.query_only:
        mb, label = 1.0, f"{work} (query only, lazy {args.lazy})"
    elif args.input is not None:
        inputs = [args.input]
        files = [args.input] if args.input.is_file() else sorted(args.input.rglob("*.txt"))
        mb = sum(p.stat().st_size for p in files) / 2**20
        text = files[0].read_text(encoding="utf-8", errors="replace")[:200_000]
        words = [w for w in text.split() if w[:1].isupper()]
        questions = [f"What about {words[i]} {words[i + 1]}?" for i in
                     range(0, max(0, len(words) - 1), max(1, len(words) // 200))]
        label = str(args.input)
    else:
        inputs, questions = write_corpus(work / "corpus", args.mb, args.files, args.seed)
        if args.files > 1:
            inputs = [work / "corpus"]
        mb, label = args.mb, f"synthetic {args.mb:g} MB ({args.files} file(s), seed {args.seed})"
    row = bench(inputs, questions, work, label, mb, args.queries, args.compact, args.lazy,
                args.query_only)
    print_row(row, mb)
    if args.keep is None:
        import shutil

        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
