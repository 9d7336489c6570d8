"""Ids taken from file names are NFC: a file macOS named decomposed (``Mu\\u0308ller.md``)
gets the id typed on any keyboard (``M\\u00fcller``), so ``vizrag delete Müller`` finds it;
a store indexed before with the decomposed id keeps no second copy when the folder is
indexed again."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from cli_helpers import index_quietly, stored_ids

import hyperviz_core.rag.index.textfiles as textfiles
from hyperviz_core.cli import main
from hyperviz_core.rag import load_documents
from hyperviz_core.rag.index.loaders import iter_sourced_documents

NFC = "Müller"
NFD = unicodedata.normalize("NFD", NFC)


_ids, _index = stored_ids, index_quietly


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    """A folder made on macOS: decomposed names, a sub-folder among them."""
    folder = tmp_path / "notes"
    (folder / "Bu\u0308ro").mkdir(parents=True)
    (folder / f"{NFD}.md").write_text("Herr Müller wohnt in Zürich.\n")
    (folder / "Bu\u0308ro" / "Ka\u0308se.txt").write_text("Käse aus dem Büro.\n")
    (folder / "other.md").write_text("Other text about Basel.\n")
    return folder


def test_ids_from_decomposed_names_are_composed(notes: Path) -> None:
    docs = load_documents([notes])
    assert sorted(d.id for d in docs) == ["Büro/Käse", NFC, "other"]
    assert all(unicodedata.is_normalized("NFC", d.id) for d in docs)
    assert {d.metadata["source"] for d in docs} >= {str(notes / f"{NFD}.md")}  # as found
    [direct] = load_documents([notes / f"{NFD}.md"])
    assert direct.id == NFC
    parts = [d.id for d, _ in iter_sourced_documents([notes / f"{NFD}.md"], part_bytes=8)]
    assert parts == [f"{NFC}#part00001"]


def test_delete_by_the_typed_name(notes: Path, tmp_path: Path,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    assert _index(str(notes), "--store", str(store)) == 0
    assert main(["delete", NFC, "--store", str(store)]) == 0
    assert _ids(store) == ["Büro/Käse", "other"]


def test_a_store_with_the_decomposed_id_keeps_no_duplicate(
        notes: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    with monkeypatch.context() as m:  # indexed before ids were NFC
        m.setattr(textfiles, "nfc", lambda s: s)
        assert _index(str(notes), "--store", str(store)) == 0
    assert _ids(store) == sorted(["Bu\u0308ro/Ka\u0308se", NFD, "other"])
    capsys.readouterr()
    assert _index(str(notes), "--store", str(store), "--json") == 0
    rep = json.loads(capsys.readouterr().out)
    assert _ids(store) == ["Büro/Käse", NFC, "other"]  # the old documents removed
    assert rep["documents_added"] == 2
    assert main(["check", "--store", str(store)]) == 0


def test_prune_missing_removes_a_decomposed_file_gone(notes: Path, tmp_path: Path) -> None:
    store = tmp_path / "store"
    assert _index(str(notes.resolve()), "--store", str(store)) == 0
    (notes / f"{NFD}.md").unlink()
    assert _index(str(notes.resolve()), "--store", str(store), "--prune-missing") == 0
    assert _ids(store) == ["Büro/Käse", "other"]
