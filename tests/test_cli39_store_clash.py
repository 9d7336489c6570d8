"""An output option naming the store the command reads is refused before anything is
written: ``vizrag export --hif`` onto the store (directly, as the store's file, or through a
link) replaced the database with JSON and exited 0."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hyperviz_core.cli import main


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("Marie Curie worked with Pierre Curie in Paris.", "utf-8")
    assert main(["index", str(docs), "--store", str(tmp_path / "st"), "--no-progress"]) == 0
    return tmp_path / "st"


def _stats(store: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["stats", "--store", str(store)]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("target", ["file", "wal", "link", "file-store"])
def test_export_never_writes_over_its_store(store: Path, target: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    db = store / "vizrag.sqlite"
    spec = str(db) if target == "file-store" else str(store)
    out = {"file": db, "file-store": db, "wal": store / "vizrag.sqlite-wal",
           "link": tmp_path / "out.json"}[target]
    if target == "link":
        os.symlink(db, out)
    before = db.read_bytes()
    assert main(["export", "--store", spec, "--hif", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"--hif {out} would overwrite the store {spec}" in err
    assert db.read_bytes() == before
    assert "documents 1" in _stats(store, capsys)


def test_export_beside_the_store_still_writes(store: Path, capsys: pytest.CaptureFixture[str]
                                              ) -> None:
    assert main(["export", "--store", str(store), "--hif", str(store / "h.json")]) == 0
    assert (store / "h.json").read_text("utf-8").startswith("{")
