"""Which 8-bit Latin encoding a text that is not UTF-8 is in: Western, Central European or
Turkish.

Windows-1252 (Western European), Windows-1250 and ISO-8859-2 (Central European) and
Windows-1254 (Turkish) all read ASCII as ASCII and any byte as some letter or sign, so each
reads any such text "as text"; what tells them apart is which letters come out.
:func:`latin_encoding` decodes the bytes in each and keeps the one whose accented letters
one language's alphabet holds best (Hungarian `ő` and `ű` read in Windows-1252 as `õ` and
`û`, which no one language writes beside `é` and `ö`; Polish `ł` reads as `³`, a sign
inside a word). A tie goes to Windows-1252, the most common. It is a guess, as
:mod:`.encoding_hint` says: a text of few accented letters can fit several.

Example:
    >>> latin_encoding("Größe und Straße, café".encode("cp1252"))
    'cp1252'
    >>> latin_encoding("Árvíztűrő tükörfúrógép és ő".encode("cp1250"))
    'cp1250'
    >>> latin_encoding("Zażółć gęślą jaźń, łódź".encode("iso-8859-2"))
    'iso8859-2'
    >>> latin_encoding("Işık, güneş ve dağ; İstanbul".encode("cp1254"))
    'cp1254'
    >>> latin_encoding("Price: £20, or 25 €".encode("cp1252"))  # no letter to tell by
    'cp1252'
"""

from __future__ import annotations

import re
from collections import Counter

__all__ = ["ALPHABETS", "LATIN", "latin_encoding"]

#: (Python codec, name said, iconv name), the first preferred on a tie
LATIN = (("cp1252", "Windows-1252 (Latin-1)", "WINDOWS-1252"),
         ("cp1250", "Windows-1250 (Central European)", "WINDOWS-1250"),
         ("iso8859-2", "ISO-8859-2 (Central European)", "ISO-8859-2"),
         ("cp1254", "Windows-1254 (Turkish)", "WINDOWS-1254"))

#: the letters beyond ASCII each language writes (lower case)
ALPHABETS = {
    "French": "àâæçéèêëîïôœùûüÿ", "German": "äöüß", "Spanish": "áéíñóúü",
    "Portuguese": "ãõáâàçéêíóôú", "Italian": "àèéìíòóù", "Dutch": "éëïóöüèáê",
    "Danish/Norwegian": "åæøéó", "Swedish/Finnish": "åäöé", "Icelandic": "áðéíóúýþæö",
    "Catalan": "àçéèíïòóúü", "Hungarian": "áéíóöőúüű", "Czech": "áčďéěíňóřšťúůýž",
    "Slovak": "áäčďéíĺľňóôŕšťúýž", "Polish": "ąćęłńóśźż", "Croatian/Slovene": "čćđšž",
    "Romanian": "ăâîșțşţ", "Turkish": "çğıöşüâîû",
}
_SETS = {name: frozenset(letters) for name, letters in ALPHABETS.items()}
_C1 = re.compile(r"[\x80-\x9f]")  # ISO-8859-2's control bytes: not such text
_BEYOND_ASCII = re.compile(r"[^\x00-\x7f]")


def _fit(text: str) -> float:
    """The share of ``text``'s accented letters in words (beside another letter: a lone
    ``£`` is no ``Ł``) and signs inside words (which no alphabet holds) that the one
    language fitting them best writes; 0 without any."""
    seen: Counter[str] = Counter()
    for m in _BEYOND_ASCII.finditer(text):
        i, ch = m.start(), m.group()
        before = i > 0 and text[i - 1].isalpha()
        after = i < len(text) - 1 and text[i + 1].isalpha()
        if ch.isalpha() and (before or after):
            seen["ı" if ch == "İ" else ch.lower()] += 1  # (İ: Turkish's own, as ı)
        elif before and after:
            seen[""] += 1  # a sign inside a word: Polish ł read as ³
    total = sum(seen.values())
    if not total:
        return 0.0
    return max(sum(n for ch, n in seen.items() if ch in letters)
               for letters in _SETS.values()) / total


def latin_encoding(data: bytes) -> str | None:
    """The codec of :data:`LATIN` whose reading of ``data`` fits one language's alphabet
    best (the earlier on a tie: Windows-1252 first); None when none reads it (a byte each
    leaves undefined, or ISO-8859-2's control bytes)."""
    best, best_fit = None, -1.0
    for codec, _, _ in LATIN:
        try:
            text = data.decode(codec)
        except UnicodeDecodeError:
            continue
        if _C1.search(text):
            continue
        fit = _fit(text)
        if fit > best_fit:
            best, best_fit = codec, fit
    return best
