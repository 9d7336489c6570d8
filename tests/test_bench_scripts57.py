"""The benchmark script of stop 57 at its edge (one page, no timings asserted):
``ocr_bench.py`` reads its scanned PDF with OCR off (no word) and on (the words drawn)."""

from __future__ import annotations

import os
import re
import shutil

import pytest
from bench_import import bench_module


def test_ocr_bench_on_one_page(capsys: pytest.CaptureFixture[str],
                               monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("pytesseract")
    if shutil.which("tesseract") is None:
        pytest.skip("no tesseract program")
    monkeypatch.setenv("VIZRAG_OCR", "auto")
    bench_module("ocr_bench").main(["--pages", "1"])
    assert os.environ["VIZRAG_OCR"] == "auto"  # given back
    out = capsys.readouterr().out
    assert "VIZRAG_OCR=0: 1 pages in" in out and "0 words read, 0 of the 220" in out
    found = re.search(r"VIZRAG_OCR=eng: 1 pages in .* (\d+) of the 220 drawn words", out)
    assert found and int(found.group(1)) >= 200
