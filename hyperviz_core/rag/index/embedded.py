"""Excel workbooks embedded in a Word document or a PowerPoint deck (an OLE object: a table
pasted as a worksheet, which the page shows as a picture of its cells):
:func:`workbook_text` reads the sheet the object shows, as a workbook's sheet is read
(:mod:`.workbooks`: its first row names the columns, every other row a line naming them,
``Ship: Aurora; Port: Bergen``).

An ``.xlsx`` workbook (``Excel.Sheet.12``) is read with openpyxl (the ``xlsx`` extra), an
Excel 97-2003 one (``Excel.Sheet.8``, kept in a compound file) with xlrd (the ``xls``
extra); the sheet is the workbook's active one. Another kind of object (a Word document, an
equation, a drawing), a workbook whose reader's extra is missing, one whose parts would
unpack to more than :data:`~.zipped.MAX_UNPACKED` bytes and one that cannot be read give no
text (a warning names the file), and the rest of the file is read all the same. Nothing in
an object is run.
"""

from __future__ import annotations

import importlib
import importlib.util
import io
import logging
from collections.abc import Callable
from typing import Any

from ...extras import install_hint
from .guards import printable
from .olefiles import OLE_MAGIC
from .sheets import sheet_of as xlsx_sheet
from .tables import named_rows
from .workbooks import Sheet
from .xlsfiles import sheet_of as xls_sheet
from .zipped import MAX_UNPACKED, unpacked_size

__all__ = ["XLSX_OBJECT", "object_texts", "workbook_text"]

log = logging.getLogger(__name__)

#: the content type of an embedded ``.xlsx`` workbook's part
XLSX_OBJECT = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
_OLE = "application/vnd.openxmlformats-officedocument.oleobject"  # a compound file
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
#: an OLE object in a Word document (VML's ``o:OLEObject``) and in a deck (``p:oleObj``)
_OBJECTS = ("{urn:schemas-microsoft-com:office:office}OLEObject",
            "{http://schemas.openxmlformats.org/presentationml/2006/main}oleObj")


def _table(sheet: Sheet) -> str:
    """A sheet's rows as lines naming their columns (its first non-empty row's); ``""`` for
    a hidden sheet."""
    rows = (row for _, row in sheet.rows or ())
    header = next(rows, None)
    return named_rows(header, rows) if header is not None else ""


def _xlsx(data: bytes) -> str:
    if unpacked_size(data) > MAX_UNPACKED:
        raise ValueError(f"unpacks to more than {MAX_UNPACKED // 2**20} MiB")
    openpyxl = importlib.import_module("openpyxl")
    book = openpyxl.load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    try:
        sheet = book.active
        return _table(xlsx_sheet(sheet)) if sheet is not None else ""
    finally:
        book.close()


def _xls(data: bytes) -> str:
    xlrd = importlib.import_module("xlrd")
    book = xlrd.open_workbook(file_contents=data, on_demand=True, logfile=io.StringIO())
    try:
        sheets = [book.sheet_by_index(i) for i in range(book.nsheets)]
        active = next((s for s in sheets if s.sheet_selected), sheets[0] if sheets else None)
        return _table(xls_sheet(xlrd, book, active)) if active is not None else ""
    finally:
        book.release_resources()


def workbook_text(content_type: str, data: bytes, source: str) -> str:
    """The text of the embedded object of ``content_type`` whose part holds ``data``, in
    the file ``source`` (see the module's docs): ``""`` for no workbook."""
    kind = content_type.split(";")[0].strip().lower()
    if kind == XLSX_OBJECT and data[:2] == b"PK":
        read, extra = _xlsx, ("openpyxl", "xlsx")
    elif kind == _OLE and data.startswith(OLE_MAGIC) and b"W\x00o\x00r\x00k\x00b\x00o\x00o" in data:
        read, extra = _xls, ("xlrd", "xls")
    else:
        return ""
    if importlib.util.find_spec(extra[0]) is None:
        log.warning("%s: an embedded workbook was not read: it needs the %r extra (%s)",
                    source, extra[1], install_hint(extra[1]))
        return ""
    try:
        return read(data)
    except Exception as exc:  # an untrusted object: the rest of the file is read
        log.warning("%s: an embedded workbook could not be read (%s: %s)", source,
                    type(exc).__name__, printable(str(exc))[:200])
        return ""


def object_texts(element: Any, related: Callable[[str], Any], source: str,
                 shown: Callable[[Any], bool] = lambda _: True) -> list[str]:
    """The texts of the workbooks the OLE objects under ``element`` (an XML element of a
    Word document or a deck) embed, each part once (a deck names it in each of its
    ``mc:AlternateContent`` copies); ``related``: a relationship id → its part (a
    :class:`KeyError` for none); ``shown``: whether an object is shown (not deleted)."""
    seen: set[str] = set()
    out = []
    for obj in element.iter(*_OBJECTS):
        rid = obj.get(f"{_R}id") or ""
        if not rid or rid in seen or not shown(obj):
            continue
        seen.add(rid)
        try:
            part = related(rid)
        except KeyError:
            continue
        if text := workbook_text(str(part.content_type), bytes(part.blob), source):
            out.append(text)
    return out
