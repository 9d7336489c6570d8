"""Truecasing of shouted text: headings, title pages and captions written in capitals.

The offline extractor finds names by their capitals, so a line written all in capitals —
a book's title page, a chapter heading, a list of illustrations ("KYNANCE COVE 71 THE LION
ROCKS") — would read as one long name. :func:`recase` gives such a stretch the case the
surrounding text suggests before names are looked for: closed-class words ("the", "of",
"in") and words the chunk also writes in lower case go to lower case, the other words
are capitalised (``"KYNANCE"`` → ``"Kynance"``), and roman numerals and words without a
vowel ("IV", "BBC") stay as they are. The recased text has the same length as the input,
so spans found in it are spans of the input; :func:`recase` also returns where the
shouted stretches are, in which numbers (page numbers) do not join a name.

Example:
    >>> recase("KYNANCE COVE 71 THE LION ROCKS", frozenset({"rocks"}))
    ('Kynance Cove 71 the Lion rocks', [(0, 30)])
    >>> recase("He went to the BBC in 1961.", frozenset())
    ('He went to the BBC in 1961.', [])
"""

from __future__ import annotations

import re

from ..providers.offline import STOPWORDS
from ._lexicon import _CONNECTORS

__all__ = ["recase"]

_WORD = re.compile(r"[^\W\d_]+")
_ROMAN = re.compile(r"[IVXLC]+")
_VOWELS = frozenset("AEIOUYÀÁÂÄÆÈÉÊËÌÍÎÏÒÓÔÖØÙÚÛÜ")
#: a stretch is shouted when it holds this many words of two or more letters
MIN_SHOUTED_WORDS = 3


def _stretches(text: str) -> list[tuple[int, int]]:
    """Maximal runs of upper-case words of ``text`` (only digits, spaces and punctuation
    between them) as ``(start of the first, end of the last)``."""
    out: list[tuple[int, int]] = []
    run: tuple[int, int] | None = None
    for m in _WORD.finditer(text):
        if m.group(0).isupper():
            run = (run[0] if run else m.start(), m.end())
        elif run:
            out.append(run)
            run = None
    if run:
        out.append(run)
    return out


def _recased(text: str, start: int, end: int, lower_vocab: frozenset[str]) -> str:
    """The word ``text[start:end]`` of a shouted stretch in the case its neighbours suggest."""
    word = text[start:end]
    before, after = text[start - 1 : start], text[end : end + 1]
    if len(word) == 1:  # an initial ("M.A."), "I", the article "A", the "S" of "MICHAEL'S"
        article = word == "A" and after != "."
        return word.lower() if article or before in ("'", "’") else word
    low = word.lower()
    if low in STOPWORDS or low in _CONNECTORS or low in lower_vocab:
        new = low
    elif _ROMAN.fullmatch(word) or (not _VOWELS.intersection(word) and after != "."):
        new = word  # "IV", "BBC"; but "ST." and "MR." are capitalised
    else:
        new = word[0] + word[1:].lower()
    return new if len(new) == len(word) else word


def recase(text: str, lower_vocab: frozenset[str]) -> tuple[str, list[tuple[int, int]]]:
    """``text`` with its shouted stretches recased, and the ``(start, end)`` of each.

    A shouted stretch has no lower-case letter and at least ``MIN_SHOUTED_WORDS`` words of
    two or more letters; ``lower_vocab`` holds the words the surrounding text writes in
    lower case. Text without such a stretch comes back unchanged.

    >>> recase("THE DIARY OF SAMUEL PEPYS M.A. F.R.S.", frozenset({"diary"}))[0]
    'the diary of Samuel Pepys M.A. F.R.S.'
    >>> recase("FIRST EDITION", frozenset())[0]
    'FIRST EDITION'
    """
    shouted = [(s, e) for s, e in _stretches(text)
               if sum(1 for w in _WORD.findall(text[s:e]) if len(w) >= 2) >= MIN_SHOUTED_WORDS]
    if not shouted:
        return text, []
    parts: list[str] = []
    pos = 0
    for s, e in shouted:
        parts.append(text[pos:s])
        parts.extend(_recase_stretch(text, s, e, lower_vocab))
        pos = e
    parts.append(text[pos:])
    return "".join(parts), shouted


def _recase_stretch(text: str, s: int, e: int, lower_vocab: frozenset[str]) -> list[str]:
    parts: list[str] = []
    pos = s
    for m in _WORD.finditer(text, s, e):
        parts += [text[pos : m.start()], _recased(text, m.start(), m.end(), lower_vocab)]
        pos = m.end()
    parts.append(text[pos:e])
    return parts
