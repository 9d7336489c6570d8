"""Reading Excel workbooks (``.xlsx``) as documents: their sheets' rows, with the ``xlsx``
extra (`openpyxl <https://pypi.org/project/openpyxl/>`_).

The sheets read as :mod:`.workbooks` reads them, as a CSV file's rows are read. A sheet
whose first non-empty row has the text column (``text``, ``content`` ..., or the one named)
holds records: each other row is a document. The other sheets make one document for the
file, its id and ``source`` as a deck's (the id keeps the suffix: ``budget.xlsx``), each
worksheet a page (:mod:`.pages`), so each passage is told the sheets it spans (``page``,
``page_end``, counted from 1): a sheet's first non-empty row names the columns, every
other row is a line naming them, ``Name: Ada; City: Oslo`` (:func:`~.tables.named_rows`).
A cell shows the
value Excel last computed (a formula's result, as saved; ``data_only``: a file written by a
program that computes no formulas shows none), a whole number
without ``.0``, a date as ``2026-12-06``, a time of day with it, ``TRUE``/``FALSE``. A
hidden sheet gives no text and keeps its number; charts and images give none. The title is
the file's own (its properties' ``title``), else the file's stem.

A file openpyxl cannot read (an old ``.xls`` renamed, a workbook saved with a password) and
an ``.xlsx`` whose parts would unpack to more than :data:`~.zipped.MAX_UNPACKED` bytes are
each a :class:`~.errors.LoaderError` naming the file; so is one read without the extra, and
a folder walk without it leaves ``.xlsx`` files out, listed with the command that installs
it. A macro-enabled ``.xlsm`` workbook and a template (``.xltx``, ``.xltm``) read as an
``.xlsx`` one: its macros are never read,
let alone run (openpyxl leaves the VBA part alone). Nothing in the file is run and nothing is
fetched.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..types import Document
from .suffixes import reader_module
from .textfiles import path_id
from .titles import cut_title
from .workbooks import Sheet, numbered_rows, workbook_documents
from .zipped import reading_package

__all__ = ["cell_text", "sheet_of", "xlsx_documents"]


def cell_text(value: Any) -> str:
    """A cell's value as the sheet shows it (see the module's docs).

    >>> [cell_text(v) for v in (36.0, 2.5, None, True, dt.datetime(2026, 12, 6))]
    ['36', '2.5', '', 'TRUE', '2026-12-06']
    """
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime):
        return value.date().isoformat() if value.time() == dt.time() else value.isoformat(" ")
    if isinstance(value, dt.date | dt.time):
        return value.isoformat()
    return str(value)


def sheet_of(ws: Any) -> Sheet:
    """One worksheet's non-empty rows with their numbers, read as they are asked for
    (hidden: none)."""
    if ws.sheet_state != "visible":
        return Sheet(str(ws.title), None)
    rows = ([cell_text(v) for v in row] for row in ws.iter_rows(values_only=True))
    return Sheet(str(ws.title), numbered_rows(rows))


def xlsx_documents(path: Path, id_from_path: bool, root: Path | None = None, *,
                   text_field: str | None = None, id_field: str = "id",
                   title_field: str = "title") -> Iterator[tuple[Document, str]]:
    """The documents of the Excel workbook ``path`` (see the module's docs), each with
    where it came from."""
    openpyxl = reader_module(path, ".xlsx")
    with reading_package(path, "an Excel workbook openpyxl can read"), path.open("rb") as fh:
        book = openpyxl.load_workbook(fh, read_only=True, data_only=True)  # whatever suffix
        try:  # the rows are read as the documents are asked for (the file stays open)
            title = cut_title(" ".join((book.properties.title or "").split()) or path.stem)
            yield from workbook_documents(path, path_id(path, id_from_path, root), title,
                                          map(sheet_of, book.worksheets), text_field=text_field,
                                          id_field=id_field, title_field=title_field)
        finally:
            book.close()
