"""Tesseract's thread limit stays set while any thread reads a scanned page (stop 58).
Before, a read that ended in one thread gave ``OMP_THREAD_LIMIT`` back while another
thread's read was still starting Tesseract, which then ran unbounded."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from test_ocr57 import LINES, _scan

from hyperviz_core.rag.index import ocr
from hyperviz_core.rag.index.loaders import load_documents


def test_the_thread_limit_outlives_a_read_that_ends_first(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import pytesseract

    path = tmp_path / "scan.pdf"
    path.write_bytes(_scan(LINES))
    first_inside, second_inside, first_done = (threading.Event() for _ in range(3))
    seen: list[str | None] = []
    texts: dict[str, str] = {}

    def read(image: object, lang: str) -> str:
        if threading.current_thread().name == "first":
            first_inside.set()
            assert second_inside.wait(10)
            return "first"
        second_inside.set()
        assert first_done.wait(10)  # the first read has ended, this one is still running
        seen.append(os.environ.get("OMP_THREAD_LIMIT"))
        return "second"

    def load(name: str) -> None:
        texts[name] = load_documents(path)[0].text
        if name == "first":
            first_done.set()

    monkeypatch.setattr(pytesseract, "image_to_string", read)
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    monkeypatch.delenv(ocr.OCR_ENV, raising=False)
    first = threading.Thread(target=load, args=("first",), name="first")
    second = threading.Thread(target=load, args=("second",), name="second")
    first.start()
    assert first_inside.wait(10)  # the first read holds the limit before the second starts
    second.start()
    first.join(20)
    second.join(20)
    assert texts == {"first": "first", "second": "second"}
    assert seen == [str(len(os.sched_getaffinity(0)))]
    assert "OMP_THREAD_LIMIT" not in os.environ  # given back once both reads ended
