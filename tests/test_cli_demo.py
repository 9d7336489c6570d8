"""``vizrag demo``: the offline demo from the installed package (bundled corpus), and the
folder it replaces is only ever its own index."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.demo import demo_documents, demo_questions
from hyperviz_core.rag import Document, VizRAG


def test_vizrag_demo_writes_views_and_reruns_over_its_own_index(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--top-k", "2"]) == 0
    text = capsys.readouterr().out
    assert "Indexed 60 passages" in text and "Done in" in text
    summary = json.loads((out / "summary.json").read_text(encoding="utf-8"))
    assert [s["question"] for s in summary] == [q.question for q in demo_questions()]
    for item in summary:
        assert len(item["top_passages"]) == 2
        folder = Path(item["folder"])
        assert (folder / "bottom.png").read_bytes().startswith(b"\x89PNG")
        assert "data:image/png;base64," in (folder / "top.html").read_text(encoding="utf-8")
    assert main(["demo", "--out", str(out), "--top-k", "2"]) == 0  # its own index: replaced
    assert json.loads((out / "summary.json").read_text(encoding="utf-8")) == summary
    with VizRAG(out / "store", show_progress=False) as rag:
        assert {d.id for d in rag.store.documents()} == {d.id for d in demo_documents()}


def test_vizrag_demo_refuses_to_replace_another_store(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "work"
    with VizRAG(out / "store", show_progress=False) as rag:
        rag.insert([Document(id="mine", title="Ada", text="Ada Lovelace met Charles Babbage.")])
    assert main(["demo", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "is not a store of this demo" in err and "give another --out" in err
    with VizRAG(out / "store", show_progress=False) as rag:
        assert [d.id for d in rag.store.documents()] == ["mine"]  # nothing lost


def test_vizrag_demo_refuses_a_folder_with_other_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "store").mkdir()
    (tmp_path / "store" / "notes.txt").write_text("keep me", encoding="utf-8")
    assert main(["demo", "--out", str(tmp_path)]) == 2
    assert "is not a store of this demo" in capsys.readouterr().err
    assert (tmp_path / "store" / "notes.txt").read_text(encoding="utf-8") == "keep me"


@pytest.mark.parametrize("stray", ["vizrag.sqlite.bak", "vizrag.sqlite.orig", "notes.txt"])
def test_vizrag_demo_keeps_a_demo_store_holding_other_files(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], stray: str) -> None:
    """Only a store's own entries (the database, its -wal/-shm, the ANN folder) may be
    replaced: a backup or any other file beside them stops the demo."""
    assert main(["demo", "--out", str(tmp_path)]) == 0
    (tmp_path / "store" / stray).write_text("keep me", encoding="utf-8")
    assert main(["demo", "--out", str(tmp_path)]) == 2
    assert "is not a store of this demo" in capsys.readouterr().err
    assert (tmp_path / "store" / stray).read_text(encoding="utf-8") == "keep me"
    assert (tmp_path / "store" / "vizrag.sqlite").is_file()


def test_vizrag_demo_refuses_a_folder_named_like_the_database(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "store" / "vizrag.sqlite").mkdir(parents=True)
    (tmp_path / "store" / "vizrag.sqlite" / "data.txt").write_text("x", encoding="utf-8")
    assert main(["demo", "--out", str(tmp_path)]) == 2
    assert "is not a store of this demo" in capsys.readouterr().err
    assert (tmp_path / "store" / "vizrag.sqlite" / "data.txt").exists()


def test_vizrag_demo_refuses_a_symbolic_link(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "elsewhere"
    assert main(["demo", "--out", str(tmp_path / "first")]) == 0
    os.rename(tmp_path / "first" / "store", target)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "store").symlink_to(target, target_is_directory=True)
    assert main(["demo", "--out", str(tmp_path / "out")]) == 2
    assert "is not a store of this demo" in capsys.readouterr().err
    assert (target / "vizrag.sqlite").is_file()


def test_vizrag_demo_refuses_a_file_as_out(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "notes.txt"
    out.write_text("keep me", encoding="utf-8")
    assert main(["demo", "--out", str(out)]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    assert out.read_text(encoding="utf-8") == "keep me"


def test_a_second_demo_on_the_same_folder_waits_its_turn(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Two demos on one --out raced: the second cleared the index the first was writing.
    While one runs (its lock held here), another is a one-line error; the folder is left as
    it was."""
    import fcntl
    import hashlib
    import tempfile

    out = tmp_path / "demo"
    key = hashlib.sha256(str(out.resolve()).encode("utf-8")).hexdigest()[:16]
    lock = Path(tempfile.gettempdir()) / f"vizrag-demo-{key}.lock"
    with lock.open("w") as held:
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert main(["demo", "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert "another vizrag demo is writing" in err and err.count("\n") == 1
        assert not out.exists()
    assert main(["demo", "--out", str(out), "--top-k", "1"]) == 0  # the lock went with it
    assert not lock.exists()  # and its file too: none is left behind per --out
