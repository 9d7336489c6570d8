"""A Word document's text is what Word shows (stop 58): text in content controls (a cover
page, a template's fields), tracked insertions, moved text and simple fields is read, and
tracked deletions, placeholder prompts and a generated table of contents are not; an
equation gives its characters in order. Before,
python-docx's reading kept only the runs directly in a paragraph and the paragraphs
directly in the body: a filled-in template lost its fields, and a reviewed contract its
insertions.

The documents are python-docx's with elements added as WordprocessingML (ECMA-376) writes
them; no file saved by Word was at hand.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from office_files import folder_top

from hyperviz_core.rag.index.loaders import load_documents

docx = pytest.importorskip("docx")
_NS = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'


def _xml(text: str) -> object:
    """The element ``text`` writes (its first tag given the ``w`` namespace)."""
    from docx.oxml.parser import parse_xml

    return parse_xml(text.replace(">", f" {_NS}>", 1))


def _run(text: str) -> str:
    return f'<w:r><w:t xml:space="preserve">{text}</w:t></w:r>'


def _block(inner: str, props: str = "") -> str:
    return f"<w:sdt><w:sdtPr>{props}</w:sdtPr><w:sdtContent>{inner}</w:sdtContent></w:sdt>"


def _write(path: Path) -> Path:
    d = docx.Document()
    body = d.element.body
    cover = _block('<w:p><w:pPr><w:pStyle w:val="Title"/></w:pPr>' + _run("Harbour Permit")
                   + "</w:p>", '<w:docPartObj><w:docPartGallery w:val="Cover Pages"/>'
                   "</w:docPartObj>")
    toc = _block("<w:p>" + _run("Contents 1") + "</w:p>",
                 '<w:docPartObj><w:docPartGallery w:val="Table of Contents"/></w:docPartObj>')
    prompt = _block("<w:p>" + _run("Click or tap here to enter text.") + "</w:p>",
                    "<w:showingPlcHdr/>")
    for element in (cover, toc, prompt):
        body.insert(len(body) - 1, _xml(element))
    p = d.add_paragraph("Applicant: ")
    for inline in (_block(_run("Ada Lovelace")),
                   "<w:del><w:r><w:delText>Bo Li</w:delText></w:r></w:del>",
                   "<w:ins>" + _run(", engineer") + "</w:ins>",
                   '<w:fldSimple w:instr=" DATE ">' + _run(" (4 December 2026)") + "</w:fldSimple>",
                   "<w:moveFrom>" + _run(" moved away") + "</w:moveFrom>",
                   "<w:moveTo>" + _run(" of Bergen") + "</w:moveTo>",
                   "<w:smartTag>" + _run(".") + "</w:smartTag>"):
        p._p.append(_xml(inline))
    p = d.add_paragraph("Energy: ")
    for inline in ('<m:oMath xmlns:m="http://schemas.openxmlformats.org/officeDocument/2006/'
                   'math"><m:r><m:t>E=m</m:t></m:r><m:sSup><m:e><m:r><m:t>c</m:t></m:r>'
                   "</m:e><m:sup><m:r><m:t>2</m:t></m:r></m:sup></m:sSup></m:oMath>",):
        p._p.append(_xml(inline))
    table = d.add_table(rows=1, cols=2)
    table.cell(0, 0).text = "Vessel"
    cell = table.cell(0, 1)._tc
    cell.append(_xml(_block("<w:p>" + _run("Northwind") + "</w:p>")))
    d.save(str(path))
    return path


def test_word_shows_controls_insertions_and_fields_not_deletions(tmp_path: Path) -> None:
    [doc] = load_documents(_write(tmp_path / "permit.docx"))
    assert doc.title == "Harbour Permit"  # a Title paragraph in a cover page control
    assert doc.text.split("\n\n") == [
        "Harbour Permit",
        "Applicant: Ada Lovelace, engineer (4 December 2026) of Bergen.",
        "Energy: E=mc2",
        "Vessel | Northwind"]


def test_vizrag_query_finds_a_template_field(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    top, line = folder_top(capsys, tmp_path, {
        "permit.docx": _write(tmp_path / "p.docx").read_bytes(),
        "other.md": "# Oslo\n\nOslo lies at the end of a fjord.\n"},
        "Who applied for the harbour permit?")
    assert top["doc_id"] == "permit.docx" and "Ada Lovelace" in line
