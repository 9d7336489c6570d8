"""The headers and footers of a word processor's document (:mod:`.wordfiles` for ``.docx``,
:mod:`.docfiles` for ``.doc``, :mod:`.opendocs` for ``.odt``), shown alike by all three.

A document is cut into sections (a ``.docx`` or ``.doc`` file's sections; an ``.odt``
file's runs of pages under one page style), each with its headers and footers: the first
page's, the other pages', the even pages'. Each is shown once, labelled (``Header: ...``,
``Footer: ...``): a section's headers before its first paragraph, its footers after its
last, one already shown (the same text in every section) not again; runs of white space are
one space, empty lines dropped. The readers leave out what a header shows of the page it is
on (its number, the count of pages, the heading it is under: not the document's), so a
footer of page numbers alone gives no block.

Example:
    >>> pages = Furniture([(["Confidential", "Harbour Authority"], ["Page of"]),
    ...                    (["Harbour Authority"], ["Prepared by the harbour master"])])
    >>> pages.headers(0)
    ['Header: Confidential', 'Header: Harbour Authority']
    >>> pages.footers(0), pages.headers(1)
    (['Footer: Page of'], [])
    >>> pages.rest(1)
    ['Footer: Prepared by the harbour master']
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["PAGE_FIELDS", "Furniture", "Once", "is_page_field"]

#: the fields whose result is the page's own, left out of a header or footer: its number,
#: the count of pages (in the section), its section's number, the heading it is under
PAGE_FIELDS = frozenset({"PAGE", "NUMPAGES", "SECTIONPAGES", "SECTION", "STYLEREF"})


def is_page_field(code: str) -> bool:
    """Whether a word processor's field code (``PAGE``, ``STYLEREF "Heading 1"``) shows
    what is the page's own (:data:`PAGE_FIELDS`), in any case.

    >>> is_page_field(" page  MERGEFORMAT"), is_page_field("PAGEREF _Toc1"), is_page_field("")
    (True, False, False)
    """
    words = code.split()
    return bool(words) and words[0].upper() in PAGE_FIELDS


class Once:
    """Texts shown the first time only (a header in every section, a deck's footer on
    every slide): calling it with a text gives ``[text]`` the first time, then ``[]``
    (``[]`` for an empty text too).

    >>> once = Once()
    >>> once("Harbour Authority"), once("Harbour Authority"), once("")
    (['Harbour Authority'], [], [])
    """

    def __init__(self) -> None:
        self._shown: set[str] = set()

    def __call__(self, text: str) -> list[str]:
        if not text or text in self._shown:
            return []
        self._shown.add(text)
        return [text]


class Furniture:
    """The headers and footers of a document's ``sections``: per section, (its headers'
    texts, its footers' texts), each in the order first page, other pages, even pages."""

    def __init__(self, sections: Sequence[tuple[Sequence[str], Sequence[str]]]) -> None:
        self._sections = sections
        self._once = Once()

    def _blocks(self, label: str, texts: Sequence[str]) -> list[str]:
        lines = ((" ".join(part.split()) for part in raw.split("\n")) for raw in texts)
        return [f"{label}: {text}" for shown in lines
                for text in self._once("\n".join(line for line in shown if line))]

    def headers(self, section: int) -> list[str]:
        """The headers of ``section`` (from 0) not shown yet, as blocks."""
        if section >= len(self._sections):
            return []
        return self._blocks("Header", self._sections[section][0])

    def footers(self, section: int) -> list[str]:
        """The footers of ``section`` not shown yet, as blocks."""
        if section >= len(self._sections):
            return []
        return self._blocks("Footer", self._sections[section][1])

    def rest(self, section: int) -> list[str]:
        """After the body: the footers of its last ``section``, then the headers and
        footers of the sections the body did not reach (a damaged file's, one whose
        section breaks were not found)."""
        out = self.footers(section)
        for later in range(section + 1, len(self._sections)):
            out += self.headers(later) + self.footers(later)
        return out
