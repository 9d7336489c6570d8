"""Table 4 says what it leaves out: questions without gold answers (a misspelt gold key) are
counted in a note naming the keys read, a ``"qid"`` questions file is refused naming the
``"id"`` key, and contexts for only some systems keep the answer-in-context column. Offline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.eval import Question, load_questions, table4


def _qs() -> list[Question]:
    return [Question(id="2hop__a", question="Where?", answers=["Paris"]),
            Question(id="2hop__b", question="Who?", answers=["Ann"]),
            Question(id="2hop__c", question="What?")]  # no gold


def test_table4_notes_questions_dropped_for_no_gold() -> None:
    t = table4(_qs(), {"s": {"2hop__a": "Paris", "2hop__b": "Bob", "2hop__c": "x"}})
    note = next(n for n in t.notes if "left out" in n)
    assert note.startswith("1 of 3 questions left out: no gold answers")
    assert '"answers" (a list) or "answer"' in note and '"gold"' in note


def test_no_gold_error_names_the_accepted_keys(tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"id": "a", "question": "q?", "gold": ["35"]}) + "\n",
                 encoding="utf-8")
    a = tmp_path / "s.jsonl"
    a.write_text(json.dumps({"id": "a", "question": "q?", "answer": "35"}) + "\n",
                 encoding="utf-8")
    assert main(["eval", "table", "4", "--questions", str(q), "--systems", str(a)]) == 2
    err = capsys.readouterr().err
    assert "no question has gold answers" in err and '"answers" (a list) or "answer"' in err


def test_a_qid_questions_file_is_refused_naming_the_id_key(tmp_path: Path) -> None:
    q = tmp_path / "q.jsonl"
    q.write_text(json.dumps({"qid": "a", "question": "q?", "answers": ["x"]}) + "\n",
                 encoding="utf-8")
    with pytest.raises(ValueError, match=r"q.jsonl:1: no \"id\" but 'qid': the id key is "
                                         r"\"id\""):
        load_questions(q)


def test_contexts_for_some_systems_keep_the_column() -> None:
    qs = _qs()[:2]
    answers = {"a": {"2hop__a": "Paris", "2hop__b": "Ann"}, "b": {"2hop__a": "Rome"}}
    t = table4(qs, answers, contexts={"a": {"2hop__a": ["Paris is big."], "2hop__b": []}})
    assert t.headers[-1] == "answer in context"
    assert t.rows[0][-1] == "50.0" and t.rows[1][-1] == "-"
    assert "answer in context: '-' for b (no retrieved contexts given)" in t.notes
