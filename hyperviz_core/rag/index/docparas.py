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

__all__ = ["ParagraphFlags"]

_PAGE = 512
_IN_TABLE = 0x2416  # sprmPFInTable
_ROW_END = 0x2417  # sprmPFTtp
_TABLE_DEF = 0xD608  # sprmTDefTable: a two-byte size
#: the operand's size by the sprm's ``spra`` (its top three bits); 6: the size comes first
_OPERAND = {0: 1, 1: 1, 2: 2, 3: 4, 4: 2, 5: 2, 7: 3}


def _flags(grpprl: bytes) -> tuple[bool, bool]:
    """(in a table, ends a row) from a paragraph's properties ``grpprl``."""
    in_table = row_end = False
    at = 0
    while at + 2 <= len(grpprl):
        sprm = int.from_bytes(grpprl[at:at + 2], "little")
        at += 2
        size = _OPERAND.get(sprm >> 13)
        if size is None:  # variable: the size comes first
            if sprm == _TABLE_DEF:
                size = 2 + int.from_bytes(grpprl[at:at + 2], "little") - 1
            else:
                size = 1 + (grpprl[at] if at < len(grpprl) else 0)
        if sprm in (_IN_TABLE, _ROW_END) and at < len(grpprl):
            on = grpprl[at] != 0
            in_table, row_end = (on, row_end) if sprm == _IN_TABLE else (in_table, on)
        at += size
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
        count = (len(plc) - 4) // 8
        pages = struct.unpack_from(f"<{count}I", plc, 4 * (count + 1)) if count > 0 else ()
        runs: list[tuple[int, int, tuple[bool, bool]]] = []
        for pn in pages:
            start = (pn & 0x3FFFFF) * _PAGE
            page = word[start:start + _PAGE]
            if len(page) < _PAGE:
                raise ValueError("a page past the stream's end")
            crun = page[-1]
            fcs = struct.unpack_from(f"<{crun + 1}I", page, 0)
            for i in range(crun):
                offset = page[4 * (crun + 1) + 13 * i] * 2
                runs.append((fcs[i], fcs[i + 1], self._papx(page, offset)))
        runs.sort()
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
