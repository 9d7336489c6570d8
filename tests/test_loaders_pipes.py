"""A pipe or FIFO given to the loader is refused in one line instead of being read twice
(an ops review, 2026-12-04: `cat f | vizrag index /dev/stdin` stored an empty document with
exit 0, and a named FIFO hung the run)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hyperviz_core.rag import load_documents
from hyperviz_core.rag.index.loaders import UnreadableFileError


def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "ff.txt"
    os.mkfifo(fifo)
    with pytest.raises(UnreadableFileError, match="not a regular file"):
        load_documents([fifo])  # before: blocked in open() waiting for a writer


def test_piped_stdin_is_refused_and_nothing_is_stored(tmp_path: Path) -> None:
    store = tmp_path / "store"
    run = subprocess.run([sys.executable, "-m", "hyperviz_core", "index", "/dev/stdin",
                          "--store", str(store), "--no-progress"],
                         input=b"Ada Lovelace wrote notes on the Analytical Engine.\n",
                         capture_output=True, timeout=120, check=False)
    assert run.returncode == 2, run.stdout
    assert b"not a regular file" in run.stderr and not store.exists()


def test_stdin_redirected_from_a_file_is_read(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("Ada Lovelace wrote notes on the Analytical Engine.\n", encoding="utf-8")
    with text.open("rb") as fh:
        run = subprocess.run([sys.executable, "-m", "hyperviz_core", "index", "/dev/stdin",
                              "--store", str(tmp_path / "store"), "--no-progress"],
                             stdin=fh, capture_output=True, timeout=120, check=False)
    assert run.returncode == 0, run.stderr
    assert b"1 added" in run.stdout and b"1 chunks" in run.stdout
