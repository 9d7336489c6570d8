"""Reading CSV and TSV files (``.csv``, ``.tsv``) as documents, with Python's own ``csv``.

The first row is the header. The delimiter of a ``.tsv`` is the tab; of a ``.csv`` the one
of ``,`` ``;`` tab ``|`` its header line uses most (``,`` when it uses none: one column).
Text is UTF-8 as in any text file, read a line at a time (:func:`~.textfiles.lines`: a large
file of records is never held whole); fields may be quoted and hold line breaks.

* **A collection of records** when the header has the text field (the one named, else
  ``text``, ``content``, ``contents``, ``body``, ``passage`` or ``paragraph_text``, in any
  letter case: ``Text``, and ``ID`` and ``Title`` too: :func:`~.records.header_fields`): each
  row is a document as a JSONL line is (:mod:`.records`: its ``id`` and ``title``
  columns, the other columns its metadata), named ``FILE:LINE`` in errors. A row with more
  cells than the header is an error; one with fewer lacks the last columns.
* **A table** otherwise (a spreadsheet saved as CSV): one document for the file, its id
  and ``source`` as a page's or PDF's (the id keeps the suffix: ``staff.csv``), titled by
  the file's stem, each row a line naming its columns, ``Name: Ada; City: Oslo``
  (:func:`~.tables.named_rows`).

Example:
    >>> import tempfile
    >>> path = Path(tempfile.mkdtemp()) / "staff.csv"
    >>> _ = path.write_text("Name;City;Age\\nAda;Oslo;36\\nBo;;41\\n", encoding="utf-8")
    >>> [(d.id, d.text) for d, _ in csv_documents(path, True, None)]
    [('staff.csv', 'Name: Ada; City: Oslo; Age: 36\\nName: Bo; Age: 41')]
"""

from __future__ import annotations

import csv
import itertools
from collections.abc import Iterator
from pathlib import Path

from ..types import Document
from .errors import LoaderError
from .guards import printable
from .records import header_fields, record_document, record_where, text_key
from .tables import named_rows
from .textfiles import check_not_binary, lines, path_id

__all__ = ["csv_documents"]

_DELIMITERS = (",", ";", "\t", "|")


def _delimiter(path: Path, header: str) -> str:
    if path.suffix.lower() == ".tsv":
        return "\t"
    counts = [(header.count(d), -i, d) for i, d in enumerate(_DELIMITERS)]
    best = max(counts)
    return best[2] if best[0] else ","


def _rows(path: Path, encoding: str | None = None) -> Iterator[tuple[int, list[str]]]:
    """(the line each row starts on, its cells) of the non-empty rows, read a line at a
    time; a malformed row (a field past :func:`csv.field_size_limit`, a NUL) is a
    :class:`LoaderError` naming it, and so is a byte that is not UTF-8 (its line; read in
    ``encoding`` from the first line that is not, when given: :mod:`.legacy`)."""
    text = lines(path, encoding)
    first = next(text, None)
    if first is None:
        return
    reader = csv.reader(itertools.chain([first], text), delimiter=_delimiter(path, first),
                        strict=False)
    line = 1
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise LoaderError(f"{printable(str(path))}:{line}: not a CSV row ({exc})") from None
        if any(cell.strip() for cell in row):
            yield line, row
        line = reader.line_num + 1


def csv_documents(path: Path, id_from_path: bool, root: Path | None = None, *,
                  text_field: str | None = None, id_field: str = "id",
                  title_field: str = "title", encoding: str | None = None,
                  ) -> Iterator[tuple[Document, str]]:
    """The documents of the CSV or TSV file ``path`` (see the module's docs), each with
    where it came from (``encoding``: what a file that is not UTF-8 is read in)."""
    check_not_binary(path, encoding)
    rows = _rows(path, encoding)
    first = next(rows, None)  # None: an empty file, one table document without text
    header = [h.strip() for h in first[1]] if first is not None else []
    fields = header_fields(header, text_field=text_field, id_field=id_field,
                           title_field=title_field)
    if text_key(fields, text_field) is None:
        if text_field is not None:
            raise LoaderError(f"{printable(str(path))}: no column {text_field!r} (columns: "
                              f"{header[:10]}; check --text-field)")
        yield _table(path, header, rows, id_from_path, root), str(path)
        return
    for line, row in rows:
        where = record_where(path, line=line)
        if len(row) > len(header):
            raise LoaderError(f"{where}: {len(row)} cells, the header has {len(header)}")
        rec = dict(zip(fields, row, strict=False))
        yield record_document(rec, where, text_field=text_field, id_field=id_field,
                              title_field=title_field), where


def _table(path: Path, header: list[str], rows: Iterator[tuple[int, list[str]]],
           id_from_path: bool, root: Path | None) -> Document:
    """The document of a CSV file without a text column: a row a line (module's docs)."""
    return Document(id=path_id(path, id_from_path, root), title=path.stem,
                    text=named_rows(header, (row for _, row in rows)),
                    metadata={"source": str(path)})
