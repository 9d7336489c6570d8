"""Titles of documents: of text files (front matter, Markdown headings) and of untitled
long documents (inferred from their opening: a title page or heading).

**Text files.** :func:`read_title` titles a ``.txt``/``.md`` file: the ``title`` of its
front matter (:func:`front_matter`), else its first Markdown heading as plain text
(:func:`heading_title`, :func:`plain_heading`), else the file's stem. The front matter is
not part of the document's text (the loader drops it, :mod:`.textfiles`, :mod:`.parts`).

**Inferred titles.** A titled document's chunks carry its title (``metadata["title"]``):
BM25 and the chunk vectors read ``title + newline + text``, so a question that names the
document matches all of its chunks alike. A long document indexed *without* a title — a
book, a report pasted as plain text — loses that: a question such as "in Samuel Pepys's
diary, with whom was my Lord angry?" then matches best the few chunks that happen to print
the name (the title page, a running header, the licence at the end) rather than the passage
about my Lord.

:func:`infer_title` reads the title a title page or heading states in capitals — the first
run of at least three consecutive upper-case words in the document's opening — and
:func:`with_inferred_title` gives it to every chunk of an untitled document of at least
``min_chunks`` chunks (``metadata["title_inferred"] = True`` marks it). Short passages, a
given title (``Document.title`` or ``metadata["title"]``) and an opening without such a run
are left alone.

Example:
    >>> infer_title("Produced by David Widger THE DIARY OF SAMUEL PEPYS M.A. F.R.S. CLERK")
    'THE DIARY OF SAMUEL PEPYS'
    >>> infer_title("[Illustration] TRAVELS IN MOROCCO, BY THE LATE JAMES RICHARDSON, AUTHOR OF")
    'TRAVELS IN MOROCCO, BY THE LATE JAMES RICHARDSON'
    >>> infer_title("If James M. Goodhue could revisit the earth and make a tour")
    ''
"""

from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path
from typing import Any, NamedTuple

from ..types import Chunk, Document

__all__ = ["FRONT_MATTER_CHARS", "INFER_MIN_CHUNKS", "TITLE_LINES", "FrontMatter",
           "front_matter", "heading_title", "infer_title", "plain_heading", "read_title",
           "with_inferred_title"]

#: least chunks of an untitled document for its title to be inferred
INFER_MIN_CHUNKS = 4
#: characters of the opening searched for the title
OPENING = 1000
#: most words of an inferred title
MAX_WORDS = 8
#: least consecutive upper-case words of a title
MIN_WORDS = 3
_TRAILING = ",;:."


def _capital(token: str) -> bool:
    """An upper-case word of two letters or more (apostrophes inside, ``,;:.`` after)."""
    core = token.rstrip(_TRAILING)
    letters = core.replace("'", "").replace("\u2019", "")
    return len(letters) >= 2 and letters.isalpha() and core.isupper()


def infer_title(text: str, *, opening: int = OPENING, max_words: int = MAX_WORDS) -> str:
    """The first run of at least three upper-case words in the first ``opening`` characters
    of ``text``, cut to ``max_words`` words, without trailing punctuation; ``""`` if none.

    >>> infer_title("Contents AN UNSENTIMENTAL JOURNEY THROUGH CORNWALL [Illustration]")
    'AN UNSENTIMENTAL JOURNEY THROUGH CORNWALL'
    >>> infer_title("A NOTE: only two")
    ''
    """
    run: list[str] = []
    for token in text[:opening].split():
        if _capital(token):
            run.append(token)
            continue
        if len(run) >= MIN_WORDS:
            break
        run = []
    if len(run) < MIN_WORDS:
        return ""
    return " ".join(run[:max_words]).rstrip(_TRAILING)


def with_inferred_title(doc: Document, chunks: list[Chunk],
                        min_chunks: int = INFER_MIN_CHUNKS) -> list[Chunk]:
    """``chunks`` of ``doc``, each with ``doc``'s inferred title in its metadata when ``doc``
    has no title and at least ``min_chunks`` chunks (else ``chunks`` unchanged).

    >>> from hyperviz_core.rag.index.chunking import chunk_document
    >>> doc = Document(id="d", text="THE GREAT BOOK OF TESTS. " + "Some prose here. " * 40)
    >>> chunks = with_inferred_title(doc, chunk_document(doc, size=200, overlap=0,
    ...                                                  infer_titles=False))
    >>> chunks[-1].metadata
    {'title': 'THE GREAT BOOK OF TESTS', 'title_inferred': True}
    """
    if doc.title or doc.metadata.get("title") or len(chunks) < min_chunks:
        return chunks
    title = infer_title(doc.text)
    if not title:
        return chunks
    meta = {"title": title, "title_inferred": True}
    return [c.model_copy(update={"metadata": {**c.metadata, **meta}}) for c in chunks]


# ------------------------------------------------------------------ titles of text files
#: a text file's title is its first heading among this many non-empty lines
TITLE_LINES = 10
#: front matter counts only when its closing line ends within this many characters
FRONT_MATTER_CHARS = 65536
#: a title longer than this is cut (with "…"): it is copied into every chunk
TITLE_MAX = 300
#: the suffixes whose files may open with front matter (Jekyll, Hugo, MkDocs ...)
FRONT_MATTER_SUFFIXES = (".md", ".markdown")

_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-{2,})[ \t]*$")
_NOT_PARAGRAPH = re.compile(r"^(?: {4}|\t| {0,3}(?:[-*+>|#<]|\d+[.)]|```|~~~))")


def read_title(path: Path, text_head: str) -> str:
    """The title of the text file ``path`` whose text starts with ``text_head``: the
    ``title`` of its front matter (:func:`front_matter`), else its first Markdown heading as
    plain text (:func:`heading_title`), else the file's stem.

    >>> read_title(Path("notes.md"), "[![ci](badge.svg)](ci)\\n\\n# Real *Title* ##\\n")
    'Real Title'
    >>> read_title(Path("notes.md"), "---\\ntitle: 'From: YAML'\\n---\\n# Heading\\n")
    'From: YAML'
    >>> read_title(Path("notes.md"), "Just text.\\n\\nMore text.")
    'notes'
    """
    matter = front_matter(text_head, path.suffix)
    # a fenced block that is not front matter (a YAML typo) gives no setext title
    after = matter.length or _fenced_block_end(text_head)
    title = matter.title or heading_title(text_head[after:]) or path.stem
    return cut_title(title)


def cut_title(title: str) -> str:
    """``title`` cut to :data:`TITLE_MAX` characters (the last one ``…``) when longer.

    >>> len(cut_title("x" * 400)), cut_title("Short")
    (300, 'Short')
    """
    return title if len(title) <= TITLE_MAX else title[:TITLE_MAX - 1].rstrip() + "…"


def _fenced_block_end(head: str) -> int:
    """The length of an opening ``---`` / ``+++`` block closed by the same fence that reads
    as a front matter which did not parse (the line after the fence a ``key:`` / ``key =``
    line or a ``#`` comment; then only such lines, indented ones, list items, comments and
    blank lines), else 0: its lines are no heading. A rule followed by a blank line, a
    section and another rule is not such a block."""
    rows, first, _, end = _fenced(head, {"---": ("---",), "+++": ("+++",)})
    block = rows[first + 1:end]
    if not end or not block or not block[0].strip():  # a rule, then a blank line: no block
        return 0
    if not all(_MATTER_LINE.match(r) or not r.strip() for r in block) or not any(
            _KEY_LINE.match(r) for r in block):
        return 0
    return sum(len(row) + 1 for row in rows[:end + 1])


def _fenced(head: str, closers: dict[str, tuple[str, ...]]
            ) -> tuple[list[str], int, str, int]:
    """The rows of ``head`` up to :data:`FRONT_MATTER_CHARS` (a row the limit cuts left
    out: it cannot close a block), the index and text of the first non-blank row, and the
    index of the row that closes the block it opens (``closers[fence]``; 0: none)."""
    rows = head[:FRONT_MATTER_CHARS].split("\n")
    if len(head) >= FRONT_MATTER_CHARS:
        rows.pop()
    first = next((i for i, row in enumerate(rows) if row.strip()), len(rows))
    fence = rows[first].rstrip() if first < len(rows) else ""
    ends = closers.get(fence, ())
    end = next((i for i in range(first + 1, len(rows)) if rows[i].rstrip() in ends), 0)
    return rows, first, fence, end


_KEY_LINE = re.compile(r"[\w\"'-][^:=]*[:=]")
_MATTER_LINE = re.compile(r"[\w\"'-][^:=]*[:=]|[ \t]+\S|- |#")


def heading_title(text: str) -> str:
    """The first Markdown heading among the first :data:`TITLE_LINES` non-empty lines of
    ``text``, as plain text (:func:`plain_heading`); ``""`` if none.

    A heading is an ATX line (``# Title``: one to six ``#`` and a space, an optional
    closing sequence of ``#`` dropped; on the first non-empty line any line starting with
    ``#``) or a setext one (a paragraph, all its lines, underlined with ``===`` or ``---``).

    >>> heading_title("Real Title\\n==========\\n\\nText.")
    'Real Title'
    >>> heading_title("A title on\\ntwo lines\\n---\\n")
    'A title on two lines'
    """
    seen = 0
    para: list[str] = []  # the paragraph so far: a setext heading's text when underlined
    for raw in text.splitlines():
        s = raw.strip()
        if not s:
            para = []
            continue
        seen += 1
        if (seen == 1 and s.startswith("#")) or _ATX.match(raw):
            return plain_heading(_without_closing(s.lstrip("#").strip()))
        if para and _SETEXT.match(raw):
            return plain_heading(" ".join(para))
        if seen >= TITLE_LINES:
            break
        para = [] if _NOT_PARAGRAPH.match(raw) or _SETEXT.match(raw) else [*para, s]
    return ""


def _without_closing(text: str) -> str:
    """An ATX heading's text (stripped) without its closing sequence: ``#`` characters at
    its end after a space or tab (or all of it)."""
    body = text.rstrip("#")
    if body == text or (body and body[-1] not in " \t"):
        return text
    return body.rstrip()


def _without_attributes(text: str) -> str:
    """``text`` without a trailing attribute block: ``{#id}``, ``{.class}``, ``{-}``."""
    text = text.rstrip()
    start = text.rfind("{")
    if text.endswith("}") and start >= 0 and _ATTRIBUTES.fullmatch(text, start):
        return text[:start].rstrip()
    return text


_ATTRIBUTES = re.compile(r"\{[ \t]*(?:-|[#.:][^{}]*)\}")


@functools.cache
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("strikethrough")


#: ``<T>``, ``<K, V>``, ``<T extends Comparable>``, ``Array<Label>`` (type parameters) are
#: kept in a title; comments, closing and self-closing tags, tags with an ``attr=`` and
#: lower-case HTML element names (``<b>``, ``<details>``) are markup and are dropped
_TAG_NAME = re.compile(r"<([A-Za-z][\w-]*)")
_HTML_NAMES = """
a abbr acronym address area article aside audio b base bdi bdo big blink blockquote body br
button canvas caption center cite code col colgroup data datalist dd del details dfn dialog
dir div dl dt em embed fieldset figcaption figure font footer form frame frameset h1 h2 h3 h4
h5 h6 head header hgroup hr html i iframe img input ins kbd label legend li link main map mark
marquee menu meta meter nav nobr noframes noscript object ol optgroup option output p param
picture pre progress q rp rt ruby s samp script search section select slot small source span
strike strong style sub summary sup svg table tbody td template textarea tfoot th thead time
title tr track tt u ul var video wbr"""
_HTML_TAGS = frozenset(_HTML_NAMES.split())


def _is_html_tag(text: str) -> bool:
    t = text.strip()
    if t.startswith(("<!", "<?", "</")) or t.endswith("/>") or "=" in t:
        return True
    m = _TAG_NAME.match(t)
    return m is None or m.group(1) in _HTML_TAGS  # names as HTML writes them: lower-case


def plain_heading(text: str) -> str:
    """A Markdown heading's text as plain text (markdown-it's CommonMark inline parse): a
    trailing attribute block (``{#id}``) dropped, code spans, links and images reduced to
    their text, emphasis, strike-through and HTML tags dropped, backslash escapes and
    entities resolved, white space collapsed.

    >>> plain_heading("*Über* `uns` und [Links](http://x) {#top}")
    'Über uns und Links'
    >>> plain_heading("snake_case \\\\*not emphasis\\\\* &amp; <b>bold</b>")
    'snake_case *not emphasis* & bold'
    >>> plain_heading("Use <T> in Vector<T>::push_back <!-- omit in toc --> <tt>x</tt>")
    'Use <T> in Vector<T>::push_back x'
    """
    out: list[str] = []
    for block in _markdown().parseInline(_without_attributes(text)):
        for tok in block.children or []:
            if tok.type in ("text", "code_inline"):
                out.append(tok.content)
            elif tok.type == "image":
                out.append(tok.content)  # its alt text
            elif tok.type in ("softbreak", "hardbreak"):
                out.append(" ")
            elif tok.type == "html_inline" and not _is_html_tag(tok.content):
                out.append(tok.content)  # ``Vector<T>``: a type parameter, not a tag
    return " ".join("".join(out).split())


class FrontMatter(NamedTuple):
    """The front matter opening a text file: its ``length`` in characters (blank lines
    before and after it, both delimiter lines and their line ends included; 0: none) and its
    ``title`` (``""``: it names none)."""

    length: int = 0
    title: str = ""


def front_matter(head: str, suffix: str = ".md") -> FrontMatter:
    """The front matter ``head`` (a file's text, or its first :data:`FRONT_MATTER_CHARS`
    characters or more) opens with, after blank lines: YAML between a ``---`` line and a
    ``---`` or ``...`` line, or TOML between ``+++`` lines, closed within the first
    :data:`FRONT_MATTER_CHARS` characters; else ``FrontMatter()`` (the text is all body).

    Nothing is executed: TOML is read with :mod:`tomllib`, YAML with PyYAML's base loader
    (strings, lists and mappings only; a tag such as ``!!python/object`` is not resolved,
    its text is read as a string, nothing runs); its top-level
    ``title``, a string or number, titles the file. A block that is not a YAML mapping of
    names (prose between two rules), or not valid TOML, is not front matter: it stays body
    text.

    >>> front_matter('---\\ntitle: "Les Misérables"  # fr\\nlang: fr\\n---\\n\\nBody')
    FrontMatter(length=48, title='Les Misérables')
    >>> front_matter('+++\\ntitle = "TOML"\\n+++\\n')
    FrontMatter(length=23, title='TOML')
    >>> front_matter("---\\nA thematic break, then prose.\\n---\\n")
    FrontMatter(length=0, title='')
    """
    if suffix.lower() not in FRONT_MATTER_SUFFIXES:  # a .txt memo's "---" lines are text
        return FrontMatter()
    rows, first, fence, end = _fenced(head, {"---": ("---", "..."), "+++": ("+++",)})
    if not end:
        return FrontMatter()
    block = rows[first + 1:end]
    title = _yaml_title(block) if fence == "---" else _toml_title(block)
    if title is None:
        return FrontMatter()
    while end + 1 < len(rows) and not rows[end + 1].strip():
        end += 1  # the blank lines after it go with it
    length = min(sum(len(row) + 1 for row in rows[:end + 1]), len(head))
    return FrontMatter(length, " ".join(title.split()))


def _yaml_title(block: list[str]) -> str | None:
    """The title of a YAML front matter's lines (PyYAML's base loader: strings, lists and
    mappings only, no tag resolved: a bad date cannot reject the block;
    nothing constructed or executed); None when they are not a YAML mapping with a key."""
    import yaml  # type: ignore[import-untyped]

    loader = getattr(yaml, "CBaseLoader", yaml.BaseLoader)  # every scalar a string
    try:
        data = yaml.load("\n".join(block), Loader=loader)
    except (yaml.YAMLError, RecursionError, ValueError):
        return None
    if not isinstance(data, dict) or not data or not all(
            isinstance(k, str) and _KEY.fullmatch(k) for k in data) or not any(
            k[:1].islower() for k in data):
        return None  # prose between rules ("Chapter 1 begins: ...", "From: Alice")
    return _scalar_title(data.get("title"))


#: a front matter's keys are names without spaces (``title``, ``pubDate``, ``og:image``,
#: YAML's merge key ``<<``), one of them at least starting lower-case: prose between rules
#: (``Warning: ...``, ``From: Alice`` / ``Subject: ...``) is not front matter
_KEY = re.compile(r"[A-Za-z_][\w.:-]*|<<")


def _scalar_title(title: object) -> str:
    """A front matter's ``title`` as text: a string or number; ``""`` for anything else (a
    list, a mapping, a date, a boolean, null)."""
    if isinstance(title, bool) or not isinstance(title, str | int | float):
        return ""
    return "" if str(title).strip() in ("", "~", "null", "Null", "NULL") else str(title)


def _toml_title(block: list[str]) -> str | None:
    """The title of a TOML front matter's lines; None when they are not valid TOML."""
    try:
        data = tomllib.loads("\n".join(block))
    except (ValueError, RecursionError):  # tomllib.TOMLDecodeError is a ValueError
        return None
    return _scalar_title(data.get("title"))
