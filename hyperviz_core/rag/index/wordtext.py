"""The text of a Word document's (``.docx``) paragraphs and cells, read from their XML as Word
shows it, where python-docx reads only the runs directly in a paragraph.

A paragraph's text (:func:`paragraph_text`) is the text of its runs in order, the runs in
content controls (``w:sdt``), tracked insertions (``w:ins``), moved text (``w:moveTo``),
simple fields, hyperlinks and smart tags included, and an equation's characters in order
(Office Math: ``E=mc2``, its layout not kept); tracked deletions (``w:del``,
``w:moveFrom``), the copy written for older readers (``mc:Fallback``), a content control's
placeholder prompt ("Click or tap here to enter text.") and text formatted hidden
(``w:vanish``: a template's instructions, which Word neither shows nor prints) left out.
The body's paragraphs and tables (:func:`block_items`) are those in block-level content
controls too (a cover page, a template's fields), but for a table of contents Word
generated, which repeats the headings. A table's rows and a row's cells in content controls
(a repeating section's rows) are its own (:func:`rows`, :func:`cells`, :func:`plain_table`).
A cell's text (:func:`cell_text`) is its paragraphs and nested tables joined by spaces.

Example:
    >>> from docx.oxml.parser import parse_xml
    >>> p = parse_xml('<w:p xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/'
    ...     'main"><w:r><w:t>Name: </w:t></w:r><w:sdt><w:sdtContent><w:r><w:t>Ada</w:t>'
    ...     '</w:r></w:sdtContent></w:sdt><w:del><w:r><w:delText>Bo</w:delText></w:r></w:del>'
    ...     '<w:ins><w:r><w:t> Lovelace</w:t></w:r></w:ins></w:p>')
    >>> paragraph_text(p)
    'Name: Ada Lovelace'
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from copy import deepcopy
from typing import Any

__all__ = ["HIDDEN", "W", "block_items", "cell_text", "cells", "is_on", "paragraph_text",
           "plain_table", "rows"]

#: the WordprocessingML namespace, as ElementTree and lxml spell a tag's
W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_FALLBACK = "{http://schemas.openxmlformats.org/markup-compatibility/2006}Fallback"
#: what Word does not show: tracked deletions and the copy written for older readers
HIDDEN = frozenset({f"{W}del", f"{W}moveFrom", _FALLBACK})
#: what a paragraph holds that Word does not show as its text
_NOT_SHOWN = HIDDEN | {f"{W}pPr", f"{W}rPr", f"{W}sdtPr"}
_TOC = "Table of Contents"
_M = "{http://schemas.openxmlformats.org/officeDocument/2006/math}"
#: an equation in a paragraph (Office Math), alone or in a paragraph of equations
_MATH = frozenset({f"{_M}oMath", f"{_M}oMathPara"})


def _content(sdt: Any) -> Any | None:
    """A content control's content, or None when it shows its placeholder prompt."""
    props = sdt.find(f"{W}sdtPr")
    if props is not None and props.find(f"{W}showingPlcHdr") is not None:
        return None
    return sdt.find(f"{W}sdtContent")


def _is_toc(sdt: Any) -> bool:
    gallery = sdt.find(f"{W}sdtPr/{W}docPartObj/{W}docPartGallery")
    return gallery is not None and gallery.get(f"{W}val") == _TOC


def is_on(flag: Any) -> bool:
    """Whether the on/off property ``flag`` (``<w:vanish/>``, ``<w:titlePg w:val="0"/>``;
    None: not there) is there and on."""
    return flag is not None and flag.get(f"{W}val", "1") not in ("0", "false", "off")


def _hidden(run: Any) -> bool:
    """Whether the run is formatted hidden (``w:vanish``, ``w:specVanish``): Word neither
    shows nor prints it."""
    props = run.find(f"{W}rPr")
    return props is not None and any(
        is_on(props.find(flag)) for flag in (f"{W}vanish", f"{W}specVanish"))


def _runs(el: Any) -> Iterator[str]:
    """The texts of the runs Word shows under ``el``, in order."""
    for child in el:
        tag = child.tag
        if tag == f"{W}r":
            if not _hidden(child):
                yield str(child.text)  # python-docx's run text: w:t, tabs, breaks ...
        elif tag in _MATH:  # an equation: its characters in order (E=mc2)
            yield "".join(t.text or "" for t in child.iter(f"{_M}t"))
        elif tag == f"{W}sdt":
            content = _content(child)
            if content is not None:
                yield from _runs(content)
        elif isinstance(tag, str) and tag not in _NOT_SHOWN:
            yield from _runs(child)  # hyperlinks, insertions, fields, smart tags ...


def paragraph_text(p: Any) -> str:
    """The text Word shows for the paragraph ``p`` (a ``w:p``), stripped."""
    return "".join(_runs(p)).strip()


def block_items(el: Any, chunks: bool = False) -> Iterator[Any]:
    """The paragraphs (``w:p``) and tables (``w:tbl``) in ``el`` (the body, a cell, a
    content control's content), in order, content controls read through; with ``chunks``,
    the imported chunks (``w:altChunk``: :mod:`.wordchunks`) too."""
    kinds = (f"{W}p", f"{W}tbl", f"{W}altChunk") if chunks else (f"{W}p", f"{W}tbl")
    for child in el:
        if child.tag in kinds:
            yield child
        elif child.tag == f"{W}sdt" and not _is_toc(child):
            content = _content(child)
            if content is not None:
                yield from block_items(content, chunks)
        elif child.tag == f"{W}customXml":
            yield from block_items(child, chunks)


def _through(el: Any, tag: str) -> Iterator[Any]:
    """The children of ``el`` of ``tag`` (a table's rows, a row's cells), those in content
    controls (a repeating section's rows) and custom XML read through."""
    for child in el:
        if child.tag == tag:
            yield child
        elif child.tag == f"{W}sdt":
            content = _content(child)
            if content is not None:
                yield from _through(content, tag)
        elif child.tag == f"{W}customXml":
            yield from _through(child, tag)


def rows(tbl: Any) -> Iterator[Any]:
    """The rows (``w:tr``) of the table ``tbl``, those in content controls too."""
    return _through(tbl, f"{W}tr")


def cells(tr: Any) -> Iterator[Any]:
    """The cells (``w:tc``) of the row ``tr``, those in content controls too."""
    return _through(tr, f"{W}tc")


def plain_table(tbl: Any) -> Any:
    """``tbl`` itself, or when a content control (or custom XML) holds some of its rows or
    cells, a copy whose rows and cells are its own, for python-docx's grid (which reads
    only a table's own rows and a row's own cells)."""
    wrappers = (f"{W}sdt", f"{W}customXml")
    if not any(c.tag in wrappers for el in (tbl, *tbl.iterchildren(f"{W}tr")) for c in el):
        return tbl
    out = tbl.makeelement(tbl.tag, tbl.attrib)
    out.extend(deepcopy(c) for c in tbl if c.tag in (f"{W}tblPr", f"{W}tblGrid"))
    for tr in rows(tbl):
        row = tr.makeelement(tr.tag, tr.attrib)
        row.extend(deepcopy(c) for c in tr if c.tag in (f"{W}tblPrEx", f"{W}trPr"))
        row.extend(deepcopy(tc) for tc in cells(tr))
        out.append(row)
    return out


def cell_text(tc: Any, chunk: Callable[[Any], str] | None = None) -> str:
    """The text of a table cell (``w:tc``): its paragraphs and nested tables' cells, joined
    by spaces; with ``chunk``, which reads an imported chunk (``w:altChunk``), its chunks'
    text too."""
    parts: list[str] = []
    for item in block_items(tc, chunks=chunk is not None):
        if item.tag == f"{W}p":
            parts.append(paragraph_text(item))
        elif item.tag == f"{W}altChunk" and chunk is not None:
            parts.append(chunk(item))
        else:
            parts += [cell_text(inner, chunk) for row in rows(item) for inner in cells(row)]
    return " ".join(" ".join(parts).split())
