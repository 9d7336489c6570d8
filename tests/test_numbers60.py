"""Apple Numbers spreadsheets (``.numbers``) are read with the ``numbers`` extra (stop 60):
each table as an Excel workbook's sheet. Before, a folder walk left them out.

The files are written with numbers-parser (no file saved by Numbers was at hand).
"""

from __future__ import annotations

import datetime as dt
import zipfile
from pathlib import Path

import pytest

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents, skipped_files

numbers_parser = pytest.importorskip("numbers_parser")


def _write(table: object, rows: list[list[object]]) -> None:
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.write(r, c, value)  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def harbour(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three sheets: "Fleet" (one table), "Harbour" (two tables), "Docs" (records)."""
    doc = numbers_parser.Document(sheet_name="Fleet", table_name="Ships")
    _write(doc.sheets[0].tables[0], [["Ship", "Port", "Crew", "Since"],
                                     ["Aurora", "Bergen", 12, dt.datetime(2019, 3, 1)],
                                     ["Borealis", "Oslo", 2.5, True]])
    doc.add_sheet("Harbour", "Berths")
    harbour = doc.sheets[1]
    _write(harbour.tables[0], [["Pier", "Depth"], ["Festningskaien", "12 m"]])
    _write(harbour.add_table("Notes"), [["Note"], ["Closed in January."]])
    doc.add_sheet("Docs", "Records")
    _write(doc.sheets[2].tables[0], [["id", "title", "text", "kind"],
                                     ["n1", "Pier 4", "Pier 4 is closed for repairs.", "notice"]])
    path = tmp_path_factory.mktemp("numbers") / "harbour.numbers"
    doc.save(str(path))
    return path


def test_tables_read_as_sheets_and_records(harbour: Path) -> None:
    cell = numbers_parser.Document(str(harbour)).sheets[0].tables[0].cell(1, 2)
    assert cell.value != 12  # numbers-parser reads the 12 it wrote as 12.000000000000002
    record, book = load_documents(harbour)
    assert (record.id, record.title, record.text) == (
        "n1", "Pier 4", "Pier 4 is closed for repairs.")
    assert record.metadata["kind"] == "notice"
    assert (book.id, book.title) == ("harbour.numbers", "harbour")
    assert book.text.split("\n\n") == [
        "Ship: Aurora; Port: Bergen; Crew: 12; Since: 2019-03-01\n"
        "Ship: Borealis; Port: Oslo; Crew: 2.5; Since: TRUE",
        "Pier: Festningskaien; Depth: 12 m", "Note: Closed in January."]
    assert book.metadata["pages"] == 4  # the records table keeps its number, without text


def test_a_record_error_names_the_table(harbour: Path) -> None:
    with pytest.raises(LoaderError, match=r"harbour\.numbers \(sheet 'Docs', row 2\): "
                                          "missing title field 'headline'"):
        load_documents(harbour, title_field="headline")


def test_files_that_are_no_numbers_document(tmp_path: Path) -> None:
    (tmp_path / "notes.numbers").write_text("just text")
    with pytest.raises(LoaderError, match=r"notes\.numbers: not an Apple Numbers spreadsheet"):
        load_documents(tmp_path / "notes.numbers")
    with zipfile.ZipFile(tmp_path / "other.numbers", "w") as zf:
        zf.writestr("hello.txt", "a zip, but no Numbers document")
    with pytest.raises(LoaderError, match=r"other\.numbers: .*Numbers spreadsheet"):
        load_documents(tmp_path / "other.numbers")


def test_a_walk_without_the_extra_lists_them(harbour: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.rag.index import suffixes

    real = suffixes.importlib.util.find_spec
    monkeypatch.setattr(suffixes.importlib.util, "find_spec",
                        lambda name, *a: None if name == "numbers_parser" else real(name, *a))
    [line] = skipped_files([harbour.parent])
    assert line.endswith("harbour.numbers: reading Apple Numbers spreadsheets needs the "
                         "'numbers' extra: pip install 'vizrag[numbers]' (from a checkout: "
                         "pip install -e '.[numbers]')")



def test_a_duration_and_a_merge(tmp_path: Path) -> None:
    """A duration reads as written; the cells a merge covers show nothing (the "Note" of
    the first pier is covered by its depth)."""
    doc = numbers_parser.Document()
    table = doc.sheets[0].tables[0]
    _write(table, [["Pier", "Depth", "Note", "Dredging took"],
                   ["North", "12 m", "Deep", dt.timedelta(days=1, hours=2, minutes=30)]])
    table.merge_cells("B2:C2")
    doc.save(str(tmp_path / "piers.numbers"))
    assert load_documents(tmp_path / "piers.numbers")[0].text == (
        "Pier: North; Depth: 12 m; Dredging took: 1 day, 2:30:00")
