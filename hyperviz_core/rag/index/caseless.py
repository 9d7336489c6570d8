"""Texts the offline extractor cannot read names in: scripts without capital letters.

The offline (heuristic) extractor finds names by their capitals (``Marie Curie``, ``Москва``).
Chinese, Japanese, Korean, Arabic, Hebrew, Thai, Devanagari ... have no letter case (and
Georgian and Cherokee capitalise no name), so a document written in them gives no entity
(but for the mentions :mod:`~..extract.cjk` has cues for in Chinese, Japanese and Korean:
dates, amounts, bracketed titles, katakana names, names ending in an organisation's or a
place's suffix, and the people named after a title in Chinese, Japanese, Korean, Hindi,
Arabic, Hebrew, Persian and Urdu, :mod:`~..extract.titled`): it is stored, chunked and
found by BM25, but adds nothing to the hypergraph. The indexer names such documents once per run
(:meth:`~.report.IndexReport.caseless_warning`, by :func:`written_without_capitals`), so
the user knows to index them with a model.

Example:
    >>> written_without_case("星辰科技公司的总部在北京。"), written_without_case("Marie Curie.")
    (True, False)
    >>> written_without_case("أحمد حسن يعمل في القاهرة"), written_without_case("1999, 2000")
    (True, False)
"""

from __future__ import annotations

import unicodedata

__all__ = ["written_without_capitals", "written_without_case"]

#: the letters looked at (a document's first characters say its script well enough)
_SAMPLE = 20_000


def written_without_case(text: str) -> bool:
    """Whether most letters of ``text`` (its first 20,000 characters) have no case
    (Unicode category ``Lo``: letters of scripts without capitals)."""
    return _mostly_uncapitalised(text, in_use=False)


def written_without_capitals(text: str) -> bool:
    """Whether most letters of ``text`` (its first 20,000 characters) are of a script whose
    names have no capital: one without case (:func:`written_without_case`), Georgian,
    written in Mkhedruli (U+10D0–U+10FF), to which Unicode gives capitals (Mtavruli) that
    only headings in capitals use: a Georgian name is written as any other word; or
    Cherokee, whose every letter Unicode calls a capital (U+13A0–U+13FF, the small ones
    U+AB70–U+ABBF): no letter marks a name.

    >>> written_without_capitals("თბილისი დედაქალაქია."), written_without_case("თბილისი")
    (True, False)
    >>> written_without_capitals("Երևանը Հայաստանի մայրաքաղաքն է։")  # Armenian: capitals
    False
    >>> written_without_capitals("ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ ᎨᏒᎢ."), written_without_case("ᏣᎳᎩ")
    (True, False)
    """
    return _mostly_uncapitalised(text, in_use=True)


def _mostly_uncapitalised(text: str, in_use: bool) -> bool:
    """``in_use``: count the letters of Georgian and Cherokee, which have case but whose
    capitals mark no name, as letters without case."""
    cased = caseless = 0
    for ch in text[:_SAMPLE]:
        cat = unicodedata.category(ch)
        if cat == "Lo" or (in_use and ("\u10d0" <= ch <= "\u10ff" or "\u13a0" <= ch <= "\u13ff"
                                       or "\uab70" <= ch <= "\uabbf")):
            caseless += 1
        elif cat in ("Lu", "Ll", "Lt"):
            cased += 1
    return caseless > cased
