"""What a query's lone character costs on a lazily read store (``with_pieces``).

Builds (once, in ``--store``) a synthetic store of ``--chunks`` untitled passages of random
Chinese text drawn from ``--alphabet`` Han characters — a worst case: every character stands
in a large share of the passages — and times ``retrieve(mode="vizrag")`` on the lazy path for
a two-character query, a lone character held by few pairs (one of the rare characters
mixed in) and a lone character of the alphabet (held by more pairs than
``MAX_PIECE_TERMS``: left as it is). Prints the median of ``--repeat`` runs of each after a
first (warm-up) query, and the first lazy query's time.

    python benchmarks/lone_piece_bench.py --store /tmp/lone15k --chunks 15000

The same queries on PostgreSQL: ``--questions DIR`` also writes them to ``DIR/two.json``,
``rare.json`` and ``common.json`` (each query 21 times), for ``store_bench.py``'s copy mode:

    python benchmarks/lone_piece_bench.py --store /tmp/lone15k --questions /tmp/lone
    python benchmarks/store_bench.py --copy-store /tmp/lone15k --copy-questions \
        /tmp/lone/rare.json --copy-queries 21 --lazy on --pg-dir /tmp/pglone
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from pathlib import Path

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve.lazy import LazyCorpus

#: rare characters, each written in a few passages only
RARE = "猫港虎"


def build(path: Path, chunks: int, alphabet: int) -> None:
    """A store of ``chunks`` passages of 60 random characters (seed 7)."""
    rng = random.Random(7)
    chars = [chr(0x4E00 + 37 * i) for i in range(alphabet)]
    docs = []
    for n in range(chunks):
        text = "".join(rng.choice(chars) for _ in range(60))
        if n % 997 == 0:
            text = text[:30] + RARE[n % len(RARE)] + text[30:]
        docs.append(Document(id=f"p{n}", text=text + "。"))
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(docs)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--store", type=Path, required=True)
    ap.add_argument("--chunks", type=int, default=15_000)
    ap.add_argument("--alphabet", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--questions", type=Path, default=None, metavar="DIR",
                    help="also write the queries for store_bench.py --copy-questions")
    args = ap.parse_args(argv)
    if not args.store.exists():
        start = time.perf_counter()
        build(args.store, args.chunks, args.alphabet)
        print(f"built {args.chunks:,} passages in {time.perf_counter() - start:.1f} s")
    common = chr(0x4E00)
    queries = {"two characters": common + chr(0x4E00 + 37), "lone rare character": RARE[0],
               f"lone common character ({common})": common}
    if args.questions is not None:
        args.questions.mkdir(parents=True, exist_ok=True)
        for name, query in zip(("two", "rare", "common"), queries.values(), strict=True):
            (args.questions / f"{name}.json").write_text(json.dumps([query] * 21))
    with VizRAG(args.store, show_progress=False) as rag:
        rag.retriever.lazy = True
        start = time.perf_counter()
        rag.retrieve(common + chr(0x4E00 + 37), mode="vizrag", render=False)
        print(f"first lazy query: {time.perf_counter() - start:.2f} s")
        assert isinstance(rag.retriever.query_corpus(), LazyCorpus)
        for name, query in queries.items():
            times = []
            for _ in range(args.repeat):
                start = time.perf_counter()
                res = rag.retrieve(query, mode="vizrag", render=False)
                times.append(time.perf_counter() - start)
            top = res.chunks[0] if res.chunks else None
            held = "holds it" if top is not None and query in top.text else "does not hold it"
            print(f"{name:32} median {statistics.median(times) * 1000:8.1f} ms  top passage "
                  f"{top.doc_id if top else '-'} {held}")


if __name__ == "__main__":
    main()
