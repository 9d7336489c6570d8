"""Excel workbooks embedded in Word documents and decks are read (stop 59): the active sheet's
rows, after the paragraph holding the object (a deck: in the slide's order). Before, such a
table (shown as a picture of its cells) gave no text.

The files are written with python-docx and python-pptx (python-pptx's ``add_ole_object``;
the Word object as Word writes it: ``w:object`` holding an ``o:OLEObject`` whose
relationship names the embedded package), the workbooks with openpyxl and, for the Excel
97-2003 one, ``tests/data/xls/staff.xls`` (written with xlwt).
"""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import load_documents

docx = pytest.importorskip("docx")
openpyxl = pytest.importorskip("openpyxl")

_PACKAGE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/package"
_OLE = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/oleObject"
_XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
_BIN = "application/vnd.openxmlformats-officedocument.oleObject"
FLEET = "Ship: Aurora; Port: Bergen\nShip: Borealis; Port: Oslo"


def _workbook() -> bytes:
    book = openpyxl.Workbook()
    other = book.active
    other.title, other["A1"] = "Notes", "Not shown"
    sheet = book.create_sheet("Fleet")
    for row in (["Ship", "Port"], ["Aurora", "Bergen"], [None, None], ["Borealis", "Oslo"]):
        sheet.append(row)
    book.active = 1  # the sheet the object shows
    out = io.BytesIO()
    book.save(out)
    return out.getvalue()


def _word_with_object(path: Path, data: bytes, content_type: str, relationship: str,
                      name: str) -> Path:
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part
    from docx.oxml.parser import parse_xml

    document = docx.Document()
    paragraph = document.add_paragraph("Fleet list:")
    part = Part(PackURI(f"/word/embeddings/{name}"), content_type, data,
                document.part.package)
    rid = document.part.relate_to(part, relationship)
    paragraph._p.append(parse_xml(
        '<w:r xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" '
        'xmlns:o="urn:schemas-microsoft-com:office:office" '
        'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships">'
        '<w:object><o:OLEObject Type="Embed" ProgID="Excel.Sheet.12" ShapeID="_x0000_i1025" '
        f'DrawAspect="Content" ObjectID="_1" r:id="{rid}"/></w:object></w:r>'))
    document.add_paragraph("The end.")
    document.save(str(path))
    return path


def test_a_word_document_s_embedded_workbook(tmp_path: Path) -> None:
    path = _word_with_object(tmp_path / "fleet.docx", _workbook(), _XLSX, _PACKAGE,
                             "Microsoft_Excel_Worksheet.xlsx")
    assert load_documents(path)[0].text.split("\n\n") == ["Fleet list:", FLEET, "The end."]


def test_an_embedded_excel_97_workbook(tmp_path: Path) -> None:
    pytest.importorskip("xlrd")
    data = (Path(__file__).parent / "data" / "xls" / "staff.xls").read_bytes()
    path = _word_with_object(tmp_path / "staff.docx", data, _BIN, _OLE, "oleObject1.bin")
    blocks = load_documents(path)[0].text.split("\n\n")
    assert blocks[1].startswith("Name: Ada Lovelace; City: London; column 3: x; Age: 36")


def test_a_deck_s_embedded_workbook(tmp_path: Path) -> None:
    pptx = pytest.importorskip("pptx")
    from pptx.enum.shapes import PROG_ID
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Fleet"
    slide.shapes.add_ole_object(io.BytesIO(_workbook()), PROG_ID.XLSX, Inches(1), Inches(2))
    deck.save(str(tmp_path / "fleet.pptx"))
    assert load_documents(tmp_path / "fleet.pptx")[0].text == f"Fleet\n\n{FLEET}"


def test_objects_that_are_no_workbook_or_are_damaged(tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    other = _word_with_object(tmp_path / "doc.docx", b"PK\x03\x04", "application/"
                              "vnd.openxmlformats-officedocument.wordprocessingml.document",
                              _PACKAGE, "Microsoft_Word_Document.docx")
    assert load_documents(other)[0].text == "Fleet list:\n\nThe end."  # not read: no text
    broken = _word_with_object(tmp_path / "broken.docx", b"PK\x03\x04 cut", _XLSX, _PACKAGE,
                               "Microsoft_Excel_Worksheet.xlsx")
    with caplog.at_level(logging.WARNING):
        assert load_documents(broken)[0].text == "Fleet list:\n\nThe end."
    assert "broken.docx: an embedded workbook could not be read" in caplog.text
