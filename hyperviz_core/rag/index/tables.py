"""How tables read as text.

In a Word file, a deck or an OpenDocument file (:func:`table_text`): a row a line, its cells
joined by `` | `` (as :mod:`.htmlpages` reads an HTML table), a cell's white space runs one
space, empty cells at a row's end and empty rows dropped. In a CSV file or a spreadsheet,
whose first row names the columns (:func:`named_rows`): a row a line naming its columns,
``Name: Ada; City: Oslo``, so a passage cut from it still says what each value is (empty
cells left out, a column without a name ``column N``).

Example:
    >>> table_text([["Year", "Event", ""], ["", "", ""], ["1898", " Announced\\n now", ""]])
    'Year | Event\\n1898 | Announced now'
    >>> named_rows(["Name", "", "Age"], [["Ada", "x", "36"], ["", "", ""], ["Bo", "", ""]])
    'Name: Ada; column 2: x; Age: 36\\nName: Bo'
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["named_rows", "row_text", "table_text"]


def row_text(cells: Iterable[str]) -> str:
    """The line of one row (see the module's docs); ``""`` for a row of empty cells."""
    out = [" ".join(cell.split()) for cell in cells]
    while out and not out[-1]:
        out.pop()
    return " | ".join(out)


def table_text(rows: Iterable[Iterable[str]]) -> str:
    """The lines of a table's rows (see the module's docs)."""
    return "\n".join(line for line in map(row_text, rows) if line)


def named_rows(header: list[str], rows: Iterable[list[str]]) -> str:
    """The lines of a table whose columns ``header`` names (see the module's docs)."""
    names = [" ".join(h.split()) for h in header]
    lines = []
    for row in rows:
        cells = [f"{names[i] if i < len(names) and names[i] else f'column {i + 1}'}: "
                 f"{' '.join(cell.split())}" for i, cell in enumerate(row) if cell.strip()]
        if cells:
            lines.append("; ".join(cells))
    return "\n".join(lines)
