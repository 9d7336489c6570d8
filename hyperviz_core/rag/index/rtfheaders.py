r"""The headers and footers of an RTF file, which striprtf drops with the groups it does not
show: :func:`split_furniture` takes them out of the markup, as
:class:`~.furniture.Furniture`, and marks where each section ends.

A section's headers and footers are groups at its start (``{\header ...}``,
``{\footer ...}``): the first page's (``\headerf``, shown when the section has a title page,
``\titlepg``), the other pages' (``\header``, or ``\headerr`` for right-hand pages) and the
left-hand pages' (``\headerl``, shown when the document's odd and even pages differ,
``\facingp``). Groups inside a destination RTF readers skip (``{\* ...}``: a writer's own
page styles) are not the document's. A header's page numbers are left out: the ``PAGE``,
``NUMPAGES`` and ``SECTIONPAGES`` fields, and the others of
:data:`~.furniture.PAGE_FIELDS`.

Example:
    >>> markup = (r"{\rtf1{\header Harbour Authority\par}Ships\par\sect"
    ...           r"{\footer Page {\field{\*\fldinst PAGE}{\fldrslt 2}}\par}Tides}")
    >>> body, pages = split_furniture(markup, lambda m: m.strip("{}").split("\\")[0])
    >>> SECTION in body, "Harbour" in body
    (True, False)
    >>> pages.headers(0), pages.footers(1)
    (['Header: Harbour Authority'], ['Footer: Page'])
"""

from __future__ import annotations

import re
from collections.abc import Callable

from .furniture import Furniture, is_page_field

__all__ = ["SECTION", "split_furniture"]

#: the line put where a section ends (after ``\sect``), as the text shows it
SECTION = "VIZRAG-RTF-SECTION-BREAK-5e2c"
_TOKENS = re.compile(r"\\[\\{}]|[{}]|\\\*|\\(header|footer)([lrf]?)(?![a-z])|\\sect(?![a-z])")
_BRACES = re.compile(r"\\[\\{}]|[{}]")  # an escaped brace or backslash, or a brace
_FIELD = re.compile(r"\{\\field\s*\{\\\*\\fldinst\s*\{?\s*([A-Za-z]+)")
#: the variants of a header or footer in the order shown, each with the flag it needs
_ORDER = (("f", r"\titlepg"), ("", None), ("r", None), ("l", r"\facingp"))


class _Open:
    r"""A group being read: where it starts, whether RTF readers skip it (``{\* ...}``,
    or inside such a group), and the header or footer it is (``headerf``), if any."""

    __slots__ = ("kind", "skipped", "start")

    def __init__(self, start: int, skipped: bool) -> None:
        self.start, self.skipped, self.kind = start, skipped, ""


def _group_end(markup: str, start: int) -> int:
    """The end (past its ``}``) of the group that starts at ``start`` (its ``{``), or the
    markup's end."""
    depth = 0
    for m in _BRACES.finditer(markup, start):
        if m.group() == "{":
            depth += 1
        elif m.group() == "}":
            depth -= 1
            if depth == 0:
                return m.end()
    return len(markup)


def _without_page_fields(markup: str) -> str:
    """``markup`` without its page-number fields."""
    while (m := next((f for f in _FIELD.finditer(markup)
                      if is_page_field(f.group(1))), None)) is not None:
        markup = markup[:m.start()] + markup[_group_end(markup, m.start()):]
    return markup


def split_furniture(markup: str, to_text: Callable[[str], str]
                    ) -> tuple[str, Furniture]:
    """(``markup`` without its headers and footers, a line :data:`SECTION` after each
    section's end; its headers and footers, their text read by ``to_text``)."""
    groups: list[tuple[int, int, str, int]] = []  # (start, end, kind + variant, section)
    breaks: list[int] = []
    stack: list[_Open] = []
    for m in _TOKENS.finditer(markup):
        token, top = m.group(), stack[-1] if stack else None
        if token == "{":
            stack.append(_Open(m.start(), top is not None and top.skipped))
        elif token == "}" and top is not None:
            stack.pop()
            if top.kind:
                groups.append((top.start, m.end(), top.kind, len(breaks)))
        elif top is None or top.start != m.start() - 1:  # not a group's first word
            if token == "\\sect" and not any(g.skipped or g.kind for g in stack):
                breaks.append(m.end())
        elif token == "\\*":
            top.skipped = True
        elif m.group(1) and not top.skipped:
            top.kind = m.group(1) + m.group(2)
    cut = sorted([(s, e, "") for s, e, _, _ in groups]
                 + [(b, b, f"\\par {SECTION}\\par ") for b in breaks])
    out, at = [], 0
    for start, end, insert in cut:
        if start >= at:
            out += [markup[at:start], insert]
            at = end
    out.append(markup[at:])
    bounds = [0, *breaks, len(markup)]
    sections = []
    for number in range(len(breaks) + 1):
        flags = markup[bounds[number]:bounds[number + 1]]
        texts: dict[str, list[str]] = {"header": [], "footer": []}
        for variant, flag in _ORDER:
            if flag is not None and flag not in (flags if flag == r"\titlepg" else markup):
                continue
            for start, end, kind, section in groups:
                if section == number and kind[6:] == variant:
                    inner = "{" + markup[start + len(kind) + 2:end]
                    texts[kind[:6]].append(to_text(_without_page_fields(inner)))
        sections.append((texts["header"], texts["footer"]))
    return "".join(out), Furniture(sections)
