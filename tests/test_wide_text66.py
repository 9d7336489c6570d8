"""UTF-16 and UTF-32 text files with a byte-order mark are read as such (stop 66).

Excel's "Unicode Text" export and Windows PowerShell's ``>`` write UTF-16 with a mark;
before, every such file was refused with an ``iconv`` hint. Without a mark (every other
byte NUL) a file is still refused, unless read with ``--encoding auto`` (stop 67:
``tests/test_unmarked_utf16_67.py``): its byte order is a guess.
"""

from __future__ import annotations

import codecs
import subprocess
import sys
from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import LoaderError, file_documents, load_documents
from hyperviz_core.rag.index.widetext import PIECE_CHARS, bom_codec, wide_lines

TEXT = "# Αθήνα\r\n\r\nAthens is the capital of Greece. 東京 is Japan's.\r\n"
WANT = "# Αθήνα\n\nAthens is the capital of Greece. 東京 is Japan's.\n"


@pytest.mark.parametrize("codec", ["utf-16", "utf-16-le", "utf-16-be", "utf-32",
                                   "utf-32-le", "utf-32-be"])
def test_a_text_file_with_a_mark_reads_as_utf8_would(tmp_path: Path, codec: str) -> None:
    mark = {"utf-16-le": codecs.BOM_UTF16_LE, "utf-16-be": codecs.BOM_UTF16_BE,
            "utf-32-le": codecs.BOM_UTF32_LE, "utf-32-be": codecs.BOM_UTF32_BE}.get(codec, b"")
    wide = tmp_path / "wide.md"
    wide.write_bytes(mark + TEXT.encode(codec))
    plain = tmp_path / "plain" / "wide.md"
    plain.parent.mkdir()
    plain.write_text(TEXT, encoding="utf-8", newline="")
    (got,) = load_documents([wide])
    assert (got.title, got.text) == ("Αθήνα", WANT)
    assert (got.id, got.title, got.text) == (lambda d: (d.id, d.title, d.text))(
        load_documents([plain])[0])


def test_records_pages_and_subtitles(tmp_path: Path) -> None:
    """Excel's "Unicode Text" (UTF-16, tab-separated) saved as .tsv, JSONL, a page and
    subtitles."""
    tsv = tmp_path / "sheet.tsv"
    tsv.write_text("title\ttext\nOslo\tOslo is in Norway.\nÅre\tÅre is in Sweden.\n",
                   encoding="utf-16")
    jsonl = tmp_path / "r.jsonl"
    jsonl.write_text('{"id": "z", "text": "Zürich"}\n', encoding="utf-32")
    page = tmp_path / "p.html"
    page.write_text('<meta charset="windows-1252"><title>Tëst</title><p>Hello wörld</p>',
                    encoding="utf-16")  # the mark wins over the <meta>, as in browsers
    srt = tmp_path / "s.srt"
    srt.write_text("1\n00:00:01,000 --> 00:00:02,000\nПривет\n", encoding="utf-16")
    docs = load_documents([tsv, jsonl, page, srt])
    assert [(d.title, d.text) for d in docs] == [
        ("Oslo", "Oslo is in Norway."), ("Åre", "Åre is in Sweden."), ("", "Zürich"),
        ("Tëst", "Hello wörld"), ("s", "Привет")]


def test_a_large_file_reads_in_parts(tmp_path: Path) -> None:
    text = "# Big\n\n" + "Wörd " * (PIECE_CHARS // 2) + "\n\n" + "Para two.\r\n" * 3000
    f = tmp_path / "big.txt"
    f.write_text(text, encoding="utf-16", newline="")
    parts = [d for d, _ in file_documents(f, part_bytes=20_000)]
    assert len(parts) > 2 and {d.title for d in parts} == {"Big"}
    assert "".join(d.text for d in parts) == text.replace("\r\n", "\n")
    pieces = list(wide_lines(f, "utf-16"))
    assert max(map(len, pieces)) <= PIECE_CHARS and all(
        p.endswith((" ", "\n")) for p in pieces[:-1])  # cut after a space, never in a word


def test_no_mark_is_still_refused_and_a_bad_body_is_named(tmp_path: Path) -> None:
    bare = tmp_path / "bare.txt"
    bare.write_bytes("hello there".encode("utf-16-le"))
    with pytest.raises(LoaderError, match=r"not UTF-8 text but UTF-16LE text without a "
                                          r"byte-order mark \(NUL bytes at odd offsets\); "
                                          r"convert it"):
        load_documents([bare])
    broken = tmp_path / "broken.txt"  # a lone low surrogate past the bytes sniffed for text
    broken.write_bytes(codecs.BOM_UTF16_LE + "ok text\n".encode("utf-16-le") * 600
                       + b"\x00\xdc")
    where = r"broken\.txt: not UTF-16 text at line 601, byte 9602 .* byte-order mark"
    with pytest.raises(LoaderError, match=where):
        load_documents([broken])
    with pytest.raises(LoaderError, match=where):
        list(file_documents(broken, part_bytes=4))
    binary = tmp_path / "fake.txt"  # the mark, then control characters: binary
    binary.write_bytes(codecs.BOM_UTF16_LE + "\x01\x02\x03 data".encode("utf-16-le") * 20)
    with pytest.raises(LoaderError, match="a binary file"):
        load_documents([binary])


def test_bom_codec() -> None:
    assert bom_codec(codecs.BOM_UTF32_LE + b"a\x00\x00\x00") == "utf-32"
    assert bom_codec(codecs.BOM_UTF16_LE + b"a\x00") == "utf-16"
    assert bom_codec(codecs.BOM_UTF8 + b"a") is None and bom_codec(b"") is None


def test_the_cli_indexes_a_powershell_file(tmp_path: Path) -> None:
    f = tmp_path / "notes.txt"
    f.write_text("Marie Curie worked in Paris.\r\n", encoding="utf-16")
    store = tmp_path / "store"
    run = subprocess.run([sys.executable, "-m", "hyperviz_core", "index", str(f), "--store",
                          str(store), "--no-progress"], capture_output=True, text=True,
                         check=False)
    assert run.returncode == 0, run.stderr
    out = subprocess.run([sys.executable, "-m", "hyperviz_core", "documents", "--store",
                          str(store)], capture_output=True, text=True, check=True).stdout
    assert "notes" in out
