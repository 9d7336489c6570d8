"""Answer metrics (EM, token F1, containment, answer-in-context) and answers-file scoring."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.eval import (
    Question,
    answer_in_context,
    answers_by_id,
    contains_answer,
    exact_match,
    load_answers,
    load_questions,
    normalize_answer,
    score_answers,
    strip_citations,
    token_f1,
    write_answers,
)
from hyperviz_core.rag.answer import EXTRACTIVE_LABEL

DATA = Path(__file__).parent / "data" / "eval"


def test_normalisation_and_exact_match() -> None:
    assert normalize_answer("The  Anglican—Communion!") == "anglican communion"
    assert normalize_answer("An apple, a day") == "apple day"
    assert exact_match("the Anglican Communion.", ["Anglican Communion"]) == 1.0
    assert exact_match("London", ["Paris", "london"]) == 1.0
    assert exact_match("Londons", "London") == 0.0
    assert exact_match("", "London") == 0.0
    assert exact_match("the", "London") == 0.0
    assert exact_match("London", []) == 0.0


def test_token_f1() -> None:
    assert token_f1("Iron Maiden", "Iron Maiden") == 1.0
    assert token_f1("The band Iron Maiden.", "Iron Maiden") == pytest.approx(0.8)
    assert token_f1("1837", "1836") == 0.0
    assert token_f1("", "1836") == 0.0
    # best over aliases; repeated tokens count once per occurrence
    assert token_f1("Leyton London", ["London", "Leyton, London"]) == 1.0
    assert token_f1("a a b", "a b b") == pytest.approx(2 / 3)


def test_contains_and_answer_in_context() -> None:
    assert contains_answer("Publix has 35 stores.", ["35"])
    assert not contains_answer("Publix has 350 stores.", ["35"])
    passages = ["Hank Snow lived in Tennessee.", "Publix has 35 stores in Tennessee."]
    assert answer_in_context(["35"], passages)
    assert answer_in_context("hank snow", passages)
    assert not answer_in_context(["Florida"], passages)
    assert not answer_in_context(["the"], passages)  # normalises to nothing
    assert not answer_in_context(["35"], [])


def test_citations_are_not_scored_as_answer_text() -> None:
    # the engine's answer prompt asks for "(H2, [1])"-style citations
    assert exact_match("Karl Renner (H2, [1])", ["Karl Renner"]) == 1.0
    assert token_f1("Karl Renner (H2, E5, [1], [3]).", "Karl Renner") == 1.0
    assert exact_match("London [1, 2]", "London") == 1.0
    assert exact_match("London (E3)", "London") == 1.0
    # a source number is not a numeric answer
    assert not contains_answer("Publix has 35 stores (H3, [2]).", ["2"])
    assert not contains_answer("Publix has 35 stores [2].", "2")
    assert contains_answer("Publix has 35 stores (H3, [2]).", ["35"])
    # ordinary parentheses and IDs in running text stay
    assert strip_citations("Hamlet (1603) by E3 [sic]") == "Hamlet (1603) by E3 [sic]"
    assert contains_answer("It opened (in 2) ", "2")
    # the offline extractive header and placeholder are not answer text
    header = f"{EXTRACTIVE_LABEL}\n- Ada Lovelace wrote notes in 1843. [1]"
    assert strip_citations(header) == "- Ada Lovelace wrote notes in 1843."
    assert not contains_answer(header, "language model")
    assert strip_citations(f"{EXTRACTIVE_LABEL}\n(no passages retrieved)") == ""
    assert exact_match(f"{EXTRACTIVE_LABEL}\n(no passage matched the question)",
                       "no passage matched question") == 0.0


def test_loaders_and_writer(tmp_path: Path) -> None:
    qs = load_questions(DATA / "questions.jsonl")
    assert [q.id for q in qs] == ["2hop__q1", "2hop__q2", "3hop1__q3", "4hop1__q4"]
    assert [q.hop_count for q in qs] == [2, 2, 3, 4]  # q3's from its id
    assert load_questions(DATA / "questions.jsonl", limit=2)[-1].id == "2hop__q2"
    recs = load_answers(DATA / "partial.jsonl")
    out = write_answers(tmp_path / "sub" / "x.jsonl", recs)
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert lines[0] == {"id": "2hop__q1", "question": recs[0].question,
                        "answer": "The band Iron Maiden."}
    assert answers_by_id(load_answers(out)) == answers_by_id(recs)


@pytest.mark.parametrize("content, message", [
    ('{"id": 1}\n', "question"),
    ("not json\n", "not JSON"),
    ('{"id": "a", "question": "q"}\n{"id": "a", "question": "r"}\n', "duplicate"),
    ("", "no questions"),
    ('{"id": "q", "question": "q", "hops": -3}\n', r"\"hops\" must be a whole number >= 1"),
    ('{"question": "a"}\n{"id": "1", "question": "b"}\n',
     r"q.jsonl:2: duplicate question id '1' \(line 1 has no \"id\" and was given its line"),
    ('{"id": "a", "question": "a"}\n{"id": "a", "question": "b"}\n', r"\(also on line 1\)"),
])
def test_bad_question_files(tmp_path: Path, content: str, message: str) -> None:
    p = tmp_path / "q.jsonl"
    p.write_text(content, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_questions(p)


def test_missing_file_is_a_value_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="cannot read"):
        load_answers(tmp_path / "nope.jsonl")


def test_perfect_empty_and_partial_answers_files() -> None:
    qs = load_questions(DATA / "questions.jsonl")
    gold = score_answers(qs, answers_by_id(load_answers(DATA / "gold.jsonl")))
    assert (gold.overall.em, gold.overall.f1, gold.overall.contains) == (1.0, 1.0, 1.0)
    assert sorted(gold.by_hops) == ["2", "3", "4"] and gold.by_hops["2"].n == 2
    empty = score_answers(qs, answers_by_id(load_answers(DATA / "empty.jsonl")))
    assert (empty.overall.em, empty.overall.f1, empty.overall.contains) == (0.0, 0.0, 0.0)
    part = score_answers(qs, answers_by_id(load_answers(DATA / "partial.jsonl")))
    assert part.missing == 1
    assert part.overall.em == pytest.approx(0.25)
    assert part.overall.f1 == pytest.approx((0.8 + 1.0) / 4)
    assert part.overall.contains == pytest.approx(0.5)
    assert part.by_hops["2"].em == pytest.approx(0.5) and part.by_hops["4"].f1 == 0.0
    assert part.overall.in_context is None


def test_in_context_recall_per_question() -> None:
    qs = [Question(id="a", question="?", answers=["35"]),
          Question(id="b", question="?", answers=["Florida"]),
          Question(id="c", question="no gold")]
    s = score_answers(qs, {}, {"a": ["It has 35 stores."], "b": ["Tennessee"]})
    assert [q.in_context for q in s.questions] == [True, False]  # c has no gold: skipped
    assert s.overall.in_context == 0.5
    with pytest.raises(ValueError, match="gold"):
        score_answers([qs[2]], {})


def test_a_byte_order_mark_is_skipped(tmp_path: Path) -> None:
    """A questions file saved on Windows starts with a BOM: it was "not JSON"."""
    p = tmp_path / "q.jsonl"
    p.write_text('{"id": "a", "question": "Who?", "answers": ["x"]}\n', encoding="utf-8-sig")
    assert [q.id for q in load_questions(p)] == ["a"]


def test_an_empty_grid_value_says_so() -> None:
    from hyperviz_core.probe import parse_grid

    with pytest.raises(ValueError, match=r"grid gamma: no value given \(e\.g\. gamma=0,1\)"):
        parse_grid(["gamma="])
