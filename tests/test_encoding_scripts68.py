"""The encoding scripts of ``benchmarks/`` on tiny inputs: ``encoding_guess_bench.py``
reads labelled files (``--file PATH=ENCODING``) and chardet-style folders, and
``encoding_guess_scan.py`` counts the guesses for the files of a folder that are not UTF-8
(stop 68)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from bench_import import bench_module

RUSSIAN = "Москва - столица России. В городе живёт более двенадцати миллионов человек."
GERMAN = "Größe und Straße, ein Café in Zürich: schön, über, Bäume und Äpfel."


def _run(name: str, args: list[str], monkeypatch: pytest.MonkeyPatch,
         capsys: pytest.CaptureFixture[str]) -> str:
    monkeypatch.setattr(sys, "argv", [f"{name}.py", *args])
    bench_module(name).main()
    return capsys.readouterr().out


def test_guess_bench_reads_labelled_files_and_folders(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    ru = tmp_path / "ru.txt"
    ru.write_bytes(RUSSIAN.encode("cp866"))
    de = tmp_path / "de.txt"
    de.write_bytes(GERMAN.encode("cp1252"))
    out = _run("encoding_guess_bench", ["--file", f"{ru}=cp866", "--file", f"{de}=iso8859-5"],
               monkeypatch, capsys)
    assert "cp866" in out and "all: files 2, right 1, wrong 1, none 0" in out
    assert "(read as cp1252 1)" in out  # the German file, labelled wrong on purpose
    folder = tmp_path / "tests" / "IBM866"
    folder.mkdir(parents=True)
    (folder / "a.txt").write_bytes(RUSSIAN.encode("cp866"))
    (folder / "ascii.txt").write_bytes(b"plain ASCII: left out")
    out = _run("encoding_guess_bench", ["--tests", str(tmp_path / "tests")], monkeypatch,
               capsys)
    assert out.splitlines()[-1] == "all: files 1, right 1, wrong 0, none 0"


def test_guess_scan_counts_and_lists_guesses(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "ru.txt").write_bytes((RUSSIAN * 2).encode("iso8859-5"))
    (tmp_path / "de.txt").write_bytes(GERMAN.encode("cp1252"))
    (tmp_path / "utf8.txt").write_text(RUSSIAN * 2, encoding="utf-8")  # UTF-8: left out
    (tmp_path / "bin.dat").write_bytes(b"\0\xff" * 64)  # a NUL byte: left out
    out = _run("encoding_guess_scan", [str(tmp_path), "--show", "iso8859-5"], monkeypatch,
               capsys)
    lines = out.splitlines()
    assert lines[0] == "files not UTF-8 without a NUL byte: 2"
    assert sorted(line.split() for line in lines[1:3]) == [["cp1252", "1"],
                                                          ["iso8859-5", "1"]]
    assert lines[3:] == ["guessed iso8859-5: 1", f"  {tmp_path / 'ru.txt'}"]
