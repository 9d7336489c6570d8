"""Reading OpenDocument presentations (``.odp``) as documents, with Python's own ``zipfile``
and ``xml.etree`` (no extra), the package read as :mod:`.opendocs` reads a text document's.

One document per file, its id and ``source`` as a deck's (the id keeps the suffix:
``talk.odp``), its slides each a page (:mod:`.pages`), in :mod:`.slides`' layout: the
title, the other frames' and shapes' text (groups and tables too; a text box LibreOffice
drew, a rectangle or a callout holds its paragraphs itself), the footer and date, the
speaker notes; a hidden frame or shape (``draw:display="none"``, or on a layer
``draw:display="none"`` hides) gives no text. A hidden
slide gives no text and keeps its number. A footer or a fixed date (the presentation's
declarations a slide uses: ``presentation:use-footer-name``) is shown on the first slide it
is on and not again, as a ``.pptx`` deck's; a date that shows the day the deck is opened, a
slide number, and a footer or date the slide's style hides give no text. A slide's own
footer and date frames (``presentation:class="footer"``, ``"date-time"``, as LibreOffice
writes a slide whose footer differs from the others') read alike, without their page-number
and date fields; its page-number frame gives no text. The title is the file's own
(``dc:title``), else the first slide title, else the stem.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from pathlib import Path

from ..types import Document
from .furniture import Once
from .opendocs import (
    PAGE_NUMBERS,
    SHAPES,
    hidden_layers,
    hidden_shape,
    hiding_styles,
    odf_blocks,
    odf_parts,
    odf_tag,
    without_fields,
)
from .pages import paged_document
from .textfiles import foreign_file, path_id
from .titles import cut_title

__all__ = ["odp_document"]

_q = odf_tag
_PAGE_PROPERTIES = "style:drawing-page-properties"
#: a slide's footer and date: (the slide's attribute naming its declaration, the
#: declaration's tag, the page style's attribute that hides it)
_FURNITURE = (("presentation:use-footer-name", "presentation:footer-decl",
               "presentation:display-footer"),
              ("presentation:use-date-time-name", "presentation:date-time-decl",
               "presentation:display-date-time"))


#: the elements of a slide that hold text: frames, and the shapes holding paragraphs
_SHAPES = SHAPES | {_q("draw:frame")}
#: the frames of a slide's own footer, date and number (``presentation:class``)
_FRAMES = frozenset({"footer", "date-time", "page-number", "header"})
#: the fields a footer or date leaves out: the slide's number and count, today's date
_FIELDS = PAGE_NUMBERS | frozenset(map(_q, ("text:date", "text:time")))


def _frames(el: ET.Element, layers: frozenset[str]) -> Iterator[ET.Element]:
    """The frames and shapes holding text of a slide in order (a shape's text is its own
    paragraphs: a text box LibreOffice drew, a rectangle, a callout), in groups too, not
    its notes' or a frame's own, nor a hidden one's (itself or its layer, ``layers``)."""
    for child in el:
        if child.tag in _SHAPES:
            if not hidden_shape(child, layers):
                yield child
        elif child.tag != _q("presentation:notes") and not hidden_shape(child, layers):
            yield from _frames(child, layers)


class _Furniture:
    """The footers and dates of a presentation's slides, each shown once."""

    def __init__(self, content: ET.Element) -> None:
        self._decls: dict[tuple[str, str], str] = {}
        for _, tag, _ in _FURNITURE:
            for decl in content.iter(_q(tag)):
                fixed = decl.get(_q("presentation:source"), "fixed") == "fixed"
                text = " ".join("".join(decl.itertext()).split()) if fixed else ""
                self._decls[tag, decl.get(_q("presentation:name"), "")] = text
        self._hiding = {flag: hiding_styles(content, _PAGE_PROPERTIES, flag, "false")
                        for _, _, flag in _FURNITURE}
        #: ``[text]`` the first time a footer or date shows it, else ``[]``
        self.once = Once()

    def of(self, page: ET.Element) -> list[str]:
        """The footer and date the slide ``page`` declares, not shown on a slide before."""
        out = []
        for attr, tag, flag in _FURNITURE:
            name = page.get(_q(attr))
            if name is not None and page.get(_q("draw:style-name")) not in self._hiding[flag]:
                out += self.once(self._decls.get((tag, name), ""))
        return out


def _slide(page: ET.Element, hidden: set[str], furniture: _Furniture,
           layers: frozenset[str]) -> tuple[str, str]:
    """(the slide's title, its text: title, other frames, footer and date, notes); empty
    when hidden. ``layers``: the hidden layers, whose shapes give no text."""
    if page.get(_q("draw:style-name")) in hidden:
        return "", ""
    title: list[str] = []
    parts: list[str] = []
    for frame in _frames(page, layers):
        kind = frame.get(_q("presentation:class"))
        if kind in _FRAMES:  # a footer or date of its own: once, without its fields
            shown = odf_blocks(without_fields(frame, _FIELDS))
            parts += furniture.once("\n".join(t for _, t in shown if t))
            continue
        text = "\n\n".join(t for _, t in odf_blocks(frame) if t)
        if kind == "title" and not title:
            title.append(text)
        else:
            parts.append(text)
    parts += furniture.of(page)
    for note in page.iter(_q("presentation:notes")):
        parts += ["\n\n".join(t for _, t in odf_blocks(frame) if t)
                  for frame in _frames(note, layers)]
    heading = " ".join(title[0].split()) if title else ""
    return heading, "\n\n".join(p for p in (*title, *parts) if p)


def odp_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the OpenDocument presentation ``path`` (see the module's docs)."""
    with foreign_file(path, "an OpenDocument presentation"):
        content, title, styles = odf_parts(path, styles=True)
        hidden = hiding_styles(content, _PAGE_PROPERTIES, "presentation:visibility", "hidden")
        furniture = _Furniture(content)
        layers = hidden_layers(content, styles)
        slides = [_slide(page, hidden, furniture, layers)
                  for page in content.iter(_q("draw:page"))]
    title = title or next((t for t, _ in slides if t), path.stem)
    return paged_document(path, path_id(path, id_from_path, root), cut_title(title),
                          [text for _, text in slides])
