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


def test_overlapping_reads_leave_the_logger_as_it_was(caplog: pytest.LogCaptureFixture) -> None:
    """Two files read at once, the first ending first (as tests/test_ocr58.py reads one
    PDF in two threads): each says its own message, and the logger is as it was after the
    last ends (before, the second restored what the first had set: the library's logger
    was left not propagating, at ERROR)."""
    a_in, b_in, a_out = threading.Event(), threading.Event(), threading.Event()

    def read(name: str) -> None:
        with said_once(Path(f"{name}.pdf"), "lib2", shown="lib2"):
            if name == "a":
                a_in.set()
                assert b_in.wait(10)
                logging.getLogger("lib2.x").error("a's")
            else:
                b_in.set()
                assert a_out.wait(10)
                logging.getLogger("lib2.x").error("b's, after a ended")
        if name == "a":
            a_out.set()

    with caplog.at_level(logging.INFO):
        first = threading.Thread(target=read, args=("a",))
        first.start()
        assert a_in.wait(10)
        second = threading.Thread(target=read, args=("b",))
        second.start()
        first.join(20)
        second.join(20)
    said = sorted(r.getMessage() for r in caplog.records if r.name.endswith("libnotes"))
    assert said == ["a.pdf: lib2: a's", "b.pdf: lib2: b's, after a ended"]
    lib = logging.getLogger("lib2")
    assert lib.propagate and lib.level == 0 and lib.handlers == []
