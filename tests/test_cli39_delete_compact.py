"""``vizrag delete --compact``: the query-ready step comes after the compaction (which
renumbers what queries keep), the deletion is said before it, and the bytes freed are
never negative."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path

import pytest

from hyperviz_core.cli import main

DATA = Path(__file__).parent / "data" / "musique_sample.json"


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    docs = [{"id": f"p{p['idx']}", "title": p["title"], "text": p["text"]}
            for p in json.loads(DATA.read_text())]
    src = tmp_path / "c.jsonl"
    src.write_text("\n".join(json.dumps(d) for d in docs), "utf-8")
    assert main(["index", str(src), "--store", str(tmp_path / "s"), "--no-progress"]) == 0
    return tmp_path / "s"


def _kept_state(store: Path) -> tuple[int, int]:
    """(the store's write counter, the one the kept query arrays were made at)."""
    with sqlite3.connect(store / "vizrag.sqlite") as conn:
        writes = conn.execute("SELECT value FROM meta WHERE key = 'writes'").fetchone()[0]
        kept = conn.execute("SELECT state FROM vizrag_state_arrays_v1 WHERE name = "
                            "'catalogue'").fetchone()[0]
    return int(writes), int(json.loads(kept)[1])


def test_delete_compact_leaves_the_store_query_ready(
        store: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.rag.retrieve import retriever

    monkeypatch.setattr(retriever, "LAZY_MIN_CHUNKS", 0)  # a small store read lazily
    capsys.readouterr()
    assert main(["delete", "--store", str(store), "p26", "--compact"]) == 0
    out = capsys.readouterr().out
    assert out.index("deleted 1 document") < out.index("compacted ")
    assert float(re.search(r": (-?[\d.]+) MiB freed", out)[1]) >= 0  # type: ignore[index]
    writes, kept = _kept_state(store)
    assert writes == kept  # what queries keep is of the store as compacted
    assert main(["delete", "--store", str(store), "--compact"]) == 0
    writes, kept = _kept_state(store)
    assert writes == kept


def test_deleting_a_file_stored_as_parts_names_its_parts(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    book = tmp_path / "books" / "novel.txt"
    book.parent.mkdir()
    book.write_text("\n\n".join(f"Chapter {i}. Ada met Charles in London." * 20
                                for i in range(40)), "utf-8")
    store = tmp_path / "s"
    assert main(["index", str(book.parent), "--store", str(store), "--no-progress",
                 "--part-kb", "8"]) == 0
    capsys.readouterr()
    assert main(["delete", "--store", str(store), "novel"]) == 1
    err = capsys.readouterr().err
    assert re.search(r"no document 'novel' in .*; its file is stored as (\d+) parts: give "
                     r"their ids, novel#part00001 \.\.\. novel#part000\d\d", err), err
