"""A store whose schema text is damaged into bytes that are not UTF-8 is named as damaged
(stop 69).

SQLite quotes the damaged schema in its error message, which Python's ``sqlite3`` fails to
decode: before, every command on such a store (``vizrag query``, ``index``, even ``check``)
ended with ``error: 'utf-8' codec can't decode byte 0xff in position 50``, naming neither the
store nor what to do, and ``open_store`` raised that ``UnicodeDecodeError``. Found by
changing bytes of a store at random.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from cli_helpers import index_quietly, one_line_error, run_cli

from hyperviz_core.rag.store import open_store
from hyperviz_core.rag.store.base import StoreError

NOT_UTF8 = "is not a usable VizRAG store (damaged or not SQLite: it holds text that is not UTF-8"


@pytest.fixture
def damaged_store(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    text = tmp_path / "serat.txt"
    text.write_text("Mount Kalvar is a volcano on the island of Serat.\n", encoding="utf-8")
    store = tmp_path / "s.db"
    assert index_quietly(str(text), "--store", str(store)) == 0
    capsys.readouterr()
    data = bytearray(store.read_bytes())
    at = data.index(b"CREATE TABLE")
    data[at + 10] = 0xFF  # CREATE TAB\xffE: SQLite's "malformed schema" error quotes it
    store.write_bytes(bytes(data))
    return store


@pytest.mark.parametrize("read_only", [True, False])
def test_opening_it_is_a_store_error(damaged_store: Path, read_only: bool) -> None:
    with pytest.raises(StoreError, match=re.escape(NOT_UTF8)):
        open_store(damaged_store, read_only=read_only)


@pytest.mark.parametrize("command", [["query", "Which island?"], ["index"], ["stats"]])
def test_each_command_says_the_store_is_damaged(damaged_store: Path,
                                                command: list[str]) -> None:
    args = [*command, str(damaged_store.parent / "serat.txt")] if command == ["index"] \
        else command
    one_line_error(run_cli([*args, "--store", str(damaged_store)]), NOT_UTF8,
                   str(damaged_store))


def test_vizrag_check_says_it_is_damaged(damaged_store: Path) -> None:
    code, out, err = run_cli(["check", "--store", str(damaged_store)])
    assert code == 1 and "Traceback" not in err
    assert out.startswith(f"damaged: {damaged_store}: 1 problem(s)") and NOT_UTF8 in out
