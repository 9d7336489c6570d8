"""``vizrag index FOLDER --prune-missing``: documents of files deleted or renamed since they
were indexed are removed; documents of other folders, of files given directly and of other
inputs are never touched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import index_quietly, stored_ids

from hyperviz_core.cli import main

TEXTS = {
    "alpha.md": "The Nimbus Society was founded by Ada Quill in Leyton in 1921.",
    "beta.md": "Beta Station lies north of the Nimbus Society's observatory.",
    "gamma.md": "Gamma Street in Leyton hosts the annual kite fair.",
}


_ids, _index = stored_ids, index_quietly


def _indexed_relative(folder: str, store: str) -> None:
    """``folder`` indexed by a relative path, as ``vizrag index FOLDER`` did before it read
    folders by absolute path (2026-12-04): documents with relative sources."""
    from hyperviz_core.rag import DocumentStream
    from hyperviz_core.rag.index.indexer import Indexer

    indexer = Indexer(store, show_progress=False)
    try:
        assert indexer.index(DocumentStream([folder])).documents_added
    finally:
        indexer.store.close()


def test_deleted_and_renamed_files_are_pruned(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    notes, other, store = tmp_path / "notes", tmp_path / "other", tmp_path / "store"
    notes.mkdir()
    other.mkdir()
    for name, text in TEXTS.items():
        (notes / name).write_text(text)
    (other / "kept.md").write_text("Kept Hall was built in 1850 by the Quill family.")
    loose = tmp_path / "loose.md"
    loose.write_text("Loose notes on Ada Quill's kites.")
    assert _index(str(notes), str(other), str(loose), "--store", str(store)) == 0
    before = _ids(store)
    assert before == ["alpha", "beta", "gamma", "kept", "loose"]
    (notes / "alpha.md").rename(notes / "alpha-renamed.md")
    (notes / "beta.md").unlink()
    (other / "kept.md").unlink()  # another folder: not pruned by a run over notes/
    loose.unlink()  # a file given directly: not pruned
    capsys.readouterr()
    assert _index(str(notes), "--store", str(store)) == 0  # without the flag: all stay
    assert _ids(store) == ["alpha", "alpha-renamed", "beta", "gamma", "kept", "loose"]
    assert _index(str(notes), "--store", str(store), "--prune-missing") == 0
    out = capsys.readouterr().out
    assert "removed 2 whose files are gone: alpha, beta" in out
    assert "store: documents 4," in out  # the counts after the deletes
    assert _ids(store) == ["alpha-renamed", "gamma", "kept", "loose"]
    assert main(["check", "--store", str(store)]) == 0
    capsys.readouterr()
    assert _index(str(notes), "--store", str(store), "--prune-missing", "--json") == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["files_gone"] == [] and rep["documents_removed"] == 0


def test_relative_sources_are_never_pruned_and_a_pruning_run_records_absolute_ones(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
        ) -> None:
    """A relative source names a file only with the directory its run started in, which the
    store does not know: it is never pruned. A run with --prune-missing reads its folders
    by absolute path, so from then on their files can be."""
    (tmp_path / "notes").mkdir()
    for name, text in TEXTS.items():
        (tmp_path / "notes" / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    _indexed_relative("notes", "store")  # relative sources
    (tmp_path / "notes" / "gamma.md").unlink()
    capsys.readouterr()
    assert _index("notes", "--store", "store", "--prune-missing", "--json") == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["files_gone"] == [] and rep["documents_replaced"] == 2  # now absolute
    assert _ids(tmp_path / "store") == ["alpha", "beta", "gamma"]
    (tmp_path / "notes" / "beta.md").unlink()
    assert _index("notes", "--store", "store", "--prune-missing", "--json") == 0
    assert json.loads(capsys.readouterr().out)["files_gone"] == ["beta"]
    assert _ids(tmp_path / "store") == ["alpha", "gamma"]


def test_a_same_named_folder_elsewhere_prunes_nothing_of_the_other(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``notes/keep.md`` indexed from /A, then /B's own ``notes/`` with --prune-missing:
    A's document names no file of B's folder (its relative source is not B's)."""
    for side, name in (("A", "keep.md"), ("B", "other.md")):
        (tmp_path / side / "notes").mkdir(parents=True)
        (tmp_path / side / "notes" / name).write_text(TEXTS["alpha.md"] + side)
    monkeypatch.chdir(tmp_path / "A")
    assert _index("notes", "--store", "../store") == 0
    monkeypatch.chdir(tmp_path / "B")
    capsys.readouterr()
    assert _index("notes", "--store", "../store", "--prune-missing", "--json") == 0
    assert json.loads(capsys.readouterr().out)["files_gone"] == []
    assert _ids(tmp_path / "store") == ["keep", "other"]


def test_prune_missing_needs_a_folder(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    doc = tmp_path / "a.md"
    doc.write_text(TEXTS["alpha.md"])
    assert _index(str(doc), "--store", str(tmp_path / "s"), "--prune-missing") == 2
    assert "give a folder among the paths" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_a_relative_source_from_another_directory_is_not_this_folders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """``notes/keep.md``, indexed from the parent, resolves inside ``proj/`` when read from
    ``proj/``: it is not a file ``proj/`` gives (that would be ``keep.md``), so it stays."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "proj").mkdir()
    (tmp_path / "notes" / "keep.md").write_text(TEXTS["alpha.md"])
    (tmp_path / "proj" / "p.md").write_text(TEXTS["gamma.md"])
    monkeypatch.chdir(tmp_path)
    assert _index("notes", "--store", "store") == 0
    monkeypatch.chdir(tmp_path / "proj")
    capsys.readouterr()
    assert _index(".", "--store", "../store", "--prune-missing", "--json") == 0
    assert json.loads(capsys.readouterr().out)["files_gone"] == []
    assert _ids(tmp_path / "store") == ["keep", "p"]


def test_a_relative_source_gone_is_named_not_removed(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """A file indexed by a relative path and deleted before any --prune-missing run: never
    pruned (the store does not know the directory it was indexed from), but named, so it
    is not stuck silently."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "alpha.md").write_text("# Alpha\n\nAlpha Team works in Oslo.\n")
    (tmp_path / "notes" / "beta.md").write_text("# Beta\n\nBeta Team works in Bergen.\n")
    _indexed_relative("notes", "s")
    (tmp_path / "notes" / "beta.md").unlink()
    capsys.readouterr()
    assert _index("notes", "--store", "s", "--prune-missing") == 0
    assert ("  not removed: 1 stored from a relative path whose file is not found from here: "
            "beta (") in capsys.readouterr().out
    assert _ids(tmp_path / "s") == ["alpha", "beta"]
    assert _index("notes", "--store", "s", "--prune-missing", "--json") == 0
    assert json.loads(capsys.readouterr().out)["files_unchecked"] == ["beta"]


def test_plain_and_pruning_runs_record_one_source(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A plain run recorded relative sources and a --prune-missing run absolute ones, so each
    switch between them re-extracted every document (a scale review, 2026-12-04: 47 s instead
    of 5 s on 8,211 documents); ``../x/notes`` was a third spelling."""
    (tmp_path / "x" / "notes").mkdir(parents=True)
    for name, text in TEXTS.items():
        (tmp_path / "x" / "notes" / name).write_text(text)
    monkeypatch.chdir(tmp_path / "x")
    assert _index("notes", "--store", "st") == 0
    for args in (("notes", "--prune-missing"), ("notes",), ("../x/notes", "--prune-missing"),
                 ("./notes/",)):
        capsys.readouterr()
        assert _index(*args, "--store", "st", "--json") == 0
        rep = json.loads(capsys.readouterr().out)
        assert (rep["documents_skipped"], rep["documents_replaced"]) == (3, 0), args


def test_a_prune_only_run_says_what_it_removed_once(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A run that only pruned began "2 documents already indexed, unchanged" and counted the
    deletion twice ("1 stale removed" and "removed 1 whose files are gone")."""
    notes = tmp_path / "notes"
    notes.mkdir()
    for name, text in TEXTS.items():
        (notes / name).write_text(text)
    assert _index(str(notes), "--store", str(tmp_path / "st")) == 0
    (notes / "gamma.md").unlink()
    capsys.readouterr()
    assert _index(str(notes), "--store", str(tmp_path / "st"), "--prune-missing") == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("2 documents already indexed, unchanged; removed 1 "
                                          "document whose file is gone, in ")
    assert "stale removed" not in out and "removed 1 whose files are gone: gamma" in out
