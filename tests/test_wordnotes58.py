"""Footnotes, endnotes and text boxes of Word (``.docx``, ``.doc``) and OpenDocument
(``.odt``) files are read (stop 58): each note follows the paragraph or table that refers
to it, numbered (``Footnote 1: ...``), a text box follows the paragraph it is anchored in
(a ``.doc`` file's after the body until stop 59, which reads its anchor). Before, all three
readers left them out, and an ``.odt`` table cell holding a footnote showed the note's text
inside the cell.

The files are LibreOffice's (``tests/data/wordnotes``, ``make.py``); no file written by
Microsoft Word was at hand.
"""

from __future__ import annotations

import random
import re
import struct
import zipfile
from pathlib import Path

import pytest
from office_files import assert_read_or_named, changed_bytes, folder_top

from hyperviz_core.rag.index.loaders import load_documents

DATA = Path(__file__).parent / "data" / "wordnotes"
BODY = ["Harbour Report",
        "Bergen has a deep harbour. Ships dock all year.",
        "Footnote 1: Measured by the Norwegian Coastal Administration in 2019.",
        "The fish market opened in 1276.",
        "Endnote 1: Source: Bergen city archive.\nSecond paragraph of the endnote.",
        "Trade made the city rich.",
        "Sidebar: the Hanseatic League traded here.",
        "Pier | Depth\nFestningskaien | 12 m",
        "Footnote 2: At low tide.",
        "The end."]
BOX = "Sidebar: the Hanseatic League traded here."


@pytest.mark.parametrize("suffix", [
    pytest.param("docx", marks=pytest.mark.skipif(
        not __import__("importlib").util.find_spec("docx"), reason="docx extra")),
    pytest.param("doc", marks=pytest.mark.skipif(
        not __import__("importlib").util.find_spec("olefile"), reason="doc extra")),
    "odt"])
def test_notes_follow_what_refers_to_them(suffix: str) -> None:
    [doc] = load_documents(DATA / f"harbour.{suffix}")
    assert doc.text.split("\n\n") == BODY  # a .doc file's box in place since stop 59
    assert doc.text.count("Hanseatic") == 1  # the .docx's copy for older readers left out


def _docx_with(tmp_path: Path, name: str, edit: dict[str, tuple[str, str]]) -> Path:
    """harbour.docx with ``edit`` (part → (pattern, replacement)) applied."""
    path = tmp_path / name
    with zipfile.ZipFile(DATA / "harbour.docx") as src, zipfile.ZipFile(path, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename in edit:
                pattern, repl = edit[info.filename]
                data, count = re.subn(pattern.encode(), repl.encode(), data)
                assert count, (info.filename, pattern)
            out.writestr(info, data)
    return path


def test_docx_notes_nothing_refers_to_follow_the_body(tmp_path: Path) -> None:
    pytest.importorskip("docx")
    path = _docx_with(tmp_path, "unreferred.docx", {
        "word/document.xml": (r'<w:r><w:rPr><w:rStyle w:val="FootnoteAnchor"/></w:rPr>'
                              r'<w:footnoteReference w:id="2"/></w:r>', "")})
    blocks = load_documents(path)[0].text.split("\n\n")
    assert blocks[2:4] == ["The fish market opened in 1276.",
                           "Endnote 1: Source: Bergen city archive.\n"
                           "Second paragraph of the endnote."]
    assert blocks[-3:] == ["Footnote 1: At low tide.", "The end.",
                           "Footnote 2: Measured by the Norwegian Coastal Administration in "
                           "2019."]


def test_docx_a_deleted_reference_takes_its_note_along(tmp_path: Path) -> None:
    """A footnote whose reference is a tracked deletion is not shown, at its place or after
    the body; the next footnote is number 1."""
    pytest.importorskip("docx")
    path = _docx_with(tmp_path, "deleted.docx", {
        "word/document.xml": (r'(<w:r><w:rPr><w:rStyle w:val="FootnoteAnchor"/></w:rPr>'
                              r'<w:footnoteReference w:id="2"/></w:r>)',
                              r'<w:del w:id="90" w:author="Ada" w:date="2026-12-01T10:00:00Z">'
                              r"\1</w:del>")})
    text = load_documents(path)[0].text
    assert "Measured" not in text and "Footnote 1: At low tide." in text


def test_docx_without_notes_parts_and_empty_notes(tmp_path: Path) -> None:
    pytest.importorskip("docx")
    path = _docx_with(tmp_path, "empty.docx", {
        "word/footnotes.xml": (r"<w:t>At low tide\.</w:t>", "")})
    text = load_documents(path)[0].text
    assert "At low tide" not in text and "Footnote 2" not in text
    assert "Footnote 1: Measured" in text  # the empty note keeps its number, 2


def _with_fib_pair(path: Path, index: int, value: tuple[int, int]) -> Path:
    """A copy of harbour.doc at ``path`` with FibRgFcLcb97 pair ``index`` set to ``value``."""
    import olefile

    path.write_bytes((DATA / "harbour.doc").read_bytes())
    ole = olefile.OleFileIO(str(path), write_mode=True)
    word = bytearray(ole.openstream("WordDocument").read())
    csw = struct.unpack_from("<H", word, 32)[0]
    longs = 34 + 2 * csw + 2
    cslw = struct.unpack_from("<H", word, longs - 2)[0]
    struct.pack_into("<II", word, longs + 4 * cslw + 2 + 8 * index, *value)
    ole.write_stream("WordDocument", bytes(word))
    ole.close()
    return path


def test_doc_notes_lists_past_their_bounds_leave_the_body_whole(tmp_path: Path) -> None:
    pytest.importorskip("olefile")
    cases = {"refs_past_table.doc": (2, (0x7FFFFF00, 16)),  # PlcffndRef past the stream
             "texts_past_table.doc": (3, (0x7FFFFF00, 16)),
             "boxes_past_table.doc": (56, (0x7FFFFF00, 56))}
    for name, (index, value) in cases.items():
        path = _with_fib_pair(tmp_path / name, index, value)
        blocks = load_documents(path)[0].text.split("\n\n")
        kept = [b for b in BODY if not b.startswith("Footnote") and b != BOX]
        assert [b for b in blocks if not b.startswith("Footnote") and b != BOX] == kept, name
        if index == 56:
            assert BOX not in blocks
        else:
            assert not any(b.startswith("Footnote") for b in blocks), name


def test_damaged_doc_files_with_notes_are_read_or_named(tmp_path: Path) -> None:
    pytest.importorskip("olefile")
    sources = [(DATA / name).read_bytes() for name in ("harbour.doc", "changes.doc")]
    rng = random.Random(58)
    paths = []
    for n in range(60):
        path = tmp_path / f"case{n}.doc"
        path.write_bytes(changed_bytes(sources[n % 2], rng))
        paths.append(path)
    assert_read_or_named(paths)


def test_vizrag_query_finds_a_footnote(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("docx")
    top, line = folder_top(capsys, tmp_path, {
        "harbour.docx": (DATA / "harbour.docx").read_bytes(),
        "other.md": "# Oslo\n\nOslo lies at the end of a fjord.\n"},
        "Who measured the harbour in 2019?")
    assert top["doc_id"] == "harbour.docx" and "Coastal Administration" in line


def test_doc_box_without_its_anchor_follows_the_body(tmp_path: Path) -> None:
    """Stop 59: a ``.doc`` text box is shown where its shape is anchored (``PlcSpaMom``);
    when that list cannot be read, after the body, as before."""
    pytest.importorskip("olefile")
    path = _with_fib_pair(tmp_path / "anchors_past_table.doc", 40, (0x7FFFFF00, 34))
    blocks = load_documents(path)[0].text.split("\n\n")
    assert blocks == [b for b in BODY if b != BOX] + [BOX]


def test_doc_notes_and_boxes_at_deleted_places_go_with_them() -> None:
    from hyperviz_core.rag.index.docnotes import BOX as BOX_MARK
    from hyperviz_core.rag.index.docnotes import ENDNOTE, FOOTNOTE, Stories

    stories = Stories.__new__(Stories)
    stories.refs = {FOOTNOTE: [3, 12, 20], ENDNOTE: [15], BOX_MARK: [30]}
    stories.notes = {FOOTNOTE: ["one", "two", "three"], ENDNOTE: ["end"], BOX_MARK: ["box"]}
    stories.keep([(0, 10), (14, 25)])  # 10..14 and 25.. deleted
    assert stories.refs == {FOOTNOTE: [3, 20], ENDNOTE: [15], BOX_MARK: []}
    assert stories.notes == {FOOTNOTE: ["one", "three"], ENDNOTE: ["end"], BOX_MARK: []}
