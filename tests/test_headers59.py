"""Headers and footers of Word (``.docx``, ``.doc``) and OpenDocument (``.odt``) files are
read (stop 59): a section's headers before its first paragraph, its footers after its
last, each once and labelled (``Header: ...``), page numbers left out. Before, all three
readers left them out; a ``.doc`` file's section break also joined the paragraphs on
either side into one block.

The files are LibreOffice's (``tests/data/wordnotes/pages.*``, ``make.py``); no file
written by Microsoft Word was at hand.
"""

from __future__ import annotations

import importlib.util
import re
import shutil
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import load_documents

DATA = Path(__file__).parent / "data" / "wordnotes"
BLOCKS = ["Header: Confidential: board members only",
          "Header: Harbour Authority of Bergen",
          "Harbour Report",
          "The harbour of Bergen was busy in 2019.",
          "Cruise ships called 300 times.",
          "Footer: Page of",
          "Header: Appendix | Tide tables",
          "High water at 06:12 on 1 May.",
          "Footer: Prepared by the harbour master"]
needs_docx = pytest.mark.skipif(not importlib.util.find_spec("docx"), reason="docx extra")
needs_doc = pytest.mark.skipif(not importlib.util.find_spec("olefile"), reason="doc extra")


@pytest.mark.parametrize("suffix", [pytest.param("docx", marks=needs_docx),
                                    pytest.param("doc", marks=needs_doc), "odt"])
def test_headers_and_footers_frame_their_sections(suffix: str) -> None:
    [doc] = load_documents(DATA / f"pages.{suffix}")
    assert doc.text.split("\n\n") == BLOCKS  # "Page of": the number and count left out


def _edited(tmp_path: Path, name: str, part: str, pattern: str, repl: str) -> Path:
    """A copy of ``name`` with ``pattern`` replaced in its zip ``part``."""
    path = tmp_path / name
    with zipfile.ZipFile(DATA / name) as src, zipfile.ZipFile(path, "w") as out:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == part:
                data, count = re.subn(pattern.encode(), repl.encode(), data)
                assert count, (part, pattern)
            out.writestr(info, data)
    return path


@needs_docx
def test_docx_first_page_header_needs_a_title_page(tmp_path: Path) -> None:
    path = _edited(tmp_path, "pages.docx", "word/document.xml", "<w:titlePg/>", "")
    assert load_documents(path)[0].text.split("\n\n") == BLOCKS[1:]


@needs_docx
def test_docx_even_pages_header_needs_the_setting(tmp_path: Path) -> None:
    import docx

    document = docx.Document()
    document.add_paragraph("Body.")
    section = document.sections[0]
    section.header.paragraphs[0].text = "Odd pages"
    section.even_page_header.paragraphs[0].text = "Even pages"
    section.footer.paragraphs[0].text = "Odd pages"  # shown as a header already: kept
    document.save(str(tmp_path / "plain.docx"))
    assert load_documents(tmp_path / "plain.docx")[0].text.split("\n\n") == [
        "Header: Odd pages", "Body."]
    document.settings.odd_and_even_pages_header_footer = True
    document.save(str(tmp_path / "even.docx"))
    assert load_documents(tmp_path / "even.docx")[0].text.split("\n\n") == [
        "Header: Odd pages", "Header: Even pages", "Body."]


@needs_docx
def test_docx_page_number_fields_give_no_text() -> None:
    from docx.oxml.parser import parse_xml

    from hyperviz_core.rag.index.wordheaders import _drop_page_fields
    from hyperviz_core.rag.index.wordnotes import story_text

    w = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'

    def run(inner: str) -> str:
        return f"<w:r>{inner}</w:r>"

    def field(code: str, result: str) -> str:
        return "".join([run('<w:fldChar w:fldCharType="begin"/>'),
                        run(f"<w:instrText> {code} </w:instrText>"),
                        run('<w:fldChar w:fldCharType="separate"/>'),
                        run(f"<w:t>{result}</w:t>"), run('<w:fldChar w:fldCharType="end"/>')])

    root = parse_xml(
        f'<w:ftr {w}><w:p>{run("<w:t>Page </w:t>")}{field("page", "7")}'
        f'{run("<w:t> of </w:t>")}<w:fldSimple w:instr=" NUMPAGES \\* Arabic ">'
        f'{run("<w:t>9</w:t>")}</w:fldSimple>{run("<w:t>, </w:t>")}'
        f'{field("AUTHOR", "Ada")}<w:fldSimple w:instr="DATE">{run("<w:t>1 May</w:t>")}'
        f'</w:fldSimple>{field("STYLEREF &quot;Heading 1&quot;", " Tides")}</w:p></w:ftr>')
    _drop_page_fields(root)
    # the heading the page is under (STYLEREF) goes too; other fields keep their result
    assert story_text(root) == "Page  of , Ada1 May"


def _pairs_at(word: bytes | bytearray) -> int:
    """Where the FIB's (offset, size) pairs start in a WordDocument stream."""
    csw = struct.unpack_from("<H", word, 32)[0]
    longs = 34 + 2 * csw + 2
    return longs + 4 * struct.unpack_from("<H", word, longs - 2)[0] + 2


def _pair(word: bytes | bytearray, index: int) -> tuple[int, int]:
    """The FIB's (offset, size) pair ``index`` of a WordDocument stream."""
    offset, size = struct.unpack_from("<II", word, _pairs_at(word) + 8 * index)
    return offset, size


def _doc_edited(tmp_path: Path, edit: Callable[[bytearray, bytes], None]) -> Path:
    """A copy of pages.doc whose WordDocument stream ``edit`` changed in place (given the
    table stream too)."""
    import olefile

    path = tmp_path / "pages.doc"
    shutil.copy(DATA / "pages.doc", path)
    ole = olefile.OleFileIO(str(path), write_mode=True)
    word = bytearray(ole.openstream("WordDocument").read())
    edit(word, ole.openstream("1Table").read())
    ole.write_stream("WordDocument", bytes(word))
    ole.close()
    return path


@needs_doc
def test_doc_first_page_header_needs_a_title_page(tmp_path: Path) -> None:
    def no_title_page(word: bytearray, table: bytes) -> None:
        sed_at = _pair(word, 6)[0]
        fc = struct.unpack_from("<I", table, sed_at + 4 * 3 + 2)[0]  # section 1's Sepx
        size = struct.unpack_from("<h", word, fc)[0]
        assert word[fc + 2 + size - 3:fc + 2 + size] == b"\x0a\x30\x01"  # sprmSFTitlePage
        word[fc + 2 + size - 1] = 0

    path = _doc_edited(tmp_path, no_title_page)
    assert load_documents(path)[0].text.split("\n\n") == BLOCKS[1:]


@needs_doc
def test_doc_even_pages_stories_need_facing_pages() -> None:
    import olefile

    from hyperviz_core.rag.index.docheaders import Sections

    ole = olefile.OleFileIO(str(DATA / "pages.doc"))
    word, table = ole.openstream("WordDocument").read(), ole.openstream("1Table").read()
    ole.close()
    pairs = [_pair(word, i) for i in range(40)]
    ccps = [116, 0, 165, 0, 0, 0, 0]
    plain = Sections(word, table, ccps, pairs)
    assert plain.ends == [86, 282]
    assert [(len(h), len(f)) for h, f in plain.stories] == [(2, 2), (1, 1)]  # 1: no title
    dop = pairs[31][0]
    facing = table[:dop] + bytes([table[dop] | 1]) + table[dop + 1:]
    assert [(len(h), len(f)) for h, f in Sections(word, facing, ccps, pairs).stories] == [
        (3, 3), (2, 2)]
    damaged = [(len(table) + 8, 80) if i == 11 else p for i, p in enumerate(pairs)]
    assert Sections(word, table, ccps, damaged).stories == [([], []), ([], [])]


@needs_doc
def test_doc_headers_past_the_table_stream_leave_the_body_read(tmp_path: Path) -> None:
    def far_headers(word: bytearray, table: bytes) -> None:
        struct.pack_into("<I", word, _pairs_at(word) + 8 * 11, 1 << 30)  # PlcfHdd

    path = _doc_edited(tmp_path, far_headers)
    blocks = [b for b in BLOCKS if not b.startswith(("Header", "Footer"))]
    assert load_documents(path)[0].text.split("\n\n") == blocks


def test_odt_hidden_and_unused_page_styles_give_no_text(tmp_path: Path) -> None:
    unused = ('<style:master-page style:name="Unused" style:page-layout-name="Mpm1">'
              '<style:header><text:p>Never shown</text:p></style:header></style:master-page>'
              '</office:master-styles>')
    path = _edited(tmp_path, "pages.odt", "styles.xml", "</office:master-styles>", unused)
    assert load_documents(path)[0].text.split("\n\n") == BLOCKS
    hidden = _edited(tmp_path, "pages.odt", "styles.xml",
                     r'(<style:master-page style:name="Appendix"[^>]*>)<style:header>',
                     r'\1<style:header style:display="false">')
    assert load_documents(hidden)[0].text.split("\n\n") == [
        b for b in BLOCKS if b != "Header: Appendix | Tide tables"]


def test_odt_without_styles_reads_its_body(tmp_path: Path) -> None:
    path = tmp_path / "bare.odt"
    with zipfile.ZipFile(DATA / "pages.odt") as src, zipfile.ZipFile(path, "w") as out:
        for info in src.infolist():
            if info.filename != "styles.xml":
                out.writestr(info, src.read(info))
    # the body's page styles name master pages styles.xml would hold: none is shown
    assert load_documents(path)[0].text.split("\n\n") == [
        b for b in BLOCKS if not b.startswith(("Header", "Footer"))]


@pytest.mark.skipif(not importlib.util.find_spec("striprtf"), reason="rtf extra")
def test_rtf_headers_and_footers_frame_their_sections() -> None:
    """An RTF file's paragraphs are lines (not blocks) and striprtf joins a table's cells
    with ``|``: otherwise it reads as the others, its page styles' copies (in a group RTF
    readers skip) left out."""
    [doc] = load_documents(DATA / "pages.rtf")
    lines = [line for line in doc.text.split("\n") if line]
    assert lines == [b.replace("Appendix | Tide tables", "Appendix|Tide tables|")
                     for b in BLOCKS]


def test_rtf_first_page_and_left_page_headers_need_their_flags() -> None:
    from hyperviz_core.rag.index.rtfheaders import split_furniture

    def text_of(group: str) -> str:
        return group.strip("{}").split("\\")[0]

    markup = (r"{\rtf1{\headerf First}{\header Odd}{\headerl Even}{\footer Foot}"
              r"{\*\pgdsc{\header Style copy}}Body\par}")
    body, pages = split_furniture(markup, text_of)
    assert pages.headers(0) == ["Header: Odd"] and "Style" in body and "Odd" not in body
    _, pages = split_furniture(markup.replace("Body", r"\titlepg\facingp Body"), text_of)
    assert pages.headers(0) == ["Header: First", "Header: Odd", "Header: Even"]
    assert pages.rest(0) == ["Footer: Foot"]
    # a damaged group (never closed) is read to the markup's end, the text kept
    body, pages = split_furniture(r"{\rtf1 Body\par{\header Open", text_of)
    assert "Body" in body and pages.rest(0) == []
