"""The footnotes, endnotes and text boxes of a Word document (``.docx``), which python-docx
does not read: :class:`WordNotes` gives, for a paragraph or table of the body, the blocks
shown after it.

A text box (``w:txbxContent``, in a drawing or a VML shape) is shown right after the
paragraph or table it is anchored in, a block a paragraph, and so is a SmartArt graphic
(its nodes' text, a line each: :mod:`.diagrams`), and so is an embedded Excel workbook (its
active sheet's rows: :mod:`.embedded`); the copy Word writes for older
readers (``mc:Fallback``) is left out. A footnote or endnote is shown after the paragraph
or table that refers to it (``w:footnoteReference``), numbered in the order of those
references (``Footnote 1: ...``, ``Endnote 1: ...``), its paragraphs a line each; the
notes nothing refers to follow the body (:meth:`WordNotes.rest`). The notes' parts are
parsed by python-docx's own XML parser (no entities resolved, nothing fetched).
:func:`story_text` reads a header's or footer's text alike (:mod:`.wordheaders`). Comments
are not read.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from .diagrams import diagram_texts
from .embedded import object_texts
from .notes import NoteNumbers
from .tables import row_text
from .wordtext import HIDDEN, W, block_items, cell_text, cells, paragraph_text, rows

__all__ = ["Story", "WordNotes", "story_text"]

#: the reference's tag → (the note's tag, the part's relationship, its kind)
_KINDS = {f"{W}footnoteReference": (f"{W}footnote", "footnotes", "footnote"),
          f"{W}endnoteReference": (f"{W}endnote", "endnotes", "endnote")}
#: the notes Word writes to draw the line above the notes, not notes of the text
_SEPARATORS = frozenset({"separator", "continuationSeparator", "continuationNotice"})


@dataclass(frozen=True)
class Story:
    """A story of a Word document (the body, a header, the notes) as its part holds it: the
    part's relationships name the imported chunks, SmartArt graphics and embedded workbooks
    it shows; ``read_chunk(part, element)`` reads an imported chunk (:mod:`.wordchunks`)."""

    part: Any
    source: str = ""
    read_chunk: Callable[[Any, Any], str] | None = None

    def chunk(self, element: Any) -> str:
        """The text of the imported chunk ``element`` (a ``w:altChunk``)."""
        return "" if self.read_chunk is None else self.read_chunk(self.part, element)

    def objects(self, element: Any) -> list[str]:
        """The text of the SmartArt graphics and embedded workbooks under ``element``."""
        from docx.oxml.parser import parse_xml

        related = self.part.related_parts.__getitem__
        return [*diagram_texts(element, related, parse_xml),
                *object_texts(element, related, self.source, _shown)]


def _item_lines(item: Any, story: Story | None = None) -> Iterator[str]:
    """The text of the paragraph ``item``, an imported chunk's, or a table's rows a line each
    (:func:`~.tables.row_text`)."""
    if item.tag == f"{W}p":
        yield paragraph_text(item)
        return
    if item.tag == f"{W}altChunk":
        yield story.chunk(item) if story is not None else ""
        return
    chunk = story.chunk if story is not None else None
    for row in rows(item):
        yield row_text(cell_text(tc, chunk) for tc in cells(row))


def _lines(element: Any, story: Story | None = None, objects: bool = True) -> Iterator[str]:
    """The text of each paragraph in ``element`` (a note, a text box), a table's rows a
    line each; with ``story``, imported chunks too, and (``objects``) graphics and
    workbooks (not a text box's: the paragraph holding the box reads those)."""
    for child in block_items(element, chunks=story is not None):
        yield from _item_lines(child, story)
        if story is not None and objects:
            yield from story.objects(child)


def _shown(element: Any) -> bool:
    """Whether Word shows ``element``: not inside the copy written for older readers, nor
    inside a tracked deletion."""
    return not any(a.tag in HIDDEN for a in element.iterancestors())


def _box_lines(element: Any, story: Story | None = None) -> list[str]:
    """The lines of the text boxes Word shows in ``element``."""
    return [line for box in element.iter(f"{W}txbxContent") if _shown(box)
            for line in _lines(box, story, objects=False) if line]


def story_text(element: Any, story: Story | None = None) -> str:
    """The text of a story other than the body (a header, a footer: ``element`` its root):
    its paragraphs and tables' rows a line each, each followed by its text boxes'; with
    ``story``, its imported chunks in place and its graphics' and workbooks' text after the
    paragraph holding them, as the body's."""
    return "\n".join(line for item in block_items(element, chunks=story is not None)
                     for line in (*_item_lines(item, story), *_box_lines(item, story),
                                  *(story.objects(item) if story is not None else ()))
                     if line)


class WordNotes:
    """The notes and text boxes of the python-docx ``document``."""

    def __init__(self, document: Any, source: str = "",
                 read_chunk: Callable[[Any, Any], str] | None = None) -> None:
        from docx.oxml.parser import parse_xml

        self._story = Story(document.part, source, read_chunk)
        self._notes: dict[str, dict[str, str]] = {}
        self._numbers = NoteNumbers()
        related = {rel.reltype.rsplit("/", 1)[-1]: rel.target_part
                   for rel in document.part.rels.values() if not rel.is_external}
        for tag, part_name, _ in _KINDS.values():
            notes: dict[str, str] = {}
            part = related.get(part_name)
            if part is not None:
                story = Story(part, source, read_chunk)
                for note in parse_xml(part.blob).iterchildren(tag):
                    if note.get(f"{W}type") not in _SEPARATORS:
                        notes[note.get(f"{W}id", "")] = "\n".join(
                            line for line in _lines(note, story) if line)
            self._notes[tag] = notes

    def _note(self, tag: str, note_id: str) -> str | None:
        """The note ``note_id`` as shown (numbered), once; None when there is none."""
        text = self._notes[tag].pop(note_id, None)
        if text is None:
            return None
        kind = next(k for t, _, k in _KINDS.values() if t == tag)
        return self._numbers.shown(kind, text) or None  # an empty one keeps its number

    def after(self, element: Any) -> list[str]:
        """The blocks shown after the body's paragraph or table ``element``: its text
        boxes' paragraphs, its SmartArt graphics' and embedded workbooks' text
        (:mod:`.embedded`), then the notes it refers to."""
        out = _box_lines(element, self._story)
        out += self._story.objects(element)
        for ref in element.iter(*_KINDS):
            tag, note_id = _KINDS[ref.tag][0], ref.get(f"{W}id", "")
            if not _shown(ref):  # a deleted reference: its note goes with it
                self._notes[tag].pop(note_id, None)
            elif (note := self._note(tag, note_id)) is not None:
                out.append(note)
        return out

    def rest(self) -> list[str]:
        """The notes no paragraph or table referred to, in their parts' order."""
        out = []
        for tag, _, _ in _KINDS.values():
            for note_id in list(self._notes[tag]):
                note = self._note(tag, note_id)
                if note is not None:
                    out.append(note)
        return out
