"""The offline hashed embedder on scripts written without spaces between words.

Ranks the 14 passages of ``tests/data/scripts/cities.json`` (one-sentence facts about
cities in Japanese, Chinese, Thai, Khmer, Myanmar and Korean, written for the tests) for
each of its 16 queries by cosine, with every version of :class:`HashingEmbedder`, and
prints how many queries rank an answer first and the mean reciprocal rank. A set this small
shows whether such queries find their passages at all; it is no estimate of recall.

    python benchmarks/scripts_bench.py
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np

from hyperviz_core.rag import HashingEmbedder

DATA = Path(__file__).resolve().parents[1] / "tests" / "data" / "scripts" / "cities.json"


def ranks(embedder: HashingEmbedder, data: dict) -> list[int]:
    """The rank (1 = first) of each query's best-placed answer."""
    ids = [p["id"] for p in data["passages"]]
    matrix = embedder.embed([p["text"] for p in data["passages"]])
    out = []
    for q in data["queries"]:
        scores = matrix @ embedder.embed([q["query"]])[0]
        order = [ids[i] for i in np.argsort(-scores, kind="stable")]
        out.append(min(order.index(a) + 1 for a in q["answers"]))
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA)
    args = ap.parse_args(argv)
    data = json.loads(args.data.read_text(encoding="utf-8"))
    print(f"{len(data['passages'])} passages, {len(data['queries'])} queries ({args.data.name})")
    for embedder in (HashingEmbedder(marks=False), HashingEmbedder(pairs=False),
                     HashingEmbedder()):
        r = ranks(embedder, data)
        print(f"{embedder.name:22} first {sum(x == 1 for x in r):2}/{len(r)}"
              f"  MRR {sum(1 / x for x in r) / len(r):.3f}")


if __name__ == "__main__":
    main()
