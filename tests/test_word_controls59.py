"""A Word table's rows and cells in content controls are read (stop 59): a repeating
section's rows (``w:sdt`` around ``w:tr``s, as a filled-in form's list of items) and a
cell-level control. Before, python-docx's grid read only a table's own rows and a row's own
cells: such a table lost them, here all but its first cell.

The files are written with python-docx, the controls added as Word lays them out.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag.index.loaders import load_documents

docx = pytest.importorskip("docx")


def _control(items: list[Any], placeholder: bool = False) -> Any:
    """Wrap ``items`` (rows or cells, in place) in a content control."""
    from docx.oxml import OxmlElement

    sdt, props, content = (OxmlElement(t) for t in ("w:sdt", "w:sdtPr", "w:sdtContent"))
    if placeholder:
        props.append(OxmlElement("w:showingPlcHdr"))
    sdt.extend([props, content])
    items[0].addprevious(sdt)
    content.extend(items)
    return sdt


def _crew(table: Any) -> None:
    for r, (a, b) in enumerate([("Name", "Role"), ("Ada", "Captain"), ("Bo", "Cook")]):
        table.cell(r, 0).text, table.cell(r, 1).text = a, b


def test_rows_and_cells_in_content_controls(tmp_path: Path) -> None:
    from docx.oxml.ns import qn

    document = docx.Document()
    document.add_paragraph("Crew list")
    table = document.add_table(rows=3, cols=2)
    _crew(table)
    rows = table._tbl.findall(qn("w:tr"))
    _control(rows[1:])  # a repeating section
    _control([rows[0].findall(qn("w:tc"))[1]])  # a cell-level control
    document.save(str(tmp_path / "crew.docx"))
    assert load_documents(tmp_path / "crew.docx")[0].text == (
        "Crew list\n\nName | Role\nAda | Captain\nBo | Cook")


def test_a_control_showing_its_placeholder_gives_no_rows(tmp_path: Path) -> None:
    from docx.oxml.ns import qn

    document = docx.Document()
    table = document.add_table(rows=3, cols=2)
    _crew(table)
    rows = table._tbl.findall(qn("w:tr"))
    _control(rows[2:], placeholder=True)  # "Click or tap here": not the document's
    document.save(str(tmp_path / "crew.docx"))
    assert load_documents(tmp_path / "crew.docx")[0].text == "Name | Role\nAda | Captain"


def test_nested_and_header_tables_read_their_controls_too(tmp_path: Path) -> None:
    from docx.oxml.ns import qn

    document = docx.Document()
    outer = document.add_table(rows=1, cols=1)
    inner = outer.cell(0, 0).add_table(rows=2, cols=1)
    inner.cell(0, 0).text, inner.cell(1, 0).text = "Bergen", "Oslo"
    _control(inner._tbl.findall(qn("w:tr")))
    header = document.sections[0].header.add_table(rows=2, cols=1, width=docx.shared.Inches(4))
    header.cell(0, 0).text, header.cell(1, 0).text = "Harbour", "Authority"
    _control(header._tbl.findall(qn("w:tr"))[1:])
    document.save(str(tmp_path / "ports.docx"))
    assert load_documents(tmp_path / "ports.docx")[0].text.split("\n\n") == [
        "Header: Harbour\nAuthority", "Bergen Oslo"]
