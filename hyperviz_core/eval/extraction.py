"""Extraction recall against gold spans: how many gold entities one chunk's extraction names,
and how many gold (head, tail) facts it joins in one hyperedge.

A gold name is *found* when an extracted entity key equals its normalised key
(:func:`~hyperviz_core.model.normalize_key`) or, when both are three characters or more, the
words of one are a run of whole words of the other ("acadia university" finds "Acadia
University, Nova Scotia"; "US" never finds "russia", nor "Art" "stuart smith"). A fact is
found when its head and its tail are found as two *different* extracted entities that are
both members of one extracted hyperedge.
``tests/test_extract.py`` and ``benchmarks/extract_bench.py`` (HyperRED) score with it.

Example:
    >>> from hyperviz_core.rag import HeuristicExtractor
    >>> from hyperviz_core.rag.types import Chunk
    >>> ext = HeuristicExtractor().extract(Chunk(id="c", doc_id="d",
    ...     text="Acadia University is in Wolfville, Nova Scotia."))
    >>> extraction_hits(ext, ["Acadia University", "the river"],
    ...                 [("Acadia University", "Wolfville, Nova Scotia")])
    (1, 1)
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..model import normalize_key
from ..rag.types import ChunkExtraction

__all__ = ["extraction_hits", "match_entity"]

_EDGE = re.compile(r"^[\W_]+|[\W_]+$")


def _words(key: str) -> tuple[str, ...]:
    """The whitespace-separated words of ``key`` without the punctuation around them
    (``"wolfville, nova scotia"`` → ``("wolfville", "nova", "scotia")``)."""
    return tuple(w for w in (_EDGE.sub("", t) for t in key.split()) if w)


def _run_of(part: tuple[str, ...], whole: tuple[str, ...]) -> bool:
    """True when ``part`` (non-empty) occurs as consecutive words of ``whole``."""
    n = len(part)
    return n > 0 and any(whole[i:i + n] == part for i in range(len(whole) - n + 1))


def match_entity(keys: Sequence[str], name: str) -> str | None:
    """The first of ``keys`` (in the order given) matching the gold ``name``: equal to its
    normalised key, or, when both are 3+ characters, the words of one a run of whole words
    of the other.

    >>> match_entity(["hank snow", "nova scotia"], "Nova Scotia, Canada")
    'nova scotia'
    >>> match_entity(["ns"], "Nova Scotia NS") is None   # too short to match inside
    True
    >>> match_entity(["russia"], "US") is None           # not a whole word
    True
    """
    k = normalize_key(name)
    words = _words(k)
    for x in keys:
        if x == k:
            return x
        if len(x) > 2 and len(k) > 2 and (_run_of(_words(x), words) or _run_of(words, _words(x))):
            return x
    return None


def extraction_hits(extraction: ChunkExtraction, entities: Sequence[str],
                    facts: Sequence[tuple[str, str]]) -> tuple[int, int]:
    """(gold ``entities`` found, gold ``facts`` found) in one chunk's ``extraction``: a fact
    ``(head, tail)`` counts when both are found, as two different extracted entities, and
    share an extracted hyperedge."""
    keys = sorted({e.key for e in extraction.entities})
    found = sum(match_entity(keys, name) is not None for name in entities)
    joined = 0
    for head, tail in facts:
        h, t = match_entity(keys, head), match_entity(keys, tail)
        if h is None or t is None or h == t:
            continue
        joined += any(h in e.members and t in e.members for e in extraction.hyperedges)
    return found, joined
