"""``vizrag documents``: what a store holds, one line per document, so an ops script can
find the ids ``vizrag delete`` takes (``doc-<hash>`` for JSON records without an id)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main


def test_documents_lists_ids_chunks_titles_and_sources(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Tab\there\n\nAda Lovelace wrote programs.\n", encoding="utf-8")
    corpus = tmp_path / "c.json"
    corpus.write_text(json.dumps([{"title": "Bern", "text": "Bern is a city."}]),
                      encoding="utf-8")
    store = tmp_path / "s"
    assert main(["index", str(notes), str(corpus), "--store", str(store), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["documents", "--store", str(store)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2 and all(len(line.split("\t")) == 4 for line in lines)
    assert lines[0] == f"a\t1\tTab here\t{notes / 'a.md'}"  # sorted by id
    assert lines[1].startswith("doc-") and lines[1].endswith("\t1\tBern\t")
    assert main(["documents", "--store", str(store), "--json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert rows[0] == {"id": "a", "title": "Tab here", "source": str(notes / "a.md"),
                       "chunks": 1}
    doc_id = rows[1]["id"]
    assert main(["delete", "--store", str(store), doc_id]) == 0
    capsys.readouterr()
    assert main(["documents", "--store", str(store), "--json"]) == 0
    assert [json.loads(line)["id"] for line in capsys.readouterr().out.splitlines()] == ["a"]


def test_documents_of_no_store_is_exit_2(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["documents", "--store", str(tmp_path / "none")]) == 2
    assert "no VizRAG store at" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()
