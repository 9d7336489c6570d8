"""How much of a question's evidence the bottom view I_bot draws (offline, rendered).

For each dev question of a passage dataset (MuSiQue, HotpotQA) it retrieves in ``vizrag``
mode with both views rendered and prints, averaged over the questions:

* ``gold drawn``: the share of the question's gold passages with at least one fact (a
  relation hyperedge) drawn in I_bot, by the fact's source chunk;
* ``facts from top-5``: the share of the facts drawn in I_bot that come from the five
  passages ranked first;
* ``drawn``: facts and entities drawn in I_bot;
* ``ID only``: per layout of I_bot, the entities whose name found no room (shown by ID
  only, ``export()["panels"][i]["unnamed"]``).

``--text`` measures the text mode instead (no rendering; what a text-only model reads): a
fact counts when the answer prompt's hyperedge listing
(:func:`~hyperviz_core.rag.answer.knowledge_listings`, 3,000 characters) gives its description,
not only its ID and members.

The stores are the ones ``retrieval_bench.py`` caches. Printed on 2026-12-05 (stop 45):
MuSiQue gold drawn 0.550, facts from top-5 0.379; HotpotQA 0.689, 0.454; after stop 46's
changes (the views see the query repair, dates are no bridges, importance without accents):
0.585, 0.403; 0.717, 0.486 (docs/retrieval-log.md has the variants tried). On
2026-12-06 (stop 49), before and after I_bot was drawn after ranking with the ranked
passages' facts first: MuSiQue 0.585 / 0.413 → 0.603 / 0.533, HotpotQA 0.736 / 0.492 →
0.755 / 0.629; ``--untitled`` MuSiQue 0.507 / 0.422 → 0.521 / 0.516, HotpotQA 0.736 / 0.504
→ 0.726 / 0.648. ``--text``, before and after the text mode numbered the ranked passages'
facts first (stop 50, 2026-12-06): MuSiQue 0.422 / 0.507 → 0.422 / 0.519, HotpotQA 0.660 /
0.520 → 0.679 / 0.542; ``--untitled`` MuSiQue 0.385 / 0.527 → 0.395 / 0.546, HotpotQA 0.679 /
0.506 → 0.698 / 0.538. ``ID only`` in ``bi-inc``, before and after its sub-columns were spaced
a name's width apart (stop 51, 2026-12-06): MuSiQue 6.32 → 0.00, HotpotQA 5.92 → 0.00,
``--untitled`` 6.62 → 0.00 and 6.43 → 0.00 (``set-force`` 0.21 → 0.30, 0.47 → 0.45, 0.36 →
0.36, 0.68 → 0.58).

Usage::

    .venv/bin/python benchmarks/view_facts_bench.py --data ../shared/data/musique
"""

from __future__ import annotations

import argparse
import statistics
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench_corpus import load_corpus
from retrieval_bench import corpus_arguments, make_embedder, open_engine

from hyperviz_core.rag.answer import knowledge_listings


def described(res: Any) -> set[str]:
    """The H# of the facts whose own description the answer prompt's listing gives."""
    _, listing = knowledge_listings(res)
    return {line.split(" ", 1)[0] for line in listing.splitlines()
            if "]: " in line and not line.split("]: ", 1)[1].startswith("see ")}


def measure(engine: Any, question: dict[str, Any], text: bool = False) -> dict[str, float]:
    """The three figures of one question (see the module docstring)."""
    res = engine.retrieve(question["question"], mode="vizrag", render=not text)
    gold = [f"p{int(i):05d}" for i in question.get("gold_corpus_idx", [])]
    gold_chunks = {d: set(engine.store.chunk_ids(d)) for d in gold}
    given = described(res) if text else None
    drawn = [h for h in res.hyperedges if h.kind != "theme" and h.visual_id
             and (given is None or h.visual_id in given)]
    sources = [set(h.source_ids) for h in drawn]
    top5 = {c.chunk_id for c in res.chunks[:5]}
    panels = res.bottom_view.export.get("panels", []) if res.bottom_view is not None else []
    return {
        **{f"ID only {p['layout']}": float(len(p.get("unnamed") or [])) for p in panels},
        "gold": (sum(1 for d in gold if any(s & gold_chunks[d] for s in sources))
                 / len(gold)) if gold else 0.0,
        "top5": (sum(1 for s in sources if s & top5) / len(sources)) if sources else 0.0,
        "facts": float(len(drawn)),
        "entities": float(sum(1 for e in res.entities if e.layer == "bottom" and e.visual_id)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    corpus_arguments(parser)
    parser.add_argument("--text", action="store_true",
                        help="measure the text mode's described facts instead of I_bot")
    args = parser.parse_args()
    embedder = make_embedder(args.embed)
    for data in args.data:
        corpus = load_corpus(data, args.untitled)
        engine, how = open_engine(corpus, embedder, args.cache, False, False,
                                  vectors_from=args.vectors_from)
        questions = corpus.questions[: args.limit]
        rows = [measure(engine, q, args.text) for q in questions]
        keys = sorted({k for r in rows for k in r})  # ID only: over the views drawn
        mean = {k: statistics.fmean(r[k] for r in rows if k in r) for k in keys}
        what = "described" if args.text else "drawn"
        print(f"{corpus.name}: {len(rows)} questions ({how}): gold {what} {mean['gold']:.3f}, "
              f"facts from top-5 {mean['top5']:.3f}, {what} {mean['facts']:.1f} facts / "
              f"{mean['entities']:.1f} entities"
              + "".join(f", {k} {v:.2f}" for k, v in mean.items() if k.startswith("ID only")))
        engine.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
