"""The headers and footers of a Word document (``.docx``), as :class:`~.furniture.Furniture`.

Each section of the body (its properties, ``w:sectPr``: in the paragraph that ends it, the
last one in the body) names its headers and footers by kind: the first page's (shown when
the section has a title page, ``w:titlePg``), the other pages' (``default``) and the even
pages' (shown when the settings ask for odd and even pages to differ). A kind a section
does not name is its previous section's, already shown. A header's text is read as a
note's (:func:`~.wordnotes.story_text`: paragraphs, tables' rows, text boxes, and since stop
60 imported chunks, SmartArt graphics and embedded workbooks, as the body's), its page
numbers left out: the results of the ``PAGE``, ``NUMPAGES`` and ``SECTIONPAGES`` fields
(and the others of :data:`~.furniture.PAGE_FIELDS`: ``STYLEREF``, the heading a page is
under), simple (``w:fldSimple``) or not (``w:fldChar``). A part a reference names that is missing
gives no text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .furniture import Furniture, is_page_field
from .wordnotes import Story, story_text
from .wordtext import W, block_items, is_on

__all__ = ["ends_section", "section_ends", "word_furniture"]

_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"


def _drop_page_fields(root: Any) -> None:
    """Remove from ``root`` (a header's own copy) the results of its page-number fields."""
    for simple in list(root.iter(f"{W}fldSimple")):
        if is_page_field(simple.get(f"{W}instr", "")):
            simple.getparent().remove(simple)
    fields: list[list[Any]] = []  # per open field: [its code, whether its result is read]
    dropped = []
    for run in root.iter(f"{W}r"):
        for child in run:
            kind = child.get(f"{W}fldCharType") if child.tag == f"{W}fldChar" else None
            if kind == "begin":
                fields.append(["", False])
            elif kind == "separate" and fields:
                fields[-1][1] = True
            elif kind == "end" and fields:
                fields.pop()
            elif child.tag == f"{W}instrText" and fields and not fields[-1][1]:
                fields[-1][0] += child.text or ""
        if any(result and is_page_field(code) for code, result in fields):
            dropped.append(run)
    for run in dropped:
        run.getparent().remove(run)


def ends_section(item: Any) -> Any | None:
    """The section properties of the body's paragraph ``item`` when it ends a section (a
    table never does), else None."""
    return item.find(f"{W}pPr/{W}sectPr") if item.tag == f"{W}p" else None


def section_ends(body: Any) -> list[Any]:
    """The sections' properties of ``body`` (a ``w:body``) in order: each in the paragraph
    that ends its section (:func:`ends_section`), the last the body's own."""
    ends = [sect for item in block_items(body) if (sect := ends_section(item)) is not None]
    last = body.find(f"{W}sectPr")
    return [*ends, *([last] if last is not None else [])]


def word_furniture(document: Any, source: str = "",
                   read_chunk: Callable[[Any, Any], str] | None = None) -> Furniture:
    """The headers and footers of the python-docx ``document``, section by section; their
    imported chunks read by ``read_chunk``, their SmartArt graphics and embedded workbooks
    as the body's (:class:`~.wordnotes.Story`)."""
    from docx.oxml.parser import parse_xml

    parts: dict[str, Any] = document.part.related_parts  # internal relationships only
    even = bool(document.settings.odd_and_even_pages_header_footer)

    def texts(sect: Any, name: str) -> list[str]:
        """The texts of the ``name`` parts (headers, footers) the section shows, in order."""
        kinds = [k for k, shown in (("first", is_on(sect.find(f"{W}titlePg"))),
                                    ("default", True), ("even", even)) if shown]
        out = []
        for kind in kinds:
            for ref in sect.iterchildren(f"{W}{name}Reference"):
                part = parts.get(ref.get(f"{_R}id", ""))
                if ref.get(f"{W}type", "default") == kind and part is not None:
                    root = parse_xml(part.blob)  # its own copy: page numbers are removed
                    _drop_page_fields(root)
                    out.append(story_text(root, Story(part, source, read_chunk)))
        return out

    return Furniture([(texts(sect, "header"), texts(sect, "footer"))
                      for sect in section_ends(document._body._element)])
