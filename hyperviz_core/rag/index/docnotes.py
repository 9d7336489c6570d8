"""The footnotes, endnotes and text boxes of a Word 97-2003 document (``.doc``).

MS-DOC keeps them as stories of their own after the main text, in the same stream of
characters: the footnotes' story starts at the main text's end (``ccpText``), then come the
headers', the comments', the endnotes' and the text boxes' (their lengths in the FIB). A
footnote's place in the main text is a character (``\\x02``, or the mark a writer chose)
whose position ``PlcffndRef`` lists, its text a range of the footnotes' story that
``PlcffndTxt`` lists, in the same order; endnotes alike (``PlcfendRef``, ``PlcfendTxt``).
``PlcftxbxTxt`` lists the text boxes' ranges.

:func:`mark_references` puts :data:`FOOTNOTE` or :data:`ENDNOTE` at each note's place in
the main text, so that :mod:`.docfiles` shows each note right after the paragraph (or the
table) that refers to it, numbered in order (``Footnote 1: ...``, ``Endnote 1: ...``); a
note whose place is not found follows the body. A text box is shown after the body:
the ``.doc`` format ties it to its place through the drawing layer, which is not read.
Headers and footers are :mod:`.docheaders`'; comments are not read. A list that is
damaged (past the table stream, or naming characters past its story) gives the notes it
names within bounds.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Sequence

from .docfkp import plc_cps

__all__ = ["ENDNOTE", "FOOTNOTE", "Stories", "mark_references", "story_ranges"]

#: the characters put at a footnote's and an endnote's place (Word never writes them)
FOOTNOTE, ENDNOTE = "\x11", "\x12"
#: the FibRgFcLcb97 pairs of the footnotes' and endnotes' places and texts, and the boxes'
_FTN_REF, _FTN_TXT, _EDN_REF, _EDN_TXT, _TXBX_TXT = 2, 3, 46, 47, 56
_FTXBXS = 22  # the size of a text box's entry in PlcftxbxTxt


def story_ranges(start: int, length: int, ranges: list[tuple[int, int]]
                 ) -> list[tuple[int, int]]:
    """``ranges`` of a story (relative to its ``start``) as positions in the text of every
    story, each cut to the story's ``length``.

    >>> story_ranges(100, 10, [(0, 4), (4, 30), (-2, 3)])
    [(100, 104), (104, 110), (100, 103)]
    """
    return [(start + min(max(a, 0), length), start + min(max(b, 0), length))
            for a, b in ranges]


class Stories:
    """The notes and text boxes of one ``.doc`` file, from its characters ``text`` (every
    story, in order), the stories' lengths ``ccps`` (the FIB's ``ccpText`` ... ``ccpTxbx``),
    its table stream and FibRgFcLcb pairs."""

    def __init__(self, text: str, ccps: Sequence[int], table: bytes,
                 pairs: Sequence[tuple[int, int]]) -> None:
        def pair(i: int) -> tuple[int, int]:
            return pairs[i] if i < len(pairs) else (0, 0)

        main, ftn, hdd, mcr, atn, edn = (max(n, 0) for n in ccps[:6])
        self.main = main
        starts = {"ftn": main, "edn": main + ftn + hdd + mcr + atn}
        self.refs = {FOOTNOTE: plc_cps(table, pair(_FTN_REF), 2)[:-1],
                     ENDNOTE: plc_cps(table, pair(_EDN_REF), 2)[:-1]}
        self.notes = {
            FOOTNOTE: self._ranges(text, starts["ftn"], ftn, plc_cps(table, pair(_FTN_TXT), 0),
                                   len(self.refs[FOOTNOTE])),
            ENDNOTE: self._ranges(text, starts["edn"], edn, plc_cps(table, pair(_EDN_TXT), 0),
                                  len(self.refs[ENDNOTE]))}
        txbx = max(ccps[6], 0) if len(ccps) > 6 else 0
        at, size = pair(_TXBX_TXT)
        boxes = plc_cps(table, (at, size), _FTXBXS)
        data = at + 4 * len(boxes)
        used = [i for i in range(len(boxes) - 1)  # fReusable: a deleted box's entry
                if not struct.unpack_from("<H", table, data + _FTXBXS * i + 8)[0]]
        self.boxes = [text[a:b] for a, b in story_ranges(
            edn + starts["edn"], txbx, [(boxes[i], boxes[i + 1]) for i in used])]

    def _ranges(self, text: str, start: int, length: int, cps: list[int],
                count: int) -> list[str]:
        """The texts of the first ``count`` notes of a story."""
        pairs = list(itertools.pairwise(cps))[:count]
        return [text[a:b] for a, b in story_ranges(start, length, pairs)]


def mark_references(main: str, stories: Stories) -> str:
    """``main`` (the main text) with :data:`FOOTNOTE` or :data:`ENDNOTE` at each note's
    place (replacing the note's mark, which shows as nothing).

    >>> stories = Stories.__new__(Stories)
    >>> stories.refs = {FOOTNOTE: [2], ENDNOTE: [9]}
    >>> mark_references("Hi\\x02 there", stories) == "Hi" + FOOTNOTE + " there"
    True
    """
    places = sorted((cp, mark) for mark, cps in stories.refs.items() for cp in cps
                    if 0 <= cp < len(main))
    out: list[str] = []
    at = 0
    for cp, mark in places:
        if cp >= at:  # a place listed twice is marked once
            out += [main[at:cp], mark]
            at = cp + 1
    out.append(main[at:])
    return "".join(out)
