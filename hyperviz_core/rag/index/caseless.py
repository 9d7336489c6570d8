"""Texts the offline extractor cannot read names in: scripts without capital letters.

The offline (heuristic) extractor finds names by their capitals (``Marie Curie``, ``Москва``).
Chinese, Japanese, Korean, Arabic, Hebrew, Thai, Devanagari ... have no letter case, so a
document written in them gives no entity (but for the Chinese, Japanese and Korean mentions
:mod:`~..extract.cjk` has cues for: dates, amounts, bracketed titles, katakana names, names
ending in an organisation's or a place's suffix, and the people named after a title in
Chinese, Japanese, Korean, Hindi, Arabic, Hebrew, Persian and Urdu,
:mod:`~..extract.titled`): it is stored, chunked and found by BM25,
but adds nothing to the hypergraph. The indexer names such documents once per run
(:meth:`~.report.IndexReport.caseless_warning`), so the user knows to index them with a
model.

Example:
    >>> written_without_case("星辰科技公司的总部在北京。"), written_without_case("Marie Curie.")
    (True, False)
    >>> written_without_case("أحمد حسن يعمل في القاهرة"), written_without_case("1999, 2000")
    (True, False)
"""

from __future__ import annotations

import unicodedata

__all__ = ["written_without_case"]

#: the letters looked at (a document's first characters say its script well enough)
_SAMPLE = 20_000


def written_without_case(text: str) -> bool:
    """Whether most letters of ``text`` (its first 20,000 characters) have no case
    (Unicode category ``Lo``: letters of scripts without capitals)."""
    cased = caseless = 0
    for ch in text[:_SAMPLE]:
        cat = unicodedata.category(ch)
        if cat == "Lo":
            caseless += 1
        elif cat in ("Lu", "Ll", "Lt"):
            cased += 1
    return caseless > cased
