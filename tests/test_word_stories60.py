"""A Word document's imported chunks and embedded workbooks outside the body's paragraphs
(stop 60): an imported chunk (``w:altChunk``) in a table cell, a header or a footnote is read
in its place, and a workbook embedded in a header or a footnote gives its rows there, as in
the body. Before, the cell's chunk was left out, and so were the header's and the note's
chunks and workbooks.

The chunks and objects are parts related to the part of the story holding them (ECMA-376:
a header's relationships are its own), added with python-docx.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_embedded59 import _PACKAGE, _XLSX, FLEET, _workbook

from hyperviz_core.rag.index.loaders import load_documents

docx = pytest.importorskip("docx")
pytest.importorskip("openpyxl")

_CHUNK = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/aFChunk"
_W = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_NS = (f'xmlns:w="{_W}" xmlns:o="urn:schemas-microsoft-com:office:office" '
       'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"')
DATA = Path(__file__).parent / "data" / "wordnotes"


def _related(part: Any, name: str, content_type: str, data: bytes, reltype: str) -> str:
    """The relationship id, from ``part``, of a new part ``name`` holding ``data``."""
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    return str(part.relate_to(Part(PackURI(f"/word/{name}"), content_type, data,
                                   part.package), reltype))


def _chunk(part: Any, name: str, text: str) -> Any:
    """A ``w:altChunk`` naming a new plain-text chunk ``text`` related to ``part``."""
    from docx.oxml.parser import parse_xml

    rid = _related(part, name, "text/plain", text.encode(), _CHUNK)
    return parse_xml(f'<w:altChunk {_NS} r:id="{rid}"/>')


def _object(part: Any, name: str = "Microsoft_Excel_Worksheet.xlsx") -> Any:
    """A run holding an OLE object that embeds the fleet workbook (a part ``name``),
    related to ``part``."""
    from docx.oxml.parser import parse_xml

    rid = _related(part, f"embeddings/{name}", _XLSX, _workbook(), _PACKAGE)
    return parse_xml(f'<w:r {_NS}><w:object><o:OLEObject Type="Embed" ProgID="Excel.Sheet.12" '
                     f'ObjectID="_1" r:id="{rid}"/></w:object></w:r>')


def test_a_chunk_in_a_table_cell(tmp_path: Path) -> None:
    document = docx.Document()
    document.add_paragraph("Berths")
    table = document.add_table(rows=2, cols=2)
    table.cell(0, 0).text, table.cell(0, 1).text = "Pier", "Note"
    table.cell(1, 0).text = "Festningskaien"
    table.cell(1, 1)._tc.append(_chunk(document.part, "cell.txt", "Deep water.\nNo fee."))
    document.save(str(tmp_path / "cell.docx"))
    assert load_documents(tmp_path / "cell.docx")[0].text.split("\n\n") == [
        "Berths", "Pier | Note\nFestningskaien | Deep water. No fee."]


def test_a_header_s_chunk_and_workbook(tmp_path: Path) -> None:
    document = docx.Document()
    header = document.sections[0].header
    header.paragraphs[0].text = "Harbour Authority"
    header._element.append(_chunk(header.part, "head.txt", "Imported notice"))
    header.add_paragraph("Fleet:")._p.append(_object(header.part))
    document.add_paragraph("Body.")
    document.save(str(tmp_path / "head.docx"))
    assert load_documents(tmp_path / "head.docx")[0].text.split("\n\n") == [
        f"Header: Harbour Authority\nImported notice\nFleet:\n{FLEET}", "Body."]


def test_a_footnote_s_chunk_and_workbook(tmp_path: Path) -> None:
    from lxml import etree

    document = docx.Document(str(DATA / "harbour.docx"))
    notes = next(r.target_part for r in document.part.rels.values()
                 if r.reltype.endswith("/footnotes"))
    root = etree.fromstring(notes.blob)
    first = next(n for n in root.iterchildren(f"{{{_W}}}footnote")
                 if "Norwegian" in "".join(n.itertext()))
    first[-1].append(_object(notes))  # the note's paragraph holds the workbook
    first.append(_chunk(notes, "note.txt", "Imported in the note."))
    notes._blob = etree.tostring(root)
    document.save(str(tmp_path / "notes.docx"))
    text = load_documents(tmp_path / "notes.docx")[0].text
    assert ("Footnote 1: Measured by the Norwegian Coastal Administration in 2019.\n"
            f"{FLEET}\nImported in the note.\n\nThe fish market") in text


def test_a_workbook_in_a_text_box_is_read_once(tmp_path: Path) -> None:
    """The paragraph holding a text box reads the workbooks in it; the box's own lines do
    not read them again (in the body and in a header alike)."""
    from docx.oxml.parser import parse_xml

    document = docx.Document()
    header = document.sections[0].header
    for n, (story, paragraph) in enumerate(((header, header.paragraphs[0]),
                                            (document, document.add_paragraph("Body.")))):
        box = parse_xml(f'<w:r {_NS}><w:pict><w:txbxContent><w:p><w:r><w:t>In the box'
                        '</w:t></w:r></w:p></w:txbxContent></w:pict></w:r>')
        box.find(f".//{{{_W}}}p").append(_object(story.part, f"book{n}.xlsx"))
        paragraph._p.append(box)
    document.save(str(tmp_path / "boxes.docx"))
    text = load_documents(tmp_path / "boxes.docx")[0].text
    assert text.count("Ship: Aurora") == 2, text  # once in the header, once in the body
    assert text.split("\n\n") == [f"Header: In the box\n{FLEET}", "Body.", "In the box", FLEET]
