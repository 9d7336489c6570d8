"""``vizrag query --questions``: JSONL, or one JSON list of the same objects (what a script
often writes); anything else is refused naming the format, before any question is asked."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.cli.questions import load_questions

DATA = Path(__file__).parent / "data" / "musique_sample.json"


def test_a_json_list_reads_as_its_items(tmp_path: Path) -> None:
    path = tmp_path / "qa.json"
    path.write_text(json.dumps([{"id": "a", "question": "Who founded Publix?"},
                                {"question": "Where is Lakeland?"}], indent=2),
                    encoding="utf-8")
    assert load_questions(str(path)) == [("a", "Who founded Publix?"),
                                         ("2", "Where is Lakeland?")]


def test_plain_lines_are_refused_naming_the_format(tmp_path: Path) -> None:
    path = tmp_path / "q.txt"
    path.write_text("Who founded Publix?\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r'q.txt:1: not JSON \(Expecting value\); JSONL: one '
                                         r'\{"id", "question"\} object per line, or a JSON '
                                         r"list of them"):
        load_questions(str(path))
    path.write_text('"Who founded Publix?"\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r'q.txt:1: expected an object with a "question" '
                                         r"\(JSONL: one"):
        load_questions(str(path))


def test_the_cli_answers_a_json_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    assert main(["index", str(DATA), "--store", str(store), "--no-progress"]) == 0
    questions = tmp_path / "qa.json"
    questions.write_text(json.dumps([{"id": "q1", "question": "Who founded Publix?"}]),
                         encoding="utf-8")
    capsys.readouterr()
    assert main(["query", "--store", str(store), "--questions", str(questions), "--json",
                 "--no-progress"]) == 0
    line = json.loads(capsys.readouterr().out.splitlines()[-1])
    assert line["id"] == "q1" and line["chunks"]
