"""A Word document's imported chunks (``w:altChunk``) are read in place (stop 59): a web
page, a web archive (MHT), plain text, RTF and a Word document, as generators (HTML-to-Word
converters, report tools) write them for Word to convert. Before, python-docx left them
out, and a generated document could read as nothing but its headings.

The files are written with python-docx, each chunk a part of the package related to the
document as ECMA-376 lays it out (``aFChunk``).
"""

from __future__ import annotations

import importlib.util
import io
import logging
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag.index.loaders import load_documents

docx = pytest.importorskip("docx")

_CHUNK = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk"
_WORD = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def _with_chunk(document: Any, name: str, content_type: str, data: bytes,
                before: str = "") -> None:
    """Add a chunk part and a ``w:altChunk`` naming it to ``document``'s body (after a
    paragraph ``before``, if given)."""
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml import OxmlElement
    from docx.oxml.ns import qn

    if before:
        document.add_paragraph(before)
    part = Part(PackURI(f"/word/{name}"), content_type, data, document.part.package)
    rid = document.part.relate_to(part, _CHUNK)
    chunk = OxmlElement("w:altChunk")
    chunk.set(qn("r:id"), rid)
    document.element.body.insert(len(document.element.body) - 1, chunk)  # before sectPr


def _nested() -> bytes:
    inner = docx.Document()
    inner.sections[0].header.paragraphs[0].text = "Inner header"
    inner.add_paragraph("Imported from another document.")
    table = inner.add_table(rows=1, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Pier", "12 m"
    out = io.BytesIO()
    inner.save(out)
    return out.getvalue()


def test_chunks_are_read_in_place(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Harbour Report")
    _with_chunk(document, "page.html", "text/html",
                '<html><head><meta charset="windows-1252"><title>T</title></head><body>'
                "<p>Caf\xe9 on the quay.</p><script>x()</script></body></html>"
                .encode("cp1252"))
    mht = ("MIME-Version: 1.0\nContent-Type: multipart/related; boundary=b\n\n--b\n"
           "Content-Type: text/html; charset=utf-8\n\n<p>Archived page.</p>\n--b--\n")
    _with_chunk(document, "page.mht", "message/rfc822", mht.encode(), before="Next.")
    _with_chunk(document, "note.txt", "text/plain", "\ufeffPlain note.\n".encode())
    _with_chunk(document, "inner.docx", _WORD, _nested())
    _with_chunk(document, "logo.png", "image/png", b"\x89PNG\r\n\x1a\n")  # no text
    document.add_paragraph("The end.")
    document.save(str(tmp_path / "report.docx"))
    assert load_documents(tmp_path / "report.docx")[0].text.split("\n\n") == [
        "Harbour Report", "Café on the quay.", "Next.", "Archived page.", "Plain note.",
        "Imported from another document.", "Pier | 12 m", "The end."]  # not its header


@pytest.mark.skipif(not importlib.util.find_spec("striprtf"), reason="rtf extra")
def test_an_rtf_chunk(tmp_path: Path) -> None:
    document = docx.Document()
    _with_chunk(document, "part.rtf", "application/rtf",
                rb"{\rtf1\ansi{\fonttbl{\f0 Arial;}}\f0 Tide tables\par}")
    document.save(str(tmp_path / "rtf.docx"))
    assert load_documents(tmp_path / "rtf.docx")[0].text == "Tide tables"


def test_a_chunk_that_cannot_be_read_leaves_the_rest(tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    document = docx.Document()
    document.add_paragraph("Kept.")
    _with_chunk(document, "broken.docx", _WORD, b"PK\x03\x04 not a package")
    document.save(str(tmp_path / "broken.docx"))
    with caplog.at_level(logging.WARNING):
        assert load_documents(tmp_path / "broken.docx")[0].text == "Kept."
    assert "broken.docx: a chunk of type" in caplog.text


def test_chunks_nest_only_so_deep(tmp_path: Path) -> None:
    data = b""
    for depth in range(6):  # each document holds the one before as a chunk
        document = docx.Document()
        document.add_paragraph(f"Level {depth}.")
        if data:
            _with_chunk(document, "inner.docx", _WORD, data)
        out = io.BytesIO()
        document.save(out)
        data = out.getvalue()
    (tmp_path / "deep.docx").write_bytes(data)
    text = load_documents(tmp_path / "deep.docx")[0].text
    assert text.split("\n\n") == [f"Level {d}." for d in (5, 4, 3, 2, 1)]  # MAX_DEPTH 4
