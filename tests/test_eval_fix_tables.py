"""Review fixes of ``vizrag eval`` (judge, Tables 1, 2, 4, answers and question files, metrics):
paired score averages, all-invalid judge tables, answers of another question set, options a
table does not use, a win-rate Table 2 of one system, and metric edge cases (offline fakes)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.cli import main
from hyperviz_core.eval import (
    DIMENSIONS,
    Judge,
    Question,
    answer_in_context,
    contains_answer,
    exact_match,
    load_answers,
    load_questions,
    score_answers,
    table2,
    token_f1,
)

DATA = Path(__file__).parent / "data" / "eval"
Q = str(DATA / "questions.jsonl")
GOLD, PARTIAL, EMPTY = (str(DATA / f"{n}.jsonl") for n in ("gold", "partial", "empty"))


def _one_line_error(capsys: pytest.CaptureFixture[str], *parts: str) -> str:
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert last.startswith("vizrag eval: error: "), err
    assert "Traceback" not in err and "Errno" not in err
    for part in parts:
        assert part in last, last
    return last


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> str:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------ 2: paired score judge
class _ByNumber:
    """Scores an answer by its number; unreadable on answers holding "fail"."""

    model_name = "by-number"

    def complete(self, prompt: str, **kw: Any) -> str:
        m = re.search(r"<<<ANSWER\n(.*?)\nANSWER>>>", prompt, re.S)
        assert m is not None
        if "fail" in m.group(1):
            return "??"
        return json.dumps({d: {"Score": int(m.group(1))} for d in DIMENSIONS})

    async def acomplete(self, prompt: str, **kw: Any) -> str:
        return self.complete(prompt, **kw)


def test_score_judge_averages_every_system_over_the_same_questions() -> None:
    """A's 90 on question 1 no longer counts while B's verdict on it is invalid: before, A
    was averaged over both questions (50) and B over one (20), reversing the ranking."""
    qs = [Question(id=str(i), question=f"Q{i}?") for i in (1, 2)]
    rep = Judge(_ByNumber(), show_progress=False).score(
        qs, {"A": {"1": "90", "2": "10"}, "B": {"1": "fail", "2": "20"}})
    assert rep.overall == {"A": 10.0, "B": 20.0}
    assert rep.questions == 1 and rep.invalid == 1
    assert all(rep.dimensions[d] == {"A": 10.0, "B": 20.0} for d in DIMENSIONS)


# ------------------------------------------------------------------ 6: all-invalid tables
@pytest.mark.parametrize("table, extra", [
    ("1", []), ("2", []), ("2", ["--protocol", "winrate"]),
])
def test_judged_tables_exit_2_when_every_verdict_is_invalid(
        table: str, extra: list[str], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "table", table, "--questions", Q, "--systems", GOLD, PARTIAL,
                 "--judge", "python:eval_fakes:Garbage", "--no-cache", "--no-progress",
                 *extra])
    assert code == 2
    _one_line_error(capsys, "every judge verdict was invalid")
    assert "|" not in capsys.readouterr().out


# ------------------------------------------------------------------ 7: another question set
def test_answers_to_another_question_set_are_refused(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    other = _jsonl(tmp_path / "other.jsonl", [
        {"id": "2hop__q1", "question": "Which band recorded Maiden Japan?", "answer": "x"}])
    for argv in (["eval", "table", "4", "--questions", Q, "--systems", other],
                 ["eval", "table", "2", "--questions", Q, "--systems", GOLD, other],
                 ["eval", "judge", "--questions", Q, "--systems", GOLD, other, "--judge",
                  "python:eval_fakes:AlwaysFirst", "--no-cache", "--no-progress"]):
        assert main(argv) == 2
        _one_line_error(capsys, "other.jsonl", "'2hop__q1'", "another question")


def test_recorded_question_differing_only_in_spacing_is_the_same(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spaced = _jsonl(tmp_path / "spaced.jsonl", [
        {"id": "2hop__q1", "question": "  Which band recorded the live\nalbum Maiden Japan? ",
         "answer": "Iron Maiden"}, {"id": "2hop__q2", "answer": "London"}])
    assert main(["eval", "table", "4", "--questions", Q, "--systems", spaced]) == 0


# ------------------------------------------------------------------ 8: unused options
@pytest.mark.parametrize("argv, parts", [
    (["1", "--systems", GOLD, PARTIAL, "--judge", "j", "--protocol", "score", "--store",
      "/nonexistent"], ["table 1 gives win rates only", "--protocol score"]),
    (["1", "--systems", GOLD, PARTIAL, "--judge", "j", "--store", "/nonexistent"],
     ["table 1 does not use --store"]),
    (["4", "--systems", GOLD, "--judge", "X"], ["table 4 does not use --judge"]),
    (["4", "--systems", GOLD, "--llm", "openai:gpt-4o"], ["does not use --llm with --systems"]),
    (["4", "--systems", GOLD, "--store", "/nonexistent"], ["--systems", "--store", "not both"]),
    (["2", "--systems", GOLD, "--protocol", "winrate"], ["--protocol without --judge"]),
    (["2", "--systems", GOLD, "--out", "somewhere"], ["does not use --out with --systems"]),
    (["5", "--probes", "p.jsonl", "--answers", "a.jsonl", "--questions", Q],
     ["table 5 does not use --questions"]),
    (["5", "--probes", "p.jsonl", "--answers", "a.jsonl", "--out", "x"],
     ["table 5 does not use --out without --models"]),
    (["2c", "--from", "x", "--out", "y", "--models", "fake", "--systems", GOLD],
     ["table 2c does not use --systems"]),
    (["3", "--probes", "p.jsonl", "--models", "fake", "--n", "3"],
     ["table 3 does not use --n with --probes"]),
])
def test_options_a_table_does_not_use_are_refused(argv: list[str], parts: list[str],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    needs_q = argv[0] in ("1", "2", "4") and "--questions" not in argv
    assert main(["eval", "table", *argv, *(["--questions", Q] if needs_q else [])]) == 2
    _one_line_error(capsys, *parts)


# ------------------------------------------------------------------ 11: win rate of one
def test_table2_winrate_of_the_full_system_alone_is_refused(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "table", "2", "--questions", Q, "--systems", GOLD, "--judge",
                 "python:eval_fakes:Down", "--protocol", "winrate", "--no-cache"]) == 2
    _one_line_error(capsys, "--protocol winrate", "two or more")
    with pytest.raises(ValueError, match="two or more systems"):
        table2(load_questions(Q), {"full": {"2hop__q1": "x"}},
               Judge(_ByNumber(), show_progress=False), "winrate")


# ------------------------------------------------------------------ 14: metric edge cases
def test_answer_in_context_never_matches_across_the_title_text_boundary() -> None:
    assert not answer_in_context(["Hank Snow"], ["Hank\nSnow wrote it"])
    assert answer_in_context(["Hank Snow"], ["Singers\nHank Snow wrote it"])
    assert answer_in_context(["Hank Snow"], ["Hank Snow\nwrote it"])  # the title itself


def test_gold_holding_citation_like_groups_can_match() -> None:
    assert exact_match("Henry V (H2)", ["Henry V (H2)"]) == 1.0
    assert exact_match("Henry V", ["Henry V (H2)"]) == 1.0
    assert token_f1("Henry V [3]", ["Henry V [3]"]) == 1.0
    assert contains_answer("It was Henry V.", ["Henry V (H2)"])


def test_gold_with_nothing_to_match_is_left_out_with_a_note(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    q = _jsonl(tmp_path / "q.jsonl", [{"id": "a", "question": "A?", "answers": ["[3]"]},
                                      {"id": "b", "question": "B?", "answers": ["!", "The"]},
                                      {"id": "c", "question": "C?", "answers": ["Paris"]}])
    s = score_answers(load_questions(q), {"a": "x", "b": "y", "c": "Paris"})
    assert s.overall.n == 1 and s.overall.em == 1.0 and s.unscorable == ["a", "b"]
    ans = _jsonl(tmp_path / "s.jsonl", [{"id": "c", "question": "C?", "answer": "Paris"}])
    assert main(["eval", "table", "4", "--questions", q, "--systems", ans, "--json"]) == 0
    t = json.loads(capsys.readouterr().out)
    assert t["rows"][0][1:3] == ["100.0", "100.0"]
    assert any(n.startswith("2 questions left out: their gold answers hold nothing")
               for n in t["notes"])


@pytest.mark.parametrize("row, loader", [
    ({"id": None, "question": "Q?"}, load_questions),
    ({"id": "", "question": "Q?"}, load_questions),
    ({"id": None, "answer": "x"}, load_answers),
    ({"id": ["1"], "answer": "x"}, load_answers),
])
def test_null_or_odd_ids_are_refused(row: dict[str, Any], loader: Any, tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "f.jsonl", [{"id": "ok", "question": "Q?", "answer": "x"}, row])
    with pytest.raises(ValueError, match=r"f\.jsonl:2: \"id\" must be a non-empty string"):
        loader(path)


def test_non_string_answers_are_refused_numbers_kept(tmp_path: Path) -> None:
    for value in (True, ["x"], {"a": 1}):
        path = _jsonl(tmp_path / "a.jsonl", [{"id": "1", "answer": "x"},
                                             {"id": "2", "answer": value}])
        with pytest.raises(ValueError, match=r"a\.jsonl:2: \"answer\" must be a string"):
            load_answers(path)
    path = _jsonl(tmp_path / "n.jsonl", [{"id": 7, "answer": 1836}, {"id": "8", "answer": None}])
    assert [(r.id, r.answer) for r in load_answers(path)] == [("7", "1836"), ("8", "")]
