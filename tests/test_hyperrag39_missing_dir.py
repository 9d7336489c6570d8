"""A Hyper-RAG working directory that does not exist is named as missing, not as "not a
directory" (which says the path exists but is the wrong kind)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.cli import main


def test_a_missing_workdir_is_named_missing(tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    gone = tmp_path / "workdir"
    assert main(["import-hyperrag", str(gone), "--store", str(tmp_path / "s")]) == 2
    assert f"{gone}: no such file or directory (expected a Hyper-RAG working dir)" in (
        capsys.readouterr().err)
    (tmp_path / "file").write_text("x", "utf-8")
    assert main(["import-hyperrag", str(tmp_path / "file"), "--store", str(tmp_path / "s")]) == 2
    assert "file: not a directory (expected" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()
