"""Which paragraphs of a Word 97-2003 document are in a table, and which end a table's row.

A ``.doc`` file marks a table cell's end and a row's end with the same character (``\\x07``);
only the paragraph properties tell them apart. They are stored in 512-byte pages of the
``WordDocument`` stream (MS-DOC: the ``PlcBtePapx`` names the pages, each page an ``FKP``
of paragraph runs, each run a list of properties, ``sprm``\\ s). :class:`ParagraphFlags`
reads them once per file and answers, for the stream offset of a paragraph's mark, whether
the paragraph is in a table (``sprmPFInTable``) and whether it ends a row (``sprmPFTtp``).

A file whose pages cannot be read answers ``(False, False)`` for every paragraph: its tables
then read as one line of cells each, and none of its text is lost.
"""

from __future__ import annotations

import bisect
import struct

from .docfkp import fkp_runs, sprms

__all__ = ["ParagraphFlags"]

_IN_TABLE = 0x2416  # sprmPFInTable
_ROW_END = 0x2417  # sprmPFTtp


def _flags(grpprl: bytes) -> tuple[bool, bool]:
    """(in a table, ends a row) from a paragraph's properties ``grpprl``."""
    in_table = row_end = False
    for sprm, operand in sprms(grpprl):
        if sprm in (_IN_TABLE, _ROW_END) and operand:
            on = operand[0] != 0
            in_table, row_end = (on, row_end) if sprm == _IN_TABLE else (in_table, on)
    return in_table, row_end


class ParagraphFlags:
    """The table flags of a ``.doc`` file's paragraphs (see the module's docs).

    Args:
        word: the ``WordDocument`` stream.
        table: the table stream (``0Table`` or ``1Table``).
        at: where the ``PlcBtePapx`` starts in ``table``; ``size`` its size in bytes.
    """

    def __init__(self, word: bytes, table: bytes, at: int, size: int) -> None:
        self._starts: list[int] = []
        self._runs: list[tuple[int, tuple[bool, bool]]] = []
        try:
            self._read(word, table[at:at + size])
        except (IndexError, ValueError, struct.error):
            self._starts, self._runs = [], []

    def _read(self, word: bytes, plc: bytes) -> None:
        runs = sorted((start, end, self._papx(page, offset))
                      for start, end, page, offset in fkp_runs(word, plc, 13))
        self._starts = [start for start, _, _ in runs]
        self._runs = [(end, flags) for _, end, flags in runs]

    @staticmethod
    def _papx(page: bytes, offset: int) -> tuple[bool, bool]:
        """The flags of the paragraph properties at ``offset`` of an FKP ``page``."""
        if offset == 0:  # no properties: a plain paragraph
            return False, False
        cb = page[offset]
        if cb == 0:
            size, begin = 2 * page[offset + 1], offset + 2
        else:
            size, begin = 2 * cb - 1, offset + 1
        return _flags(page[begin + 2:begin + size])  # the style index first

    def at(self, fc: int) -> tuple[bool, bool]:
        """(in a table, ends a row) of the paragraph whose mark is at stream offset ``fc``."""
        i = bisect.bisect_right(self._starts, fc) - 1
        if i < 0 or fc >= self._runs[i][0]:
            return False, False
        return self._runs[i][1]
