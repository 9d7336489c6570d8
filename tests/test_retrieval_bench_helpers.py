"""Helpers of benchmarks/retrieval_bench.py: ``--triples`` questions and scoring, the
novels' ceiling, and ``--vectors-from`` reuse of stored vectors (correctness only, no
timings)."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from hyperviz_core.rag import Document, HashingEmbedder, VizRAG

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def mods() -> Iterator[tuple[ModuleType, ModuleType]]:
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("bench_corpus"), importlib.import_module("bench_vectors")
    finally:
        sys.path.remove(str(BENCH))


def test_triple_questions_keep_answerable_specific_pairs(
        mods: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    corpus, _ = mods
    triples = {"q1": "(Hank Snow, married, Min Aucoin).",
               "q2": "(Hank Snow, married, Min Aucoin)",  # scored elsewhere: excluded
               "q3": "(Hank Snow, visited, Paris)",        # never in one unit
               "q4": "(Hank Snow, is, He)",                # tail too short
               "q5": "Hank Snow married"}                  # not a triple
    rows = [{"id": i, "question": "?", "evidence_triple": t} for i, t in triples.items()]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    texts = ["Hank Snow married Min Aucoin in 1935.", "Paris is far.", "Hank Snow sang."]
    got = corpus.triple_questions(tmp_path, {"q2"}, texts)
    assert [(q["id"], q["head"], q["tail"]) for q in got] == [("q1", "Hank Snow", "Min Aucoin")]
    assert corpus.pair_hit("hank snow", "MIN AUCOIN", texts)
    assert not corpus.pair_hit("Hank Snow", "Paris", texts)  # never in one unit


def test_margins_print_paired_interval_and_counts(
        mods: tuple[ModuleType, ModuleType], capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _ = mods

    def row(name: str, hits: list[float]) -> object:
        return corpus.Row(name, {"hit@5": sum(hits) / len(hits)}, 1.0, 2.0, 1.0,
                          [{"hit@5": h} for h in hits])

    viz = row("vizrag", [1, 1, 1, 0, 1, 0, 1, 1])
    bm25 = row("flat-bm25", [1, 0, 1, 0, 1, 1, 0, 1])
    same = row("flat-dense", [1, 1, 1, 0, 1, 0, 1, 1])
    corpus.print_margins([bm25, same, viz], "hit@5", ("flat-bm25", "flat-dense", "absent"))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2  # no hyper-lite row, no "absent" baseline
    assert lines[0].startswith("vizrag hit@5: +0.125 vs flat-bm25 (95% CI ")
    assert lines[0].endswith("; above on 2, below on 1 of 8)")
    lo, hi = (float(x) for x in lines[0].split("95% CI ")[1].split(";")[0].split(".."))
    assert -1.0 <= lo < 0.0 < 0.125 < hi <= 1.0  # 2 wins and 1 loss in 8: zero inside
    assert lines[1] == ("vizrag hit@5: +0.000 vs flat-dense (95% CI +0.000..+0.000; "
                        "above on 0, below on 0 of 8)")
    assert corpus.paired_interval([0.5, -0.5, 0.25]) == corpus.paired_interval(
        [0.5, -0.5, 0.25])  # fixed seed


def test_ceiling_counts_answers_some_unit_contains(
        mods: tuple[ModuleType, ModuleType], capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _ = mods
    units = ["Hank Snow was born in Nova Scotia.", "Merlin and King Arthur rode out."]
    answers = ["nova scotia", "Merlin produced King Arthur.", "Scotia. Merlin",  # not across units
               "King Arthur", "Nova", "?"]
    assert corpus.answerable(answers, units) == [True, False, False, True, True, False]
    qs = [{"id": str(i), "answer": a} for i, a in enumerate(answers)]
    corpus.print_ceiling(qs, units, units[:1], split=True)
    out = capsys.readouterr().out
    assert "all 3/6 = 0.500 (in a window: 2)" in out
    halves = [(corpus.half_of(q["id"]), corpus.answerable([q["answer"]], units)[0]) for q in qs]
    for h in ("A", "B"):
        n, c = sum(1 for x, _ in halves if x == h), sum(1 for x, ok in halves if x == h and ok)
        assert f"half {h} {c}/{n} = " in out


def test_stored_vectors_are_reused_by_text_hash(
        mods: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    _, vectors = mods
    emb = HashingEmbedder()
    rag = VizRAG(tmp_path / "old", embedder=emb, show_progress=False)
    rag.insert([Document(id="d1", title="", text="Hank Snow was a Canadian country singer. "
                         "He recorded Hello Love in Nashville.")])
    chunk_text = rag.store.chunks()[0].text
    rag.close()
    stored = vectors.load_vectors([tmp_path / "old"], emb.name, emb.dim)
    assert stored
    wrapped = vectors.StoredVectors(emb, stored)
    out = wrapped.embed([chunk_text, "a text no store holds"])
    assert (wrapped.reused, wrapped.embedded) == (1, 1)
    # the stored (float16) vector of the chunk, and a fresh one for the new text
    assert np.allclose(out[0], emb.embed([chunk_text])[0], atol=1e-3)
    assert np.array_equal(out[1], emb.embed(["a text no store holds"])[0])
    with pytest.raises(SystemExit, match="holds vectors of"):
        vectors.load_vectors([tmp_path / "old"], "another-embedder", emb.dim)
