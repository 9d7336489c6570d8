"""benchmarks/extract_bench.py: HyperRED recall scoring and bottom-layer counts
(correctness only, on a few hand-made lines in HyperRED's format)."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench() -> Iterator[ModuleType]:
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("extract_bench")
    finally:
        sys.path.remove(str(BENCH))


def _line(tokens: list[str], ner: list[list[int]], rels: list[list[int]]) -> str:
    return json.dumps({"sentences": [tokens], "ner": [[[a, b, "Entity"] for a, b in ner]],
                       "relations": [[[*r, "[r]rel", []] for r in rels]]})


def test_hyperred_recall_counts_spans_and_pairs(bench: ModuleType, tmp_path: Path) -> None:
    lines = [
        # both entities found and in one hyperedge: 2/2 spans, 1/1 pair
        _line(["Acadia", "University", "is", "in", "Wolfville", ",", "Nova", "Scotia", "."],
              [[0, 1], [4, 7]], [[0, 1, 4, 7]]),
        # a lower-cased gold span is not found: 1/2 spans, 0/1 pair
        _line(["Paris", "lies", "on", "the", "river", "."], [[0, 0], [3, 4]], [[0, 0, 3, 4]]),
    ]
    path = tmp_path / "dev.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    ent, pair, n = bench.hyperred_recall(path)
    assert (ent, pair, n) == (0.75, 0.5, 2)
    toks = ["Nova", "Scotia", ",", "Canada", "(", "x", ")"]
    assert bench._detok(toks) == "Nova Scotia, Canada (x)"


def test_layer_counts_of_a_small_corpus(bench: ModuleType, tmp_path: Path) -> None:
    data = tmp_path / "tiny"
    data.mkdir()
    corpus = [{"title": "Hank Snow", "text": 'According to Anne, Hank Snow sang "Hello Love" '
               "in Nashville. Oh, Hank Snow was born in Canada."}]
    (data / "corpus.json").write_text(json.dumps(corpus), encoding="utf-8")
    (data / "queries_dev.jsonl").write_text("", encoding="utf-8")
    counts = bench.layer_counts(data)
    assert counts["closed-class"] == 0  # "According" and "Oh" are no entities
    assert counts["work"] == 1  # "Hello Love"
    assert counts["entities"] >= 4 and counts["relations"] >= 1
