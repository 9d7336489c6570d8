"""The benchmark scripts of stop 57 at their edges (tiny inputs, no timings asserted):
``ocr_bench.py`` reads its scanned PDF with OCR off (no word) and on (the words drawn);
``lone_piece_bench.py --questions`` writes its queries for ``store_bench.py``."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

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


def test_lone_piece_bench_writes_its_queries_for_store_bench(tmp_path: Path) -> None:
    bench_module("lone_piece_bench").main(["--store", str(tmp_path / "s"), "--chunks", "50",
                                           "--repeat", "1", "--questions", str(tmp_path / "q")])
    written = {p.name: json.loads(p.read_text()) for p in (tmp_path / "q").iterdir()}
    assert sorted(written) == ["common.json", "rare.json", "two.json"]
    assert written["rare.json"] == ["猫"] * 21 and len(written["two.json"][0]) == 2
