"""Which characters of a Word 97-2003 document (``.doc``) Word does not show: tracked
deletions and hidden text.

With changes tracked, Word keeps deleted text in the document, marked deleted in its
character properties (``sprmCFRMarkDel``), and shows it struck through until the change is
accepted; the text read is the text as it will stand, so deleted characters are left out (as
:mod:`.wordtext` leaves ``w:del`` out of a ``.docx``). Text formatted hidden
(``sprmCFVanish``: a template's instructions, say), which Word neither shows nor prints, is
left out alike (as a ``.docx`` file's ``w:vanish``). The character properties are stored
as the paragraph properties are (:mod:`.docparas`): 512-byte pages of the ``WordDocument``
stream (``FKP``\\ s) that the ``PlcBteChpx`` names, each a list of runs of stream offsets
with their properties. :class:`Unshown` reads them once per file and turns those runs into
character positions through the piece table.

A file whose pages cannot be read has no such runs: its text is read whole, none of it lost.
"""

from __future__ import annotations

import bisect
import struct
from collections.abc import Sequence

from .docfkp import fkp_runs, sprms

__all__ = ["Unshown"]

#: the toggles that hide a run: sprmCFRMarkDel (deleted), sprmCFVanish (hidden)
_UNSHOWN = frozenset({0x0800, 0x083C})
#: the toggle values that mean "on": on, and the opposite of the style's (off)
_ON = (0x01, 0x81)


def _unshown(grpprl: bytes) -> bool:
    """Whether the character properties ``grpprl`` mark the run deleted or hidden."""
    return any(sprm in _UNSHOWN and operand[:1] != b"" and operand[0] in _ON
               for sprm, operand in sprms(grpprl))


class Unshown:
    """The tracked deletions and hidden text of a ``.doc`` file (see the module's docs).

    Args:
        word: the ``WordDocument`` stream.
        table: the table stream; ``at``, ``size``: where its ``PlcBteChpx`` is.
        pieces: the piece table's (first character, end, stream offset, 8-bit) pieces.
    """

    def __init__(self, word: bytes, table: bytes, at: int, size: int,
                 pieces: Sequence[tuple[int, int, int, bool]]) -> None:
        try:
            runs = self._runs(word, table[at:at + size])
        except (IndexError, ValueError, struct.error):
            runs = []
        spans: list[tuple[int, int]] = []
        for start, end, fc, compressed in pieces:  # stream offsets -> character positions
            width = 1 if compressed else 2
            stop = fc + (end - start) * width
            i = max(bisect.bisect_right(runs, (fc, fc)) - 1, 0)
            while i < len(runs) and runs[i][0] < stop:
                a, b = max(runs[i][0], fc), min(runs[i][1], stop)
                if a < b:
                    spans.append((start + (a - fc) // width, start + (b - fc + width - 1)
                                  // width))
                i += 1
        self._spans = sorted(spans)

    @staticmethod
    def _runs(word: bytes, plc: bytes) -> list[tuple[int, int]]:
        """The (start, end) stream offsets of the deleted or hidden runs, sorted."""
        return sorted((start, end) for start, end, page, offset in fkp_runs(word, plc, 1)
                      if offset and _unshown(page[offset + 1:offset + 1 + page[offset]]))

    def kept(self, start: int, end: int) -> list[tuple[int, int]]:
        """The ranges of character positions in ``[start, end)`` that are shown (neither
        deleted nor hidden), relative to ``start``, in order.

        >>> d = Unshown(b"", b"", 0, 0, [])
        >>> d._spans = [(2, 4), (3, 6), (9, 12)]
        >>> d.kept(0, 10)
        [(0, 2), (6, 9)]
        """
        out: list[tuple[int, int]] = []
        at = start
        for a, b in self._spans:
            if b <= at or a >= end:
                continue
            if a > at:
                out.append((at - start, a - start))
            at = max(at, b)
        if at < end:
            out.append((at - start, end - start))
        return out
