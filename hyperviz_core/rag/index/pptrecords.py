"""The records of a PowerPoint 97-2003 deck's ``PowerPoint Document`` stream (MS-PPT).

A record is an 8-byte header (version and instance, type, size) and its body; a container's
body is more records. :func:`atoms` walks a container's atoms in order (without recursion, so
a deep nesting cannot exhaust Python's stack), :func:`persist_offsets` finds where each
persist object (the document, each slide, each notes page) is stored, following the chain of
saves from the ``Current User`` stream's newest one, and :func:`slide_lists` reads the
document's lists of slides and notes pages in the deck's order, each with the text the
list holds for it (PowerPoint keeps a placeholder's text there).

Any record that runs past its container, or a chain that does not lead to a save, is a
:class:`ValueError` (the reader names the file).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

__all__ = [
    "ENCRYPTED_TOKEN",
    "FIELD",
    "TEXT_HEADER",
    "TEXT_TYPES",
    "Record",
    "SlideEntry",
    "atoms",
    "children",
    "hide_field",
    "persist_offsets",
    "record_at",
    "slide_lists",
    "text_of",
]

#: the ``Current User`` header token of a deck saved with a password
ENCRYPTED_TOKEN = 0xF3D1C4DF
_SLIDE_PERSIST, _SLIDE_LIST, _USER_EDIT, _PERSIST_DIR = 0x03F3, 0x0FF0, 0x0FF5, 0x1772
#: the atom that starts a text, saying its type (title, body, notes ...)
TEXT_HEADER = 0x0F9F
_TEXT_CHARS, _TEXT_BYTES = 0x0FA0, 0x0FA8
#: the atoms that hold text (UTF-16, one byte a character)
TEXT_TYPES = (_TEXT_CHARS, _TEXT_BYTES)
#: the atoms that mark a field showing the slide's number or today's date (its ``*``)
_FIELD_MARKS = frozenset({0x0FD8, 0x0FF7, 0x0FF8, 0x1015})
#: what takes a slide-number or date field's place in a text (shown as nothing)
FIELD = "\x00"


@dataclass(frozen=True)
class Record:
    """A record's type, instance and body (``start``, ``end``: offsets in the stream)."""

    type: int
    instance: int
    start: int
    end: int
    container: bool


@dataclass
class SlideEntry:
    """A slide (or notes page) of a list: its persist id, its id, and the texts (type, text)
    the list holds for it."""

    persist: int
    slide_id: int
    texts: list[tuple[int, str]] = field(default_factory=list)


def record_at(data: bytes, at: int, end: int | None = None) -> Record:
    """The record whose header is at ``at`` (it must end by ``end``, default the stream's)."""
    version_instance, kind, size = struct.unpack_from("<HHI", data, at)
    stop = at + 8 + size
    if stop > (len(data) if end is None else end):
        raise ValueError(f"a record at byte {at} runs past its container")
    return Record(kind, version_instance >> 4, at + 8, stop, version_instance & 0xF == 0xF)


def children(data: bytes, parent: Record) -> Iterator[Record]:
    """The records directly in the container ``parent``, in order."""
    at = parent.start
    while at + 8 <= parent.end:
        rec = record_at(data, at, parent.end)
        yield rec
        at = rec.end


def atoms(data: bytes, parent: Record,
          whole: Callable[[Record], bool] | None = None) -> Iterator[Record]:
    """The atoms (records that are no container) under ``parent``, depth first, in order;
    a container ``whole`` picks (a table) is yielded itself, its records not walked."""
    stack = [(parent.start, parent.end)]
    while stack:
        at, stop = stack.pop()
        if at + 8 > stop:
            continue
        rec = record_at(data, at, stop)
        stack.append((rec.end, stop))
        if rec.container and whole is not None and whole(rec):
            yield rec
        elif rec.container:
            stack.append((rec.start, rec.end))
        else:
            yield rec


def text_of(data: bytes, rec: Record) -> str:
    """The text of a text atom: UTF-16, or (``TextBytesAtom``) one byte a character."""
    body = data[rec.start:rec.end]
    return body.decode("utf-16-le", "replace") if rec.type == _TEXT_CHARS \
        else body.decode("latin-1")


def persist_offsets(data: bytes, current_edit: int) -> tuple[dict[int, int], int]:
    """(persist id -> its offset, the document's persist id), from the save at
    ``current_edit`` back through the earlier ones (a later save's offsets win)."""
    offsets: dict[int, int] = {}
    seen: set[int] = set()
    document: int | None = None
    edit: int | None = current_edit
    while edit is not None and edit not in seen:
        seen.add(edit)
        rec = record_at(data, edit)
        if rec.type != _USER_EDIT:
            raise ValueError(f"no save at byte {edit}")
        last, directory, doc = struct.unpack_from("<III", data, rec.start + 8)
        document = doc if document is None else document
        entries = record_at(data, directory)
        if entries.type != _PERSIST_DIR:
            raise ValueError(f"no persist directory at byte {directory}")
        at = entries.start
        while at + 4 <= entries.end:
            head = struct.unpack_from("<I", data, at)[0]
            first, count = head & 0xFFFFF, head >> 20
            where = struct.unpack_from(f"<{count}I", data, at + 4)
            for i, offset in enumerate(where):
                offsets.setdefault(first + i, offset)
            at += 4 + 4 * count
        edit = last or None
    if document is None:
        raise ValueError("no save")
    return offsets, document


def slide_lists(data: bytes, document: Record) -> dict[int, list[SlideEntry]]:
    """The document's lists by instance (0: slides, 2: notes pages), each in order."""
    lists: dict[int, list[SlideEntry]] = {}
    for rec in children(data, document):
        if rec.type != _SLIDE_LIST or not rec.container:
            continue
        entries = lists.setdefault(rec.instance, [])
        kind = -1
        for item in children(data, rec):
            if item.type == _SLIDE_PERSIST:
                persist, _, _, slide_id = struct.unpack_from("<4I", data, item.start)
                entries.append(SlideEntry(persist, slide_id))
            elif item.type == TEXT_HEADER:
                kind = struct.unpack_from("<I", data, item.start)[0]
            elif item.type in TEXT_TYPES and entries:
                entries[-1].texts.append((kind, text_of(data, item)))
            elif entries:
                hide_field(data, item, entries[-1].texts)
    return lists


def hide_field(data: bytes, rec: Record, texts: list[tuple[int, str]]) -> None:
    """When ``rec`` marks a slide-number or date field (its ``*`` in the text before it),
    put :data:`FIELD` in its place in the last of ``texts``.

    >>> texts = [(4, "Draft *")]
    >>> hide_field(bytes(8) + (6).to_bytes(4, "little"), Record(0x0FD8, 0, 8, 12, False),
    ...            texts)
    >>> texts == [(4, "Draft " + FIELD)]
    True
    """
    if rec.type not in _FIELD_MARKS or not texts or rec.end - rec.start < 4:
        return
    at = struct.unpack_from("<i", data, rec.start)[0]
    kind, text = texts[-1]
    if 0 <= at < len(text) and text[at] == "*":
        texts[-1] = (kind, text[:at] + FIELD + text[at + 1:])
