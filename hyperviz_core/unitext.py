"""Unicode normal forms for the text the library stores, draws and matches.

The same word can arrive as different code points: decomposed accents (``"e\\u0301"``, from
macOS file names and text copied out of PDFs), a soft hyphen left inside a word by a PDF or
e-book (``"Donau\\u00addampf"``), or a typographic ligature (``"\\ufb01nanzielle"``). Each is
drawn like the plain word, but would not match it, would be drawn with a loose accent, or
would make two entities of one name.

Example:
    >>> nfc("Zu\\u0308rich") == "Zürich"
    True
    >>> plain_text("Donau\\u00addampf \\ufb01nanzielle Zu\\u0308rich")
    'Donaudampf finanzielle Zürich'
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable

__all__ = ["ALIKE", "CANTILLATION", "POINTS", "VOWEL_POINTS", "bidi_free", "boundary",
           "cluster_cut", "cut_back", "isolate", "nfc", "plain_text", "search_fold",
           "truncate", "unaccented"]

#: the soft hyphen and the Latin ligatures U+FB00–U+FB06, and what they are read as
_HINTS = re.compile("[\u00ad\ufb00-\ufb06]")
_PLAIN = str.maketrans({"\u00ad": None, "\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl",
                        "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st", "\ufb06": "st"})


def nfc(text: str) -> str:
    """``text`` in Unicode's composed form (NFC); quick when it already is (ASCII always).

    >>> nfc("Le\\u0300ve") == "L\\u00e8ve"
    True
    """
    return text if unicodedata.is_normalized("NFC", text) else unicodedata.normalize("NFC", text)


def unaccented(text: str) -> str:
    """``text`` without its combining marks and in compatibility form (NFKD, marks dropped,
    NFC): ``"Société"`` → ``"Societe"``, full-width ``"Ｔｏｋｙｏ"`` → ``"Tokyo"``; letters that
    are no base letter plus a mark stay (``Ł``, ``ø``, ``ß``).

    >>> unaccented("Société"), unaccented("Ñúñez"), unaccented("Ｔｏｋｙｏ"), unaccented("Łódź")
    ('Societe', 'Nunez', 'Tokyo', 'Łodz')
    """
    return text if text.isascii() else _without_marks(text, unicodedata.combining)


def _without_marks(text: str, is_mark: Callable[[str], object]) -> str:
    """``text`` in compatibility form (NFKD) without the characters ``is_mark`` holds true,
    composed again (NFC): what :func:`unaccented` and :func:`search_fold` share."""
    bare = "".join(c for c in unicodedata.normalize("NFKD", text) if not is_mark(c))
    return unicodedata.normalize("NFC", bare)


def plain_text(text: str) -> str:
    """:func:`nfc` of ``text`` without soft hyphens (``U+00AD``, an invisible hint where a
    word may break) and with the Latin ligatures ``ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ`` spelt out: what a reader
    sees, so that words match whichever form they were written in. Other compatibility
    characters (``²``, ``½``, full-width letters) are kept as they are. Thai and Lao are
    written as typed: a vowel ``sara am`` that PDF extractors give as nikhahit + sara aa
    (``U+0E4D U+0E32``; Lao ``U+0ECD U+0EB2``) is the one character (``ำ``, ``ຳ``), and a tone
    mark written before an upper vowel (``ท่ี``) goes after it (``ที่``), as NFC leaves them.

    >>> plain_text("e\\u0301tude o\\ufb00re\\u00ad²")
    'étude offre²'
    >>> plain_text("\\u0e19\\u0e49\\u0e4d\\u0e32 \\u0e17\\u0e48\\u0e35") == "น้ำ ที่"
    True
    """
    if text.isascii():
        return text
    text = nfc(text)
    if _HINTS.search(text):
        text = text.translate(_PLAIN)
    return _typed_thai_lao(text) if _THAI_LAO.search(text) else text


#: Thai or Lao letters (the only ones :func:`_typed_thai_lao` changes)
_THAI_LAO = re.compile("[\u0e4d\u0ecd\u0e48-\u0e4b\u0ec8-\u0ecb]")
#: nikhahit, maybe a tone mark, then sara aa: the decomposed sara am
_SARA_AM = re.compile("([\u0e4d\u0ecd])([\u0e48-\u0e4b\u0ec8-\u0ecb]?)([\u0e32\u0eb2])")
#: a tone mark before an upper vowel (or mai han-akat)
_TONE_FIRST = re.compile("([\u0e48-\u0e4b\u0ec8-\u0ecb])([\u0e31\u0e34-\u0e37\u0e47\u0eb1"
                         "\u0eb4-\u0eb7])")


def _typed_thai_lao(text: str) -> str:
    text = _SARA_AM.sub(lambda m: m[2] + ("\u0e33" if m[1] == "\u0e4d" else "\u0eb3"), text)
    return _TONE_FIRST.sub(r"\2\1", text)


_ZWJ = "\u200d"
_VIRAMA = 9  # the canonical combining class of a virama (Devanagari U+094D, ...)
#: signs of that class that end a syllable rather than join the next letter (Myanmar asat)
_KILLERS = "\u103a"
#: Thai and Lao vowels written after the consonant they follow (sara a, aa, am; lakkhangyao)
#: and before it (sara e, ae, o, ai maimuan, ai maimalai): letters, but parts of its syllable
_FOLLOWING = "\u0e30\u0e32\u0e33\u0e45\u0eb0\u0eb2\u0eb3"
_LEADING = "\u0e40\u0e41\u0e42\u0e43\u0e44\u0ec0\u0ec1\u0ec2\u0ec3\u0ec4"


def _extends(ch: str) -> bool:
    """Whether ``ch`` belongs to the character before it: a combining mark (categories Mn,
    Mc, Me: accents, vowel signs, anusvara, virama, variation selectors), a (non-)joiner,
    an emoji skin-tone modifier or an emoji tag character."""
    cp = ord(ch)
    return (unicodedata.category(ch) in ("Mn", "Mc", "Me") or cp in (0x200C, 0x200D)
            or 0x1F3FB <= cp <= 0x1F3FF or 0xE0020 <= cp <= 0xE007F)


def _regional(ch: str) -> bool:
    return 0x1F1E6 <= ord(ch) <= 0x1F1FF


def boundary(text: str, i: int) -> bool:
    """Whether ``text`` may be cut before index ``i`` without splitting a user-perceived
    character: never before a combining mark, joiner, variation selector or skin tone, never
    after a joiner, never between a virama and the letter it joins (a conjunct), never inside
    a regional-indicator pair (a flag).

    >>> [boundary("a\u0301b", i) for i in range(4)]
    [True, False, True, True]
    >>> boundary("\u0915\u094d\u0937", 2), boundary("\U0001F1E8\U0001F1F3", 1)
    (False, False)
    >>> boundary("\u1019\u103c\u1014\u103a\u1019\u102c", 4)  # မြန်|မာ: after the asat
    True
    >>> boundary("\u1019\u103c\u1014\u103a", 2), boundary("\u0e19\u0e49\u0e33", 2)  # မြ|န်, น้|ำ
    (False, False)
    """
    if i <= 0 or i >= len(text):
        return True
    ch, prev = text[i], text[i - 1]
    if _extends(ch) or prev == _ZWJ or ch in _FOLLOWING or prev in _LEADING:
        return False
    if i + 1 < len(text) and text[i + 1] in _KILLERS:  # a final consonant: its syllable's
        return False
    if (unicodedata.combining(prev) == _VIRAMA and prev not in _KILLERS
            and unicodedata.category(ch) == "Lo"):
        return False
    if _regional(ch) and _regional(prev):
        run = 0
        while i - run - 1 >= 0 and _regional(text[i - run - 1]):
            run += 1
        return run % 2 == 0
    return True


def cut_back(text: str, n: int) -> int:
    """The largest cut ``k <= n`` with :func:`boundary` (0 when there is none)."""
    k = max(0, min(n, len(text)))
    while k > 0 and not boundary(text, k):
        k -= 1
    return k


def cluster_cut(text: str, n: int) -> int:
    """The largest cut ``k <= n`` with :func:`boundary` (``text[:k]`` keeps whole
    characters), but at least the end of the first one (a cut never gives nothing).

    >>> s = "\u0905\u0902\u0924"  # अंत
    >>> cluster_cut(s, 1), cluster_cut(s, 2), cluster_cut("abc", 2)
    (2, 2, 2)
    """
    k = cut_back(text, n)
    if k > 0 or n <= 0:
        return k
    k = 1
    while k < len(text) and not boundary(text, k):
        k += 1
    return k


def truncate(text: str, max_chars: int) -> str:
    """One line, at most ``max_chars`` characters (an ellipsis marks the cut). The cut
    falls between whole characters (:func:`cluster_cut`): an accent, vowel sign, virama or
    joiner stays with its letter, so it may keep fewer characters (or, when the first one
    alone is longer, that one).

    >>> truncate("Marie Curie", 6), truncate("\u0905\u0902\u0924\u0930", 2)
    ('Marie…', '\u0905\u0902…')
    """
    line = " ".join(str(text).split())
    if max_chars <= 0:
        return ""
    if len(line) <= max_chars:
        return line
    return line[: cluster_cut(line, max(1, max_chars - 1))].rstrip() + "…"


#: bidi marks, embeddings, overrides and isolates: the viewer drops a text's own, the PNG
#: all but its isolates (they cannot reverse a word), so a name cannot reorder its label or
#: what follows it
_BIDI = re.compile("[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
#: first strong isolate and pop directional isolate (Unicode's bidi algorithm, UAX #9)
FSI, PDI = "\u2068", "\u2069"


def bidi_free(text: str) -> str:
    """``text`` without bidi control characters.

    >>> bidi_free("\\u202eRLO override")
    'RLO override'
    """
    return _BIDI.sub("", text)


def isolate(text: str) -> str:
    """``text`` (its own bidi controls dropped) between a first strong isolate and its pop:
    laid out inside another line, it takes its direction from its own first letter and its
    punctuation stays with it, as in HTML's ``<bdi>``. The PNG's title isolates the query
    so: a Hebrew question's ``?`` is drawn at its left end, not after it on the right, and
    what follows it keeps its place.

    >>> isolate("\\u202eמי?") == FSI + "מי?" + PDI
    True
    """
    return FSI + bidi_free(text) + PDI


#: the points of Hebrew (niqqud, the shin and sin dots, meteg, rafe) and the harakat of
#: Arabic (fathatan ... sukun, madda and hamza above and below, tatweel): written or left
#: out at will
VOWEL_POINTS = "".join(map(chr, (*range(0x05B0, 0x05BE), 0x05BF, 0x05C1, 0x05C2, 0x05C7,
                                 *range(0x064B, 0x0656), 0x0640)))
#: Hebrew's cantillation marks (te'amim, U+0591–U+05AF, and the upper and lower dots): the
#: Bible's text as published (Tanakh with te'amim) writes one on almost every word, a
#: question never
CANTILLATION = "".join(map(chr, range(0x0591, 0x05B0))) + "\u05c4\u05c5"
#: both: retrieval (:func:`hyperviz_core.rag.scripts.letters_alike`) and the viewer's
#: search (:func:`search_fold`) read a word without them
POINTS = VOWEL_POINTS + CANTILLATION
#: the letters read as others (by both), each followed by the one it is read as: Arabic's
#: yeh and kaf as Persian's (Persian and Urdu typed on an Arabic keyboard), alef with hamza
#: or madda and alef wasla as alef, teh marbuta as heh (spellings Arabic varies in, as
#: Lucene's Arabic normalizer reads them). Not alef maksura: Arabic writes ``على`` "on" and
#: ``علي`` Ali apart
ALIKE = "يیكکأاإاآاٱاةه"
_POINT_SET = frozenset(POINTS)
_SEARCH_SWAPS = str.maketrans(ALIKE[0::2], ALIKE[1::2])  # (hamza'd alefs: gone with marks)


def search_fold(text: str) -> str:
    """``text`` as the viewer's search compares it — ``fold`` of ``viewer/assets/viewer.js``:
    NFKC, decomposed, the marks U+0300–U+036F, Hebrew's points and cantillation marks and
    Arabic's harakat dropped
    (a Devanagari virama, which changes the letter, is kept; :func:`unaccented` drops every
    mark), recomposed, lower case, white space collapsed and trimmed, and Arabic's ``ي``,
    ``ك``, ``ٱ``, ``ة`` read as ``ی``, ``ک``, ``ا``, ``ه``. Two texts equal after it read alike
    to a reader: the name labels (:func:`~hyperviz_core.draw.labels.distinct_names`) and the
    ``duplicate_labels`` metric compare it.

    >>> search_fold("Ｔｏｋｙｏ  Université") == search_fold("tokyo universite")
    True

    >>> search_fold("  Muller\\tInstitut "), search_fold("Mu\\u0308ller Institut")
    ('muller institut', 'muller institut')
    >>> search_fold("أحمد") == search_fold("احمد"), search_fold("מְדִינָה") == search_fold("מדינה")
    (True, True)
    """
    if text.isascii():
        return " ".join(text.lower().split())
    text = _without_marks(text, lambda c: "\u0300" <= c <= "\u036f" or c in _POINT_SET)
    return " ".join(text.lower().split()).translate(_SEARCH_SWAPS)
