"""Reading an OpenDocument spreadsheet (``.ods``) as documents while its ``content.xml`` is
parsed, a piece at a time (``xml.etree``'s ``iterparse``), so a sheet of a million records
is never held whole: each row is read as its documents are asked for, then dropped.

The sheets read as an Excel workbook's (:mod:`.workbooks`): a sheet whose header has the
text column holds a record a row, the others make the file's document, each sheet a page; a
hidden sheet gives no text; a cell reads as its paragraphs' text as shown; a repeated row or
non-empty cell is read up to 1,024 times, and a repeated block of rows counts whole in the
row numbers that name a record in errors. The package is checked as the other OpenDocument
files are (:mod:`.opendocs`: no password, no document type, at most
:data:`~.zipped.MAX_UNPACKED` bytes unpacked), ``content.xml`` piece by piece as it is read
(:class:`~.zipped.CheckedPart`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from pathlib import Path

from ..types import Document
from .opendocs import hiding_style, odf_tag, opened, paragraph
from .textfiles import foreign_file, path_id
from .titles import cut_title
from .workbooks import Sheet, workbook_documents
from .zipped import CheckedPart, check_package

__all__ = ["ods_documents"]

_P, _H = odf_tag("text:p"), odf_tag("text:h")
_TABLE, _ROW = odf_tag("table:table"), odf_tag("table:table-row")
_CELLS = frozenset((odf_tag("table:table-cell"), odf_tag("table:covered-table-cell")))
_BOOK, _STYLE = odf_tag("office:spreadsheet"), odf_tag("style:style")
#: the most times a repeated row or a non-empty repeated cell is read (a sheet's unused
#: rows and columns are one element repeated a million times)
_MAX_REPEAT = 1024
#: the most rows a sheet has (LibreOffice's limit): the row numbers after a block of empty
#: rows count it whole
_MAX_ROWS = 1 << 20
#: the most columns a spreadsheet has (LibreOffice's limit)
_MAX_COLUMNS = 16384

Events = Iterator[tuple[str, ET.Element]]


def _repeat(el: ET.Element, attr: str, cap: int) -> int:
    try:
        return max(1, min(int(el.get(odf_tag(attr)) or 1), cap))
    except ValueError:
        return 1


def _sheet_row(row: ET.Element) -> list[str]:
    """A row's cells' text, repeated cells expanded, empty ones at its end dropped."""
    out: list[str] = []
    empty = 0
    for cell in row:
        if cell.tag not in _CELLS:
            continue
        text = " ".join(paragraph(p) for p in cell if p.tag in (_P, _H))
        if not text.strip():
            empty = min(empty + _repeat(cell, "table:number-columns-repeated", _MAX_COLUMNS),
                        _MAX_COLUMNS)
            continue
        out += [""] * empty
        empty = 0
        out += [text] * _repeat(cell, "table:number-columns-repeated", _MAX_REPEAT)
    return out


def _rows(events: Events, stack: list[ET.Element]) -> Iterator[tuple[int, list[str]]]:
    """The non-empty rows of the sheet opened last (``stack[-1]``), numbered, read from
    ``events`` up to the sheet's end; each element is dropped once read (a row once its
    cells are), so the parsed tree stays a row deep."""
    table, number, rows_open = stack[-1], 1, 0
    for event, el in events:
        if event == "start":
            stack.append(el)
            rows_open += el.tag == _ROW
            continue
        stack.pop()
        if el is table:
            stack[-1].remove(el)
            return
        if el.tag == _ROW:
            rows_open -= 1
            if not rows_open:  # a sheet's row (not one of a table inside a cell)
                cells = _sheet_row(el)
                times = _repeat(el, "table:number-rows-repeated", _MAX_ROWS)
                if cells:  # a filled row read at most _MAX_REPEAT times
                    yield from ((number + i, cells) for i in range(min(times, _MAX_REPEAT)))
                number += times
        if not rows_open:
            stack[-1].remove(el)


def _sheets(events: Events) -> Iterator[Sheet]:
    """The sheets of a spreadsheet's ``content.xml`` parse ``events`` (start and end), in
    order, each read as its rows are asked for: the next sheet is read only once the rows
    of the one before are (those not asked for are skipped)."""
    hidden: set[str] = set()  # automatic styles that hide a sheet: they come before the body
    stack: list[ET.Element] = []
    for event, el in events:
        if event == "start":
            stack.append(el)
            if el.tag == _TABLE and len(stack) > 1 and stack[-2].tag == _BOOK:
                rows = _rows(events, stack)
                shown = el.get(odf_tag("table:style-name")) not in hidden
                yield Sheet(el.get(odf_tag("table:name")) or "", rows if shown else None)
                for _ in rows:  # the rows not asked for, up to the sheet's end
                    pass
            continue
        stack.pop()
        if el.tag == _STYLE and (name := hiding_style(
                el, "style:table-properties", "table:display", "false")) is not None:
            hidden.add(name)
        if stack:
            stack[-1].remove(el)


def ods_documents(path: Path, id_from_path: bool, root: Path | None = None, *,
                  text_field: str | None = None, id_field: str = "id",
                  title_field: str = "title") -> Iterator[tuple[Document, str]]:
    """The documents of the OpenDocument spreadsheet ``path`` (see the module's docs), each
    with where it came from, read as they are asked for (the file stays open meanwhile)."""
    with foreign_file(path, "an OpenDocument spreadsheet"):
        check_package(path, "an OpenDocument file")
        with zipfile.ZipFile(path) as zf:
            title = opened(zf, path)
            part = CheckedPart(zf, "content.xml", path)
            try:
                events = ET.iterparse(part, events=("start", "end"))
                yield from workbook_documents(path, path_id(path, id_from_path, root),
                                              cut_title(title or path.stem), _sheets(events),
                                              text_field=text_field, id_field=id_field,
                                              title_field=title_field)
            finally:
                part.close()
