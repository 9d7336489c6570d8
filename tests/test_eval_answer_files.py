"""Answers and question files as an evaluating user writes them: a misspelt ``"answer"``
key is an error naming the line (it scored as an empty answer, every figure 0), a file that
is not UTF-8 names the line and column of the first bad byte, and answers generated from an
engine opened without a progress bar draw none."""

from __future__ import annotations

from pathlib import Path

import pytest
from rag_fakes import demo_documents

from hyperviz_core.cli import main
from hyperviz_core.eval import generate_answers, load_answers, load_questions
from hyperviz_core.rag import VizRAG

DATA = Path(__file__).parent / "data" / "eval"


def test_an_answer_line_without_answer_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "typo.jsonl"
    path.write_text('{"id": "a", "answer": null}\n{"id": "b", "prediction": "Paris"}\n',
                    encoding="utf-8")
    with pytest.raises(ValueError, match=r'typo.jsonl:2: no "answer" \(null for an empty '
                                         r'answer\); its keys: "id", "prediction"'):
        load_answers(path)
    path.write_text('{"id": "a", "answer": null}\n', encoding="utf-8")
    assert load_answers(path)[0].answer == ""  # null is still an empty answer


def test_the_cli_says_which_line_lacks_an_answer(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": "q1", "question": "Where?", "answers": ["Paris"]}\n',
                         encoding="utf-8")
    answers = tmp_path / "typo.jsonl"
    answers.write_text('{"id": "q1", "prediction": "Paris"}\n', encoding="utf-8")
    assert main(["eval", "table", "4", "--questions", str(questions), "--systems",
                 str(answers)]) == 2
    assert 'typo.jsonl:1: no "answer"' in capsys.readouterr().err


def test_a_file_not_in_utf8_names_the_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "latin1.jsonl"
    path.write_bytes('{"id": "a", "question": "ok", "answers": ["x"]}\n'
                     '{"id": "b", "question": "Caf\u00e9?", "answers": ["y"]}\n'.encode("latin-1"))
    with pytest.raises(ValueError, match=r"latin1.jsonl:2: not UTF-8 text \(byte 0xe9 at "
                                         r"column 29; save the file as UTF-8\)"):
        load_questions(path)


def test_generated_answers_follow_the_engines_progress_setting(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(demo_documents(0, 4))
        questions = load_questions(DATA / "questions.jsonl", limit=2)
        got = generate_answers(rag, questions, "naive")
        assert len(got) == 2 and capsys.readouterr().err == ""
        generate_answers(rag, questions, "naive", show_progress=True)
        assert "answers (naive)" in capsys.readouterr().err
