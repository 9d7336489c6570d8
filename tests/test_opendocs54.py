"""OpenDocument text (``.odt``), presentations (``.odp``) and spreadsheets (``.ods``) as
documents (stop 54), read with the standard library: no extra. Before, a folder walk left
them out and one named directly was refused as a binary file."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from office_files import index_json, top_passage, write_odf

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.odpfiles import odp_document
from hyperviz_core.rag.index.odsfiles import ods_documents
from hyperviz_core.rag.index.opendocs import odt_document

#: a text document's body as LibreOffice writes it: a table of contents (generated: left
#: out), headings, spans, runs of spaces, a tab, a line break, a footnote and a comment
#: (left out), a tracked deletion (left out), a list, a table with header rows, a section
TEXT_BODY = (
    '<text:sequence-decls><text:sequence-decl text:display-outline-level="0" '
    'text:name="Table"/></text:sequence-decls>'
    '<text:tracked-changes><text:changed-region text:id="c1"><text:deletion>'
    "<text:p>Deleted words</text:p></text:deletion></text:changed-region>"
    "</text:tracked-changes>"
    '<text:table-of-content text:name="TOC"><text:index-body><text:p>Discovery of radium 1'
    "</text:p></text:index-body></text:table-of-content>"
    '<text:h text:outline-level="1">Discovery of <text:span>radium</text:span></text:h>'
    "<text:p>Marie Curie<text:s text:c=\"3\"/>and Pierre Curie<text:tab/>announced it"
    '<text:note text:note-class="footnote"><text:note-citation>1</text:note-citation>'
    "<text:note-body><text:p>A footnote.</text:p></text:note-body></text:note> in 1898."
    "<office:annotation><text:p>A comment.</text:p></office:annotation></text:p>"
    "<text:p>First line<text:line-break/>second line</text:p>"
    "<text:p/>"
    '<text:list><text:list-item><text:p>Polonium</text:p></text:list-item>'
    "<text:list-item><text:p>Radium</text:p></text:list-item></text:list>"
    '<table:table table:name="T"><table:table-header-rows><table:table-row>'
    "<table:table-cell><text:p>Year</text:p></table:table-cell><table:table-cell>"
    "<text:p>Event</text:p></table:table-cell></table:table-row></table:table-header-rows>"
    "<table:table-row><table:table-cell><text:p>1898</text:p></table:table-cell>"
    "<table:table-cell><text:p>Announced</text:p></table:table-cell><table:table-cell/>"
    "</table:table-row></table:table>"
    '<text:section text:name="S"><text:h text:outline-level="2">Later</text:h>'
    '<text:p>Isolated in 1910.<draw:frame><draw:text-box><text:p>A caption box</text:p>'
    "</draw:text-box></draw:frame></text:p></text:section>")


def test_a_text_document_reads_as_its_body(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    doc = odt_document(write_odf(tmp_path / "notes" / "radium.odt", TEXT_BODY), True, tmp_path)
    assert (doc.id, doc.title) == ("notes/radium.odt", "Discovery of radium")
    assert doc.text.split("\n\n") == [
        "Discovery of radium",
        "Marie Curie and Pierre Curie announced it in 1898.",
        "Footnote 1: A footnote.",  # notes and text boxes follow their paragraph (stop 58)
        "First line\nsecond line",
        "Polonium", "Radium",
        "Year | Event\n1898 | Announced",
        "Later", "Isolated in 1910.", "A caption box"]
    assert doc.metadata == {"source": str(tmp_path / "notes" / "radium.odt")}
    titled = write_odf(tmp_path / "t.odt", TEXT_BODY, title="Radium  &amp; polonium")
    assert load_documents(titled)[0].title == "Radium & polonium"
    bare = write_odf(tmp_path / "bare.odt", "<text:p>Only text.</text:p>")
    assert (load_documents(bare)[0].id, load_documents(bare)[0].title) == ("bare.odt", "bare")


SLIDES = (
    '<draw:page draw:name="p1" draw:style-name="dp1">'
    '<draw:frame presentation:class="title"><draw:text-box><text:p>Discovery of radium'
    "</text:p></draw:text-box></draw:frame>"
    '<draw:frame presentation:class="subtitle"><draw:text-box><text:p>Marie and Pierre '
    "Curie</text:p></draw:text-box></draw:frame>"
    "<presentation:notes><draw:page-thumbnail/>"
    '<draw:frame presentation:class="notes"><draw:text-box><text:p>Polonium was named after'
    " Poland.</text:p></draw:text-box></draw:frame></presentation:notes></draw:page>"
    '<draw:page draw:name="p2" draw:style-name="dp2">'
    '<draw:frame presentation:class="title"><draw:text-box><text:p>Backup</text:p>'
    "</draw:text-box></draw:frame></draw:page>"
    '<draw:page draw:name="p3" draw:style-name="dp1"><draw:g>'
    '<draw:frame><draw:text-box><text:p>Nobel Prize 1911</text:p></draw:text-box></draw:frame>'
    "</draw:g><draw:frame><table:table><table:table-row><table:table-cell><text:p>1898"
    "</text:p></table:table-cell><table:table-cell><text:p>Announced</text:p>"
    "</table:table-cell></table:table-row></table:table></draw:frame></draw:page>")
HIDDEN_STYLE = ('<style:style style:name="dp2" style:family="drawing-page">'
                '<style:drawing-page-properties presentation:visibility="hidden"/>'
                "</style:style>")


def test_a_presentation_reads_as_its_slides(tmp_path: Path) -> None:
    path = write_odf(tmp_path / "talk.odp", SLIDES, kind="presentation", styles=HIDDEN_STYLE)
    doc = odp_document(path, True)
    assert (doc.id, doc.title) == ("talk.odp", "Discovery of radium")
    assert doc.text == ("Discovery of radium\n\nMarie and Pierre Curie\n\nPolonium was named "
                        "after Poland.\n\nNobel Prize 1911\n\n1898 | Announced")
    assert doc.metadata["pages"] == 3  # the hidden slide: no text, its number kept
    starts = doc.metadata["page_starts"]
    assert doc.text[starts[2]:].startswith("Nobel") and starts[1] == starts[2]


def test_files_that_are_no_opendocuments_are_errors_naming_them(tmp_path: Path) -> None:
    old = tmp_path / "old.odt"
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    with pytest.raises(LoaderError, match=r"old\.odt: not an OpenDocument file \(not a zip "
                                          r"package: a compound file, as an older format's"):
        load_documents(old)
    empty = tmp_path / "empty.odt"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(LoaderError, match=r"empty\.odt: not an OpenDocument file \(no "
                                          r"content\.xml\)"):
        load_documents(empty)
    locked = write_odf(tmp_path / "locked.odt", "<text:p>x</text:p>", manifest=(
        '<manifest:file-entry manifest:full-path="content.xml"><manifest:encryption-data/>'
        "</manifest:file-entry>"))
    with pytest.raises(LoaderError, match=r"locked\.odt: an OpenDocument file saved with a "
                                          r"password"):
        load_documents(locked)
    laughs = tmp_path / "laughs.odt"  # entities are refused before any parsing
    with zipfile.ZipFile(laughs, "w") as zf:
        zf.writestr("content.xml", '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">'
                    '<!ENTITY b "&a;&a;&a;&a;">]><x>&b;</x>')
    with pytest.raises(LoaderError, match=r"laughs\.odt: its content\.xml declares a "
                                          r"document type"):
        load_documents(laughs)
    wide = tmp_path / "wide.odt"  # UTF-16 would hide a <!DOCTYPE from the check
    with zipfile.ZipFile(wide, "w") as zf:
        zf.writestr("content.xml", '<?xml version="1.0" encoding="UTF-16"?><x/>'
                    .encode("utf-16"))
    with pytest.raises(LoaderError, match=r"wide\.odt: its content\.xml is not UTF-8"):
        load_documents(wide)
    broken = tmp_path / "broken.odp"
    with zipfile.ZipFile(broken, "w") as zf:
        zf.writestr("content.xml", "<office:document-content>")
    with pytest.raises(LoaderError, match=r"broken\.odp: not an OpenDocument presentation "
                                          r"\(ParseError"):
        load_documents(broken)


def test_vizrag_index_and_query_opendocuments(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    corp, store = tmp_path / "docs", tmp_path / "store"
    corp.mkdir()
    write_odf(corp / "radium.odt", TEXT_BODY)
    write_odf(corp / "talk.odp", SLIDES, kind="presentation", styles=HIDDEN_STYLE)
    assert index_json(capsys, str(corp), "--store", str(store))["documents_added"] == 2
    chunk, said = top_passage(capsys, store, "When was the Nobel Prize?")
    assert (chunk["doc_id"], chunk["page"], chunk["page_end"]) == ("talk.odp", 1, 3)
    assert "(talk.odp, slides 1-3)" in said


def _cell(text: str = "", repeat: int = 1) -> str:
    rep = f' table:number-columns-repeated="{repeat}"' if repeat > 1 else ""
    body = f"<text:p>{text}</text:p>" if text else ""
    return f"<table:table-cell{rep}>{body}</table:table-cell>"


#: a spreadsheet as LibreOffice writes it: a header with a gap, repeated cells, a million
#: unused rows (one element), a covered (merged) cell, a hidden sheet, a comment
SHEETS = (
    '<table:table table:name="Staff" table:style-name="ta1">'
    '<table:table-column table:number-columns-repeated="5"/>'
    f"<table:table-row>{_cell('Name')}{_cell('City')}{_cell()}{_cell('Age')}"
    f"{_cell(repeat=1020)}</table:table-row>"
    f"<table:table-row>{_cell('Ada Lovelace')}<table:covered-table-cell/>{_cell('x')}"
    f"{_cell('36')}{_cell(repeat=1020)}</table:table-row>"
    '<table:table-row table:number-rows-repeated="2">'
    f"{_cell('Bo')}{_cell(repeat=2)}{_cell('41')}</table:table-row>"
    '<table:table-row table:number-rows-repeated="1048570">'
    f"{_cell(repeat=1024)}</table:table-row>"
    f"<table:table-row><table:table-cell><office:annotation><text:p>A note</text:p>"
    "</office:annotation></table:table-cell></table:table-row></table:table>"
    '<table:table table:name="Secret" table:style-name="ta2"><table:table-row>'
    f"{_cell('hunter2')}</table:table-row></table:table>"
    '<table:table table:name="Cities" table:style-name="ta1"><table:table-row>'
    f"{_cell('City')}{_cell('Country')}</table:table-row><table:table-row>"
    f"{_cell('Oslo')}{_cell('Norway')}</table:table-row></table:table>")
SHEET_STYLES = ('<style:style style:name="ta2" style:family="table"><style:table-properties '
                'table:display="false"/></style:style>')


def test_a_spreadsheet_reads_as_its_sheets(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path = write_odf(tmp_path / "staff.ods", SHEETS, kind="spreadsheet", styles=SHEET_STYLES)
    [(doc, _)] = ods_documents(path, True)
    assert (doc.id, doc.title) == ("staff.ods", "staff")
    assert doc.text == ("Name: Ada Lovelace; column 3: x; Age: 36\nName: Bo; Age: 41\n"
                        "Name: Bo; Age: 41\n\nCity: Oslo; Country: Norway")
    assert "hunter2" not in doc.text and "note" not in doc.text
    assert doc.metadata["pages"] == 3
    store = tmp_path / "S"
    assert index_json(capsys, str(path), "--store", str(store))["documents_added"] == 1
    assert "(staff.ods, sheets 1-3)" in top_passage(capsys, store, "Which country is Oslo in?")[1]


def test_shapes_holding_text_follow_their_paragraph(tmp_path: Path) -> None:
    """Stop 59: a drawing shape holding paragraphs of its own (a rectangle, a callout)
    follows the paragraph it is anchored in, as a text box does and as the same shape in a
    ``.docx`` or ``.doc`` reads; a hidden one gives nothing. Before, its text was glued into
    the paragraph (``Pier 4 is closed.The harbour map.``)."""
    body = ('<text:p>The harbour map.<draw:custom-shape text:anchor-type="paragraph">'
            '<text:p>Pier 4 is closed.</text:p><draw:enhanced-geometry/></draw:custom-shape>'
            '<draw:rect draw:display="none"><text:p>Old note.</text:p></draw:rect></text:p>'
            '<text:p>Ships dock all year.</text:p>')
    path = write_odf(tmp_path / "map.odt", body)
    assert load_documents(path)[0].text == (
        "The harbour map.\n\nPier 4 is closed.\n\nShips dock all year.")
