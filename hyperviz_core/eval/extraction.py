"""Extraction recall against gold spans: how many gold entities one chunk's extraction names,
and how many gold (head, tail) facts it joins in one hyperedge.

A gold name is *found* when an extracted entity key equals its normalised key
(:func:`~hyperviz_core.model.normalize_key`) or, for keys of three characters or more, one
contains the other ("acadia university" finds "Acadia University, Nova Scotia"). A fact is
found when its head and its tail are found and both are members of one extracted hyperedge.
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

from collections.abc import Sequence

from ..model import normalize_key
from ..rag.types import ChunkExtraction

__all__ = ["extraction_hits", "match_entity"]


def match_entity(keys: Sequence[str], name: str) -> str | None:
    """The first of ``keys`` (in the order given) matching the gold ``name``: equal to its
    normalised key, or, for a key of 3+ characters, one containing the other.

    >>> match_entity(["hank snow", "nova scotia"], "Nova Scotia, Canada")
    'nova scotia'
    >>> match_entity(["ns"], "Nova Scotia NS") is None   # too short to match inside
    True
    """
    k = normalize_key(name)
    return next((x for x in keys if x == k or (len(x) > 2 and (x in k or k in x))), None)


def extraction_hits(extraction: ChunkExtraction, entities: Sequence[str],
                    facts: Sequence[tuple[str, str]]) -> tuple[int, int]:
    """(gold ``entities`` found, gold ``facts`` found) in one chunk's ``extraction``: a fact
    ``(head, tail)`` counts when both are found and share an extracted hyperedge."""
    keys = sorted({e.key for e in extraction.entities})
    found = sum(match_entity(keys, name) is not None for name in entities)
    joined = 0
    for head, tail in facts:
        h, t = match_entity(keys, head), match_entity(keys, tail)
        joined += any(h in e.members and t in e.members for e in extraction.hyperedges)
    return found, joined
