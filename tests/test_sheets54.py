"""Excel workbooks as documents (stop 54, the ``xlsx`` extra): each worksheet a page, read
as a CSV file without a text column is, a row a line naming its columns. Before, an
``.xlsx`` named directly was refused as a binary file and a folder walk left it out."""

from __future__ import annotations

from pathlib import Path

import pytest
from office_files import index_json, top_passage, write_xlsx

from hyperviz_core.rag.index import zipped
from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.sheets import xlsx_documents

pytest.importorskip("openpyxl")


def test_a_workbook_reads_as_its_sheets(tmp_path: Path) -> None:
    (tmp_path / "hr").mkdir()
    [(doc, _)] = xlsx_documents(write_xlsx(tmp_path / "hr" / "staff.xlsx"), True, tmp_path)
    assert (doc.id, doc.title) == ("hr/staff.xlsx", "staff")
    assert doc.text == ("Name: Ada Lovelace; City: London; column 3: x; Age: 36; "
                        "Joined: 2026-12-06\nName: Bo; Age: 41.5\nName: Total"  # the formula: no
                        "\n\nCity: Oslo; Country: Norway")  # value saved (openpyxl wrote it)
    assert "hunter2" not in doc.text and doc.metadata["pages"] == 3  # hidden: no text
    starts = doc.metadata["page_starts"]
    assert doc.text[starts[2]:].startswith("City: Oslo") and starts[1] == starts[2]
    assert load_documents(write_xlsx(tmp_path / "t.xlsx", title="Team  list"))[0].title \
        == "Team list"


def test_files_that_are_no_workbooks_are_errors_naming_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = tmp_path / "old.xlsx"  # a damaged compound file (as .xls workbooks are) renamed
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    with pytest.raises(LoaderError, match=r"old\.xlsx: not an Excel 97-2003 workbook xlrd "
                                          r"can read \("):
        load_documents(old)  # since stop 57 read as what it holds (officekinds)
    text = tmp_path / "text.xlsx"
    text.write_text("plain text")
    with pytest.raises(LoaderError, match=r"text\.xlsx: not an Excel workbook openpyxl can "
                                          r"read \(not a zip package\)"):
        load_documents(text)
    monkeypatch.setattr(zipped, "MAX_UNPACKED", 1000)
    with pytest.raises(LoaderError, match=r"big\.xlsx: unpacks to more than 0 MiB"):
        load_documents(write_xlsx(tmp_path / "big.xlsx"))


def test_vizrag_index_and_query_a_workbook(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    corp, store = tmp_path / "data", tmp_path / "store"
    corp.mkdir()
    write_xlsx(corp / "staff.xlsx")
    assert index_json(capsys, str(corp), "--store", str(store))["documents_added"] == 1
    chunk, said = top_passage(capsys, store, "Which country is Oslo in?")
    assert (chunk["doc_id"], chunk["page_end"]) == ("staff.xlsx", 3)
    assert "(staff.xlsx, sheets 1-3)" in said  # a workbook's pages are its sheets
