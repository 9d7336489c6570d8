"""The running heads, running feet and page numbers of a PDF's pages, which a PDF draws as
text on every page like any other: :func:`without_running_lines` keeps a running head
where it first appears and leaves it out of the pages after, and leaves page numbers out.

A line is running when it stands among the first or the last three lines of a page's text
on at least three pages, each within two pages of the one before (every page, or every
other page as a book's left and right heads alternate), its numbers counting as any
number: ``Annual Report 2023 | 17`` on page 17 and ``... | 18`` on page 18 are one line. A
line with numbers is running only when it is a page number (a number, with at most the
words that name one: ``17``, ``- 17 -``, ``Page 17 of 80``, ``Seite 17``) or holds two
words besides and starts or ends with a number, so that ``Step 3`` on page 3 and ``Step 4``
on page 4 stay, and so does ``Figure 3: Tides``. Only lines at
a page's edge are left out: a page's first lines while they are running, and its last
lines alike. A page number is left out everywhere; another running line (a document's or
a chapter's title) stays on the first page it is on. Evidence from the document itself,
and a document of fewer than three pages of text is as it was.

Example:
    >>> pages = [f"Harbour Report\\nBody {n}.\\n{n}" for n in range(1, 5)]
    >>> without_running_lines(pages)
    ['Harbour Report\\nBody 1.', 'Body 2.', 'Body 3.', 'Body 4.']
"""

from __future__ import annotations

import itertools
import re

__all__ = ["without_running_lines"]

_EDGE = 3  # the lines at a page's top and at its bottom a running line stands among
_CHAIN, _GAP = 3, 2  # on this many pages at least, each within _GAP pages of the last
_DIGITS = re.compile(r"\d+")
_WORDS = re.compile(r"[^\W\d_]+")
#: the words a page number is written with, besides its numbers, in some languages
_PAGE_WORDS = frozenset({
    "p", "pp", "pg", "page", "pages", "of", "sur", "seite", "von", "página", "pagina",
    "pág", "de", "di", "blz", "van", "sida", "side", "av", "af", "sivu", "str", "strona",
    "z", "oldal", "стр", "страница", "из", "页", "第", "頁", "ページ"})


def _key(line: str) -> str:
    """``line`` as compared across pages: spaces collapsed, numbers ``#``, case folded."""
    return _DIGITS.sub("#", " ".join(line.split())).casefold()


def _is_page_number(key: str) -> bool:
    """Whether a line (its :func:`_key`) is a page number: a number, its other words (if
    any) words that name a page number (``page # of #``, ``seite #``, ``p. #``)."""
    return "#" in key and all(w in _PAGE_WORDS for w in _WORDS.findall(key))


def _may_run(key: str) -> bool:
    """Whether a line (its :func:`_key`) may be running: a page number, a line without
    numbers, or one of two words or more that starts or ends with a number (as a running
    head's page number)."""
    return "#" not in key or _is_page_number(key) or (
        len(_WORDS.findall(key)) >= 2 and (key[0] == "#" or key[-1] == "#"))


def _chained(pages: list[int]) -> bool:
    """Whether ``pages`` (increasing) hold :data:`_CHAIN` pages, each within :data:`_GAP`
    pages of the one before."""
    run = 1
    for before, page in itertools.pairwise(pages):
        run = run + 1 if page - before <= _GAP else 1
        if run >= _CHAIN:
            return True
    return False


def _edges(lines: list[str]) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(index, :func:`_key`) of the first and of the last :data:`_EDGE` lines with text,
    the last ones from the bottom up."""
    filled = [(i, _key(line)) for i, line in enumerate(lines) if line.strip()]
    return filled[:_EDGE], filled[::-1][:_EDGE]


def without_running_lines(pages: list[str]) -> list[str]:
    """``pages`` (a PDF's pages' text, in order) without their running lines: see the
    module's docs."""
    split = [page.split("\n") for page in pages]
    edges = [_edges(lines) for lines in split]
    seen: dict[tuple[int, str], list[int]] = {}  # (0 top, 1 bottom; key) → its pages
    for number, page_edges in enumerate(edges):
        for edge, found in enumerate(page_edges):
            for key in sorted({key for _, key in found}):
                seen.setdefault((edge, key), []).append(number)
    running = {found for found, numbers in seen.items()
               if _may_run(found[1]) and _chained(numbers)}
    if not running:
        return pages
    shown: set[str] = set()  # the running lines kept where they first appear
    out = []
    for page, lines, page_edges in zip(pages, split, edges, strict=True):
        dropped: set[int] = set()
        kept: set[int] = set()  # on this page (its top and bottom lines may be the same)
        for edge, found in enumerate(page_edges):
            for i, key in found:
                if (edge, key) not in running:
                    break
                if i in kept or (not _is_page_number(key) and key not in shown):
                    shown.add(key)
                    kept.add(i)
                else:
                    dropped.add(i)
        out.append("\n".join(line for i, line in enumerate(lines) if i not in dropped)
                   if dropped else page)
    return out
