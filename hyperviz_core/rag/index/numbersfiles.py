"""Reading Apple Numbers spreadsheets (``.numbers``) as documents, with the ``numbers`` extra
(`numbers-parser <https://pypi.org/project/numbers-parser/>`_, which reads iWork's
compressed protobuf archives).

A Numbers sheet holds tables; each table reads as an Excel workbook's sheet does
(:mod:`.workbooks`), named by its sheet (``Fleet``), or by its sheet and its own name when
the sheet has several (``Fleet / Ships``): a table whose first non-empty row has the text
column holds a record a row; the other tables make one document for the file (its id keeps
the suffix: ``budget.numbers``), each table a page, each row a line naming its columns. A
cell shows its value as :func:`~.sheets.cell_text` shows an Excel cell's (a whole number
without ``.0``, a date as ``2026-12-06``, ``TRUE``/``FALSE``), a number to the 15
significant digits Numbers shows (a 12 read back as 12.000000000000002 shows
``12``), a duration as
``1 day, 2:30:00``; an error cell and the cells a merge covers show nothing. The title is
the file's stem (numbers-parser reads no document properties).

A file numbers-parser cannot read (a Numbers document saved with a password, one from
Numbers '09, another file renamed ``.numbers``) and one whose parts would unpack to more
than :data:`~.zipped.MAX_UNPACKED` bytes are each a :class:`~.errors.LoaderError` naming the
file; so is one read without the extra, and a folder walk without it leaves ``.numbers``
files out, listed with the command that installs it. A document macOS keeps as a package
folder (``Budget.numbers/``) is walked as a folder; compress it (or export it) to read it.
Pages (``.pages``) and Keynote (``.key``) files are not read. Nothing in the file is run
and nothing is fetched.
"""

from __future__ import annotations

import datetime as dt
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..types import Document
from .sheets import cell_text
from .suffixes import reader_module
from .textfiles import foreign_file, path_id
from .titles import cut_title
from .workbooks import Sheet, numbered_rows, workbook_documents
from .zipped import check_package

__all__ = ["numbers_documents"]

#: the cell classes that show no value: an error, a cell a merge covers, an empty one
_BLANK = ("ErrorCell", "MergedCell", "EmptyCell")


def _cell(cell: Any) -> str:
    """A cell's value as the table shows it (see the module's docs)."""
    if type(cell).__name__ in _BLANK:
        return ""
    value = cell.value
    if isinstance(value, float):
        value = float(f"{value:.15g}")
    if isinstance(value, dt.timedelta):
        return str(value)
    return cell_text(value)


def _sheets(document: Any) -> Iterator[Sheet]:
    """Each table of each sheet in order, as a :class:`~.workbooks.Sheet`, its rows read
    as they are asked for."""
    for sheet in document.sheets:
        tables = list(sheet.tables)
        for table in tables:
            name = str(sheet.name) if len(tables) == 1 else f"{sheet.name} / {table.name}"
            rows = ([_cell(c) for c in row] for row in table.iter_rows())
            yield Sheet(name, numbered_rows(rows))


def numbers_documents(path: Path, id_from_path: bool, root: Path | None = None, *,
                      text_field: str | None = None, id_field: str = "id",
                      title_field: str = "title") -> Iterator[tuple[Document, str]]:
    """The documents of the Numbers spreadsheet ``path`` (see the module's docs), each with
    where it came from."""
    numbers_parser = reader_module(path, ".numbers")
    with foreign_file(path, "an Apple Numbers spreadsheet numbers-parser can read"):
        check_package(path, "an Apple Numbers spreadsheet")
        with warnings.catch_warnings():  # its notes on features it skips (styles ...)
            warnings.simplefilter("ignore")
            document = numbers_parser.Document(str(path))
        yield from workbook_documents(path, path_id(path, id_from_path, root),
                                      cut_title(path.stem), _sheets(document),
                                      text_field=text_field, id_field=id_field,
                                      title_field=title_field)
