"""Rich Text Format files (``.rtf``) are read as documents with the ``rtf`` extra (stop 56):
the text they show, escapes decoded by the declared code page, the information group's
title. Before, a walk left them out and one named directly was read as text: its markup."""

from __future__ import annotations

from pathlib import Path

import pytest
from office_files import assert_needs_extra, folder_top, hide_module

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.textfiles import walk

pytest.importorskip("striprtf")

#: as WordPad writes a file: a font table, an information group, a picture, Unicode
#: escapes with their fallback character, a generator group
RTF = (r"{\rtf1\ansi\ansicpg1252\deff0{\fonttbl{\f0\fnil Calibri;}}"
       r"{\info{\title Caf\'e9 contract}{\author Ada}}"
       "\n" r"{\*\generator Riched20 10.0.19041}\viewkind4\uc1"
       "\n" r"\pard\f0\fs22 The caf\'e9 in Oslo pays \u8364?500 rent.\par"
       "\n" r"{\pict\pngblip 89504e470d0a1a0a0000000d49484452}"
       "\n" r"The lease runs \b until May\b0 .\tab Signed.\par" "\n}")


def test_an_rtf_file_reads_as_its_text(tmp_path: Path) -> None:
    path = tmp_path / "contract.rtf"
    path.write_bytes(RTF.encode("ascii"))
    [doc] = load_documents(path)
    assert (doc.id, doc.title) == ("contract.rtf", "Café contract")
    assert doc.text == "The café in Oslo pays €500 rent.\nThe lease runs until May. Signed."
    assert [p.name for p in walk(tmp_path).files] == ["contract.rtf"]
    russian = tmp_path / "ru.rtf"  # 8-bit escapes in the code page the file declares
    russian.write_bytes(rb"{\rtf1\ansi\ansicpg1251 \'cc\'ee\'f1\'ea\'e2\'e0\par}")
    [doc] = load_documents(russian)
    assert (doc.title, doc.text) == ("ru", "Москва")


def test_files_that_are_no_rtf_are_errors(tmp_path: Path) -> None:
    plain = tmp_path / "plain.rtf"
    plain.write_text("just text")
    with pytest.raises(LoaderError, match=r"plain\.rtf: not an RTF file"):
        load_documents(plain)
    binary = tmp_path / "bin.rtf"
    binary.write_bytes(b"{\\rtf1\x00\x01")
    with pytest.raises(LoaderError, match=r"bin\.rtf: a binary file"):
        load_documents(binary)


def test_vizrag_index_and_query_find_an_rtf_file(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    top, line = folder_top(capsys, tmp_path, {
        "contract.rtf": RTF, "other.md": "# Bergen\n\nBergen lies on the west coast.\n"},
        "How much rent does the café in Oslo pay?")
    assert top["doc_id"] == "contract.rtf" and "500" in line


def test_without_the_extra_the_file_is_named_with_the_install_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    hide_module(monkeypatch, "striprtf")
    path = tmp_path / "contract.rtf"
    path.write_bytes(RTF.encode("ascii"))
    assert_needs_extra(path, r"contract\.rtf: reading RTF files needs the 'rtf' extra", "rtf")
