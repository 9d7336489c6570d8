"""The sections of a Word 97-2003 document (``.doc``) and their headers and footers.

MS-DOC lists the sections in ``PlcfSed``: where each ends in the main text (its last
character a section mark, ``\\x0c``) and where its properties are (a ``Sepx``: sprms).
The headers and footers are stories of their own after the footnotes' (``ccpHdd``
characters), ``PlcfHdd`` listing their ranges: six separators, then six stories a section
(even pages' header, odd pages' header, even pages' footer, odd pages' footer, first page's
header, first page's footer), an empty one meaning the previous section's. A first page's
story is shown when the section has a title page (``sprmSFTitlePage``), an even pages' one
when the document's odd and even pages differ (the DOP's ``fFacingPages``).

:meth:`Sections.mark` puts :data:`SECTION` at each section's end in the main text, so that
:mod:`.docfiles` shows a section's headers before it and its footers after it
(:mod:`.furniture`). Lists that are damaged (past the table stream, or naming characters
past the headers' story) give the sections and stories they name within bounds.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from .docfkp import plc_cps, sprms
from .docnotes import story_ranges

__all__ = ["SECTION", "Sections"]

#: the character put at a section's end (Word never writes it)
SECTION = "\x10"
_SED, _HDD, _DOP = 6, 11, 31  # the FibRgFcLcb97 pairs of PlcfSed, PlcfHdd and the DOP
_SED_SIZE = 12  # a Sed: fn, fcSepx, fnMpr, fcMpr
_TITLE_PAGE = 0x300A  # sprmSFTitlePage
#: a section's stories (after the six separators) by kind, in the order shown
_HEADERS, _FOOTERS = (4, 1, 0), (5, 3, 2)  # first page's, odd pages', even pages'
_SEPARATORS = 6


class Sections:
    """The sections of one ``.doc`` file: where each ends in the main text (:attr:`ends`)
    and the ranges of its headers' and footers' stories in the text of every story
    (:attr:`stories`), from its ``WordDocument`` stream ``word``, table stream, the
    stories' lengths ``ccps`` and its FibRgFcLcb ``pairs``."""

    def __init__(self, word: bytes, table: bytes, ccps: Sequence[int],
                 pairs: Sequence[tuple[int, int]]) -> None:
        def pair(i: int) -> tuple[int, int]:
            return pairs[i] if i < len(pairs) else (0, 0)

        ends = plc_cps(table, pair(_SED), _SED_SIZE)
        seds = pair(_SED)[0] + 4 * len(ends)  # the sections' properties' entries
        self.ends = ends[1:]
        titles = [self._title_page(word, struct.unpack_from("<I", table, seds + 12 * i + 2)[0])
                  for i in range(len(self.ends))]
        dop_at, dop_size = pair(_DOP)
        facing = dop_size > 0 and dop_at < len(table) and bool(table[dop_at] & 1)
        start, length = max(ccps[0], 0) + max(ccps[1], 0), max(ccps[2], 0)
        cps = plc_cps(table, pair(_HDD), 0)

        def ranges(base: int, order: tuple[int, int, int], title: bool
                   ) -> list[tuple[int, int]]:
            """The ranges of a section's stories of ``order`` that are shown."""
            kinds = [k for n, k in enumerate(order)
                     if (n, title) != (0, False) and (n, facing) != (2, False)]
            return story_ranges(start, length, [(cps[base + k], cps[base + k + 1])
                                                for k in kinds if base + k + 1 < len(cps)])

        self.stories = [(ranges(_SEPARATORS + 6 * i, _HEADERS, title),
                         ranges(_SEPARATORS + 6 * i, _FOOTERS, title))
                        for i, title in enumerate(titles)]

    @staticmethod
    def _title_page(word: bytes, fc: int) -> bool:
        """Whether the section whose properties are at ``fc`` has a title page."""
        if fc + 2 > len(word):  # 0xFFFFFFFF: the default properties
            return False
        size = struct.unpack_from("<h", word, fc)[0]
        return any(sprm == _TITLE_PAGE and operand[:1] not in (b"", b"\x00")
                   for sprm, operand in sprms(word[fc + 2:fc + 2 + max(size, 0)]))

    def mark(self, main: str) -> str:
        """``main`` (the main text) with :data:`SECTION` in place of each section's mark,
        the last section's end (the text's) left as it is.

        >>> sections = Sections.__new__(Sections)
        >>> sections.ends = [6, 12]
        >>> sections.mark("First\\x0cSecond") == "First" + SECTION + "Second"
        True
        """
        chars = list(main)
        for end in self.ends:
            if 0 < end < len(main) and main[end - 1] == "\x0c":
                chars[end - 1] = SECTION
        return "".join(chars)
