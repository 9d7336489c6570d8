"""``vizrag query`` reads a questions file, or standard input, that starts with a UTF-8
byte-order mark, and names a questions file that is not UTF-8 (stop 69).

Before, a file saved as "UTF-8 with BOM" (Notepad, Excel, Windows PowerShell 5's
``Out-File -Encoding utf8``) was refused: ``q.jsonl:1: not JSON (Unexpected UTF-8 BOM
(decode using utf-8-sig))``; piped, the same; a question piped with one began with
U+FEFF; and a file that is not UTF-8 said only ``'utf-8' codec can't decode byte 0xff in
position 0``, without its name. Found fuzzing the questions reader.
"""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest
from cli_helpers import index_quietly, one_line_error, run_cli

BOM = b"\xef\xbb\xbf"


@pytest.fixture
def store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    text = tmp_path / "serat.txt"
    text.write_text("Mount Kalvar is a volcano on the island of Serat.\n", encoding="utf-8")
    assert index_quietly(str(text), "--store", str(tmp_path / "s.db")) == 0
    capsys.readouterr()
    return tmp_path / "s.db"


def _stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def _asked(out: str) -> list[str]:
    return [json.loads(line)["question"] for line in out.splitlines() if line.strip()]


def test_a_questions_file_with_a_byte_order_mark(tmp_path: Path, store: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_bytes(BOM + b'{"id": "k", "question": "Which island is Mount Kalvar on?"}\n')
    code, out, _ = run_cli(["query", "--questions", str(path), "--store", str(store),
                            "--json"])
    assert code == 0 and _asked(out) == ["Which island is Mount Kalvar on?"]
    path.write_bytes(BOM + b'[{"question": "Which island?"}]')  # a JSON list too
    code, out, _ = run_cli(["query", "--questions", str(path), "--store", str(store),
                            "--json"])
    assert code == 0 and _asked(out) == ["Which island?"]


def test_questions_and_a_question_piped_with_one(store: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    _stdin(monkeypatch, BOM + b'{"question": "Which island?"}\n')
    code, out, _ = run_cli(["query", "--questions", "-", "--store", str(store), "--json"])
    assert code == 0 and _asked(out) == ["Which island?"]
    _stdin(monkeypatch, BOM + b"Which island is Mount Kalvar on?\n")
    code, out, _ = run_cli(["query", "-", "--store", str(store), "--json"])
    assert code == 0 and _asked(out) == ["Which island is Mount Kalvar on?"]


def test_a_questions_file_that_is_not_utf8_is_named(tmp_path: Path, store: Path) -> None:
    path = tmp_path / "q.jsonl"
    path.write_bytes('{"question": "Où est Serat ?"}\n'.encode("cp1252"))
    one_line_error(run_cli(["query", "--questions", str(path), "--store", str(store)]),
                   f"{path}:1: not UTF-8 text (byte 0xf9 at column 16; save the file as UTF-8)")
