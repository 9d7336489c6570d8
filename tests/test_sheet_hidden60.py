"""Hidden rows and columns of an Excel sheet are read, by choice (stop 60, README): a
filter hides the rows it does not match, which are still the workbook's data; a hidden
sheet is left out."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import load_documents


def test_hidden_excel_rows_and_columns_are_read(tmp_path: Path) -> None:
    openpyxl = pytest.importorskip("openpyxl")
    book = openpyxl.Workbook()
    sheet = book.active
    for row in (["Ship", "Port", "Crew"], ["Aurora", "Bergen", 12], ["Borealis", "Oslo", 9]):
        sheet.append(row)
    sheet.row_dimensions[3].hidden = True
    sheet.column_dimensions["C"].hidden = True
    book.create_sheet("Secret")["A1"] = "Not shown"
    book["Secret"].sheet_state = "hidden"
    book.save(str(tmp_path / "fleet.xlsx"))
    assert load_documents(tmp_path / "fleet.xlsx")[0].text == (
        "Ship: Aurora; Port: Bergen; Crew: 12\nShip: Borealis; Port: Oslo; Crew: 9")
