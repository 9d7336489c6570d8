"""The tables of a PowerPoint 97-2003 slide (``.ppt``), read as rows.

MS-PPT stores a table as a group of shapes (an ``OfficeArtSpgrContainer``) whose first shape
says it is one (the ``tableProperties`` property, ``0x039F``, in its tertiary property
table); each cell is a shape of the group with its text and its place in the group (its
child anchor: left, top, right, bottom). :func:`is_table` tells such a group, and
:func:`table_text_of` reads it as :mod:`.tables` lays a table out: a row a line (the
cells whose tops are the same, from the left), cells joined by `` | ``, a cell's paragraphs
by spaces; an empty cell keeps its place. The borders (lines: no width or no height) are
left out. A group whose records are damaged is a :class:`ValueError` (the reader names the
file).
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from .pptrecords import TEXT_TYPES, Record, atoms, children, text_of
from .tables import table_text

__all__ = ["is_table", "table_text_of"]

_GROUP, _SHAPE, _TERTIARY_OPT, _CHILD_ANCHOR = 0xF003, 0xF004, 0xF122, 0xF00F
_TABLE_PROPERTIES = 0x039F


def is_table(data: bytes) -> Callable[[Record], bool]:
    """Whether a record of the stream ``data`` is a group shape that is a table."""

    def test(rec: Record) -> bool:
        if rec.type != _GROUP:
            return False
        first = next((c for c in children(data, rec) if c.type == _SHAPE), None)
        if first is None:
            return False
        for opt in children(data, first):
            if opt.type != _TERTIARY_OPT:
                continue
            for i in range(min(opt.instance, (opt.end - opt.start) // 6)):
                prop, value = struct.unpack_from("<HI", data, opt.start + 6 * i)
                if prop & 0x3FFF == _TABLE_PROPERTIES and value & 1:
                    return True
        return False

    return test


def table_text_of(data: bytes, group: Record, shown: Callable[[str], str]) -> str:
    """The rows of the table ``group`` (see the module's docs); ``shown`` gives a text
    atom's text as a slide shows it."""
    cells: list[tuple[int, int, str]] = []
    for shape in children(data, group):
        if shape.type != _SHAPE:
            continue
        place: tuple[int, int] | None = None
        texts: list[str] = []
        for rec in atoms(data, shape):
            if rec.type == _CHILD_ANCHOR and rec.end - rec.start >= 16:
                left, top, right, bottom = struct.unpack_from("<4i", data, rec.start)
                place = (top, left) if right > left and bottom > top else None  # no line
            elif rec.type in TEXT_TYPES:
                texts.append(shown(text_of(data, rec)))
        if place is not None:  # a cell, empty ones too (the columns stay in place)
            cells.append((*place, " ".join(texts)))  # its spaces: table_text's
    rows: dict[int, list[str]] = {}
    for top, _, text in sorted(cells):  # by row, then from the left
        rows.setdefault(top, []).append(text)
    return table_text(rows.values())
