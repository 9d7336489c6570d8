"""A dash or semicolon inside brackets splits no clause (stop 61).

"Karel Purkyně (15 March 1834, Wrocław – 5 April 1868, Prague) was a painter in the
Austro-Hungarian Empire." was two hyperedges, split at the dash between his dates: the
second ("5 April 1868, Prague) was a painter in the Austro-Hungarian Empire") had lost its
subject, so the fact that he was a painter there did not name him (seen in `make demo`).
"""

from __future__ import annotations

from hyperviz_core.rag.extract.heuristic import HeuristicExtractor
from hyperviz_core.rag.extract.spans import split_clauses

PURKYNE = ("Karel Purkyně (15 March 1834, Wrocław – 5 April 1868, Prague) was a painter in "
           "the Austro-Hungarian Empire.")


def _clauses(sentence: str) -> list[str]:
    return [sentence[a:b] for a, b in split_clauses(sentence)]


def test_a_dash_between_dates_in_brackets_keeps_the_subject_with_its_fact() -> None:
    assert _clauses(PURKYNE) == [PURKYNE]
    (edge,) = HeuristicExtractor().extract_text(PURKYNE, "c").hyperedges
    assert edge.members[0] == "karel purkyně"
    assert {"prague", "austro-hungarian empire", "5 april 1868"} <= set(edge.members)


def test_dashes_and_semicolons_outside_brackets_still_split() -> None:
    text = "The band [formed in Oslo; later in Bergen] toured Europe; it split – for good."
    assert _clauses(text) == ["The band [formed in Oslo; later in Bergen] toured Europe",
                              "it split", "for good."]


def test_unmatched_brackets() -> None:
    assert _clauses("1) Oslo – the capital; 2) Bergen.") == [
        "1) Oslo", "the capital", "2) Bergen."]  # a closing bracket alone opens nothing
    assert _clauses("Oslo (the capital – of Norway; see below") == [
        "Oslo (the capital – of Norway; see below"]  # unclosed: the rest is inside
