"""Spreadsheets whose sheets hold records (stop 55): an ``.xlsx`` or ``.ods`` sheet whose
first row has the text column gives a document a row, as a CSV file with that header does.

Before, every sheet read as a table: a workbook of passages (``id``, ``title``, ``text``)
became one document of lines ``id: 7; title: Oslo; text: ...``, so a question found the
whole workbook, not the passage, and the ``id`` and ``title`` columns were text.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from office_files import index_json, top_passage, write_odf

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import iter_sourced_documents, load_documents


def _workbook(path: Path, sheets: dict[str, list[list[object]]], hidden: str = "") -> Path:
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for row in rows:
            sheet.append(row)
        if name == hidden:
            sheet.sheet_state = "hidden"
    book.save(str(path))
    return path


DOCS = [["id", "title", "text", "lang", None],
        [7, "Oslo", "Oslo is the capital of Norway.", "en", None],
        [],
        ["b2", "Bergen", "Bergen lies on the west coast.", None, "rainy"]]
NOTES = [["Name", "City"], ["Ada", "London"]]


def test_a_sheet_with_a_text_column_gives_a_document_a_row(tmp_path: Path) -> None:
    pytest.importorskip("openpyxl")
    path = _workbook(tmp_path / "book.xlsx",
                     {"Notes": NOTES, "Secret": [["text"], ["hunter2"]], "Docs": DOCS},
                     hidden="Secret")
    got = list(iter_sourced_documents([path]))
    assert [(d.id, d.title, d.text) for d, _ in got] == [
        ("7", "Oslo", "Oslo is the capital of Norway."),
        ("b2", "Bergen", "Bergen lies on the west coast."),
        ("book.xlsx", "book", "Name: Ada; City: London")]  # the sheet that is a table
    assert got[0][0].metadata == {"lang": "en"}
    # an empty cell of a named column is "", as a CSV row's; a column without a name: column N
    assert got[1][0].metadata == {"lang": "", "column 5": "rainy"}
    assert [w for _, w in got] == [f"{path} (sheet 'Docs', row 2)",
                                   f"{path} (sheet 'Docs', row 4)", str(path)]
    table = got[2][0]
    assert table.metadata["pages"] == 3 and table.metadata["page_starts"] == [0, 23, 23]


def test_a_workbook_of_records_only_gives_no_file_document(tmp_path: Path) -> None:
    pytest.importorskip("openpyxl")
    path = _workbook(tmp_path / "only.xlsx", {"Docs": DOCS, "Empty": []})
    assert [d.id for d in load_documents(path)] == ["7", "b2"]
    with pytest.raises(LoaderError, match=r"only\.xlsx \(sheet 'Docs', row 2\): missing "
                                          r"title field 'headline'"):
        load_documents(path, title_field="headline")
    with pytest.raises(LoaderError, match=r"only\.xlsx: no sheet has a column 'summary' "
                                          r"\(columns: \['id', 'lang', 'text', 'title'\]"):
        load_documents(path, text_field="summary")
    assert [d.id for d in load_documents(path, text_field="lang")] == ["7", "b2"]


def _ods_cell(text: str = "") -> str:
    return f"<table:table-cell><text:p>{text}</text:p></table:table-cell>" if text else \
        "<table:table-cell/>"


def test_an_ods_sheet_of_records_counts_repeated_rows(tmp_path: Path) -> None:
    rows = (f"<table:table-row>{_ods_cell('title')}{_ods_cell('content')}</table:table-row>"
            '<table:table-row table:number-rows-repeated="3"><table:table-cell/>'
            "</table:table-row>"
            f"<table:table-row>{_ods_cell('Oslo')}{_ods_cell('A city in Norway.')}"
            "</table:table-row>")
    body = f'<table:table table:name="Passages">{rows}</table:table>'
    path = write_odf(tmp_path / "p.ods", body, kind="spreadsheet")
    [(doc, where)] = list(iter_sourced_documents([path]))
    assert (doc.title, doc.text, where) == ("Oslo", "A city in Norway.",
                                            f"{path} (sheet 'Passages', row 5)")
    assert doc.id.startswith("doc-")  # no id column: a content-hash id, as a CSV row's


def test_the_cli_finds_the_passage_not_the_workbook(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("openpyxl")
    path = _workbook(tmp_path / "book.xlsx", {"Notes": NOTES, "Docs": DOCS})
    store = tmp_path / "S"
    assert index_json(capsys, str(path), "--store", str(store))["documents_added"] == 3
    top, line = top_passage(capsys, store, "Which coast does Bergen lie on?")
    assert top["doc_id"] == "b2" and "Bergen lies on the west coast." in line


def test_a_csv_of_records_is_read_a_line_at_a_time(tmp_path: Path) -> None:
    """A large CSV of passages is never held whole (stop 55): its first record comes before
    the file's end is read, so a bad byte on its last line is an error once reached, naming
    that line (before, the whole file was decoded first: no record came out)."""
    from hyperviz_core.rag.index.csvfiles import csv_documents

    path = tmp_path / "big.csv"
    path.write_bytes(b'id,text\np1,"Oslo is\r\na city."\np2,Bergen\np3,caf\xe9\n')
    docs = csv_documents(path, True)
    first, where = next(docs)
    assert (first.id, first.text, where) == ("p1", "Oslo is\na city.", f"{path}:2")
    assert next(docs)[1] == f"{path}:4"  # a quoted line break: the row after starts on 4
    with pytest.raises(LoaderError, match=r"big\.csv: not UTF-8 text at line 5"):
        next(docs)


def test_headers_written_by_people_name_the_fields_in_any_case(tmp_path: Path) -> None:
    """``ID``, ``Title``, ``Text``, ``Body`` in a CSV or sheet header are the record's id,
    title and text fields (stop 55; before, only ``id``/``title``/``text`` as written, and a
    file headed ``Title,Text`` read as one table document)."""
    pytest.importorskip("openpyxl")
    csv_path = tmp_path / "a.csv"
    csv_path.write_text("ID,Title,Text,Lang\n7,Oslo,A city.,en\n", encoding="utf-8")
    [doc] = load_documents(csv_path)
    assert (doc.id, doc.title, doc.text, doc.metadata) == ("7", "Oslo", "A city.", {"Lang": "en"})
    both = tmp_path / "b.csv"  # the field as written wins; the other is metadata
    both.write_text("Text,text\nshout,quiet\n", encoding="utf-8")
    assert [(d.text, d.metadata) for d in load_documents(both)] == [("quiet", {"Text": "shout"})]
    with pytest.raises(LoaderError, match=r"no column 'summary' \(columns: \['Summary'\]"):
        load_documents(_write(tmp_path / "c.csv", "Summary\nx\n"), text_field="summary")
    book = _workbook(tmp_path / "d.xlsx", {"S": [["Title", " Body "], ["Oslo", "A city."]]})
    assert [(d.title, d.text) for d in load_documents(book)] == [("Oslo", "A city.")]


def _write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_a_macro_enabled_workbook_reads_as_its_sheets(tmp_path: Path) -> None:
    """``.xlsm`` (stop 55; before, a walk left it out): read as an ``.xlsx``, its VBA part
    never read."""
    pytest.importorskip("openpyxl")
    import zipfile

    from office_files import write_xlsx

    path = tmp_path / "macros.xlsm"
    write_xlsx(path)
    with zipfile.ZipFile(path, "a") as package:  # the part a macro-enabled workbook adds
        package.writestr("xl/vbaProject.bin", b"\xd0\xcf\x11\xe0" + b"\x00" * 100)
    [doc] = load_documents(tmp_path)
    assert (doc.id, doc.metadata["pages"]) == ("macros.xlsm", 3)
    assert doc.text.endswith("City: Oslo; Country: Norway")


def test_a_workbook_of_records_is_read_as_its_records_are_asked_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first record of an ``.xlsx`` comes before its later sheets are read, so a sheet
    of a million records is never held whole (each row is read as it is asked for)."""
    pytest.importorskip("openpyxl")
    from hyperviz_core.rag.index import sheets

    path = _workbook(tmp_path / "big.xlsx", {"Docs": DOCS, "Notes": NOTES})
    read: list[str] = []
    real = sheets.sheet_of
    monkeypatch.setattr(sheets, "sheet_of", lambda ws: read.append(ws.title) or real(ws))
    docs = sheets.xlsx_documents(path, True)
    assert next(docs)[0].id == "7" and read == ["Docs"]
    assert [d.id for d, _ in docs] == ["b2", "big.xlsx"] and read == ["Docs", "Notes"]
