"""Reading PowerPoint decks (``.pptx``) as documents: their slides' text, with the ``pptx``
extra (`python-pptx <https://pypi.org/project/python-pptx/>`_).

One document per file, its id and ``source`` as a PDF's (:mod:`.pdfs`): the id keeps the
suffix (``deck.pptx``), and each slide is a page (:mod:`.pages`), so each chunk is told the
slides it spans (``metadata["page"]``, ``metadata["page_end"]``, counted from 1). A slide's
text is its title, then its other shapes' text in the deck's order (text boxes and
placeholders a paragraph each, its lines kept; a table's rows a line each with their cells
joined by `` | ``, as in :mod:`.htmlpages`; grouped shapes in their group's order), then its
speaker notes. A chart gives its title and its data as a table (:mod:`.charts`), a SmartArt
graphic its nodes' text a line each (:mod:`.diagrams`), an embedded Excel workbook its active
sheet's rows (:mod:`.embedded`), a shape kept in
``mc:AlternateContent`` (an equation's text box) its first choice's text, an equation's
characters in place; pictures and media give no text, nor does a shape hidden on the slide
(the selection pane's ``hidden``). A slide's footer and date are shown
on the first slide they are on, not again, without their slide number and date fields
(which show the day a deck is opened), and its slide number not at all. A
hidden slide (not shown in the slide show) gives none either, and keeps its number, so page
numbers are slide numbers. The title is the file's own (its core properties' ``title``),
else the first slide title, else the file's stem.

A file python-pptx cannot read (a ``.ppt`` deck or one saved with a password never reaches
this reader: :mod:`.officekinds` hands it to :mod:`.pptfiles`) and a ``.pptx`` whose parts
would unpack to more than :data:`~.zipped.MAX_UNPACKED` bytes are each a
:class:`~.errors.LoaderError` naming the file; so is one read without the extra, and a
folder walk without it leaves ``.pptx`` files out, listed with the command that installs it.
A macro-enabled deck (``.pptm``), a template (``.potx``, ``.potm``) or a slide show
(``.ppsx``, ``.ppsm``) reads as a ``.pptx`` (:func:`~.zipped.plain_package`): its macros are
never read. Nothing in the file is run and nothing is fetched.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from ..types import Document
from .charts import chart_text
from .diagrams import diagram_texts
from .embedded import object_texts
from .furniture import Once
from .guards import printable
from .pages import paged_document
from .suffixes import reader_module
from .tables import table_text
from .textfiles import path_id
from .titles import cut_title
from .zipped import plain_package, reading_package

__all__ = ["slides_document"]

_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_MATH = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
#: the placeholders of a slide's footer, date and number (``p:ph`` types)
_FURNITURE = frozenset({"ftr", "dt", "sldNum"})
#: the fields (``a:fld`` types) that show the slide's number or today's date
_SHOWING_DATE_OR_NUMBER = ("slidenum", "datetime")


def _paragraph(p: Any, furniture: bool = False) -> str:
    """A paragraph's text, an equation's characters in their place (python-pptx's text
    leaves out what PowerPoint keeps in ``mc:AlternateContent``: an equation); in a
    footer or date (``furniture``), without its slide number and date fields."""
    if not furniture and p._p.find(f"{_MC}AlternateContent") is None:
        return str(p.text)
    parts: list[str] = []
    for child in p._p.iterchildren():
        if child.tag == f"{_MC}AlternateContent":
            choice = child.find(f"{_MC}Choice")
            if choice is not None:
                parts += (t.text or "" for t in choice.iter(f"{_MATH}t", f"{_A}t"))
        elif child.tag == f"{_A}fld" and furniture and (
                child.get("type") or "").startswith(_SHOWING_DATE_OR_NUMBER):
            continue
        elif child.tag in (f"{_A}r", f"{_A}fld"):
            parts += (t.text or "" for t in child.iter(f"{_A}t"))
        elif child.tag == f"{_A}br":
            parts.append("\n")
    return "".join(parts)


def _frame(frame: Any, furniture: bool = False) -> str:
    lines = (" ".join(_paragraph(p, furniture).split()) for p in frame.paragraphs)
    return "\n".join(line for line in lines if line)


def _furniture(shape: Any) -> str | None:
    """The text of a footer, date or slide number placeholder without its slide number
    and date fields (``""`` for a slide number's); None for another shape."""
    ph = getattr(shape._element, "ph", None)
    if ph is None or ph.get("type") not in _FURNITURE:
        return None
    has_text = ph.get("type") != "sldNum" and getattr(shape, "has_text_frame", False)
    return _frame(shape.text_frame, furniture=True) if has_text else ""


def _hidden(elm: Any) -> bool:
    """Whether a shape is hidden (its ``cNvPr``'s ``hidden``: PowerPoint's selection pane
    hides it from the slide and the show)."""
    props = next((c for c in elm.iterchildren() if str(c.tag).endswith("Pr")), None)
    names = props.find(f"{_P}cNvPr") if props is not None else None
    return names is not None and names.get("hidden") in ("1", "true")


def _members(shapes: Any) -> Iterator[Any]:
    """The shapes of a slide or group in order, python-pptx's, but for hidden ones; and a
    shape PowerPoint keeps in ``mc:AlternateContent`` (with an equation, say), which
    python-pptx skips, read from its first choice (the copy for older readers,
    ``mc:Fallback``, left out)."""
    tree = shapes._spTree
    tags = tree._shape_tags
    for elm in tree.iterchildren():
        if elm.tag in tags:
            if not _hidden(elm):
                yield shapes._shape_factory(elm)
        elif elm.tag == f"{_MC}AlternateContent" and (
                choice := elm.find(f"{_MC}Choice")) is not None:
            yield from (shapes._shape_factory(e) for e in choice
                        if e.tag in tags and not _hidden(e))


def _texts(shapes: Iterable[Any], source: str) -> Iterator[str]:
    """The text of each of ``shapes`` in order, a group's members in its place (``source``:
    the deck's path, as a warning names it)."""
    for shape in shapes:
        if hasattr(shape, "shapes"):  # a group
            yield from _texts(_members(shape.shapes), source)
        elif getattr(shape, "has_chart", False):
            yield chart_text(shape.chart)
        elif getattr(shape, "has_table", False):
            yield table_text((cell.text for cell in row.cells) for row in shape.table.rows)
        elif getattr(shape, "has_text_frame", False):
            yield _frame(shape.text_frame)
        else:  # SmartArt gives its nodes' text, a workbook its rows; a picture, nothing
            from pptx.oxml import parse_xml

            yield from diagram_texts(shape._element, shape.part.related_part, parse_xml)
            yield from object_texts(shape._element, shape.part.related_part, source)


def _slide_text(slide: Any, once: Once, source: str) -> tuple[str, str]:
    """(the slide's title, its whole text: see the module's docs); ``("", "")`` when it is
    hidden. ``once``: the footers and dates, each shown on the first slide it is on."""
    if slide._element.get("show") in ("0", "false"):
        return "", ""
    title = slide.shapes.title
    heading = _frame(title.text_frame) if title is not None and not _hidden(title._element) \
        else ""
    parts = [heading]
    for shape in _members(slide.shapes):
        if title is not None and shape.shape_id == title.shape_id:
            continue
        furniture = _furniture(shape)
        parts += _texts([shape], source) if furniture is None else once(furniture)
    if slide.has_notes_slide and slide.notes_slide.notes_text_frame is not None:
        parts.append(_frame(slide.notes_slide.notes_text_frame))
    return " ".join(heading.split()), "\n\n".join(p for p in parts if p)


def slides_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the PowerPoint deck ``path`` (see the module's docs)."""
    pptx = reader_module(path, ".pptx")
    with reading_package(path, "a PowerPoint deck python-pptx can read"):
        deck = pptx.Presentation(plain_package(path))
        once = Once()
        slides = [_slide_text(slide, once, printable(str(path))) for slide in deck.slides]
        title = deck.core_properties.title or ""
    title = " ".join(title.split()) or next((t for t, _ in slides if t), path.stem)
    return paged_document(path, path_id(path, id_from_path, root), cut_title(title),
                          [text for _, text in slides])
