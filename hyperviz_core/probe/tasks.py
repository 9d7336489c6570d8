"""Structural probe tasks with exact ground truth (paper Fig. 2b).

Both tasks read the *drawn* hypergraph — the ``hyperedges[].id/members`` of a rendering's
export, in visual IDs — so the expected answer is exactly what the image shows, after
congestion control.

* ``overlap-core``: the entities common to all (or to most: more than half) of a named set
  of hyperedges.
* ``bridge-hyperedge``: the hyperedges whose removal alone disconnects entities that still
  belong to other hyperedges; when there is none, the hyperedge(s) of highest betweenness
  centrality in the incidence graph (exact ties all count). Betweenness is the usual
  fractional one (a pair of items joined by ``k`` shortest paths gives each path ``1/k``),
  and the question words it so.

Example:
    >>> edges = {"H1": ["E1", "E2", "E3"], "H2": ["E2", "E3", "E4"], "H3": ["E4", "E5"],
    ...          "H4": ["E5", "E6"]}
    >>> overlap_core(edges, ["H1", "H2"], "all")
    ['E2', 'E3']
    >>> bridges(edges)
    ['H2', 'H3']
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import networkx as nx

__all__ = ["DEFAULT_TASKS", "OVERLAP_DRAWS", "TASKS", "Preference", "Question", "bridges",
           "edges_of", "make_question", "overlap_core", "top_betweenness", "vid_key"]

DEFAULT_TASKS: tuple[str, ...] = ("overlap-core", "bridge-hyperedge")
"""The tasks made by default (Table 5, dual-view selection, parameter search)."""
TASKS: tuple[str, ...] = (*DEFAULT_TASKS, "disambiguation")
"""Every task; ``disambiguation`` (Table 3) lives in :mod:`.disambiguation`."""
Edges = Mapping[str, Sequence[str]]
Question = tuple[str, list[str], list[str]]
"""(question text, hyperedges named in it, expected IDs)."""
Preference = Callable[[Question], Any]
"""Ranks candidate questions of one drawing (lowest first; ties: the first candidate)."""
OVERLAP_DRAWS = 16
"""Overlap questions drawn from one drawing (one seeded stream) when a preference picks."""


def vid_key(vid: str) -> tuple[str, int]:
    """Sort key of a visual ID (``E2`` before ``E10``)."""
    return vid[:1], int(vid[1:]) if vid[1:].isdigit() else -1


def edges_of(export: Mapping[str, Any]) -> dict[str, list[str]]:
    """``{H#: [E#, ...]}`` of the hyperedges drawn in an export."""
    return {str(e["id"]): [str(m) for m in e.get("members") or []]
            for e in export.get("hyperedges") or []}


def overlap_core(edges: Edges, named: Sequence[str], mode: Literal["all", "most"]) -> list[str]:
    """Entities in every named hyperedge (``all``) or in more than half of them (``most``).

    Raises ``ValueError`` for another ``mode`` or a hyperedge not in ``edges``.

    >>> overlap_core({"H1": ["E1"]}, ["H1", "H9"], "all")
    Traceback (most recent call last):
    ...
    ValueError: overlap_core: unknown hyperedge(s) H9 (not among the 1 given)
    """
    if mode not in ("all", "most"):
        raise ValueError(f"overlap_core: unknown mode {mode!r}; use 'all' or 'most'")
    unknown = [h for h in dict.fromkeys(named) if h not in edges]
    if unknown:
        raise ValueError(f"overlap_core: unknown hyperedge(s) {', '.join(map(str, unknown))} "
                         f"(not among the {len(edges)} given)")
    need = len(named) if mode == "all" else len(named) // 2 + 1
    count: dict[str, int] = {}
    for h in named:
        for m in set(edges[h]):
            count[m] = count.get(m, 0) + 1
    return sorted((m for m, c in count.items() if c >= need), key=vid_key)


def _components(edges: Edges, skip: str | None = None) -> dict[str, str]:
    """Entity → component index, joining entities through hyperedges other than ``skip``."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for h in sorted(edges, key=vid_key):
        if h == skip:
            continue
        ms = list(edges[h])
        for m in ms:
            find(m)
        for m in ms[1:]:
            parent[find(m)] = find(ms[0])
    return {m: find(m) for m in sorted(parent)}


def bridges(edges: Edges) -> list[str]:
    """Hyperedges whose removal disconnects two of their members that keep another
    hyperedge (removing a hyperedge that only strands its leaf members is no bridge)."""
    out = []
    for h in sorted(edges, key=vid_key):
        rest = _components(edges, skip=h)
        kept = [m for m in dict.fromkeys(edges[h]) if m in rest]
        if len({rest[m] for m in kept}) > 1:
            out.append(h)
    return out


def top_betweenness(edges: Edges) -> list[str]:
    """Hyperedge(s) of highest betweenness in the incidence graph (ties: all of them)."""
    g = nx.Graph()
    for h in sorted(edges, key=vid_key):
        g.add_node(h)
        for m in edges[h]:
            g.add_edge(h, m)
    if not len(edges):
        return []
    bc = nx.betweenness_centrality(g, normalized=False)
    best = max(round(bc[h], 9) for h in edges)
    if best <= 0:
        return []
    return sorted((h for h in edges if round(bc[h], 9) == best), key=vid_key)


def _overlap_question(edges: Edges, rng: random.Random) -> Question | None:
    hids = sorted(edges, key=vid_key)
    pairs = [(a, b) for i, a in enumerate(hids) for b in hids[i + 1:]
             if set(edges[a]) & set(edges[b])]
    if not pairs:
        return None
    a, b = pairs[rng.randrange(len(pairs))]
    named = [a, b]
    third = [h for h in hids if h not in named and set(edges[h]) & (set(edges[a]) | set(edges[b]))]
    if third and rng.random() < 0.5:
        named.append(third[rng.randrange(len(third))])
    named.sort(key=vid_key)
    mode: Literal["all", "most"] = "most" if len(named) == 3 and rng.random() < 0.5 else "all"
    answer = overlap_core(edges, named, mode)
    if not answer:  # three hyperedges sharing nothing: ask about the sampled overlapping pair
        named = sorted([a, b], key=vid_key)
        mode, answer = "all", overlap_core(edges, named, "all")
    which = "every one" if mode == "all" else "at least two"
    text = (f"Which entities (E#) belong to {which} of the hyperedges {', '.join(named)}? "
            "List every such E# ID.")
    return text, named, answer


def _bridge_question(edges: Edges) -> Question | None:
    found = bridges(edges)
    if found:
        text = ("Which hyperedges (H#) are bridges: removing that one hyperedge alone would "
                "disconnect entities that still belong to other hyperedges? List every such "
                "H# ID.")
        return text, [], found
    top = top_betweenness(edges)
    if not top:
        return None
    text = ("Which hyperedge (H#) has the highest betweenness centrality in the incidence "
            "structure: the largest share of the shortest paths between the other items that "
            "pass through it (when two items are joined by k shortest paths, each path counts "
            "1/k)? List it (all of them if tied).")
    return text, [], top


def _preferred_overlap(edges: Edges, rng: random.Random, prefer: Preference
                       ) -> Question | None:
    """The best-ranked of :data:`OVERLAP_DRAWS` overlap questions drawn from ``rng`` (the
    first is the one drawn without a preference; repeats count once)."""
    first = _overlap_question(edges, rng)
    if first is None:
        return None
    drawn = {first[0]: first}
    for _ in range(OVERLAP_DRAWS - 1):
        q = _overlap_question(edges, rng)
        assert q is not None  # the same drawing: an instance once, an instance always
        drawn.setdefault(q[0], q)
    return min(drawn.values(), key=prefer)  # min keeps the first of equal ranks


def make_question(export: Mapping[str, Any], task: str, rng: random.Random,
                  prefer: Preference | None = None) -> Question | None:
    """A question of ``task`` about the drawing in ``export``, or None if it has no instance.

    ``prefer``, when given, ranks the drawing's candidate questions and the lowest-ranked
    one is asked (ties: the first drawn): :data:`OVERLAP_DRAWS` seeded overlap questions,
    every disambiguation triple; a bridge question has no alternative. Without it the
    question is the one ``rng`` draws (as before balancing,
    :class:`~hyperviz_core.probe.balance.AnswerBalance`)."""
    edges = edges_of(export)
    if task == "overlap-core":
        return (_overlap_question(edges, rng) if prefer is None
                else _preferred_overlap(edges, rng, prefer))
    if task == "bridge-hyperedge":
        return _bridge_question(edges)
    if task == "disambiguation":
        from .disambiguation import disambiguation_question

        return disambiguation_question(export, rng, prefer)
    raise ValueError(f"unknown probe task {task!r}; choose from {', '.join(TASKS)}")
