"""Offline extraction quality: HyperRED recall, and what the heuristic extractor puts in the
bottom layer of the benchmark corpora.

* **HyperRED** (``../shared/data/hyperred``, 1,000 dev sentences, 1,201 gold n-ary facts):
  entity recall (a gold entity span is found when an extracted key equals its normalised
  name or, both 3+ characters, the words of one are a run of whole words of the other) and
  fact-pair recall (head and tail found as two different extracted entities *and* members of
  one extracted hyperedge) — :func:`hyperviz_core.eval.extraction_hits`, as in
  ``tests/test_extract.py``.
* **Corpora** (``--corpus``: MuSiQue, HotpotQA, the novels): each is indexed offline into a
  temporary store exactly as ``retrieval_bench.py`` does, and the bottom layer is counted:
  entities, relations, quoted-title (``work``) entities and entities that are a closed-class
  word ("According", "Oh", "Two": :data:`hyperviz_core.rag.extract._lexicon._NOT_NAMES`).

Run::

    python benchmarks/extract_bench.py
    python benchmarks/extract_bench.py --corpus ../shared/data/graphrag_bench_novel
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bench_corpus import load_corpus

from hyperviz_core.eval import extraction_hits
from hyperviz_core.rag import HashingEmbedder, HeuristicExtractor, VizRAG
from hyperviz_core.rag.extract._lexicon import _NOT_NAMES
from hyperviz_core.rag.types import Chunk

SHARED = Path(__file__).resolve().parents[1].parent / "shared" / "data"


def _detok(tokens: Sequence[str]) -> str:
    """HyperRED's token list as text (no space before closing punctuation)."""
    text = " ".join(tokens)
    text = re.sub(r" ([,.;:!?)'])", r"\1", text)
    return re.sub(r"\( ", "(", text).replace(" ' s", "'s")


def hyperred_recall(path: Path) -> tuple[float, float, int]:
    """(entity recall, fact-pair recall, sentences) of the heuristic extractor."""
    ex = HeuristicExtractor()
    hit = total = pair_hit = pairs = n = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        toks = row["sentences"][0]
        ext = ex.extract(Chunk(id="c", doc_id="d", text=_detok(toks)))
        names = [_detok(toks[a : b + 1]) for a, b, _ in row["ner"][0]]
        facts = [(_detok(toks[r[0] : r[1] + 1]), _detok(toks[r[2] : r[3] + 1]))
                 for r in row["relations"][0]]
        found, joined = extraction_hits(ext, names, facts)
        n += 1
        hit, total = hit + found, total + len(names)
        pair_hit, pairs = pair_hit + joined, pairs + len(facts)
    return hit / max(total, 1), pair_hit / max(pairs, 1), n


def layer_counts(data: Path) -> dict[str, int]:
    """Counts of the bottom layer an offline index of ``data`` builds."""
    corpus = load_corpus(data, False)
    with tempfile.TemporaryDirectory() as tmp:
        engine = VizRAG(Path(tmp) / "store", embedder=HashingEmbedder(), show_progress=False)
        engine.insert(corpus.docs)
        bottom = engine.store.bottom()
        types = Counter(e.type for e in bottom.entities.values())
        closed = sum(1 for e in bottom.entities.values() if e.name.casefold() in _NOT_NAMES)
        engine.close()
    return {"entities": len(bottom.entities), "relations": len(bottom.hyperedges),
            "work": types["work"], "closed-class": closed}


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hyperred", type=Path,
                    default=SHARED / "hyperred" / "hyperred_hyperrelation_dev.jsonl")
    ap.add_argument("--corpus", type=Path, nargs="*",
                    default=[SHARED / n for n in ("musique", "hotpotqa", "graphrag_bench_novel")])
    args = ap.parse_args(argv)
    if args.hyperred.exists():
        ent, pair, n = hyperred_recall(args.hyperred)
        print(f"HyperRED ({n} sentences): entity recall {ent:.4f}, fact-pair recall {pair:.4f}")
    else:
        print(f"HyperRED: {args.hyperred} not found, skipped", file=sys.stderr)
    print(f"{'corpus':<24}{'entities':>10}{'relations':>11}{'work':>7}{'closed-class':>14}")
    for data in args.corpus:
        c = layer_counts(data)
        print(f"{data.name:<24}{c['entities']:>10}{c['relations']:>11}{c['work']:>7}"
              f"{c['closed-class']:>14}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
