"""An ``.ods`` spreadsheet is read while its ``content.xml`` is parsed (stop 56): each row
as its documents are asked for, then dropped, as an ``.xlsx``'s rows are read (stop 55).
Before, the whole ``content.xml`` was parsed into one tree first (``ET.fromstring``).
"""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from hyperviz_core.rag.index import odsfiles
from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.zipped import CheckedPart
from tests.office_files import write_odf


def _cell(text: str = "") -> str:
    return f"<table:table-cell><text:p>{text}</text:p></table:table-cell>" if text else \
        "<table:table-cell/>"


def _row(*cells: str) -> str:
    return f"<table:table-row>{''.join(map(_cell, cells))}</table:table-row>"


def _book(path: Path, records: int) -> Path:
    docs = _row("id", "text") + "".join(_row(f"r{i}", f"Passage number {i}.")
                                        for i in range(records))
    body = (f'<table:table table:name="Docs"><table:table-column/>{docs}</table:table>'
            '<table:table table:name="Hidden" table:style-name="ta2">'
            f'{_row("Secret", "x")}</table:table>'
            f'<table:table table:name="Notes">{_row("Name", "City")}{_row("Ada", "Oslo")}'
            "</table:table>")
    hidden = ('<style:style style:name="ta2" style:family="table"><style:table-properties '
              'table:display="false"/></style:style>')
    return write_odf(path, body, kind="spreadsheet", styles=hidden)


def test_rows_are_read_as_their_documents_are_asked_for(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _book(tmp_path / "big.ods", 2_000)
    read: list[list[str]] = []
    held: list[int] = []  # the sheet's parsed children when each row is handed over
    real_row, real_rows = odsfiles._sheet_row, odsfiles._rows

    def rows(events: odsfiles.Events, stack: list) -> Iterator[tuple[int, list[str]]]:
        table = stack[-1]
        for item in real_rows(events, stack):
            held.append(len(table))
            yield item

    monkeypatch.setattr(odsfiles, "_sheet_row", lambda row: read.append(real_row(row))
                        or read[-1])
    monkeypatch.setattr(odsfiles, "_rows", rows)
    docs = odsfiles.ods_documents(path, True)
    first, where = next(docs)
    assert (first.id, first.text, where) == ("r0", "Passage number 0.",
                                             f"{path} (sheet 'Docs', row 2)")
    assert read == [["id", "text"], ["r0", "Passage number 0."]]  # the rest unread
    rest = [d for d, _ in docs]
    assert [d.id for d in rest[:2]] == ["r1", "r2"] and len(rest) == 2_000
    assert rest[-1].id == "big.ods" and "Secret" not in rest[-1].text
    assert rest[-1].text.endswith("Name: Ada; City: Oslo")
    # each row is dropped once read: the sheet holds at most the rows parsed ahead of their
    # events (a 16 KiB piece of XML, about 100 rows here), never all 2,000
    assert 0 < max(held) < 150
    assert ["Secret", "x"] in read  # a hidden sheet is parsed through, not shown


def test_a_file_the_reader_stops_early_is_closed(tmp_path: Path) -> None:
    path = _book(tmp_path / "b.ods", 3)
    docs = odsfiles.ods_documents(path, True)
    assert next(docs)[0].id == "r0"
    docs.close()  # the zip and its part are closed: the file can be replaced
    path.unlink()
    assert [d.id for d in load_documents(_book(path, 2))] == ["r0", "r1", "b.ods"]


def test_each_piece_is_checked_as_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "p.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("a.xml", b"<x>" + b"y" * 100 + b"<!DOCTYPE z></x>")
        zf.writestr("b.xml", b"<x>" + b"y" * 100_000 + "é".encode()[:1] + b"</x>")
    with zipfile.ZipFile(path) as zf:
        part = CheckedPart(zf, "a.xml", path)
        with pytest.raises(LoaderError, match=r"p\.zip: its a\.xml declares a document type"):
            while part.read(101):  # "<!DOCTYPE" straddles the first two pieces
                pass
        part = CheckedPart(zf, "b.xml", path)
        assert len(part.read(16_384)) == 16_384  # the bad byte is further on
        with pytest.raises(LoaderError, match=r"p\.zip: its b\.xml is not UTF-8"):
            while part.read(16_384):
                pass


def test_a_bad_byte_late_in_a_spreadsheet_names_the_file(tmp_path: Path) -> None:
    path = _book(tmp_path / "bad.ods", 2_000)
    with zipfile.ZipFile(path) as zf:
        parts = {n: zf.read(n) for n in zf.namelist()}
    parts["content.xml"] = parts["content.xml"].replace(b"number 1999.", b"number \xff.")
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in parts.items():
            zf.writestr(name, data)
    docs = odsfiles.ods_documents(path, True)
    assert next(docs)[0].id == "r0"  # read before the bad byte is reached
    with pytest.raises(LoaderError, match=r"bad\.ods: its content\.xml is not UTF-8"):
        list(docs)


def test_rows_after_a_block_of_empty_rows_keep_their_numbers(tmp_path: Path) -> None:
    """LibreOffice stores a sheet's unused rows as one row repeated: a block of 200,000
    empty rows counts whole in the row numbers (before, at most 1,024 of it, so an error
    named a record after it by a row number that was too small)."""
    rows = (_row("id", "title") + '<table:table-row table:number-rows-repeated="200000">'
            "<table:table-cell/></table:table-row>" + _row("r1", "no text column"))
    path = write_odf(tmp_path / "gap.ods", f'<table:table table:name="Docs">{rows}'
                     "</table:table>", kind="spreadsheet")
    with pytest.raises(LoaderError, match=r"gap\.ods \(sheet 'Docs', row 200002\)"):
        load_documents(path, text_field="title", title_field="headline")
