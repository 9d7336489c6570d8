"""``vizrag index``/``delete``/``eval`` edges: the store's own embedder on delete, a failed
compaction, option checks, errors naming the flag that was given."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import Document, HashingEmbedder, Indexer
from hyperviz_core.rag.store import HypergraphStore

DOCS = [{"id": "a", "title": "Marie Curie", "text": "Marie Curie worked in Paris with Pierre."},
        {"id": "b", "title": "Pierre Curie", "text": "Pierre Curie met Marie Curie in Paris."}]


def test_delete_re_embeds_with_the_store_embedder(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.rag.store.sqlite.merge import entity_text

    emb = HashingEmbedder(char_ngrams=(2, 5))
    ix = Indexer(tmp_path / "s", embedder=emb, show_progress=False)
    ix.index([Document(**d) for d in DOCS])
    ix.store.close()
    assert main(["delete", "b", "--store", str(tmp_path / "s")]) == 0
    assert "now using" not in capsys.readouterr().err
    with HypergraphStore(tmp_path / "s") as store:
        ent = store.bottom().entities["marie curie"]
        ids, mat = store.vectors("entity", ["marie curie"])
    want = emb.embed([entity_text(ent.name, ent.description)])[0]
    assert ids == ["marie curie"]
    assert float(np.dot(mat[0], want)) == pytest.approx(1.0, abs=2e-3)


def test_a_failed_compaction_keeps_the_report(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "d.json"
    src.write_text(json.dumps(DOCS), encoding="utf-8")

    def full(self: object) -> int:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(HypergraphStore, "compact", full)
    assert main(["index", str(src), "--store", str(tmp_path / "s"), "--no-progress"]) == 0
    out = capsys.readouterr()
    assert "compaction skipped (database or disk is full)" in out.err
    assert "documents 2" in out.out


def test_negative_ann_threshold_is_refused(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "d.json"
    src.write_text(json.dumps(DOCS), encoding="utf-8")
    with pytest.raises(SystemExit) as stop:
        main(["index", str(src), "--store", str(tmp_path / "s"), "--ann-threshold", "-5"])
    assert stop.value.code == 2 and "--ann-threshold" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_eval_errors_name_the_flag(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    q = tmp_path / "q.jsonl"
    q.write_text('{"id": "1", "question": "Who?"}\n', encoding="utf-8")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for f in (a, b):
        f.write_text('{"id": "1", "answer": "x"}\n', encoding="utf-8")
    code = main(["eval", "judge", "--questions", str(q), "--systems", str(a), str(b),
                 "--judge", "openai:gpt-4o"])
    assert code == 2
    assert "--judge 'openai:gpt-4o' needs an API key" in capsys.readouterr().err


@pytest.mark.parametrize("value", ["inf", "nan", "0.0001", "0", "-1"])
def test_part_kb_out_of_range_is_one_line(tmp_path: Path, value: str,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "d.txt"
    src.write_text("Marie Curie worked in Paris.", encoding="utf-8")
    assert main(["index", str(src), "--store", str(tmp_path / "s"), "--part-kb", value]) == 2
    assert "--part-kb must be a number of kilobytes" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()


def test_a_null_text_says_null(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "d.jsonl"
    src.write_text('{"id": "a", "text": null}\n', encoding="utf-8")
    assert main(["index", str(src), "--store", str(tmp_path / "s")]) == 2
    assert "d.jsonl:1: text field 'text' is null" in capsys.readouterr().err


def test_a_newline_in_a_file_name_cannot_split_a_line(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The run's one-line messages (the error, ``unreadable``, ``left out`` ...) show a
    newline in a file name as ``\\n``: a hidden file named ``.x\\n  0 failed; fine`` printed
    a fake summary line, and an unreadable ``bad\\nenc.txt`` split the error in two."""
    from hyperviz_core.cli import main

    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "bad\nenc.txt").write_bytes(b"caf\xe9 au lait")
    (corpus / ".hid\n  0 failed; everything fine").write_text("x", encoding="utf-8")
    (corpus / "ok.txt").write_text("Marie Curie.", encoding="utf-8")
    assert main(["index", str(corpus), "--store", str(tmp_path / "s"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad\\nenc.txt: not UTF-8" in err
    assert main(["index", str(corpus), "--store", str(tmp_path / "s"), "--no-progress",
                 "--skip-unreadable"]) == 0
    out = capsys.readouterr().out
    assert "bad\\nenc.txt" in out and ".hid\\n  0 failed; everything fine" in out
    assert not any(line.startswith("  0 failed") for line in out.splitlines())


def test_a_path_the_system_refuses_is_unreadable_not_fatal(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file deeper than PATH_MAX (4,096 bytes) is an unreadable file: named in one line,
    left out with ``--skip-unreadable`` (before, its raw ``OSError`` stopped every run)."""
    import os

    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "ok.txt").write_text("Alice lives in Paris.", encoding="utf-8")
    fd = os.open(corpus, os.O_RDONLY)
    for i in range(36):  # 36 folders of 121 characters: past PATH_MAX
        name = "e" * 120 + str(i % 10)
        os.mkdir(name, dir_fd=fd)
        inner = os.open(name, os.O_RDONLY, dir_fd=fd)
        os.close(fd)
        fd = inner
    deep = os.open("deep.txt", os.O_WRONLY | os.O_CREAT, dir_fd=fd)
    os.write(deep, b"Bob lives in Rome.\n")
    os.close(deep)
    os.close(fd)
    assert main(["index", str(corpus), "--store", str(tmp_path / "s"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "File name too long" in err and "--skip-unreadable" in err
    assert main(["index", str(corpus), "--store", str(tmp_path / "s"), "--no-progress",
                 "--skip-unreadable"]) == 0
    out = capsys.readouterr().out
    assert "1 added" in out and "unreadable " in out and "File name too long" in out


def test_a_folders_json_of_another_kind_is_left_out(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """vizrag's own HIF export or a Docusaurus ``_category_.json`` in the corpus folder is
    left out and listed (it stopped every re-index); named directly it is still an error."""
    corpus = tmp_path / "c"
    (corpus / "docs").mkdir(parents=True)
    (corpus / "a.txt").write_text("Alice met Bob in Paris.", encoding="utf-8")
    (corpus / "docs" / "_category_.json").write_text('{"label": "Tutorial", "position": 2}',
                                                     encoding="utf-8")
    (corpus / "docs" / "notes.json").write_text('[{"id": "n1", "text": "Carol in Rome."}]',
                                                encoding="utf-8")
    store = str(tmp_path / "s")
    assert main(["index", str(corpus), "--store", store, "--no-progress"]) == 0
    assert main(["export", "--store", store, "--hif", str(corpus / "graph.hif.json")]) == 0
    capsys.readouterr()
    assert main(["index", str(corpus), "--store", store, "--no-progress", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    left = report["input"]["left_out"]
    assert [x.split(": ")[0] for x in left] == [str(corpus / "docs" / "_category_.json"),
                                                 str(corpus / "graph.hif.json")]
    assert all("a JSON file of another kind" in x for x in left)
    assert report["documents_skipped"] == 2  # a and n1, unchanged
    assert main(["index", str(corpus / "graph.hif.json"), "--store", store,
                 "--no-progress"]) == 2
    assert "neither a document" in capsys.readouterr().err


def test_names_that_differ_in_unicode_form_are_told_apart(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    """``Müller.md`` composed and decomposed (as macOS writes it) get one id: the error
    showed two identical paths; now it escapes them and says how they differ."""
    corpus = tmp_path / "n"
    corpus.mkdir()
    (corpus / "M\u00fcller.md").write_text("Anna M\u00fcller lives in Bonn.", encoding="utf-8")
    (corpus / "Mu\u0308ller.md").write_text("Jan Mu\u0308ller lives in Ulm.", encoding="utf-8")
    assert main(["index", str(corpus), "--store", str(tmp_path / "s"), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "M\\xfcller.md'" in err and "Mu\\u0308ller.md'" in err
    assert "differ only in Unicode form" in err


def test_a_value_starting_with_a_dash_gets_the_double_dash_hint(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A file ``-rf.txt`` is stored as id ``-rf``; ``vizrag delete -rf`` is argparse's
    "unrecognized arguments" alone: the error now says to put ``--`` before it."""
    corpus = tmp_path / "c"
    corpus.mkdir()
    (corpus / "-rf.txt").write_text("Alice lives in Paris.", encoding="utf-8")
    store = str(tmp_path / "s")
    assert main(["index", str(corpus), "--store", store, "--no-progress"]) == 0
    with pytest.raises(SystemExit) as stop:
        main(["delete", "-rf", "--store", store])
    assert stop.value.code == 2
    assert "goes after -- (vizrag delete --store ST -- -rf)" in capsys.readouterr().err
    assert main(["delete", "--store", store, "--", "-rf"]) == 0
