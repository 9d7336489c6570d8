"""Reading HTML files (``.html``, ``.htm``, ``.xhtml``) as documents: the text a reader of
the page sees, without its markup.

One document per file, as a text file (:mod:`.textfiles`): its id is its path relative to
the folder given, with the suffix (``guide/index.html``, where ``guide/index.md`` is
``guide/index``: :func:`~.suffixes.keeps_suffix`), its metadata ``{"source": path}``. It
is titled by the page's ``<title>``, else its first ``<h1>``, else the file's stem. Its
text is the page's text with character references decoded (``&amp;`` is ``&``); headings,
paragraphs and the other block elements are paragraphs (a blank line between them), list
items, table rows and ``<br>`` start a line, table cells are joined by `` | ``, ``<pre>``
keeps its spacing and other runs of white space read as one space. Left out: what a browser
does not show as text (``<script>``, ``<style>``, ``<template>``, ``<noscript>``,
``<svg>``, ``<math>``, ``<canvas>``, ``<iframe>``, ``<object>``, ``<select>``,
``<textarea>``, elements with the ``hidden`` attribute or an inline ``display: none`` /
``visibility: hidden``), the ``<head>`` but its title, and ``<nav>`` (a site's menus: on
every page, about none of them). A page with main content (a ``<main>`` element, or
``role="main"``, that has text) is read as that alone: the site's header, footer and
sidebars around it are left out; a page without one is read whole.

Bytes are decoded as UTF-8 (a byte-order mark dropped) unless the first 1,024 bytes declare
another charset (``<meta charset="windows-1252">`` or the ``http-equiv`` form), as
browsers read a saved page; ``iso-8859-1`` and ``ascii`` read as ``windows-1252``, as
browsers read them. Bytes that are not text in that charset are a
:class:`~.errors.LoaderError` naming the file, the byte and the charset. Markup that is not
well formed (unclosed elements, stray end tags) is read as a browser would, near enough;
it never fails a load. The page is only read, never run or fetched from: its scripts are
dropped, its links are not followed.

Example:
    >>> title, text = page_text(
    ...     "<html><head><title>Curie &amp; radium</title><style>p {}</style></head>"
    ...     "<body><nav>Home | About</nav><h1>Marie Curie</h1><p>Born in <b>Warsaw</b>."
    ...     "<p>Nobel Prize<br>1903</body></html>")
    >>> title
    'Curie & radium'
    >>> print(text)
    Marie Curie
    <BLANKLINE>
    Born in Warsaw.
    <BLANKLINE>
    Nobel Prize
    1903
"""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser
from pathlib import Path

from ..types import Document
from .errors import LoaderError
from .guards import printable
from .legacy import declared_codec
from .parts import line_ends
from .textfiles import check_not_binary, path_id, unreadable, utf8_text
from .titles import cut_title
from .widetext import text_codec

__all__ = ["html_document", "page_charset", "page_text"]

#: elements whose content is not shown as the page's text
_HIDDEN = frozenset({"script", "style", "template", "noscript", "svg", "math", "canvas",
                     "iframe", "object", "select", "textarea", "nav", "title"})
#: elements without content (no end tag)
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "param", "source", "track", "wbr"})
#: elements that are paragraphs of their own
_BLOCKS = frozenset({"address", "article", "aside", "blockquote", "caption", "details", "div",
                     "dl", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2",
                     "h3", "h4", "h5", "h6", "header", "hr", "legend", "main", "ol", "p",
                     "pre", "section", "summary", "table", "ul", "body"})
#: elements that start a line
_LINES = frozenset({"li", "dt", "dd", "tr", "br", "option"})
#: an element that closes an open one of these when it starts (its end tag may be left out)
_CLOSES = {"p": {"p"}, "li": {"li"}, "dt": {"dt", "dd"}, "dd": {"dt", "dd"},
           "tr": {"tr", "td", "th"}, "td": {"td", "th"}, "th": {"td", "th"},
           "option": {"option"}, "body": {"head"}}
#: how deep an end tag looks for its element among the open ones (a stray one is ignored)
_REACH = 64
_PARAGRAPH, _LINE = 2, 1


class _PageReader(HTMLParser):
    """The text and title of one page (:func:`page_text`)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.out: list[str | int] = []  # text, and breaks (_LINE, _PARAGRAPH)
        self.main_out: list[str | int] = []  # the same, within the page's main content
        self.main = 0  # open <main> (or role=main) elements
        self.open: list[tuple[str, bool, bool]] = []  # open: (tag, hides, is main content)
        self.hidden = 0  # open elements that hide their content
        self.pre = 0  # open <pre> elements: their spacing is kept
        self.title: list[str] | None = None  # the <title> being read
        self.titles: dict[str, str] = {}  # "title", "h1": the first of each
        self.h1: list[str] | None = None
        self.cell = False  # a cell of this row was read: the next one is joined by " | "

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        closes = _CLOSES.get(tag, ())
        while self.open and self.open[-1][0] in closes:
            self.handle_endtag(self.open[-1][0])
        self._break(tag)
        if tag in ("td", "th"):
            if self.cell and not self.hidden:
                self._add(" | ")
            self.cell = True
        elif tag == "tr":
            self.cell = False
        if tag in _VOID:
            return
        if tag == "title" and "title" not in self.titles and not self.hidden:
            self.title = []
        elif tag == "h1" and "h1" not in self.titles and not self.hidden:
            self.h1 = []
        hides = tag in _HIDDEN or any(_hides(name, value) for name, value in attrs)
        main = tag == "main" or ("role", "main") in attrs
        self.open.append((tag, hides, main))
        self.hidden += hides
        self.main += main
        self.pre += tag == "pre"

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._break(tag)  # <br/>, <p/>: nothing opens

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        """A marked section (``<![CDATA[...]]>``, Word's ``<![if ...]>``) as Python's parser
        reads it; one it fails on (``<![ x``, ``<![foo[``: an ``AssertionError`` inside
        ``html.parser``) as browsers read such markup in HTML: a comment up to the first
        ``>`` (one with no ``>``: to the end)."""
        try:
            return super().parse_marked_section(i, report)
        except AssertionError:
            end = self.rawdata.find(">", i + 3)
            return end + 1 if end >= 0 else len(self.rawdata)

    def handle_endtag(self, tag: str) -> None:
        depth = len(self.open)
        for i in range(depth - 1, max(depth - _REACH, 0) - 1, -1):
            if self.open[i][0] == tag:
                for name, hides, main in reversed(self.open[i:]):
                    self._close(name, hides)
                    self.main -= main
                del self.open[i:]
                break

    def _close(self, tag: str, hides: bool) -> None:
        self.hidden -= hides
        self.pre -= tag == "pre"
        if tag == "title" and self.title is not None:
            self.titles["title"] = _one_line("".join(self.title))
            self.title = None
        elif tag == "h1" and self.h1 is not None:
            self.titles["h1"] = _one_line("".join(self.h1))
            self.h1 = None
        self._break(tag)

    def _break(self, tag: str) -> None:
        if tag in _BLOCKS:
            self._add(_PARAGRAPH)
        elif tag in _LINES:
            self._add(_LINE)

    def _add(self, part: str | int) -> None:
        self.out.append(part)
        if self.main:
            self.main_out.append(part)

    def handle_data(self, data: str) -> None:
        if self.title is not None:
            self.title.append(data)
            return
        if self.hidden:
            return
        if self.h1 is not None:
            self.h1.append(data)
        if not self.pre:
            data = _SPACES.sub(" ", data)
            last = self.out[-1] if self.out else ""
            if data.startswith(" ") and isinstance(last, str) and last.endswith(" "):
                data = data[1:]  # "a <b> b</b>": one space
        self._add(data)

    def text(self) -> str:
        """The text read (only the main content's when it has any), its breaks as newlines:
        spaces at either side of a break dropped, the widest of adjacent breaks kept, none
        at the start or the end."""
        main = any(isinstance(p, str) and p.strip() for p in self.main_out)
        lines: list[str] = []
        gap = 0
        line: list[str] = []
        for part in [*(self.main_out if main else self.out), _PARAGRAPH]:
            if isinstance(part, str):
                line.append(part)
                continue
            body = "".join(line).strip(" \t\r\n")
            line = []
            if body:
                if lines:
                    lines.append("\n" * gap)
                lines.append(body)
                gap = part
            else:
                gap = max(gap, part)
        return "".join(lines)


_SPACES = re.compile(r"[ \t\n\r\f]+")
#: an inline style that hides the element
_HIDING_STYLE = re.compile(r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*"
                           r"(?:!important\s*)?(?:;|$)", re.I)


def _hides(name: str, value: str | None) -> bool:
    """Whether the attribute ``name="value"`` hides its element: ``hidden``, or an inline
    style ``display: none`` / ``visibility: hidden`` (``aria-hidden`` does not: a screen
    reader skips such an element, a reader of the page sees it).

    >>> _hides("hidden", None), _hides("style", "color: red; display:none"), _hides("id", "x")
    (True, True, False)
    """
    if name == "hidden":
        return True
    return name == "style" and value is not None and _HIDING_STYLE.search(value) is not None


def _one_line(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def page_text(markup: str) -> tuple[str, str]:
    """(title, text) of an HTML page: its ``<title>``, else its first ``<h1>`` (``""`` when
    it has neither), and its text as a reader sees it (see the module's docs)."""
    reader = _PageReader()
    reader.feed(markup)
    reader.close()
    if reader.title is not None:  # a <title> never closed
        reader.titles.setdefault("title", _one_line("".join(reader.title)))
    title = reader.titles.get("title") or reader.titles.get("h1", "")
    return title, reader.text()


#: a charset declared by a ``<meta>`` element (``charset=``, or ``http-equiv``'s content)
_META_CHARSET = re.compile(rb"<meta[^>]*?charset\s*=\s*[\"']?\s*([A-Za-z0-9_.:-]+)", re.I)
#: labels browsers read as another encoding (WHATWG Encoding)
_AS = {"iso-8859-1": "cp1252", "latin1": "cp1252", "latin-1": "cp1252", "ascii": "cp1252",
       "us-ascii": "cp1252", "iso8859-1": "cp1252", "utf-16": "utf-8", "utf-16le": "utf-8",
       "utf-16be": "utf-8"}


def page_charset(head: bytes) -> str | None:
    """The charset the first 1,024 bytes of a page declare (a Python codec name), or None
    (none, or one Python does not know: read as UTF-8).

    >>> page_charset(b'<meta charset="Windows-1252">'), page_charset(b"<p>hi</p>")
    ('cp1252', None)
    >>> page_charset(b'<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">')
    'cp1252'
    """
    if head.startswith(codecs.BOM_UTF8):
        return None
    found = _META_CHARSET.search(head[:1024])
    if found is None:
        return None
    label = found.group(1).decode("ascii").lower()
    name = declared_codec(_AS.get(label, label))  # (not base64, rot13, unicode_escape ...)
    return None if name == "utf-8" else name


def _decoded(path: Path, encoding: str | None = None) -> str:
    """The text of the page at ``path``, decoded by its declared charset, else UTF-8 (what
    is not UTF-8 in ``encoding``, when given), its line ends ``\\n`` either way (as HTML's
    input stream preprocessing reads them)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise unreadable(path, exc) from exc
    charset = page_charset(data)
    # a UTF-16/32 page (utf8_text reads it) has no <meta> charset; tested only when one is
    # declared, as utf8_text tests it again
    if charset is None or text_codec(data, encoding) is not None:
        return utf8_text(path, data, encoding)
    try:
        return line_ends(data.decode(charset))
    except UnicodeDecodeError as exc:
        raise LoaderError(f"{printable(str(path))}: not {charset} text at byte {exc.start} "
                          f"({exc.reason}), the charset its <meta> declares") from None


def html_document(path: Path, id_from_path: bool, root: Path | None = None, *,
                  encoding: str | None = None) -> Document:
    """The document of the HTML file ``path`` (see the module's docs); a binary file, or
    UTF-16 text without a byte-order mark, is a :class:`~.errors.LoaderError` as for a text
    file (with the mark, UTF-16 and UTF-32 are read as such). ``encoding``:
    what a page that declares no charset and is not UTF-8 is read in (:mod:`.legacy`;
    ``"auto"`` also reads UTF-16 without a mark, as for a text file)."""
    check_not_binary(path, encoding)
    title, text = page_text(_decoded(path, encoding))
    return Document(id=path_id(path, id_from_path, root), title=cut_title(title or path.stem),
                    text=text, metadata={"source": str(path)})
