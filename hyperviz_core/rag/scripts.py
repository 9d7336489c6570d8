"""The character classes of writing systems that a word splitter on ``\\w`` misreads.

Python's ``\\w`` holds letters and digits but no combining marks (Unicode categories Mn,
Mc, Me), so a splitter on ``\\w`` alone cuts a word of Devanagari, Tamil, Bengali ... at
every vowel sign and virama (``दिल्ली`` gave ``द``, ``ल``, ``ल``), and the scripts of East
and South-East Asia write no space between words. BM25 (:mod:`.retrieve.lexical`) and the
offline word tokens (:func:`~.providers.offline.word_tokens`) read these scripts with the
classes defined here.

Example:
    >>> marked("दिल्ली"), marked("Delhi"), marked("Zürich"), marked("กรุงเทพ")
    (True, False, False, False)
    >>> marked_word().findall("दिल्ली भारत")
    ['दिल्ली', 'भारत']
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable

__all__ = ["CJK", "CJK_ANY", "SEA", "SEG", "mark_class", "marked", "marked_word"]

#: the characters read as character bigrams, as Lucene's ``CJKAnalyzer`` reads them: kana
#: (Hiragana, Katakana and its extensions), Han ideographs (CJK Unified and its extensions A
#: to H, compatibility ideographs), the ideographic marks (々, 〆, 〇, Hangzhou numerals, kana
#: repeat marks) and Hangul (syllables and jamo: a Korean word takes its particles, 서울에서)
CJK = ("\u1100-\u11ff\u3005-\u3007\u3021-\u3029\u3031-\u3035\u303b\u303c\u3040-\u30ff"
       "\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff"
       "\U00020000-\U0003134f")
#: the letters, combining marks and digits of the scripts of South-East Asia written without
#: spaces between words (Thai, Lao, Myanmar, Khmer; their punctuation and currency signs left
#: out)
SEA = ("\u0e01-\u0e3a\u0e40-\u0e4e\u0e50-\u0e59\u0e81-\u0ecd\u0ed0-\u0ed9\u0edc-\u0edf"
       "\u1000-\u1049\u1050-\u109f\u1780-\u17d3\u17d7\u17dc\u17dd\u17e0-\u17e9"
       "\uaa60-\uaa7f")
#: every character of a script written without spaces between words
SEG = CJK + SEA
#: one character of a script written without spaces between words
CJK_ANY = re.compile(f"[{SEG}]")


@functools.cache
def _mark_spans() -> tuple[tuple[int, int], ...]:
    """The (first, last) code points of each run of combining marks of :func:`mark_class`.
    Made on first use: finding the marks scans the code points, which a process that reads
    only ASCII text never needs."""
    spans: list[tuple[int, int]] = []
    for cp in (*range(0x300, 0x20000), *range(0xE0100, 0xE01F0)):
        ch = chr(cp)
        if unicodedata.category(ch)[0] == "M" and not CJK_ANY.match(ch):
            if spans and spans[-1][1] == cp - 1:
                spans[-1] = (spans[-1][0], cp)
            else:
                spans.append((cp, cp))
    return tuple(spans)


def _class(spans: Iterable[tuple[int, int]]) -> str:
    return "".join(chr(a) if a == b else f"{chr(a)}-{chr(b)}" for a, b in spans)


@functools.cache
def mark_class() -> str:
    """The combining marks (Unicode categories Mn, Mc, Me) of the scripts written with
    spaces, as the body of a character class: the vowel signs, viramas and nuktas of
    Devanagari, Bengali, Tamil ... (दि, ல்), Hebrew points, Arabic harakat."""
    return _class(_mark_spans())


@functools.cache
def _any_mark() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """A mark of the Basic Multilingual Plane, and one beyond it: ``re`` tests a character
    against a class of characters beyond the plane range by range, so one class of all the
    marks took 139 µs to search a MuSiQue passage with a character beyond ASCII (the mean
    of 539), the two 17 µs."""
    spans = _mark_spans()
    return (re.compile(f"[{_class(s for s in spans if s[1] <= 0xFFFF)}]"),
            re.compile(f"[{_class(s for s in spans if s[0] > 0xFFFF)}]"))


@functools.cache
def marked_word() -> re.Pattern[str]:
    """A word of letters and digits with the combining marks within and after it, inner
    apostrophes kept (``दिल्ली``, ``சென்னை``, ``o'brien``): the words of text with marks
    that ``[^\\W_]+(?:['’][^\\W_]+)*`` reads of text without them."""
    letter = f"(?:[^\\W_]|[{mark_class()}])"
    return re.compile(f"{letter}+(?:['’]{letter}+)*")


def marked(text: str) -> bool:
    """Whether ``text`` has a combining mark of a script written with spaces (Devanagari,
    Tamil, Hebrew points ...), which a word splitter on ``\\w`` alone cuts words at.

    >>> marked("दिल्ली"), marked("Delhi"), marked("กรุงเทพ")
    (True, False, False)
    """
    if text.isascii():
        return False
    plane, beyond = _any_mark()
    return plane.search(text) is not None or (
        max(text) > "\uffff" and beyond.search(text) is not None)
