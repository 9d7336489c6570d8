"""The benchmark scripts of stop 56 at their edges (tiny inputs, no timings asserted):
``scripts_bench.py`` prints each hashed embedder's first-ranked count, ``lone_piece_bench.py``
builds its synthetic store and finds the lone rare character, ``sheet_memory_bench.py``
reads its spreadsheet in a child process and prints the peak."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bench_import import bench_module


def test_scripts_bench_prints_each_version(capsys: pytest.CaptureFixture[str]) -> None:
    bench_module("scripts_bench").main([])
    out = capsys.readouterr().out
    assert "14 passages, 16 queries" in out
    assert re.search(r"hashing-v2-d512-c34 +first  9/16 +MRR 0\.734", out)
    assert re.search(r"hashing-v5-d512-c34 +first 16/16 +MRR 1\.000", out)


def test_lone_piece_bench_on_a_small_store(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    bench_module("lone_piece_bench").main(["--store", str(tmp_path / "s"), "--chunks", "300",
                                           "--repeat", "1"])
    out = capsys.readouterr().out
    assert "built 300 passages" in out
    assert re.search(r"lone rare character +median +[\d.]+ ms  top passage p0 holds it", out)


def test_sheet_memory_bench_reads_in_a_child(capfd: pytest.CaptureFixture[str]) -> None:
    bench_module("sheet_memory_bench").main(["--rows", "40"])
    out = capfd.readouterr().out  # the child writes to the same file descriptor
    assert "records-40.ods: 41 documents" in out and "peak RSS" in out
