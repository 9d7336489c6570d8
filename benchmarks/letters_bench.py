"""Persian typed with Arabic's letters: found either way, and what it costs a lazy query.

Builds a store of random Persian-looking passages (``--docs``, 120 words each, drawn from
6,000 random words over the Arabic script's letters, Arabic's ``ي`` and ``ك`` among them
beside Persian's ``ی`` and ``ک``; seed 7), then asks, on the lazy path (SQLite FTS5):

* 40 one-word queries retyped with the other keyboard (each word of a passage holding ``ي``,
  ``ی``, ``ك`` or ``ک`` with those letters swapped): how many rank a passage holding the
  word first (typed either way: two random words may differ only in these letters);
* the same 40 words as the passages type them, the same count;
* the time of the first query (it builds the derived index) and the median of each set
  (wall time, no rendering; an older checkout answers a retyped query that matches nothing
  faster, so compare the words as typed).

Text made up for the benchmark: no estimate of recall on real text, only whether such a
query finds its passage at all and what reading the letters alike costs. Runs on any
checkout (older ones read the letters apart).

    python benchmarks/letters_bench.py [--docs 3000]
"""

from __future__ import annotations

import argparse
import logging
import random
import sqlite3
import statistics
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve import retriever as retriever_module

LETTERS = "ابتثجحخدذرزسشصضطظعغفقكلمنهويیکپچژگ"
SWAP = str.maketrans("يیكک", "یيکك")
ALIKE = str.maketrans("يك", "یک")


def corpus(n_docs: int) -> tuple[list[Document], list[tuple[str, str]]]:
    """The passages and 40 (retyped query, the word as typed) pairs."""
    rng = random.Random(7)
    vocab = ["".join(rng.choice(LETTERS) for _ in range(rng.randint(3, 7)))
             for _ in range(6000)]
    docs = [Document(id=f"d{i:05d}", text=" ".join(rng.choice(vocab) for _ in range(120)) + ".")
            for i in range(n_docs)]
    words = sorted({w for d in docs for w in d.text.rstrip(".").split()
                    if w.translate(SWAP) != w})
    picked = rng.sample(words, 40)
    return docs, [(w.translate(SWAP), w) for w in picked]


class Run(NamedTuple):
    """What one run measured."""

    build: float
    hits: dict[str, int]
    times: dict[str, list[float]]
    side: str
    rows: int


def measure(docs: list[Document], queries: list[tuple[str, str]]) -> Run:
    """Index ``docs`` in a temporary store and ask ``queries`` both ways, lazily."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "store"
        started = time.perf_counter()
        with VizRAG(path, show_progress=False) as rag:
            rag.insert(docs)
        build = time.perf_counter() - started
        words = {d.id: set(d.text.rstrip(".").translate(ALIKE).split()) for d in docs}
        hits = {"retyped": 0, "as typed": 0}
        times: dict[str, list[float]] = {"retyped": [], "as typed": []}
        with VizRAG(path, show_progress=False) as rag:
            for way, index in (("retyped", 0), ("as typed", 1)):
                for pair in queries:
                    started = time.perf_counter()
                    found = rag.retrieve(pair[index], mode="vizrag", render=False).chunks
                    times[way].append(time.perf_counter() - started)
                    hits[way] += bool(found) and pair[1].translate(ALIKE) in words[
                        found[0].doc_id]
        conn = sqlite3.connect(path / "vizrag.sqlite")
        side = conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name "
                            "LIKE 'vizrag_chunk_terms_v%'").fetchone()[0]
        rows = int(conn.execute(f"SELECT COUNT(*) FROM {side}").fetchone()[0])
        conn.close()
    return Run(build, hits, times, side, rows)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=3000)
    args = ap.parse_args(argv)
    docs, queries = corpus(args.docs)
    lazy_from, log = retriever_module.LAZY_MIN_CHUNKS, logging.getLogger("hyperviz_core")
    level = log.level
    retriever_module.LAZY_MIN_CHUNKS = 0  # the lazy path, whatever the store's size
    log.setLevel(logging.ERROR)  # an older checkout: "no passage matched" when retyped
    try:
        run = measure(docs, queries)
    finally:
        retriever_module.LAZY_MIN_CHUNKS = lazy_from
        log.setLevel(level)
    n = len(queries)
    print(f"{len(docs)} passages of 120 random words, indexed in {run.build:.1f} s; "
          f"{n} one-word queries retyped with the other keyboard")
    print(f"a passage holding the word ranked first: retyped {run.hits['retyped']}/{n}, "
          f"as typed {run.hits['as typed']}/{n}")
    first, retyped = run.times["retyped"][0], run.times["retyped"][1:]
    print(f"lazy query: first {first * 1000:.0f} ms (builds the index); median: retyped "
          f"{statistics.median(retyped) * 1000:.1f} ms (the other {len(retyped)}), as typed "
          f"{statistics.median(run.times['as typed']) * 1000:.1f} ms")
    print(f"side postings ({run.side}): {run.rows} rows")


if __name__ == "__main__":
    main()
