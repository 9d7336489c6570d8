"""A spreadsheet's sheets as documents (an Excel workbook: :mod:`.sheets`; an OpenDocument
spreadsheet: :mod:`.opendocs`), as a CSV file's rows are (:mod:`.csvfiles`).

A sheet's first non-empty row is its header.

* **A sheet of records** has the text column in its header (the one named, else ``text``,
  ``content``, ``contents``, ``body``, ``passage`` or ``paragraph_text``, in any letter
  case: :func:`~.records.header_fields`): each of its other non-empty rows is a document as a CSV
  row is (:mod:`.records`: its ``id`` and ``title`` columns, the other columns its
  metadata, a column without a name ``column N``), named ``FILE (sheet NAME, row N)`` in errors.
* **The other sheets** make one document for the file, each sheet a page
  (:mod:`.pages`: ``page``/``page_end`` of a passage are sheet numbers), each row a line
  naming its columns (``Name: Ada; City: Oslo``: :func:`~.tables.named_rows`). A hidden
  sheet and a sheet of records give that document no text and keep their numbers; a file
  whose every non-empty sheet holds records gives no such document.

With a text column named (``--text-field``) that no sheet has, the file is a
:class:`~.errors.LoaderError` naming the columns it has, as a CSV file is.

Example:
    >>> from pathlib import Path
    >>> sheets = [Sheet("Notes", [(1, ["Name", "City"]), (2, ["Ada", "Oslo"])]),
    ...           Sheet("Docs", [(1, ["id", "text"]), (3, ["7", "Oslo is a city."])])]
    >>> [(d.id, d.text) for d, _ in workbook_documents(Path("a.xlsx"), "a.xlsx", "A", sheets)]
    [('7', 'Oslo is a city.'), ('a.xlsx', 'Name: Ada; City: Oslo')]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import NamedTuple

from ..types import Document
from .errors import LoaderError
from .guards import printable
from .pages import paged_document
from .records import header_fields, record_document, text_key
from .tables import named_rows

__all__ = ["Sheet", "numbered_rows", "workbook_documents"]


class Sheet(NamedTuple):
    """One sheet: its name and its non-empty rows, each with its row number (counted from
    1), read once, in order (a reader may read them as they are asked for); ``rows`` is
    None for a hidden sheet."""

    name: str
    rows: Iterable[tuple[int, list[str]]] | None


def numbered_rows(rows: Iterable[list[str]]) -> Iterator[tuple[int, list[str]]]:
    """The non-empty rows of a sheet's ``rows`` (all of them, from its first), each with
    its row number (counted from 1), as :class:`Sheet` holds them.

    >>> list(numbered_rows([["a"], ["", " "], ["b", ""]]))
    [(1, ['a']), (3, ['b', ''])]
    """
    return ((n, r) for n, r in enumerate(rows, 1) if any(c.strip() for c in r))


def _name(header: list[str], i: int) -> str:
    """Column ``i``'s name (``header``: the header's names, white space runs one space):
    ``column N`` for one without a name."""
    return header[i] if i < len(header) and header[i] else f"column {i + 1}"


def _record(header: list[str], row: list[str]) -> dict[str, str]:
    """A row as a record: a named column's cell (empty or not, as a CSV row's), and the
    non-empty cells of columns without a name."""
    return {_name(header, i): cell for i, cell in enumerate(row)
            if cell.strip() or (i < len(header) and header[i])}


def workbook_documents(path: Path, doc_id: str, title: str, sheets: Iterable[Sheet], *,
                       text_field: str | None = None, id_field: str = "id",
                       title_field: str = "title") -> Iterator[tuple[Document, str]]:
    """The documents of the spreadsheet ``path`` whose sheets are ``sheets`` (see the
    module's docs), each with where it came from: the records as their rows are read, in
    sheet and row order, then the document of the other sheets (id ``doc_id``, title
    ``title``). Each sheet is read once, in order, so a reader can hand its rows over as
    it reads them: a sheet of a million records is never held whole."""
    pages: list[str] = []
    columns: set[str] = set()
    records = 0
    for sheet in sheets:
        rows = iter(sheet.rows or ())
        first = next(rows, None)
        written = first[1] if first is not None else []
        names = [" ".join(h.split()) for h in written]
        columns.update(n for n in names if n)
        header = header_fields(names, text_field=text_field, id_field=id_field,
                               title_field=title_field)
        if first is None or text_key(header, text_field) is None:
            pages.append(named_rows(written, (r for _, r in rows)))
            continue
        pages.append("")
        for number, row in rows:
            where = f"{path} (sheet {printable(sheet.name)!r}, row {number})"
            records += 1
            yield record_document(_record(header, row), where, text_field=text_field,
                                  id_field=id_field, title_field=title_field), where
    if text_field is not None and not records:
        raise LoaderError(f"{printable(str(path))}: no sheet has a column {text_field!r} "
                          f"(columns: {sorted(columns)[:10]}; check --text-field)")
    if not records or any(p.strip() for p in pages):
        yield paged_document(path, doc_id, title, pages), str(path)
