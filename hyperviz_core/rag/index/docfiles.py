"""Reading Word 97-2003 documents (``.doc``) as documents, with the ``doc`` extra (`olefile
<https://pypi.org/project/olefile/>`_ opens the compound file; the text is read as MS-DOC
lays it out: the piece table names where each run of characters is stored, 8-bit or UTF-16).

One document per file, its id and ``source`` as a ``.docx`` file's (:mod:`.wordfiles`): the
id keeps the suffix (``report.doc``). Its text is the main body's as a ``.docx`` file's
is read: a blank line between two paragraphs (empty ones dropped), a table's rows a line
each with their cells joined by `` | `` (a cell's own paragraphs by spaces). A field shows
its result (a hyperlink its text, not its address), a line break, page break or column
break ends a line, a non-breaking hyphen is ``-`` and an optional one is dropped;
pictures, drawings and footnote marks give no text, and a tracked deletion is left out
(:mod:`.docchars`: the text as it stands once the changes are accepted). Footnotes and
endnotes follow the paragraph or table that refers to them, numbered, and text boxes the
paragraph they are anchored in (:mod:`.docnotes`). A section's headers come before it and
its footers after it (:mod:`.docheaders`, :mod:`.furniture`). Comments are not read. The
title is the file's own (its summary information's), else the file's stem.

A ``.docx`` file or an RTF file named ``.doc``, and a ``.doc`` file named ``.docx``, are
read as what they are (:mod:`.officekinds`). A Word 6.0/95 document, one saved with a
password and a file that is neither is each a :class:`~.errors.LoaderError`
naming the file; so is a damaged one and one read without the extra, and a folder walk
without it leaves ``.doc`` files out, listed with the command that installs it. Nothing in
the file is run (macros are not read) and nothing is fetched; its streams are read into
memory.
"""

from __future__ import annotations

import bisect
import re
import struct
from collections import deque
from pathlib import Path
from typing import Any, ClassVar

from ..types import Document
from .docchars import Unshown
from .docheaders import SECTION, Sections
from .docnotes import BOX, ENDNOTE, FOOTNOTE, Stories, mark_references
from .docparas import ParagraphFlags
from .errors import LoaderError
from .furniture import Furniture, is_page_field
from .guards import printable
from .notes import NoteNumbers
from .olefiles import ole_title, opened_ole, password_error, shown_lines, stream
from .tables import table_text
from .textfiles import path_id
from .titles import cut_title

__all__ = ["doc_document"]

_KIND = "a Word 97-2003 document"
_IDENT = 0xA5EC  # the FIB's first two bytes
_WORD97 = 0x00C1  # the oldest nFib of Word 97's format
_ENCRYPTED, _TABLE1 = 0x0100, 0x0200  # FIB flags: saved with a password, text in "1Table"
_COMPRESSED = 0x40000000  # a piece stored 8-bit (Windows-1252)
#: the FibRgFcLcb97 pairs naming the piece table, the character and the paragraph pages
_CLX, _CHPX, _PAPX = 33, 12, 13
#: what the characters Word uses as marks show (None: nothing); the ends of paragraphs
#: (``\r``) and cells (``\x07``) are read by :func:`_blocks`
_MARKS: dict[int, str | None] = {**dict.fromkeys(range(0x20), None), 0x09: " ", 0x0B: "\n",
                                 0x0C: "\n", 0x0E: "\n", 0x1E: "-", 0xA0: " "}
#: as :data:`_MARKS`, a paragraph's or a cell's end ending a line (in a note or a text box)
_NOTE_MARKS = {**_MARKS, 0x0D: "\n", 0x07: "\n"}
_FIELD = re.compile("[\x13\x14\x15]")
_ENDS = re.compile("[\r\x07]")


def _fib(word: bytes, path: Path) -> tuple[int, list[int], list[tuple[int, int]]]:
    """(flags, the stories' lengths: ``ccpText``, ``ccpFtn`` ... ``ccpTxbx``, the
    FibRgFcLcb's (offset, size) pairs) of the FIB."""
    ident, nfib = struct.unpack_from("<HH", word, 0)
    if ident != _IDENT:
        raise LoaderError(f"{printable(str(path))}: not {_KIND} (its WordDocument stream does "
                          "not start as one)")
    if nfib < _WORD97:
        raise LoaderError(f"{printable(str(path))}: a Word 6.0/95 document, which is not read; "
                          "save it as .docx")
    flags = struct.unpack_from("<H", word, 10)[0]
    if flags & _ENCRYPTED:
        raise password_error(path)
    csw = struct.unpack_from("<H", word, 32)[0]
    longs = 34 + 2 * csw + 2  # FibRgLw97: ccpText is its fourth value
    cslw = struct.unpack_from("<H", word, longs - 2)[0]
    ccps = list(struct.unpack_from("<4i", word, longs + 12)) + [
        struct.unpack_from("<i", word, longs + at)[0] if at < 4 * cslw else 0
        for at in (28, 32, 36)]  # ccpText, ccpFtn, ccpHdd, ccpMcr; ccpAtn, ccpEdn, ccpTxbx
    pairs_at = longs + 4 * cslw + 2
    count = struct.unpack_from("<H", word, pairs_at - 2)[0]
    pairs = [struct.unpack_from("<II", word, pairs_at + 8 * i) for i in range(count)]
    return flags, ccps, pairs


def _pieces(word: bytes, clx: bytes) -> list[tuple[int, int, int, bool]]:
    """(first character, end, stream offset, 8-bit) of each piece the piece table names."""
    at = 0
    while clx[at] == 0x01:  # property lists first
        at += 3 + struct.unpack_from("<H", clx, at + 1)[0]
    if clx[at] != 0x02:
        raise ValueError("no piece table")
    size = struct.unpack_from("<I", clx, at + 1)[0]
    plc = clx[at + 5:at + 5 + size]
    count = (len(plc) - 4) // 12
    cps = struct.unpack_from(f"<{count + 1}I", plc, 0)
    out = []
    for i in range(count):
        fc = struct.unpack_from("<I", plc, 4 * (count + 1) + 8 * i + 2)[0]
        compressed = bool(fc & _COMPRESSED)
        out.append((cps[i], cps[i + 1], (fc & ~_COMPRESSED) // 2 if compressed else fc,
                    compressed))
    return out


class _Offsets:
    """Where each character of a text is stored in the stream, kept a run at a time (a run:
    its first character's position, its stream offset, its bytes a character), so a text of
    millions of characters costs a few tuples, not a number a character."""

    def __init__(self, runs: list[tuple[int, int, int]]) -> None:
        self._starts = [start for start, _, _ in runs]
        self._runs = runs

    def at(self, pos: int) -> int:
        """The stream offset of the character at ``pos``."""
        start, fc, width = self._runs[bisect.bisect_right(self._starts, pos) - 1]
        return fc + (pos - start) * width

    def kept(self, ranges: list[tuple[int, int]]) -> _Offsets:
        """The offsets of the text made of the characters in ``ranges`` (in order)."""
        runs: list[tuple[int, int, int]] = []
        at = 0
        for a, b in ranges:
            i = max(bisect.bisect_right(self._starts, a) - 1, 0)
            while a < b and i < len(self._runs) and self._starts[i] < b:
                first = max(a, self._starts[i])
                runs.append((at + first - a, self.at(first), self._runs[i][2]))
                i += 1
            at += b - a
        return _Offsets(runs)


def _characters(word: bytes, pieces: list[tuple[int, int, int, bool]],
                length: int, main: int) -> tuple[str, _Offsets]:
    """The first ``length`` characters of the text, and where each is stored: a piece past
    the stream's end is an error in the first ``main`` characters (the main text), and the
    text's end after them (notes and text boxes are read as far as they can be)."""
    text: list[str] = []
    runs: list[tuple[int, int, int]] = []
    at = 0
    for start, end, fc, compressed in pieces:
        if start >= length:
            break
        n = min(end, length) - start
        width = 1 if compressed else 2
        raw = word[fc:fc + n * width]
        cut = len(raw) < n * width
        if cut and start + len(raw) // width < min(end, main):
            raise ValueError("a piece past the stream's end")
        n = min(n, len(raw) // width)
        text.append(raw[:n * width].decode("cp1252", "replace") if compressed
                    else raw[:n * width].decode("utf-16-le", "replace"))
        runs.append((at, fc, width))
        at += n
        if cut:
            break
    return "".join(text), _Offsets(runs)


def _shown_ranges(text: str, pages: bool = True) -> list[tuple[int, int]]:
    """The ranges of ``text`` outside its fields' codes: a field is ``\\x13 code \\x14
    result \\x15``, its result shown, a page number's only when ``pages``
    (:func:`~.furniture.is_page_field`); fields nest."""
    kept: list[tuple[int, int]] = []
    # per open field: where its code starts (-1 once its result is read), and whether it
    # hides what it holds; ``hidden`` counts those that do
    stack: list[tuple[int, bool]] = []
    hidden = 0
    at = 0
    for m in _FIELD.finditer(text):
        if not hidden:
            kept.append((at, m.start()))
        at = m.end()
        if m.group() == "\x13":
            stack.append((at, True))
            hidden += 1
        elif stack and m.group() == "\x14" and stack[-1][0] >= 0:
            hides = not pages and is_page_field(text[stack[-1][0]:m.start()])
            stack[-1] = (-1, hides)
            hidden -= not hides
        elif stack and m.group() == "\x15":
            hidden -= stack.pop()[1]
    if not hidden:
        kept.append((at, len(text)))
    return kept


def _without_codes(text: str, offsets: _Offsets) -> tuple[str, _Offsets]:
    """``text`` (and where its characters are stored) without its fields' codes."""
    kept = _shown_ranges(text)
    return "".join(text[a:b] for a, b in kept), offsets.kept(kept)


class _Notes:
    """The notes :func:`_blocks` shows after the block that refers to them, each numbered
    in order (:class:`~.notes.NoteNumbers`), and those no block referred to."""

    _KINDS: ClassVar[dict[str, str]] = {FOOTNOTE: "footnote", ENDNOTE: "endnote"}  # numbered

    def __init__(self, notes: dict[str, list[str]]) -> None:
        self._left = {mark: deque(_note_text(t) for t in texts)
                      for mark, texts in notes.items()}
        self._numbers = NoteNumbers()
        self.pending: list[str] = []

    def _next(self, mark: str) -> str | None:
        """The next note of a kind as shown (``""``: an empty one, which keeps its number),
        None when none is left."""
        left = self._left.get(mark)
        if not left:
            return None
        text = left.popleft()
        return self._numbers.shown(self._KINDS[mark], text) if mark in self._KINDS else text

    def refer(self, part: str) -> None:
        """Keep the notes ``part`` refers to (its marks, in order) for the next block."""
        for char in part:
            if char in self._left and (note := self._next(char)):
                self.pending.append(note)

    def flush(self, blocks: list[str]) -> None:
        blocks.extend(self.pending)
        self.pending = []

    def rest(self) -> list[str]:
        """The notes no block referred to, in order."""
        out = []
        for mark in (FOOTNOTE, ENDNOTE, BOX):
            while (note := self._next(mark)) is not None:
                if note:
                    out.append(note)
        return out


def _note_text(raw: str) -> str:
    """A note's or a text box's lines (its paragraphs, a table's cells a line each)."""
    return shown_lines("".join(raw[a:b] for a, b in _shown_ranges(raw)), _NOTE_MARKS)


def _blocks(text: str, offsets: _Offsets, flags: ParagraphFlags, notes: _Notes) -> list[str]:
    """The paragraphs and tables of ``text`` (its marks' stream ``offsets`` tell a row's end
    from a cell's), each followed by the ``notes`` it refers to: see the module's docs."""
    blocks: list[str] = []
    cell: list[str] = []
    cells: list[str] = []
    rows: list[list[str]] = []
    at = 0
    for m in _ENDS.finditer(text):
        raw = text[at:m.start()]
        part = shown_lines(raw, _MARKS)
        at = m.end()
        in_table, row_end = flags.at(offsets.at(m.start()))
        if m.group() == "\x07" or in_table:
            notes.refer(raw)  # shown after the table
        if m.group() == "\x07" and row_end:
            rows.append(cells)
            cells = []
        elif m.group() == "\x07":
            cells.append(" ".join(" ".join([*cell, part]).split()))
            cell = []
        elif in_table:  # a paragraph of a cell
            cell.append(part)
        else:
            if cells:  # a table whose rows could not be told apart
                rows.append(cells)
                cells = []
            if rows:
                blocks.append(table_text(rows))
                notes.flush(blocks)
                rows = []
            notes.refer(raw)
            blocks.append(part)
            notes.flush(blocks)
    if cells:
        rows.append(cells)
    if rows:
        blocks.append(table_text(rows))
        notes.flush(blocks)
    notes.refer(text[at:])
    blocks.append(shown_lines(text[at:], _MARKS))
    notes.flush(blocks)
    return [b for b in blocks if b.strip(" |\n")]


def _word_text(ole: Any, path: Path) -> list[str]:
    """The paragraphs and tables of the main body of the compound file ``ole``, its notes
    after the blocks that refer to them, each section framed by its headers and footers,
    then its text boxes."""
    word = stream(ole, "WordDocument", path, _KIND)
    flags, ccps, pairs = _fib(word, path)
    table = stream(ole, "1Table" if flags & _TABLE1 else "0Table", path, _KIND)
    clx_at, clx_size = pairs[_CLX]
    pieces = _pieces(word, table[clx_at:clx_at + clx_size])
    every, offsets = _characters(word, pieces, sum(max(n, 0) for n in ccps), ccps[0])
    unshown = Unshown(word, table, *pairs[_CHPX], pieces)  # deleted or hidden text
    stories = Stories(every, ccps, table, pairs, unshown.kept)
    sections = Sections(word, table, ccps, pairs)
    marked = sections.mark(mark_references(every[:stories.main], stories))
    kept = unshown.kept(0, len(marked))
    stories.keep(kept)
    text, kept_offsets = _without_codes("".join(marked[a:b] for a, b in kept),
                                        offsets.kept(kept))
    paragraphs = ParagraphFlags(word, table, *pairs[_PAPX])

    def story(a: int, b: int) -> str:
        """A header's or footer's text: its paragraphs and tables' rows a line each, its
        tracked deletions, hidden text and page numbers left out."""
        live = [(a + x, a + y) for x, y in unshown.kept(a, b)]
        raw = "".join(every[x:y] for x, y in live)
        shown = _shown_ranges(raw, pages=False)
        return "\n".join(_blocks("".join(raw[x:y] for x, y in shown),
                                 offsets.kept(live).kept(shown), paragraphs, _Notes({})))

    pages = Furniture([([story(*r) for r in heads], [story(*r) for r in feet])
                       for heads, feet in sections.stories])
    notes = _Notes(stories.notes)
    blocks = pages.headers(0)
    at = 0
    for section, end in enumerate([*(m.start() for m in re.finditer(SECTION, text)),
                                   len(text)]):
        if section:
            blocks += pages.footers(section - 1) + pages.headers(section)
        blocks += _blocks(text[at:end], kept_offsets.kept([(at, end)]), paragraphs,
                          notes)
        at = end + 1
    boxes = (b for b in map(_note_text, stories.boxes) if b)
    return [*blocks, *notes.rest(), *boxes, *pages.rest(section)]


def doc_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the Word 97-2003 file ``path`` (see the module's docs)."""
    with opened_ole(path, _KIND, ".doc") as ole:
        blocks = _word_text(ole, path)
        title = ole_title(ole)
    return Document(id=path_id(path, id_from_path, root), title=cut_title(title or path.stem),
                    text="\n\n".join(blocks), metadata={"source": str(path)})
