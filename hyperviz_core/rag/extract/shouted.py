"""Sentences written in capitals ("THE COMPANY SHALL PAY THE CONTRACTOR ..."): the offline
extractor finds names by their capitals, so such a sentence was one long name.

In a sentence whose words are mostly in capitals (:func:`is_shouted`: three words or more
of two letters or more, four in five of them in capitals), :func:`unshouted` writes in lower
case the words the text also writes in lower case elsewhere (the chunk's lower-case
vocabulary) and the stopwords, keeping every offset; the extractor reads its names in that
copy, without joining two of them by a connector (``OF``, ``THE``: ``DIARY OF SAMUEL
PEPYS`` gives ``DIARY`` and ``SAMUEL PEPYS``), and takes their text from the sentence as
written. "MARIE CURIE WORKED IN PARIS WITH PIERRE CURIE" in a chunk that writes "worked"
gives ``MARIE CURIE``, ``PARIS`` and ``PIERRE CURIE`` (one entity each with ``Marie Curie``
... elsewhere: keys are case-folded); an acronym (``NASA``) stays a name.

Limits (honest): a word in capitals that the chunk never writes in lower case and that is
no stopword stays capitalised, so a chunk entirely in capitals still gives the runs between
its stopwords (``COMPANY``, ``PAY``, ``CONTRACTOR``) as names, and a name made of words the
chunk writes in lower case is cut (``STEEPLE ROCK`` gives ``STEEPLE`` where the prose says
"rock"), as is one joined by a connector (``BANK OF ENGLAND``); a word whose lower case has
another length (``İ``) is left as it is.

Cherokee is written in the letters Unicode calls capitals: :func:`small_syllabary` reads a
sentence mostly in them with its letters small, so it is not one long name either.

Example:
    >>> unshouted("MARIE CURIE WORKED IN PARIS.", frozenset({"worked"}), frozenset({"in"}))
    'MARIE CURIE worked in PARIS.'
    >>> unshouted("NASA and the FBI met.", frozenset(), frozenset({"and", "the"})) is None
    True
"""

from __future__ import annotations

import re

__all__ = ["is_shouted", "small_syllabary", "unshouted"]

_WORD = re.compile(r"[^\W\d_]{2,}")


def _capitals() -> str:
    """A character class of the capitals of the Basic Multilingual Plane, as ranges."""
    ranges: list[tuple[int, int]] = []
    for c in range(0x10000):
        if chr(c).isupper():
            if ranges and ranges[-1][1] == c - 1:
                ranges[-1] = (ranges[-1][0], c)
            else:
                ranges.append((c, c))
    return "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "")
                   for a, b in ranges)


#: two capitals in a row: a sentence without them is no sentence in capitals (a quick test
#: before the words are counted)
_TWO_CAPITALS = re.compile(f"[{_capitals()}]{{2}}")


#: Cherokee's syllabary, written in the letters Unicode calls its capitals (its small ones,
#: added in 2015, little text uses): they mark no name, so a sentence of them was one name
_CHEROKEE = re.compile("[\u13a0-\u13f5]")
_CHEROKEE_SMALL = {c: ord(chr(c).lower()) for c in range(0x13A0, 0x13F6)}


def small_syllabary(sentence: str) -> str:
    """``sentence`` with Cherokee's letters written small when most of its letters are
    Cherokee's, every offset kept (each has one small letter), so the extractor takes none
    of them for a name's capital. A Cherokee name in a sentence of another script stays a
    name (``Tennessee (Cherokee: ᏔᎾᏏ, Tanasi) is a state``).

    >>> small_syllabary("ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ Sequoyah") == "ꮳꮃꭹ ꭶꮼꮒꭿꮝꮧ Sequoyah"
    True
    >>> small_syllabary("Tennessee (Cherokee: ᏔᎾᏏ) is a state.")[21:]
    'ᏔᎾᏏ) is a state.'
    """
    cherokee = len(_CHEROKEE.findall(sentence))
    if not cherokee or 2 * cherokee <= sum(c.isalpha() for c in sentence):
        return sentence
    return sentence.translate(_CHEROKEE_SMALL)


def is_shouted(sentence: str) -> bool:
    """Whether ``sentence`` is written in capitals: at least three words of two letters or
    more, at least four in five of them in capitals."""
    if _TWO_CAPITALS.search(sentence) is None:
        return False
    words = _WORD.findall(sentence)
    caps = sum(w.isupper() for w in words)
    return caps >= 3 and caps >= 0.8 * len(words)


def unshouted(sentence: str, lower_vocab: frozenset[str],
              stopwords: frozenset[str]) -> str | None:
    """``sentence`` with its words in capitals that ``lower_vocab`` holds in lower case, or
    that are ``stopwords`` (case-folded), written in lower case (the same offsets); None
    when the sentence is not written in capitals (:func:`is_shouted`)."""
    if not is_shouted(sentence):
        return None

    def lower(m: re.Match[str]) -> str:
        word = m.group(0)
        low = word.lower()
        if word.isupper() and len(low) == len(word) and (
                low in lower_vocab or word.casefold() in stopwords):
            return low
        return word

    return _WORD.sub(lower, sentence)
