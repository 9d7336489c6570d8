"""What pypdf logs of a PDF's internals is said once, naming the file (stop 69).

Before, pypdf's errors (``Advanced encoding /X not implemented yet, using [...]``, though
the text is read) went to Python's last-resort handler: ``vizrag index`` printed each on
stderr without the file's name, over 3,000 characters, once per read of the file.
"""

from __future__ import annotations

import logging
import sys
import threading
from pathlib import Path

import pytest
from office_files import make_pdf

from hyperviz_core.cli import main
from hyperviz_core.rag.index.libnotes import SHOWN, said_once
from hyperviz_core.rag.index.loaders import load_documents


def _odd_pdf(path: Path) -> Path:
    """A PDF whose font names an encoding pypdf does not know."""
    path.write_bytes(make_pdf([["Harbour fees rise"]], "Fees").replace(
        b"/WinAnsiEncoding", b"/WinAnsiEncodXng"))
    return path


def test_pypdfs_error_is_one_warning_naming_the_file(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    pytest.importorskip("pypdf")
    path = _odd_pdf(tmp_path / "fees.pdf")
    with caplog.at_level(logging.INFO):
        [doc] = load_documents(path)
    assert doc.text == "Harbour fees rise"
    assert not [r for r in caplog.records if r.name.startswith("pypdf")]
    [said] = [r.getMessage() for r in caplog.records
              if r.name == "hyperviz_core.rag.index.libnotes"]
    assert said.startswith(f"{path}: pypdf: Advanced encoding /WinAnsiEncodXng not "
                           "implemented yet, using [")
    assert said.endswith("…") and len(said) == len(f"{path}: pypdf: ") + SHOWN


def test_vizrag_index_says_it_once(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pypdf")
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    path = _odd_pdf(pdfs / "fees.pdf")
    monkeypatch.setattr(sys, "argv", ["vizrag"])
    assert main(["index", str(pdfs), "--store", str(tmp_path / "s.db"), "--no-progress"]) == 0
    err = capsys.readouterr().err
    assert err.count("Advanced encoding") == 1  # the file is read twice: planned, indexed
    assert f"vizrag index: note: {path}: pypdf: Advanced encoding" in err
    assert max(len(line) for line in err.splitlines()) < 300


def test_only_the_reading_threads_records_are_held(caplog: pytest.LogCaptureFixture) -> None:
    other = threading.Thread(target=lambda: logging.getLogger("lib.x").error("theirs"))
    with caplog.at_level(logging.INFO), said_once(Path("a.pdf"), "lib", shown="lib"):
        logging.getLogger("lib.x").error("ours: %s", "/X")
        logging.getLogger("lib").warning("below the level")
        other.start()
        other.join()
    said = [r.getMessage() for r in caplog.records if r.name.endswith("libnotes")]
    assert said == ["a.pdf: lib: ours: /X"]
    assert logging.getLogger("lib").propagate and logging.getLogger("lib").level == 0
