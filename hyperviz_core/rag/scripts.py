"""The character classes of writing systems that a word splitter on ``\\w`` misreads.

Python's ``\\w`` holds letters and digits but no combining marks (Unicode categories Mn,
Mc, Me), so a splitter on ``\\w`` alone cuts a word of Devanagari, Tamil, Bengali ... at
every vowel sign and virama (``दिल्ली`` gave ``द``, ``ल``, ``ल``), and the scripts of East
and South-East Asia write no space between words. BM25 (:mod:`.retrieve.lexical`) and the
offline word tokens (:func:`~.providers.offline.word_tokens`) read these scripts with the
classes defined here, and read Persian and Urdu typed with Arabic's letters as typed with
their own (:func:`letters_alike`).

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

from ..unitext import (  # what the viewer's search reads alike too
    ALIKE,
    CANTILLATION,
    POINTS,
    VOWEL_POINTS,
)

__all__ = [
    "ALIKE", "ARABIC_TYPED", "CANTILLATION", "CJK", "CJK_ANY", "HIRAGANA", "POINTS", "SEA",
    "SEG", "VOWEL_POINTS", "cjk_grams",
    "clusters", "letters_alike", "letters_swapped", "lone_piece", "mark_class", "marked",
    "marked_word", "paired_words", "pointed", "sea_grams", "unpointed",
]

#: Arabic's yeh, alef maksura and kaf, each followed by the letter it is typed for in
#: Persian and Urdu (``ی``, ``ی``, ``ک``): older sites and Arabic keyboards type them
ARABIC_TYPED = "يیىیكک"
_ALIKE = tuple(zip(ALIKE[0::2], ALIKE[1::2], strict=True))
_POINT = re.compile(f"[{POINTS}]+")
_VOWEL_POINT = re.compile(f"[{VOWEL_POINTS}]+")


def letters_alike(text: str, cantillation: bool = True) -> str:
    """``text`` as retrieval reads Hebrew and the Arabic script: without the points,
    Hebrew's cantillation marks and Arabic's harakat (:data:`POINTS`: ``مُحَمَّد`` is
    ``محمد``, ``יְרוּשָׁלַיִם`` is ``ירושלים``, ``בְּרֵאשִׁ֖ית`` is ``בראשית``; with
    ``cantillation=False`` only :data:`VOWEL_POINTS`, as ``hashing-v4`` read them), and
    with the letters of :data:`ALIKE` read as others: Arabic's yeh ``ي`` and kaf ``ك`` as
    Persian's ``ی`` and ``ک`` (Persian or Urdu typed with either finds the other, as in
    Lucene's Persian normalizer), ``أ``, ``إ``, ``آ``, ``ٱ`` as ``ا`` and ``ة`` as ``ه`` (as
    in Lucene's Arabic normalizer: ``احمد`` finds ``أحمد``). Alef maksura ``ى`` is left as
    it is (Arabic's ``على`` "on" and ``علي`` Ali stay apart), so Persian typed with it for
    a final ``ی`` is not read alike. The same string back when it has none of them.

    >>> letters_alike("علي كرمان") == "علی کرمان", letters_alike("Zürich")
    (True, 'Zürich')
    >>> letters_alike("مُحَمَّد أحمد مدرسة") == "محمد احمد مدرسه"
    True
    >>> letters_alike("בָּרָ֣א") == "ברא", letters_alike("בָּרָ֣א", cantillation=False) == "בר\u05a3א"
    (True, True)
    """
    if text.isascii():
        return text
    if pointed(text):
        text = _POINT.sub("", text) if cantillation else _VOWEL_POINT.sub("", text)
    return _swap(text)


def unpointed(text: str) -> str:
    """``text`` without :data:`POINTS` (its letters as typed): how the titled-name cues
    read a vocalised word (:mod:`~hyperviz_core.rag.extract.titled`).

    >>> unpointed("الرَّئِيسُ") == "الرئيس", unpointed("श्री")
    (True, 'श्री')
    """
    return _POINT.sub("", text) if pointed(text) else text


def pointed(text: str) -> bool:
    """Whether ``text`` holds one of :data:`POINTS` (2.3 µs on a 735-character Persian
    passage without any: a pattern's search, as fast as ``str``'s over the 31 points alone
    and faster than over all 62).

    >>> pointed("مُحَمَّد"), pointed("محمد"), pointed("Zürich"), pointed("בר\u05a3א")
    (True, False, False, True)
    """
    return not text.isascii() and _POINT.search(text) is not None


def letters_swapped(text: str) -> str:
    """``text`` with the letters of :data:`ALIKE` read as others, its points and harakat
    kept (what SQLite's full-text index holds: :mod:`~.store.sqlite.fts`).

    >>> letters_swapped("مُحَمَّد أحمد") == "مُحَمَّد احمد"
    True
    """
    return text if text.isascii() else _swap(text)


def _swap(text: str) -> str:
    for typed, read in _ALIKE:  # str.replace: 1 µs on 1 kB of Persian, str.translate 50
        if typed in text:
            text = text.replace(typed, read)
    return text


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
#: a hiragana letter: Japanese writes its particles and word endings in it (``は``, ``です``)
HIRAGANA = re.compile("[\u3041-\u309f]")
#: the signs that join the next consonant to a cluster (Khmer coeng, Myanmar virama)
_JOINERS = "\u17d2\u1039"


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


def cjk_grams(run: str) -> list[str]:
    """The tokens of a run of kana / Han characters: its overlapping character bigrams (as
    Lucene's ``CJKAnalyzer``), a lone character by itself.

    >>> cjk_grams("北京市"), cjk_grams("京")
    (['北京', '京市'], ['京'])
    """
    if len(run) < 2:
        return [run]
    return [run[i : i + 2] for i in range(len(run) - 1)]


def clusters(run: str) -> list[str]:
    """The clusters of a run: each letter or digit with the combining marks after it, and a
    consonant a Khmer coeng or Myanmar virama joins to the one before.

    >>> clusters("ที่นี่"), clusters("北京")
    (['ที่', 'นี่'], ['北', '京'])
    """
    parts: list[list[str]] = []
    for char in run:
        base = unicodedata.category(char)[0] in "LN"
        if parts and (not base or parts[-1][-1] in _JOINERS):
            parts[-1].append(char)
        else:
            parts.append([char])
    return ["".join(p) for p in parts]


def sea_grams(run: str) -> list[str]:
    """The tokens of a run of Thai, Lao, Myanmar or Khmer: the overlapping bigrams of its
    clusters (:func:`clusters`), a lone cluster by itself.

    >>> sea_grams("กรุงเทพ"), sea_grams("ភ្នំពេញ"), sea_grams("ไม้")
    (['กรุ', 'รุง', 'งเ', 'เท', 'ทพ'], ['ភ្នំពេ', 'ពេញ'], ['ไม้'])
    """
    found = clusters(run)
    if len(found) < 2:
        return found
    return [found[i] + found[i + 1] for i in range(len(found) - 1)]


def lone_piece(token: str) -> bool:
    """Whether ``token`` is a run of one character or cluster of a script written without
    spaces (``猫``, ``집``, ``ที่``): a token the pairs of a longer run never equal.

    >>> lone_piece("猫"), lone_piece("小猫"), lone_piece("ที่"), lone_piece("cat")
    (True, False, True, False)
    """
    return CJK_ANY.match(token) is not None and len(clusters(token)) == 1


@functools.cache
def _paired_word() -> re.Pattern[str]:
    """A run of kana, Han or Hangul; a run of Thai, Lao, Myanmar or Khmer (their marks
    included); or a word of other letters and digits with its combining marks and inner
    apostrophes (:func:`marked_word`, ended by a character of the first two)."""
    letter = f"(?:[^\\W_{SEG}]|[{mark_class()}])"
    return re.compile(f"((?:(?=\\w)[{CJK}])+)|([{SEA}]+)|({letter}+(?:['’]{letter}+)*)")


def paired_words(text: str) -> list[str]:
    """The words of ``text`` as written, a run of a script without spaces between words read
    as BM25 reads it (:mod:`.retrieve.lexical`): kana, Han and Hangul as overlapping
    character pairs (:func:`cjk_grams`), Thai, Lao, Myanmar and Khmer as overlapping pairs
    of clusters (:func:`sea_grams`); other words keep their marks (:func:`marked_word`).

    >>> paired_words("東京は日本の首都 (Tokyo)")
    ['東京', '京は', 'は日', '日本', '本の', 'の首', '首都', 'Tokyo']
    >>> paired_words("ไม้ python入門 दिल्ली")
    ['ไม้', 'python', '入門', 'दिल्ली']
    """
    out: list[str] = []
    for run, sea, word in _paired_word().findall(text):
        if run:
            out.extend(cjk_grams(run))
        elif sea:
            out.extend(sea_grams(sea))
        else:
            out.append(word)
    return out
