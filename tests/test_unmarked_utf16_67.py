"""UTF-16 text without a byte-order mark is read with ``--encoding auto`` (stop 67).

Without a mark (NUL bytes at odd or at even offsets: SQL Server's ``bcp -w``, some logs)
a file is refused with its ``iconv`` command, whose hint now also names ``--encoding
auto``; with ``auto`` it is read in the byte order its NUL bytes show, logged as a guess.
"""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from hyperviz_core.rag.index.legacy import fallback_encoding
from hyperviz_core.rag.index.loaders import LoaderError, file_documents, load_documents
from hyperviz_core.rag.index.widetext import text_codec, unmarked_utf16, wide_lines

TEXT = "# Αθήνα\r\n\r\nAthens is the capital of Greece. 東京 is Japan's.\r\n"


RUSSIAN = "# Москва\r\n\r\nМосква — столица России, Санкт-Петербург — её второй город.\r\n"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("text", [TEXT, RUSSIAN])
def test_auto_reads_it_as_its_utf8_copy(tmp_path: Path, codec: str, text: str) -> None:
    bare = tmp_path / "bare.md"
    bare.write_bytes(text.encode(codec))
    plain = tmp_path / "plain" / "bare.md"
    plain.parent.mkdir()
    plain.write_text(text, encoding="utf-8", newline="")
    (got,) = load_documents([bare], encoding="auto")
    (want,) = load_documents([plain])
    assert (got.id, got.title, got.text) == (want.id, want.title, want.text) == (
        "bare", text[2:text.index("\r")], text.replace("\r\n", "\n"))


def test_without_auto_it_is_refused_naming_both_ways_out(tmp_path: Path) -> None:
    bare = tmp_path / "bare.txt"
    bare.write_bytes("hello there".encode("utf-16-be"))
    for encoding in (None, "cp1252"):  # a named encoding does not read UTF-16
        with pytest.raises(LoaderError, match=r"bare\.txt: not UTF-8 text but UTF-16BE text "
                           r"without a byte-order mark \(NUL bytes at even offsets\); "
                           r"convert it to UTF-8, e.g\. iconv -f "
                           r"UTF-16BE -t UTF-8, or read such files so: --encoding auto "
                           r"\(encoding=\"auto\" in Python\)"):
            load_documents([bare], encoding=encoding)


def test_records_pages_subtitles_and_the_guess_logged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    tsv = tmp_path / "sheet.tsv"  # as SQL Server's bcp -w writes: UTF-16LE, no mark
    tsv.write_bytes("title\ttext\nOslo\tOslo is in Norway.\nÅre\tÅre is in Sweden.\n"
                    .encode("utf-16-le"))
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_bytes('{"id": "z", "text": "Zürich"}\n'.encode("utf-16-be"))
    page = tmp_path / "p.html"  # a <meta> cannot be read in bytes that are UTF-16
    page.write_bytes('<meta charset="windows-1252"><title>Tëst</title><p>Hello wörld</p>'
                     .encode("utf-16-le"))
    srt = tmp_path / "s.srt"
    srt.write_bytes("1\n00:00:01,000 --> 00:00:02,000\nПривет\n".encode("utf-16-le"))
    js = tmp_path / "j.json"
    js.write_bytes('[{"id": "y", "title": "Ýr", "text": "Ýr is a rune."}]'.encode("utf-16-le"))
    with caplog.at_level(logging.INFO, logger="hyperviz_core.rag.index.legacy"):
        docs = load_documents([tsv, jsonl, page, srt, js], encoding="auto")
    assert [(d.title, d.text) for d in docs] == [
        ("Oslo", "Oslo is in Norway."), ("Åre", "Åre is in Sweden."), ("", "Zürich"),
        ("Tëst", "Hello wörld"), ("s", "Привет"), ("Ýr", "Ýr is a rune.")]
    said = {r.getMessage() for r in caplog.records}
    assert f"{tsv}: UTF-16LE text without a byte-order mark: read as utf-16-le (guessed)" in said
    assert f"{jsonl}: UTF-16BE text without a byte-order mark: read as utf-16-be (guessed)" in said


def test_a_large_file_reads_in_parts(tmp_path: Path) -> None:
    text = "# Big\n\n" + "Wörd " * 20_000 + "\n\n" + "Para two.\r\n" * 3000
    f = tmp_path / "big.txt"
    f.write_bytes(text.encode("utf-16-le"))
    parts = [d for d, _ in file_documents(f, part_bytes=20_000, encoding="auto")]
    assert len(parts) > 2 and {d.title for d in parts} == {"Big"}
    assert "".join(d.text for d in parts) == text.replace("\r\n", "\n")
    assert "".join(wide_lines(f, "utf-16-le")) == text.replace("\r\n", "\n")


def test_a_bad_body_is_named_as_a_guess(tmp_path: Path) -> None:
    broken = tmp_path / "broken.txt"  # a lone low surrogate past the bytes sniffed
    broken.write_bytes("ok text\n".encode("utf-16-le") * 600 + b"\x00\xdc")
    where = (r"broken\.txt: not UTF-16-LE text at line 601, byte 9600 \(.*\), as --encoding "
             r"auto guessed from its NUL bytes")
    with pytest.raises(LoaderError, match=where):
        load_documents([broken], encoding="auto")
    with pytest.raises(LoaderError, match=where):
        list(file_documents(broken, part_bytes=4, encoding="auto"))


def test_what_is_not_unmarked_utf16() -> None:
    assert unmarked_utf16("Athens, Αθήνα".encode("utf-16-le")) == "utf-16-le"
    assert unmarked_utf16("Athens, Αθήνα".encode("utf-16-be")) == "utf-16-be"
    assert unmarked_utf16("東京都".encode("utf-16-le")) is None  # too few NUL bytes to tell
    assert unmarked_utf16("Привет мир, как дела?".encode("utf-16-be")) == "utf-16-be"
    assert unmarked_utf16("Γειά σου κόσμε".encode("utf-16-le")) == "utf-16-le"  # spaces
    assert unmarked_utf16("Ελληνικά".encode("utf-16-le")) is None  # no NUL byte at all
    assert unmarked_utf16("Zu\u0308rich und Ko\u0308ln".encode("utf-16-le")) == "utf-16-le"
    assert unmarked_utf16(b"") is None and unmarked_utf16(b"plain ASCII") is None
    assert unmarked_utf16("\x01\x02 data".encode("utf-16-le")) is None  # control characters
    assert unmarked_utf16(b"\x00a\x00b\x00\x00c") is None  # NUL bytes at both offsets
    assert text_codec("Athens".encode("utf-16-le"), "cp1252") is None  # auto only
    assert text_codec("Athens".encode("utf-16"), None) == "utf-16"  # a mark: always


def test_utf16_as_the_encoding_points_to_auto() -> None:
    with pytest.raises(ValueError, match=r"does not read ASCII as ASCII \(UTF-16, UTF-32 \.\.\.\)"
                       r": such text is read with no option when it starts with a byte-order "
                       r"mark, UTF-16 without one with --encoding auto"):
        fallback_encoding("utf-16le")


def test_the_cli_notes_the_guess_once(tmp_path: Path) -> None:
    f = tmp_path / "export.txt"
    f.write_bytes("Marie Curie worked in Paris.\r\n".encode("utf-16-le"))
    store = tmp_path / "store"

    def vizrag(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "hyperviz_core", *args, "--store",
                               str(store)], capture_output=True, text=True, check=False)

    refused = vizrag("index", str(f), "--no-progress")
    assert refused.returncode != 0 and "--encoding auto" in refused.stderr
    run = vizrag("index", str(f), "--no-progress", "--encoding", "auto")
    assert run.returncode == 0, run.stderr
    notes = [line for line in run.stderr.splitlines() if "note:" in line]
    assert notes == [f"vizrag index: note: {f}: UTF-16LE text without a byte-order mark: "
                     "read as utf-16-le (guessed)"]
    assert "export" in vizrag("documents").stdout


def test_a_few_bytes_of_ascii_with_a_nul_are_no_utf16() -> None:
    """Read as UTF-16, ASCII's letters pair into CJK ideographs of many blocks: a short
    file with one NUL byte (``<p>\\x00binary``) stays a binary file."""
    assert unmarked_utf16(b"<p>\x00binary") is None
    assert unmarked_utf16("Москва — столица".encode("utf-16-le")) == "utf-16-le"
    # since stop 68 CJK text is told too (tests/test_cjk_utf16_68.py)
    assert unmarked_utf16("東京 は 日本 の 首都 です".encode("utf-16-le")) == "utf-16-le"
