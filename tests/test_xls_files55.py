"""Excel 97-2003 workbooks (``.xls``, stop 55) read with the ``xls`` extra (xlrd): their
sheets as an ``.xlsx`` workbook's, records and the table document. Before, a walk left
``.xls`` files out and one named directly was an error."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from office_files import XLS, index_json, top_passage

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import iter_sourced_documents, load_documents
from hyperviz_core.rag.index.textfiles import walk

pytest.importorskip("xlrd")


def test_a_workbook_reads_as_its_sheets_and_records(tmp_path: Path) -> None:
    (tmp_path / "hr").mkdir()
    path = Path(shutil.copy(XLS, tmp_path / "hr" / "staff.xls"))
    assert walk(tmp_path).files == [path]
    got = list(iter_sourced_documents([tmp_path]))
    assert [(d.id, d.title, d.text, d.metadata, w) for d, w in got[:2]] == [
        ("7", "Oslo", "Oslo is the capital of Norway.", {"Lang": "en"},
         f"{path} (sheet 'Docs', row 2)"),
        ("b2", "Bergen", "Bergen lies on the west coast of Norway.", {"Lang": ""},
         f"{path} (sheet 'Docs', row 4)")]
    table = got[2][0]
    assert (table.id, table.title) == ("hr/staff.xls", "staff")
    assert table.text == ("Name: Ada Lovelace; City: London; column 3: x; Age: 36; "
                          "Joined: 2026-12-06; Active: TRUE\nName: Bo; Age: 41.5; Active: FALSE")
    assert "hunter2" not in table.text and table.metadata["pages"] == 3


def test_files_xlrd_cannot_read_are_errors_naming_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    renamed = tmp_path / "new.xls"  # a damaged .xlsx (a zip) renamed: read as one since stop 57
    renamed.write_bytes(b"PK\x03\x04" + b"\x00" * 200)
    with pytest.raises(LoaderError, match=r"new\.xls: not an Excel workbook openpyxl can "
                                          r"read \(not a zip package\)"):
        load_documents(renamed)
    text = tmp_path / "text.xls"
    text.write_text("plain text")
    with pytest.raises(LoaderError, match=r"text\.xls: not an Excel 97-2003 workbook xlrd can "
                                          r"read \("):
        load_documents(text)
    padded = tmp_path / "padded.xls"  # xlrd warns of its size: on stdout, before
    padded.write_bytes(XLS.read_bytes() + b"\x00" * 100)
    capsys.readouterr()
    assert [d.id for d in load_documents(padded)] == ["7", "b2", "padded.xls"]
    assert capsys.readouterr().out == ""


def test_vizrag_index_and_query_name_the_sheets(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "S"
    assert index_json(capsys, str(XLS), "--store", str(store))["documents_added"] == 3
    top, line = top_passage(capsys, store, "How old is Ada Lovelace?")
    # the table document's text is all on sheet 1 (sheet 2 hidden, sheet 3 records)
    assert top["doc_id"] == "staff.xls" and "(staff.xls, sheet 1)" in line
    top, _ = top_passage(capsys, store, "Which coast does Bergen lie on?")
    assert top["doc_id"] == "b2"


def write_fixture(path: Path = XLS) -> None:  # pragma: no cover - needs xlwt
    """Write ``tests/data/xls/staff.xls`` again (with ``pip install xlwt``)."""
    import datetime as dt

    import xlwt

    book = xlwt.Workbook(encoding="utf-8")
    staff = book.add_sheet("Staff")
    for c, v in enumerate(["Name", "City", "", "Age", "Joined", "Active"]):
        staff.write(0, c, v)
    for c, v in enumerate(["Ada  Lovelace", "London", "x", 36]):
        staff.write(1, c, v)
    staff.write(1, 4, dt.datetime(2026, 12, 6), xlwt.easyxf(num_format_str="YYYY-MM-DD"))
    staff.write(1, 5, True)
    staff.write(3, 0, "Bo")
    staff.write(3, 3, 41.5)
    staff.write(3, 5, False)
    secret = book.add_sheet("Secret")
    secret.write(0, 0, "Code")
    secret.write(1, 0, "hunter2")
    secret.visibility = 1
    docs = book.add_sheet("Docs")
    for r, row in enumerate([["ID", "Title", "Text", "Lang"],
                             [7, "Oslo", "Oslo is the capital of Norway.", "en"], [],
                             ["b2", "Bergen", "Bergen lies on the west coast of Norway."]]):
        for c, v in enumerate(row):
            docs.write(r, c, v)
    book.save(str(path))


def test_sheets_are_parsed_one_at_a_time(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Stop 56: each sheet is parsed when it is reached and unloaded before the next is
    (before, every sheet's rows were read into lists first)."""
    xlrd = pytest.importorskip("xlrd")
    from hyperviz_core.rag.index.xlsfiles import xls_documents

    calls: list[tuple[str, int]] = []
    load, unload = xlrd.book.Book.sheet_by_index, xlrd.book.Book.unload_sheet
    monkeypatch.setattr(xlrd.book.Book, "sheet_by_index",
                        lambda self, i: calls.append(("load", i)) or load(self, i))
    monkeypatch.setattr(xlrd.book.Book, "unload_sheet",
                        lambda self, i: calls.append(("unload", i)) or unload(self, i))
    docs = xls_documents(XLS, True)
    assert next(docs)[0].id == "7"  # the first record, on the third sheet
    assert calls == [("load", 0), ("unload", 0), ("load", 1), ("unload", 1), ("load", 2)]
    assert [d.id for d, _ in docs][-1] == "staff.xls"
    assert calls[-1] == ("unload", 2)
