"""benchmarks/weights_cv.py: the grid around the shipped weights, the nested
cross-validation (no question is ranked with weights chosen on it) and one run end to end on
a tiny passage set (correctness only, no timings)."""

from __future__ import annotations

import doctest
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType

import pytest

from hyperviz_core.rag import RankWeights

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def cv() -> ModuleType:
    sys.path.insert(0, str(BENCH))
    try:
        return importlib.import_module("weights_cv")
    finally:
        sys.path.remove(str(BENCH))


def test_grid_starts_at_the_shipped_weights(cv: ModuleType) -> None:
    settings, shipped = cv.grid(semantic=False)
    assert settings[0] == shipped
    assert shipped == {k: getattr(RankWeights(), k) for k in cv.AXES}
    assert len(settings) == 3 * 4 * 3 * 3
    assert len({tuple(s.items()) for s in settings}) == len(settings)
    # the settings one step away come before those two steps away
    assert sum(abs(cv.AXES[k].index(settings[1][k]) - cv.AXES[k].index(shipped[k]))
               for k in shipped) == 1
    semantic, ship_v = cv.grid(semantic=True)
    assert len(semantic) == 3 * len(settings) and "vector" in ship_v
    w = cv.weights_of({**shipped, "mention": 0.5})
    assert (w.mention, w.hyperedge, w.graph) == (0.5, 0.5, RankWeights().graph)


def test_cross_validation_never_selects_on_the_question_it_scores(cv: ModuleType) -> None:
    """Setting s is perfect on question s only: every setting is best somewhere in-sample,
    but the one chosen for a question's fold is perfect on a training question, so it
    scores 0 on every held-out question."""
    ids = [f"q{i}" for i in range(10)]
    scores = [[{"R@5": float(q == s)} for q in range(10)] for s in range(10)]
    got, chosen = cv.cross_validate(scores, "R@5", ids, folds=5, repeats=3)
    assert [g["R@5"] for g in got] == [0.0] * 10
    assert sum(chosen.values()) == 15


def test_cross_validation_keeps_a_setting_best_everywhere(cv: ModuleType) -> None:
    ids = [f"q{i}" for i in range(8)]
    scores = [[{"R@5": 0.5, "2hop": 0.5} for _ in ids],
              [{"R@5": 1.0, "2hop": 1.0} for _ in ids],
              [{"R@5": 1.0, "2hop": 1.0} for _ in ids]]  # a tie: the earlier one wins
    got, chosen = cv.cross_validate(scores, "R@5", ids, folds=4, repeats=2)
    assert got == [{"R@5": 1.0, "2hop": 1.0}] * 8
    assert dict(chosen) == {1: 8}


def _set(name: str, scores: list[list[dict[str, float]]]
         ) -> tuple[list[list[dict[str, float]]], str, list[str]]:
    return scores, "R@5", [f"{name}{i}" for i in range(len(scores[0]))]


def test_pooled_cross_validation_chooses_one_setting_without_the_held_out_fold(
        cv: ModuleType) -> None:
    """Two sets: setting s is perfect on question s of the first set only, and the second
    set cannot tell the settings apart; the held-out questions of the first set never get
    the setting that is perfect on them. A setting best on every set is chosen for all."""
    first = [[{"R@5": float(q == s)} for q in range(10)] for s in range(10)]
    second = [[{"R@5": 0.5} for _ in range(6)] for _ in range(10)]
    got, chosen = cv.nested([_set("a", first), _set("b", second)], 5, 2)
    assert [g["R@5"] for g in got[0]] == [0.0] * 10
    assert [g["R@5"] for g in got[1]] == [0.5] * 6
    assert sum(chosen.values()) == 10
    worse, better = [{"R@5": 0.2}] * 6, [{"R@5": 0.9}] * 6
    got, chosen = cv.nested([_set("c", [worse, better]), _set("d", [worse, better])], 3, 1)
    assert got == [better, better] and dict(chosen) == {1: 3}


def test_docstring_examples(cv: ModuleType) -> None:
    result = doctest.testmod(cv)
    assert result.failed == 0 and result.attempted > 0


def test_runs_end_to_end_on_a_tiny_passage_set(
        cv: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    passages = [
        {"title": "Mount Kalvar", "text": "Mount Kalvar is a volcano on the island of Serat."},
        {"title": "Serat", "text": "Serat is an island whose capital is Tembo."},
        {"title": "Tembo", "text": "Tembo has an observatory that measures ash plumes."},
        {"title": "Cremona", "text": "Antonio Gravelli built violins in Cremona."},
        {"title": "Oskar Line", "text": "Steam engines of the Oskar Line crossed the Alder "
                                        "viaduct."},
    ]
    questions = [
        {"id": "a", "question": "On which island is Mount Kalvar?", "answers": ["Serat"],
         "gold_corpus_idx": [0], "hops": 2},
        {"id": "b", "question": "What is the capital of the island of Mount Kalvar?",
         "answers": ["Tembo"], "gold_corpus_idx": [0, 1], "hops": 2},
        {"id": "c", "question": "Where did Antonio Gravelli build violins?",
         "answers": ["Cremona"], "gold_corpus_idx": [3], "hops": 3},
        {"id": "d", "question": "Which viaduct did the Oskar Line cross?",
         "answers": ["Alder"], "gold_corpus_idx": [4], "hops": 3},
    ]
    data = tmp_path / "tiny"
    data.mkdir()
    (data / "corpus.json").write_text(json.dumps(passages))
    (data / "queries_dev.jsonl").write_text("\n".join(json.dumps(q) for q in questions))
    assert cv.main(["--data", str(data), "--cache", str(tmp_path / "cache"),
                    "--folds", "2", "--repeats", "2", "--with-untitled", "--pooled"]) == 0
    out, pooled = capsys.readouterr().out.split("\npooled over 2 sets (tiny, tiny --untitled)")
    assert "dataset tiny --untitled: 4 questions" in out
    assert pooled.count("vizrag-pooled R@5: ") == 4  # two sets, two baselines each
    assert "settings chosen (of 4 folds): " in pooled
    out = out.split("\ndataset tiny --untitled")[0]
    assert "grid: 108 settings of graph, ppr, feedback, mention" in out
    table = {line.split()[0]: line.split()[1:] for line in out.splitlines()
             if line.split() and line.split()[0] in ("flat-bm25", "flat-dense", "vizrag",
                                                     "vizrag-cv") and ":" not in line}
    assert set(table) == {"flat-bm25", "flat-dense", "vizrag", "vizrag-cv"}
    assert all(len(v) == 4 and all(0.0 <= float(x) <= 1.0 for x in v)  # R@2 R@5 2hop 3hop
               for v in table.values())
    assert float(table["vizrag"][1]) >= 0.75  # each question names its passage
    assert "vizrag-cv R@5: " in out and "settings chosen (of 4 folds): " in out
    with pytest.raises(SystemExit):
        cv.main(["--data", str(data), "--folds", "1"])


def test_long_documents_rank_chunks_and_are_not_run_again_untitled(
        cv: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The novels' rule (answer in a top-5 chunk); ``--with-untitled`` adds no second run of
    a set without titles, so one set is left and nothing is pooled."""
    filler = "The weather that year was mild and the harvest was ordinary. "
    facts = {"volcano": ("The observatory at Tembo measures the ash plumes of Mount Kalvar.",
                         "Which observatory measures the ash plumes of Mount Kalvar?", "Tembo"),
             "violin": ("Antonio Gravelli built his violins in Cremona.",
                        "Where did Antonio Gravelli build his violins?", "Cremona")}
    novels = tmp_path / "novels"
    novels.mkdir()
    (novels / "corpus.json").write_text(json.dumps(
        [{"corpus_name": t, "context": " ".join(f"Part {i}. {fact} {filler * 12}"
                                                 for i in range(6))}
         for t, (fact, _, _) in sorted(facts.items())]))
    (novels / "questions.jsonl").write_text("\n".join(json.dumps(
        {"id": t, "source": t, "question": q, "answer": a, "question_type": "Fact Retrieval"})
        for t, (_, q, a) in sorted(facts.items())))
    assert cv.main(["--data", str(novels), "--cache", str(tmp_path / "cache"), "--folds", "2",
                    "--repeats", "1", "--with-untitled", "--pooled"]) == 0
    out = capsys.readouterr().out
    assert out.count("dataset ") == 1 and "pooled over" not in out
    rows = {line.split()[0]: float(line.split()[1]) for line in out.splitlines()
            if line.split()[:1] in (["flat-bm25"], ["vizrag"]) and ":" not in line}
    assert rows == {"flat-bm25": 1.0, "vizrag": 1.0}  # each question names its fact
    assert "hit@5 over the grid, every setting on all 2 questions" in out
