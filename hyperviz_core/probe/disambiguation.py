"""Structural disambiguation probe (paper Table 3): a positive vs a lexically similar distractor.

From a drawn hypergraph (a rendering's export, visual IDs) pick an *anchor* entity, a
*positive* entity that shares a hyperedge with it, and a *distractor* whose name is lexically
similar to the positive's (:func:`name_similarity` ≥ :data:`SIMILARITY_MIN`) but which shares
no hyperedge with the anchor. Both candidates are drawn in the same rendering. The question
asks which of the two IDs is connected to the anchor; the expected answer is the positive.
Anchors (and positives) without a valid distractor are skipped; a drawing without any
instance yields None.

Example:
    >>> edges = {"H1": ["E1", "E2"], "H2": ["E3", "E4"]}
    >>> names = {"E1": "Paris", "E2": "Saint Louis", "E3": "Louisville", "E4": "St. Louis"}
    >>> name_similarity("Saint Louis", "St. Louis")
    0.842105
    >>> [t.model_dump() for t in disambiguation_triples(edges, names)][0]
    {'anchor': 'E1', 'positive': 'E2', 'distractor': 'E4', 'similarity': 0.842105}
    >>> text = question_text("E1", ["E4", "E2"])
    >>> parse_disambiguation(text)
    ('E1', ['E4', 'E2'])
    >>> solve_disambiguation(edges, text)
    ['E2']
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from difflib import SequenceMatcher
from typing import Any

from pydantic import BaseModel

__all__ = ["SIMILARITY_MIN", "TASK", "Triple", "disambiguation_question",
           "disambiguation_triples", "name_similarity", "name_tokens", "parse_disambiguation",
           "question_text", "solve_disambiguation"]

TASK = "disambiguation"
SIMILARITY_MIN = 0.6
"""A distractor's name must be at least this similar to the positive's."""

_TOKEN = re.compile(r"[^\W_]+", re.UNICODE)
_QUESTION = re.compile(r"Which of the entities (E\d+) and (E\d+) is connected to (E\d+) ")


class Triple(BaseModel):
    """One disambiguation instance (visual IDs) and the names' similarity."""

    anchor: str
    positive: str
    distractor: str
    similarity: float


def name_tokens(name: str) -> list[str]:
    """Lower-case word tokens of a name (letters and digits; punctuation dropped)."""
    return _TOKEN.findall(name.casefold())


def name_similarity(a: str, b: str) -> float:
    """Lexical similarity of two names in [0, 1], deterministic and symmetric: the larger of
    the token Jaccard overlap and difflib's character ratio of the normalised names (either
    order; 6 decimals).

    >>> name_similarity("Entity 023", "Entity 007"), name_similarity("Paris", "Rome")
    (0.8, 0.222222)
    """
    ta, tb = name_tokens(a), name_tokens(b)
    if not ta or not tb:
        return 0.0
    jac = len(set(ta) & set(tb)) / len(set(ta) | set(tb))
    na, nb = " ".join(ta), " ".join(tb)
    ratio = max(SequenceMatcher(None, na, nb, autojunk=False).ratio(),
                SequenceMatcher(None, nb, na, autojunk=False).ratio())  # symmetric
    return round(max(jac, ratio), 6)


def _key(vid: str) -> tuple[str, int]:
    return vid[:1], int(vid[1:]) if vid[1:].isdigit() else -1


def disambiguation_triples(edges: Mapping[str, Sequence[str]], names: Mapping[str, str],
                           min_similarity: float = SIMILARITY_MIN) -> list[Triple]:
    """Every (anchor, positive) pair with its best distractor (highest similarity to the
    positive's name, ties by ID), in ID order. Only entities in ``names`` (drawn) count."""
    neighbours: dict[str, set[str]] = {}
    for h in sorted(edges, key=_key):
        ms = [m for m in edges[h] if m in names]
        for m in ms:
            neighbours.setdefault(m, set()).update(x for x in ms if x != m)
    ents = sorted(names, key=_key)
    memo: dict[tuple[str, str], float] = {}

    def sim(a: str, b: str) -> float:
        pair = (a, b) if _key(a) <= _key(b) else (b, a)
        if pair not in memo:
            memo[pair] = name_similarity(names[a], names[b])
        return memo[pair]

    out: list[Triple] = []
    for anchor in ents:
        linked = neighbours.get(anchor, set())
        if not linked:
            continue
        free = [d for d in ents if d != anchor and d not in linked]
        for pos in sorted(linked, key=_key):
            scored = [(sim(pos, d), d) for d in free]
            scored = [(s, d) for s, d in scored if s >= min_similarity]
            if scored:
                s, d = min(scored, key=lambda sd: (-sd[0], _key(sd[1])))
                out.append(Triple(anchor=anchor, positive=pos, distractor=d, similarity=s))
    return out


def question_text(anchor: str, candidates: Sequence[str]) -> str:
    """The question about ``anchor`` and the two candidate IDs (in the given order)."""
    a, b = candidates
    return (f"Which of the entities {a} and {b} is connected to {anchor} (shares a hyperedge "
            f"with it)? Their names look alike; answer with exactly one of the two E# IDs.")


def parse_disambiguation(text: str) -> tuple[str, list[str]] | None:
    """``(anchor, [candidate, candidate])`` of a question made here, else None."""
    m = _QUESTION.search(text)
    return (m.group(3), [m.group(1), m.group(2)]) if m else None


def solve_disambiguation(edges: Mapping[str, Sequence[str]], text: str) -> list[str]:
    """The candidate(s) of the question in ``text`` sharing a hyperedge with its anchor."""
    parsed = parse_disambiguation(text)
    if parsed is None:
        return []
    anchor, cands = parsed
    linked = {m for ms in edges.values() if anchor in ms for m in ms if m != anchor}
    return [c for c in cands if c in linked]


def disambiguation_question(
    export: Mapping[str, Any], rng: random.Random,
    prefer: Callable[[tuple[str, list[str], list[str]]], Any] | None = None,
) -> tuple[str, list[str], list[str]] | None:
    """``(question, [], [positive])`` about the drawing in ``export``, or None when no anchor
    has a lexically similar, unconnected distractor. The candidates' order is random.
    ``prefer``, when given, ranks the questions of every triple (taken in a seeded random
    order, each with its candidates shuffled) and the lowest-ranked one is asked (ties: the
    first); without it one triple is drawn."""
    edges = {str(e["id"]): [str(m) for m in e.get("members") or []]
             for e in export.get("hyperedges") or []}
    names = {str(e["id"]): str(e.get("name") or "") for e in export.get("entities") or []}
    triples = disambiguation_triples(edges, names)
    if not triples:
        return None
    if prefer is not None:
        rng.shuffle(triples)
        return min((_ask(t, rng) for t in triples), key=prefer)
    return _ask(triples[rng.randrange(len(triples))], rng)


def _ask(t: Triple, rng: random.Random) -> tuple[str, list[str], list[str]]:
    cands = [t.positive, t.distractor]
    rng.shuffle(cands)
    return question_text(t.anchor, cands), [], [t.positive]
