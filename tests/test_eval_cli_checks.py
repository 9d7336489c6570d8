"""``vizrag eval`` input checks and failures: numeric options, a failing answer model, answers
of other questions, an all-invalid judge, text that is no valid Unicode (offline fakes)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rag_fakes import demo_documents

from hyperviz_core.cli import main
from hyperviz_core.eval import load_questions, write_answers
from hyperviz_core.rag import VizRAG

DATA = Path(__file__).parent / "data" / "eval"
Q = str(DATA / "questions.jsonl")


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("evalstore")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(0, 8))
    return path


def _one_line_error(capsys: pytest.CaptureFixture[str], start: str) -> str:
    err = capsys.readouterr().err
    assert err.startswith(start), err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


@pytest.mark.parametrize("option, value", [
    ("--limit", "0"), ("--limit", "-1"), ("--top-k", "0"), ("--concurrency", "0"),
    ("--max-retries", "-1"),
])
def test_generate_numeric_options_are_checked(option: str, value: str, store: Path,
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["eval", "generate", "--store", str(store), "--questions", Q, "--modes", "naive",
              "--out", str(tmp_path / "out"), option, value, "--no-progress"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {option}: must be >= " in err and "pydantic" not in err.lower()
    assert not (tmp_path / "out").exists()


def test_table_n_and_judge_limit_are_checked(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["eval", "table", "3", "--from", "x", "--out", "y", "--n", "0"],
                 ["eval", "judge", "--questions", Q, "--systems", Q, Q, "--judge", "j",
                  "--limit", "0"]):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        assert exit_.value.code == 2 and "must be >= 1" in capsys.readouterr().err
    with pytest.raises(ValueError, match="limit must be >= 1"):
        load_questions(Q, limit=0)


def test_generate_with_a_failing_model_is_one_line(store: Path, tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "generate", "--store", str(store), "--questions", Q, "--modes",
                 "naive", "--llm", "python:eval_fakes:Down", "--max-retries", "0",
                 "--out", str(tmp_path / "out"), "--no-progress"])
    assert code == 2
    err = _one_line_error(capsys, "vizrag eval: error: answer model failed: ")
    assert "HTTP 401: bad key" in err


def test_a_question_with_a_lone_surrogate_keeps_the_old_answers(
        store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ans"
    write_answers(out / "naive.jsonl", [{"id": "1", "question": "q", "answer": "kept"}])
    before = (out / "naive.jsonl").read_bytes()
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "u1", "question": "Who?"}\n'
                         '{"id": "u4", "question": "Who \\ud800?"}\n')
    code = main(["eval", "generate", "--store", str(store), "--questions", str(questions),
                 "--modes", "naive", "--out", str(out), "--no-progress"])
    assert code == 2
    err = _one_line_error(capsys, f"vizrag eval: error: {questions}:2: ")
    assert "unpaired surrogate" in err
    assert (out / "naive.jsonl").read_bytes() == before
    with pytest.raises(ValueError, match="unpaired surrogate"):
        write_answers(out / "naive.jsonl", [{"id": "1", "question": "q", "answer": "\udc80"}])
    assert (out / "naive.jsonl").read_bytes() == before
    assert sorted(p.name for p in out.iterdir()) == ["naive.jsonl"]


def test_answers_with_line_separators_round_trip(tmp_path: Path) -> None:
    from hyperviz_core.eval import load_answers

    path = write_answers(tmp_path / "a.jsonl", [{"id": "1", "answer": "one\u2028two\x85"}])
    assert [a.answer for a in load_answers(path)] == ["one\u2028two\x85"]


def _judge(tmp_path: Path, fake: str) -> list[str]:
    return ["--judge", f"python:eval_fakes:{fake}", "--cache", str(tmp_path / "j.sqlite"),
            "--no-progress"]


def test_judge_refuses_answers_of_other_questions(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "x1", "answer": "Iron Maiden"}) + "\n")
    code = main(["eval", "judge", "--questions", Q, "--systems", str(DATA / "gold.jsonl"),
                 str(other), *_judge(tmp_path, "AlwaysFirst")])
    assert code == 2
    _one_line_error(capsys, "vizrag eval: error: the answers of 'other' match none of the 4")


def test_judge_warns_about_missing_answers(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "judge", "--questions", Q, "--systems", str(DATA / "gold.jsonl"),
                 str(DATA / "partial.jsonl"), *_judge(tmp_path, "AlwaysFirst")])
    assert code == 0
    io = capsys.readouterr()
    assert ("vizrag eval judge: warning: questions without an answer, not judged: gold 0, "
            "partial 1") in io.err
    assert "3 questions judged, 6 judge calls, 0 invalid" in io.out
    assert "partial 1" in io.out


def test_judge_with_every_call_invalid_exits_2(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "judge", "--questions", Q, "--systems", str(DATA / "gold.jsonl"),
                 str(DATA / "empty.jsonl"), *_judge(tmp_path, "Garbage"), "--no-cache"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1] == (
        "vizrag eval: error: every judge verdict was invalid (8 calls failed or gave "
        "unreadable replies); nothing to report")


def test_tables_refuse_answers_of_other_questions_and_note_missing_ones(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Tables 2 and 4 scored another question set's answers as zeros (exit 0); Table 2
    without a judge said nothing of missing answers."""
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps({"id": "x1", "answer": "Iron Maiden"}) + "\n")
    for table in ("2", "4"):
        assert main(["eval", "table", table, "--questions", Q, "--systems",
                     str(DATA / "gold.jsonl"), str(other)]) == 2
        _one_line_error(capsys, "vizrag eval: error: the answers of 'other' match none of")
    assert main(["eval", "table", "2", "--questions", Q, "--systems", str(DATA / "gold.jsonl"),
                 str(DATA / "partial.jsonl")]) == 0
    out = capsys.readouterr().out
    assert "4 questions with gold answers." in out and "partial: 1 questions had no answer" in out
