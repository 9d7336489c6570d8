"""How a table in a Word file, a deck or an OpenDocument file reads as text: a row a line,
its cells joined by `` | `` (as :mod:`.htmlpages` reads an HTML table), a cell's white space
runs one space, empty cells at a row's end and empty rows dropped.

Example:
    >>> table_text([["Year", "Event", ""], ["", "", ""], ["1898", " Announced\\n now", ""]])
    'Year | Event\\n1898 | Announced now'
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["row_text", "table_text"]


def row_text(cells: Iterable[str]) -> str:
    """The line of one row (see the module's docs); ``""`` for a row of empty cells."""
    out = [" ".join(cell.split()) for cell in cells]
    while out and not out[-1]:
        out.pop()
    return " | ".join(out)


def table_text(rows: Iterable[Iterable[str]]) -> str:
    """The lines of a table's rows (see the module's docs)."""
    return "\n".join(line for line in map(row_text, rows) if line)
