"""The footnotes, endnotes and text boxes of a Word 97-2003 document (``.doc``).

MS-DOC keeps them as stories of their own after the main text, in the same stream of
characters: the footnotes' story starts at the main text's end (``ccpText``), then come the
headers', the comments', the endnotes' and the text boxes' (their lengths in the FIB). A
footnote's place in the main text is a character (``\\x02``, or the mark a writer chose)
whose position ``PlcffndRef`` lists, its text a range of the footnotes' story that
``PlcffndTxt`` lists, in the same order; endnotes alike (``PlcfendRef``, ``PlcfendTxt``).
``PlcftxbxTxt`` lists the text boxes' ranges, each with its shape's id, and ``PlcSpaMom``
the main text's shapes, each at the place it is anchored at (a ``\\x08``).

:func:`mark_references` puts :data:`FOOTNOTE`, :data:`ENDNOTE` or :data:`BOX` at each
note's and text box's place in the main text, so that :mod:`.docfiles` shows each note
right after the paragraph (or the table) that refers to it, numbered in order (``Footnote
1: ...``, ``Endnote 1: ...``), and each text box after the paragraph it is anchored in, as
the ``.docx`` and ``.odt`` readers do; a note whose place is not found follows the body,
and so does a text box no shape of the main text holds (a header's). A note or box whose
place is a tracked deletion goes with it (:meth:`Stories.keep`), and a note's or box's own
tracked deletions are left out (``kept``: :meth:`~.docchars.Unshown.kept`). Headers and
footers are :mod:`.docheaders`'; comments are not read. A list that is damaged (past the
table stream, or naming characters past its story) gives the notes it names within bounds.
"""

from __future__ import annotations

import bisect
import itertools
import struct
from collections.abc import Callable, Sequence

from .docfkp import plc_cps

__all__ = ["BOX", "ENDNOTE", "FOOTNOTE", "Kept", "Stories", "mark_references", "story_ranges",
           "whole"]

#: the characters put at a footnote's, an endnote's and a text box's place (Word never
#: writes them)
FOOTNOTE, ENDNOTE, BOX = "\x11", "\x12", "\x16"
#: the FibRgFcLcb97 pairs of the footnotes' and endnotes' places and texts, and the boxes'
_FTN_REF, _FTN_TXT, _EDN_REF, _EDN_TXT, _TXBX_TXT = 2, 3, 46, 47, 56
_FTXBXS = 22  # the size of a text box's entry in PlcftxbxTxt (its shape id at byte 14)
_SPA_MOM, _SPA = 40, 26  # the pair of the main text's shapes (PlcSpaMom), an entry's size


def _anchors(table: bytes, pair: tuple[int, int], main: int) -> dict[int, int]:
    """Shape id → the place in the main text (below ``main``) it is anchored at, of the
    shapes ``PlcSpaMom`` (at ``pair``) lists."""
    cps = plc_cps(table, pair, _SPA)
    data = pair[0] + 4 * len(cps)
    return {struct.unpack_from("<i", table, data + _SPA * i)[0]: cp
            for i, cp in enumerate(cps[:-1]) if 0 <= cp < main}


#: the ranges of ``[start, end)`` that are not tracked deletions, relative to ``start``
Kept = Callable[[int, int], list[tuple[int, int]]]


def whole(start: int, end: int) -> list[tuple[int, int]]:
    """:data:`Kept` of a text without tracked deletions: all of it."""
    return [(0, end - start)]


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
                 pairs: Sequence[tuple[int, int]], kept: Kept = whole) -> None:
        def pair(i: int) -> tuple[int, int]:
            return pairs[i] if i < len(pairs) else (0, 0)

        self._text, self._kept = text, kept

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
        texts = [self._cut(a, b) for a, b in story_ranges(
            edn + starts["edn"], txbx, [(boxes[i], boxes[i + 1]) for i in used])]
        anchors = _anchors(table, pair(_SPA_MOM), main)
        lids = [struct.unpack_from("<i", table, data + _FTXBXS * i + 14)[0] for i in used]
        placed = sorted((anchors[lid], t) for lid, t in zip(lids, texts, strict=True)
                        if lid in anchors)
        self.refs[BOX] = [cp for cp, _ in placed]
        self.notes[BOX] = [t for _, t in placed]
        self.boxes = [t for lid, t in zip(lids, texts, strict=True) if lid not in anchors]

    def keep(self, kept: list[tuple[int, int]]) -> None:
        """Keep the notes and boxes whose place in the main text is in ``kept`` (ranges,
        in order): one whose reference is a tracked deletion goes with it."""
        starts = [a for a, _ in kept]
        for mark, cps in self.refs.items():
            shown = [(cp, note) for cp, note in zip(cps, self.notes[mark], strict=False)
                     if (i := bisect.bisect_right(starts, cp) - 1) >= 0 and cp < kept[i][1]]
            self.refs[mark] = [cp for cp, _ in shown]
            self.notes[mark] = [note for _, note in shown]

    def _ranges(self, text: str, start: int, length: int, cps: list[int],
                count: int) -> list[str]:
        """The texts of the first ``count`` notes of a story."""
        pairs = list(itertools.pairwise(cps))[:count]
        return [self._cut(a, b) for a, b in story_ranges(start, length, pairs)]

    def _cut(self, start: int, end: int) -> str:
        """The characters of ``[start, end)`` that are not tracked deletions."""
        return "".join(self._text[start + a:start + b] for a, b in self._kept(start, end))


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
