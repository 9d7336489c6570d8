"""Reading PowerPoint 97-2003 decks (``.ppt``, ``.pps``, ``.pot``) as documents, with the
``ppt`` extra (`olefile <https://pypi.org/project/olefile/>`_ opens the compound file; the
slides are read as MS-PPT lays them out: :mod:`.pptrecords`).

One document per file, as a ``.pptx`` deck's (:mod:`.slides`): the id keeps the suffix
(``deck.ppt``) and each slide is a page, in the deck's order, so each chunk is told the
slides it spans. A slide's text is its title, then its other text in the slide's order
(placeholders, text boxes, and tables: a row a line, cells joined by `` | ``, as a
``.pptx`` deck's: :mod:`.ppttables`), then its footer and date (on the first slide they
are on, not again: :mod:`.pptfooters`), then its speaker notes. Masters, pictures and
charts give no text, nor do the slide-number and date fields and a shape hidden on the slide
(its ``fHidden`` property), nor the shapes of a hidden group. A hidden slide gives none either,
and keeps its number. The title is the file's own (its summary information's), else the
first slide title, else the file's stem.

A ``.pptx`` file named ``.ppt``, and a ``.ppt`` file named ``.pptx``, are read as what they
are (:mod:`.officekinds`). A deck saved with a password, a PowerPoint 95
deck and a file that is neither is each a :class:`~.errors.LoaderError` naming the file; so
is a damaged one and one read without the extra, and a folder walk without it leaves these
files out, listed with the command that installs it. Nothing in the file is run and nothing
is fetched; its streams are read into memory.
"""

from __future__ import annotations

import struct
from pathlib import Path
from typing import Any

from ..types import Document
from .errors import LoaderError
from .guards import printable
from .olefiles import ole_title, opened_ole, password_error, shown_lines, stream
from .pages import paged_document
from .pptfooters import SlideFurniture
from .pptrecords import (
    ENCRYPTED_TOKEN,
    FIELD,
    TEXT_HEADER,
    TEXT_TYPES,
    Record,
    SlideEntry,
    atoms,
    children,
    hide_field,
    persist_offsets,
    record_at,
    slide_lists,
    text_of,
)
from .ppttables import is_table, table_text_of
from .textfiles import path_id
from .titles import cut_title

__all__ = ["ppt_document"]

_KIND = "a PowerPoint 97-2003 deck"
_SLIDE_ATOM, _SHOW_INFO, _OUTLINE_REF = 0x03EF, 0x03F9, 0x0F9E
_HIDDEN = 0x0004  # SlideShowSlideInfoAtom: the slide is left out of the show
#: a shape's first atom (OfficeArtFSP), its property tables (OfficeArtFOPT, its secondary
#: and tertiary ones), the group-shape booleans property and its fUsefHidden | fHidden bits
_SHAPE, _PROPERTIES = 0xF00A, frozenset({0xF00B, 0xF121, 0xF122})
_GROUP = 0xF003  # OfficeArtSpgrContainer: a group, its own shape's container first
_GROUP_BOOLEANS, _HIDDEN_SHAPE = 0x03BF, 0x00020002
_TITLES = (0, 6)  # the text types of a title and a centred title
_TABLE = -2  # the "text type" of a table's rows (:mod:`.ppttables`), shown as they are
_LINES = str.maketrans({"\r": "\n", "\x0b": "\n", FIELD: None})


def _paragraphs(text: str) -> str:
    """A text's lines (:func:`~.olefiles.shown_lines`); ``""`` for a slide-number or date
    field (``*``)."""
    shown = shown_lines(text, _LINES)
    return "" if shown == "*" else shown


def _hidden_shape(data: bytes, rec: Record) -> bool:
    """Whether a shape's property table (``OfficeArtFOPT``) hides it (``fHidden``)."""
    for i in range(min(rec.instance, (rec.end - rec.start) // 6)):
        opid, value = struct.unpack_from("<HI", data, rec.start + 6 * i)
        if opid & 0x3FFF == _GROUP_BOOLEANS and value & _HIDDEN_SHAPE == _HIDDEN_SHAPE:
            return True
    return False


def _hidden_groups(data: bytes, page: Record) -> list[tuple[int, int]]:
    """The byte ranges of the groups hidden on a slide: a group's own shape (the first in
    its container) hidden by its properties hides every shape in the group (in a damaged
    drawing, those found before the damage)."""
    found: list[tuple[int, int]] = []
    stack = [page]
    try:
        while stack:
            for rec in children(data, stack.pop()):
                if not rec.container:
                    continue
                own = next(children(data, rec), None) if rec.type == _GROUP else None
                if own is not None and own.container and any(
                        _hidden_shape(data, p) for p in children(data, own)
                        if p.type in _PROPERTIES):
                    found.append((rec.start, rec.end))
                else:
                    stack.append(rec)
    except ValueError:  # a damaged drawing: the slide is read as it can be, as before
        pass
    return found


def _held_index(data: bytes, rec: Record, held: list[tuple[int, str]]) -> list[int]:
    """The index of the placeholder text a hidden shape's ``OutlineTextRefAtom`` names, so
    that it is not read after the slide's text either."""
    if rec.type != _OUTLINE_REF or rec.end - rec.start < 4:
        return []
    index = struct.unpack_from("<I", data, rec.start)[0]
    return [index] if index < len(held) else []


def _page_texts(data: bytes, page: Record,
                held: list[tuple[int, str]]) -> tuple[list[tuple[int, str]], int | None, bool]:
    """(the texts of a slide or notes page, its notes page's id, whether it is hidden); a
    placeholder's text is ``held`` by the list, and is read in its place."""
    texts: list[tuple[int, str]] = []
    used: set[int] = set()
    notes: int | None = None
    hidden = False
    kind = -1
    unseen = False  # whether the shape being read is hidden on the slide
    groups = _hidden_groups(data, page)
    for rec in atoms(data, page, is_table(data)):
        if rec.type == _SHAPE:
            unseen = any(start <= rec.start < end for start, end in groups)
        elif rec.type in _PROPERTIES:
            unseen = unseen or _hidden_shape(data, rec)
        if unseen and (rec.type in TEXT_TYPES or rec.type == _OUTLINE_REF):
            used.update(_held_index(data, rec, held))
            continue
        if rec.container:  # a table
            texts.append((_TABLE, table_text_of(data, rec, _paragraphs)))
        elif rec.type == _SLIDE_ATOM and rec.end - rec.start >= 20:
            notes = struct.unpack_from("<I", data, rec.start + 16)[0] or None
        elif rec.type == _SHOW_INFO and rec.end - rec.start >= 12:
            hidden = bool(struct.unpack_from("<H", data, rec.start + 10)[0] & _HIDDEN)
        elif rec.type == TEXT_HEADER:
            kind = struct.unpack_from("<I", data, rec.start)[0]
        elif rec.type in TEXT_TYPES:
            texts.append((kind, text_of(data, rec)))
        elif rec.type == _OUTLINE_REF:
            index = struct.unpack_from("<I", data, rec.start)[0]
            if index < len(held) and index not in used:
                used.add(index)
                texts.append(held[index])
        else:  # a slide-number or date field's mark, and the rest
            hide_field(data, rec, texts)
    texts += [t for i, t in enumerate(held) if i not in used]  # placeholders not referenced
    return texts, notes, hidden


def _slide(data: bytes, offsets: dict[int, int], entry: SlideEntry,
           notes: dict[int, SlideEntry], read: set[int],
           furniture: SlideFurniture) -> tuple[str, str]:
    """(a slide's title, its whole text: see the module's docs); ``("", "")`` when hidden.
    A notes page is read once: ``read`` holds the persist ids read so far."""
    if entry.persist not in offsets:
        raise ValueError(f"slide {entry.slide_id} is stored nowhere")
    container = record_at(data, offsets[entry.persist])
    texts, notes_id, hidden = _page_texts(data, container, entry.texts)
    if hidden:
        return "", ""
    shown = [(kind, text if kind == _TABLE else _paragraphs(text)) for kind, text in texts]
    titles = [text for kind, text in shown if kind in _TITLES and text]
    parts = [*titles[:1], *(text for kind, text in shown if text and text not in titles[:1])]
    parts += furniture.of(container)
    page = notes.get(notes_id) if notes_id is not None else None
    if page is not None and page.persist in offsets and page.persist not in read:
        read.add(page.persist)
        said, _, _ = _page_texts(data, record_at(data, offsets[page.persist]), page.texts)
        parts += [text for text in (_paragraphs(t) for _, t in said) if text]
    heading = " ".join(titles[0].split()) if titles else ""
    return heading, "\n\n".join(parts)


def _deck(ole: Any, path: Path) -> list[tuple[str, str]]:
    """(title, text) of each slide of the compound file ``ole``, in the deck's order."""
    user = stream(ole, "Current User", path, _KIND)
    if len(user) < 20:
        raise ValueError("a Current User stream too short")
    token, current = struct.unpack_from("<II", user, 12)
    if token == ENCRYPTED_TOKEN:
        raise password_error(path)
    data = stream(ole, "PowerPoint Document", path, _KIND)
    offsets, document = persist_offsets(data, current)
    if document not in offsets:
        raise ValueError("the document is stored nowhere")
    container = record_at(data, offsets[document])
    lists = slide_lists(data, container)
    notes = {entry.slide_id: entry for entry in lists.get(2, [])}
    read: set[int] = set()  # a slide listed twice (no deck does) is read once
    furniture = SlideFurniture(data, container)
    slides = []
    for entry in lists.get(0, []):
        if entry.persist not in read:
            read.add(entry.persist)
            slides.append(_slide(data, offsets, entry, notes, read, furniture))
    return slides


def ppt_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the PowerPoint 97-2003 deck ``path`` (see the module's docs)."""
    with opened_ole(path, _KIND, ".ppt") as ole:
        if not ole.exists("PowerPoint Document"):
            raise LoaderError(f"{printable(str(path))}: not {_KIND} (a PowerPoint 95 deck, "
                              "or no deck: it has no 'PowerPoint Document' stream)")
        slides = _deck(ole, path)
        title = ole_title(ole)
    title = title or next((t for t, _ in slides if t), path.stem)
    return paged_document(path, path_id(path, id_from_path, root), cut_title(title),
                          [text for _, text in slides])
