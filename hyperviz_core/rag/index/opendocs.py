"""Reading OpenDocument files (LibreOffice's ``.odt`` text, ``.odp`` presentations and
``.ods`` spreadsheets) as documents, with Python's own ``zipfile`` and ``xml.etree`` (no
extra).

One document per file (and one per row of a spreadsheet's sheets of records), its id and
``source`` as a Word file's or a deck's (the id keeps the suffix: ``report.odt``). A text
document (:func:`odt_document`) reads as its body's headings, paragraphs, lists and tables
in order (:mod:`.wordfiles`' layout: a blank line between two paragraphs, a table's rows a
line each with their cells joined by `` | ``); a presentation
(:func:`~.odpfiles.odp_document`) as its slides, each a page; a spreadsheet
(:func:`~.odsfiles.ods_documents`, read as it is parsed) as an Excel workbook
(:mod:`.workbooks`). A text document's text boxes and shapes holding text (a rectangle, a
callout: :data:`SHAPES`) follow the paragraph they are anchored in, and its footnotes and
endnotes the paragraph or table that refers to them, numbered (``Footnote 1: ...``), as the
Word readers show them; its page styles' headers and footers frame the pages that use them
(:mod:`.furniture`), and its hidden text (a style's ``text:display="none"``, conditional
hidden text) is left out. Left out too: comments, tracked deletions, images, frames
anchored to the page, and generated indexes (a table of contents repeats the headings). The
title is the file's own (``dc:title`` in its ``meta.xml``), else the first level-1 heading
(the first slide title), else the stem.

A file that is no OpenDocument package, one saved with a password (its parts are
encrypted), one whose parts would unpack to more than :data:`~.zipped.MAX_UNPACKED` bytes,
and one whose XML declares a document type (entities: never expanded) are each a
:class:`~.errors.LoaderError` naming the file. Nothing in the file is run (macros are not
read) and nothing is fetched.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Callable, Collection, Iterator
from copy import deepcopy
from pathlib import Path

from ..types import Document
from .errors import LoaderError
from .furniture import Furniture
from .guards import printable
from .notes import NoteNumbers
from .tables import table_text
from .textfiles import foreign_file, path_id
from .titles import cut_title
from .zipped import check_package, package_xml

__all__ = [
    "PAGE_NUMBERS", "SHAPES", "hidden_layers", "hidden_shape", "hiding_style", "hiding_styles",
    "odf_blocks", "odf_parts", "odf_tag", "odt_document", "opened", "paragraph",
    "without_fields",
]

_NS = {"office": "urn:oasis:names:tc:opendocument:xmlns:office:1.0",
       "text": "urn:oasis:names:tc:opendocument:xmlns:text:1.0",
       "table": "urn:oasis:names:tc:opendocument:xmlns:table:1.0",
       "draw": "urn:oasis:names:tc:opendocument:xmlns:drawing:1.0",
       "presentation": "urn:oasis:names:tc:opendocument:xmlns:presentation:1.0",
       "style": "urn:oasis:names:tc:opendocument:xmlns:style:1.0",
       "dc": "http://purl.org/dc/elements/1.1/"}


def odf_tag(name: str) -> str:
    """``text:p`` as ElementTree spells it: ``{urn:...:text:1.0}p``."""
    prefix, local = name.split(":")
    return f"{{{_NS[prefix]}}}{local}"


_q = odf_tag


_P, _H, _TABLE, _ROW, _CELL = _q("text:p"), _q("text:h"), _q("table:table"), \
    _q("table:table-row"), _q("table:table-cell")
_SPAN = _q("text:span")
#: text and paragraphs hidden while their condition holds (``text:is-hidden``)
_HIDDEN_TEXT = frozenset(map(_q, ("text:hidden-text", "text:hidden-paragraph")))
#: elements whose text is not the body's (notes, comments, deletions, frames, indexes)
#: the drawing shapes that hold paragraphs of their own (a rectangle, a callout ...)
SHAPES = frozenset(map(_q, (
    "draw:custom-shape", "draw:rect", "draw:ellipse", "draw:circle", "draw:polygon",
    "draw:regular-polygon", "draw:polyline", "draw:path", "draw:line", "draw:connector",
    "draw:caption", "draw:measure")))
_SKIP = frozenset(map(_q, (
    "text:note", "office:annotation", "text:tracked-changes", "draw:frame", "draw:a",
    "text:table-of-content", "text:alphabetical-index", "text:illustration-index",
    "text:table-index", "text:object-index", "text:user-index", "text:bibliography",
    "text:sequence-decls", "text:variable-decls", "office:forms"))) | SHAPES
_BREAKS = {_q("text:line-break"): "\n", _q("text:tab"): " "}
#: what holds the paragraphs shown after the one it is anchored in
_BOXES = SHAPES | {_q("draw:text-box")}
_DISPLAY = "{http://openoffice.org/2010/draw}display"  # LibreOffice's draw:display


def hidden_shape(shape: ET.Element, layers: Collection[str] = ()) -> bool:
    """Whether a frame or shape is shown on neither the screen nor paper (``draw:display``,
    LibreOffice's ``drawooo:display``: ``none``), itself or by its layer (``draw:layer``
    one of ``layers``: :func:`hidden_layers`)."""
    return "none" in (shape.get(_q("draw:display")), shape.get(_DISPLAY)) or (
        bool(layers) and shape.get(_q("draw:layer")) in layers)


def hidden_layers(*roots: ET.Element | None) -> frozenset[str]:
    """The names of the layers ``roots`` (a document's parts) declare hidden
    (``draw:layer`` with ``draw:display="none"``: the shapes on them are not shown)."""
    return frozenset(name for root in roots if root is not None
                     for layer in root.iter(_q("draw:layer"))
                     if hidden_shape(layer) and (name := layer.get(_q("draw:name"))))


def _inline(el: ET.Element) -> str:
    """The text of a paragraph or heading: spans, links and the like read through, runs of
    spaces (``text:s``) as their count of spaces."""
    out = [el.text or ""]
    for child in el:
        if child.tag == _q("text:s"):
            out.append(" " * max(1, min(int(child.get(_q("text:c")) or 1), 1000)))
        elif child.tag in _BREAKS:
            out.append(_BREAKS[child.tag])
        elif child.tag not in _SKIP:
            out.append(_inline(child))
        out.append(child.tail or "")
    return "".join(out)


def _line(text: str) -> str:
    return "\n".join(" ".join(part.split()) for part in text.split("\n")).strip()


def paragraph(el: ET.Element) -> str:
    """The text of the paragraph or heading ``el``, runs of white space one space (line
    breaks kept)."""
    return _line(_inline(el))


def _cells(row: ET.Element) -> list[str]:
    return [" ".join(_line(_inline(p)) for p in _items(cell, (_P, _H)))
            for cell in row if cell.tag == _CELL]


def _items(el: ET.Element, kinds: tuple[str, ...] = (_P, _H, _TABLE)) -> Iterator[ET.Element]:
    """The elements of ``kinds`` (paragraphs, headings, tables) under ``el`` in order, none
    inside another (nor inside a note, a frame ...: :data:`_SKIP`)."""
    for child in el:
        if child.tag in _SKIP:
            continue
        if child.tag in kinds:
            yield child
        else:  # lists, list items, sections, a table's rows, a cell ...
            yield from _items(child, kinds)


def _block(item: ET.Element) -> tuple[str, str]:
    """(the kind, text) of a paragraph (``p``), heading (``h1``, ``h2`` ...) or table
    (``table``)."""
    if item.tag == _TABLE:
        return "table", table_text(_cells(r) for r in item.iter(_ROW))
    if item.tag == _H:
        return f"h{item.get(_q('text:outline-level')) or '1'}", _line(_inline(item))
    return "p", _line(_inline(item))


def odf_blocks(el: ET.Element) -> Iterator[tuple[str, str]]:
    """(the kind, text) of each paragraph, heading and table under ``el``, in order."""
    return map(_block, _items(el))


class _Notes:
    """What follows a text document's paragraph, heading or table (:meth:`after`): the
    text boxes and shapes holding text anchored in it, then the footnotes and endnotes it
    refers to, each numbered
    in order (:class:`~.notes.NoteNumbers`), as :mod:`.wordnotes` shows a ``.docx`` file's."""

    def __init__(self) -> None:
        self._numbers = NoteNumbers()

    def after(self, item: ET.Element) -> list[str]:
        out = [t for box in item.iter() if box.tag in _BOXES and not hidden_shape(box)
               for _, t in odf_blocks(box) if t]
        for note in item.iter(_q("text:note")):
            kind = "endnote" if note.get(_q("text:note-class")) == "endnote" else "footnote"
            body = note.find("text:note-body", _NS)
            text = "\n".join(t for _, t in odf_blocks(body)) if body is not None else ""
            if shown := self._numbers.shown(kind, text):
                out.append(shown)
        return out


#: the fields whose text is the page's own: its number, the count of pages, the heading it
#: is under (``text:chapter``)
PAGE_NUMBERS = frozenset(map(_q, ("text:page-number", "text:page-count", "text:chapter")))
#: the headers and footers of a page style, in the order shown (first page, others, even)
_FURNITURE = {kind: tuple(map(_q, (f"style:{kind}-first", f"style:{kind}",
                                    f"style:{kind}-left"))) for kind in ("header", "footer")}


def _remove(el: ET.Element, gone: Callable[[ET.Element], bool]) -> ET.Element:
    """``el`` without the elements under it that are ``gone`` (their text gone, what
    follows them kept)."""
    for parent in list(el.iter()):
        before: ET.Element | None = None  # the child kept last
        for child in list(parent):
            if not gone(child):
                before = child
                continue
            if before is None:
                parent.text = (parent.text or "") + (child.tail or "")
            else:
                before.tail = (before.tail or "") + (child.tail or "")
            parent.remove(child)
    return el


def without_fields(el: ET.Element, fields: frozenset[str] = PAGE_NUMBERS) -> ET.Element:
    """A copy of ``el`` without its ``fields`` (page numbers: their text gone, what follows
    kept)."""
    return _remove(deepcopy(el), lambda child: child.tag in fields)


def _roots(content: ET.Element, styles: ET.Element | None) -> list[ET.Element]:
    """The parts of a text document that hold styles: ``content.xml`` (its automatic
    styles) and ``styles.xml`` when it has one."""
    return [content, *([styles] if styles is not None else [])]


def _without_hidden(content: ET.Element, styles: ET.Element | None) -> ET.Element:
    """``content`` (a text document's, read here) without its hidden text: spans and
    paragraphs whose style hides them (``text:display="none"``: Word's hidden text), and
    conditional hidden text and paragraphs whose condition holds (``text:hidden-text``; a
    paragraph holding a ``text:hidden-paragraph``; ``text:is-hidden="true"``)."""
    hidden = {name for root in _roots(content, styles) for name in hiding_styles(
        root, "style:text-properties", "text:display", "none")}
    marked = {id(el) for tag in _HIDDEN_TEXT for el in content.iter(tag)
              if el.get(_q("text:is-hidden")) == "true"}
    if not hidden and not marked:
        return content
    paragraphs = {id(p) for p in content.iter() if p.tag in (_P, _H)
                  and any(id(c) in marked for c in p.iter(_q("text:hidden-paragraph")))}

    def gone(el: ET.Element) -> bool:
        if el.tag == _q("text:hidden-text"):
            return id(el) in marked
        if id(el) in paragraphs:
            return True
        return el.tag in (_P, _H, _SPAN) and el.get(_q("text:style-name")) in hidden

    return _remove(content, gone)


class _PageStyles:
    """The page styles (``style:master-page``) of a text document and the paragraph and
    table styles that start a page with one (``style:master-page-name``)."""

    def __init__(self, content: ET.Element, styles: ET.Element | None) -> None:
        roots = _roots(content, styles)
        self.pages = {p.get(_q("style:name"), ""): p for root in roots
                      for p in root.iter(_q("style:master-page"))}
        self.starts = {s.get(_q("style:name"), ""): name for root in roots
                       for s in root.iter(_q("style:style"))
                       if (name := s.get(_q("style:master-page-name")))}

    def started(self, item: ET.Element) -> str | None:
        """The page style the paragraph, heading or table ``item`` starts, if any."""
        style = item.get(_q("text:style-name")) or item.get(_q("table:style-name"))
        name = self.starts.get(style or "")
        return name if name in self.pages else None

    def texts(self, name: str, kind: str) -> list[str]:
        """The ``kind`` (``header``, ``footer``) texts of the page style ``name`` and those
        it is followed by (``style:next-style-name``: a first page's style, then the
        others'), the hidden ones (``style:display="false"``) left out."""
        out: list[str] = []
        seen: set[str] = set()
        while name in self.pages and name not in seen:
            seen.add(name)
            page = self.pages[name]
            for tag in _FURNITURE[kind]:
                found = page.find(tag)
                if found is not None and found.get(_q("style:display")) != "false":
                    out.append("\n".join(t for _, t in odf_blocks(without_fields(found))))
            name = page.get(_q("style:next-style-name")) or ""
        return out

    def furniture(self, items: list[ET.Element]) -> tuple[Furniture, set[int]]:
        """The headers and footers of the body's ``items`` (:class:`~.furniture.Furniture`),
        and the items (indexes, past the first) that start a section."""
        started = [(i, name) for i, item in enumerate(items)
                   if (name := self.started(item)) is not None]
        if not started or started[0][0] != 0:  # the first page's style: the default
            first = "Standard" if "Standard" in self.pages else next(iter(self.pages), "")
            started.insert(0, (0, first))
        return (Furniture([(self.texts(name, "header"), self.texts(name, "footer"))
                           for _, name in started]), {i for i, _ in started[1:]})


def opened(zf: zipfile.ZipFile, path: Path) -> str:
    """The ``dc:title`` of the OpenDocument package ``zf`` (``path``) or ``""``, once it is
    known to be one that can be read: a :class:`LoaderError` for one saved with a password or
    without ``content.xml``."""
    names = set(zf.namelist())
    if "META-INF/manifest.xml" in names and b"encryption-data" in zf.read(
            "META-INF/manifest.xml"):
        raise LoaderError(f"{printable(str(path))}: an OpenDocument file saved with a "
                          "password; save a copy without one and index it")
    if "content.xml" not in names:
        raise LoaderError(f"{printable(str(path))}: not an OpenDocument file (no "
                          "content.xml)")
    if "meta.xml" not in names:
        return ""
    found = package_xml(zf, "meta.xml", path).find(".//dc:title", _NS)
    return " ".join((found.text or "").split()) if found is not None else ""


def odf_parts(path: Path, styles: bool = False) -> tuple[ET.Element, str, ET.Element | None]:
    """(the root of ``content.xml``, the ``dc:title`` of ``meta.xml`` or ``""``, the root
    of ``styles.xml`` when ``styles`` asks for it and the file has one)."""
    check_package(path, "an OpenDocument file")
    with zipfile.ZipFile(path) as zf:
        title = opened(zf, path)
        content = package_xml(zf, "content.xml", path)
        found = package_xml(zf, "styles.xml", path) \
            if styles and "styles.xml" in zf.namelist() else None
    return content, title, found


def odt_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the OpenDocument text file ``path`` (see the module's docs)."""
    with foreign_file(path, "an OpenDocument text file"):
        content, title, styles = odf_parts(path, styles=True)
        content = _without_hidden(content, styles)
        body = content.find("office:body/office:text", _NS)
        items = list(_items(body if body is not None else content))
        pages, starts = _PageStyles(content, styles).furniture(items)
        notes = _Notes()
        section = 0
        blocks = [("", b) for b in pages.headers(section)]
        for i, item in enumerate(items):
            if i in starts:
                blocks += [("", b) for b in pages.footers(section) + pages.headers(section + 1)]
                section += 1
            blocks += [_block(item), *(("", n) for n in notes.after(item))]
        blocks = [(k, t) for k, t in blocks + [("", b) for b in pages.rest(section)] if t]
    title = title or next((" ".join(t.split()) for k, t in blocks if k == "h1"), path.stem)
    return Document(id=path_id(path, id_from_path, root), title=cut_title(title),
                    text="\n\n".join(text for _, text in blocks),
                    metadata={"source": str(path)})


def hiding_style(style: ET.Element, properties: str, attr: str, value: str) -> str | None:
    """The name of the automatic style ``style`` (a ``style:style``) when its ``properties``
    set ``attr`` to ``value`` — a style that hides a slide (``presentation:visibility=
    "hidden"``) or a sheet (``table:display="false"``) — else None."""
    if any(p.get(_q(attr)) == value for p in style.iter(_q(properties))):
        return style.get(_q("style:name"), "")
    return None


def hiding_styles(content: ET.Element, properties: str, attr: str, value: str) -> set[str]:
    """The names of the styles under ``content`` (a part's root) that hide
    (:func:`hiding_style`)."""
    return {name for s in content.iter(_q("style:style"))
            if (name := hiding_style(s, properties, attr, value)) is not None}
