"""Reading Excel 97-2003 workbooks (``.xls``) as documents, with the ``xls`` extra
(`xlrd <https://pypi.org/project/xlrd/>`_, which reads this format only).

The sheets read as an ``.xlsx`` workbook's do (:mod:`.sheets`, :mod:`.workbooks`): a sheet
whose first non-empty row has the text column holds a record a row; the other sheets make
one document for the file (its id keeps the suffix: ``budget.xls``), each sheet a page, each
row a line naming its columns. A cell shows the value Excel saved (a formula's last
result), a whole number without ``.0``, a date as ``2026-12-06`` (by the workbook's own 1900
or 1904 date system), ``TRUE``/``FALSE``; an error cell (``#DIV/0!``) shows nothing. A
hidden sheet gives no text and keeps its number. The title is the file's stem (xlrd reads
no document properties).

A file xlrd cannot read (an ``.xlsx`` or a web page renamed ``.xls``, a workbook saved with a
password) is a :class:`~.errors.LoaderError` naming the file; so is one read without the
extra, and a folder walk without it leaves ``.xls`` files out, listed with the command that
installs it. Nothing in the file is run (macros are not read) and nothing is fetched; the
file's bytes are read into memory, and its sheets parsed one at a time as their documents
are asked for (an ``.xls`` sheet has at most 65,536 rows). xlrd's own warnings about a file
go nowhere (it printed them to standard output, where ``vizrag index --json`` writes its
report).
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..types import Document
from .sheets import cell_text
from .suffixes import reader_module
from .textfiles import foreign_file, path_id
from .titles import cut_title
from .workbooks import Sheet, numbered_rows, workbook_documents

__all__ = ["sheet_of", "xls_documents"]


def _cell(xlrd: Any, cell: Any, datemode: int) -> str:
    """A cell's value as the sheet shows it (see the module's docs)."""
    kind, value = cell.ctype, cell.value
    if kind == xlrd.XL_CELL_DATE:
        try:
            return cell_text(xlrd.xldate_as_datetime(value, datemode))
        except (ValueError, OverflowError, xlrd.xldate.XLDateError):
            return cell_text(value)  # a date Excel cannot show: its serial number
    if kind == xlrd.XL_CELL_BOOLEAN:
        return cell_text(bool(value))
    if kind in (xlrd.XL_CELL_ERROR, xlrd.XL_CELL_EMPTY, xlrd.XL_CELL_BLANK):
        return ""
    return cell_text(value)


def sheet_of(xlrd: Any, book: Any, sheet: Any) -> Sheet:
    """The xlrd ``sheet`` of ``book`` (a hidden one: no rows), its non-empty rows numbered,
    each cell as the sheet shows it, read as they are asked for."""
    rows = ([_cell(xlrd, c, book.datemode) for c in sheet.row(n)] for n in range(sheet.nrows))
    return Sheet(str(sheet.name), numbered_rows(rows) if sheet.visibility == 0 else None)


def _sheets(xlrd: Any, book: Any) -> Iterator[Sheet]:
    """The workbook's sheets in order, each parsed when it is reached and unloaded once the
    next is asked for (a hidden sheet: no rows)."""
    for index in range(book.nsheets):
        yield sheet_of(xlrd, book, book.sheet_by_index(index))
        book.unload_sheet(index)


def xls_documents(path: Path, id_from_path: bool, root: Path | None = None, *,
                  text_field: str | None = None, id_field: str = "id",
                  title_field: str = "title") -> Iterator[tuple[Document, str]]:
    """The documents of the Excel 97-2003 workbook ``path`` (see the module's docs), each
    with where it came from, read a sheet at a time as they are asked for."""
    xlrd = reader_module(path, ".xls")
    with foreign_file(path, "an Excel 97-2003 workbook xlrd can read"):
        book = xlrd.open_workbook(str(path), on_demand=True, logfile=io.StringIO())
        try:
            yield from workbook_documents(path, path_id(path, id_from_path, root),
                                          cut_title(path.stem), _sheets(xlrd, book),
                                          text_field=text_field, id_field=id_field,
                                          title_field=title_field)
        finally:
            book.release_resources()
