"""Peeling for congestion control (:mod:`hyperviz_core.prune`): the removal order of
entities, least important first, the hypergraph left after a prefix of it, and the
hyperedges a drawing over budget loses first (:func:`_repeated`).

Both are near-linear in the incidences: the peeler keeps its own live member counts and
charges a hyperedge once, when it goes (not once per co-member of every peeled entity), and
the kept hypergraph is built in one pass (not by removing entities one by one, which rebuilt
a large hyperedge each time). ``tests/test_prune_peel.py`` holds both to the straightforward
implementation on random hypergraphs.
"""

from __future__ import annotations

import heapq

from .items import Hyperedge
from .model import Hypergraph

__all__: list[str] = []


class _Peeler:
    """Lowest current importance first: α·(current degree / m₀) + β·BM25, ties against
    entities that miss the query (only when β > 0), then by key. Degrees are re-read after
    every removal (like k-core peeling), so the kept entities still share hyperedges.

    ``hg`` is only read: the peeler keeps its own live member counts. A removal shrinks the
    peeled entity's hyperedges by one; a hyperedge left with fewer than two members goes
    (as in :meth:`Hypergraph.remove_entity`), and only its last member's degree — hence
    importance — changes. Each hyperedge is charged once, when it goes, so peeling
    everything is O(incidences + (entities + hyperedges)·log entities), not quadratic in a
    hyperedge's size; stale heap entries are skipped when popped."""

    def __init__(self, hg: Hypergraph, alpha: float, imp0: dict[str, float],
                 match: dict[str, float], m0: int) -> None:
        self.m0 = m0
        self.alpha = alpha
        keys = sorted(hg.entities)
        self.degree = {k: hg.degree(k) for k in keys}
        # the query part of the importance: what remains after the centrality term
        self.bm = {k: imp0[k] - alpha * self.degree[k] / m0 for k in keys}
        self.match = {k: match.get(k, 0.0) > 0 for k in keys}
        self.incident = {k: hg.neighbors(k) for k in keys}
        self.members = {hid: hg.members(hid) for hid in sorted(hg.hyperedges)}
        self.size = {hid: len(members) for hid, members in self.members.items()}
        self.left = dict.fromkeys(keys, True)  # entities not peeled yet
        self.value: dict[str, float] = {}
        self.heap: list[tuple[float, bool, str]] = []
        for k in keys:
            self.touch(k)

    def touch(self, key: str) -> None:
        val = round(self.alpha * self.degree[key] / self.m0 + self.bm[key], 9)
        if self.value.get(key) != val:
            self.value[key] = val
            heapq.heappush(self.heap, (val, self.match[key], key))

    def lowest(self) -> str:
        while self.heap:
            val, _, key = heapq.heappop(self.heap)
            if key in self.left and self.value.get(key) == val:
                return key
        raise RuntimeError("no entity left to prune")  # pragma: no cover - guarded by callers

    def remove(self, key: str) -> list[str]:
        """Peel ``key``; returns the ids of the hyperedges that went with it (sorted)."""
        del self.left[key]
        gone: list[str] = []
        changed: list[str] = []
        for hid in self.incident.pop(key):
            size = self.size.get(hid)
            if size is None:
                continue  # already gone
            if size > 2:
                self.size[hid] = size - 1
                continue
            del self.size[hid]
            gone.append(hid)
            for m in self.members.pop(hid):  # once per hyperedge: ≤ 1 member is left
                if m != key and m in self.left:
                    self.degree[m] -= 1
                    changed.append(m)
        for m in sorted(set(changed)):
            self.touch(m)
        return gone


def _kept(hg: Hypergraph, order: list[str], k: int) -> Hypergraph:
    """``hg`` without the first ``len(order) - k`` entities of the peel order: a copy of
    ``hg`` after :meth:`Hypergraph.remove_entity` of each of them, built in one pass (linear
    in the incidences, where removing them one by one rebuilt a large hyperedge each time).
    A hyperedge that lost members keeps the others in order, or goes under two."""
    cut = set(order[: len(order) - k])
    if not cut:
        return hg.copy()
    entities = {key: ent.model_copy(deep=True)
                for key, ent in sorted(hg.entities.items()) if key not in cut}
    edges: dict[str, Hyperedge] = {}
    for hid, edge in sorted(hg.hyperedges.items()):
        members = [m for m in edge.members if m not in cut]
        if len(members) == len(edge.members):
            edges[hid] = edge.model_copy(deep=True)
        elif len(members) >= 2:
            copied = edge.model_copy(deep=True)
            attrs = {m: a for m, a in copied.member_attrs.items() if m not in cut}
            edges[hid] = copied.model_copy(update={
                "members": members, "member_attrs": attrs,
                "order": "low" if len(members) <= 2 else "high"})
    return Hypergraph(entities=entities, hyperedges=edges, metadata=dict(hg.metadata))


def _dropped(hg: Hypergraph, cut: list[str]) -> list[str]:
    """Ids of the hyperedges that removing ``cut`` from ``hg`` one by one (in that order,
    :meth:`Hypergraph.remove_entity`) drops, in the order it drops them: a hyperedge of
    ``s`` members goes with its ``max(1, s - 1)``-th removed member (then under two), those
    going at one removal by id. One pass over the incidences."""
    at = {key: i for i, key in enumerate(cut)}
    out: list[tuple[int, str]] = []
    for hid, edge in sorted(hg.hyperedges.items()):
        steps = sorted(at[m] for m in edge.members if m in at)
        need = max(1, len(edge.members) - 1)
        if len(steps) >= need:
            out.append((steps[need - 1], hid))
    return [hid for _, hid in sorted(out)]


def _repeated(hg: Hypergraph, before: Hypergraph | None = None) -> list[str]:
    """Ids of the hyperedges a drawing over budget drops before any entity (sorted): those
    with fewer than two members (a region around one disk shows no relation) and those
    whose member set another hyperedge of ``hg`` already draws (a second outline around
    the same disks). Of one member set the strongest stays: one still whole (as many
    members as in ``before``, the hypergraph before any entity was peeled), then the
    heaviest, then the first id.

    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name=n) for n in "abc"], hyperedges=[
    ...     Hyperedge(id="h1", members=["a", "b"]), Hyperedge(id="h2", members=["b", "a"],
    ...     weight=2.0), Hyperedge(id="h3", members=["c"]), Hyperedge(id="h4",
    ...     members=["a", "c"])])
    >>> _repeated(hg)
    ['h1', 'h3']
    """
    best: dict[frozenset[str], tuple[bool, float, str]] = {}
    out: list[str] = []
    for hid, edge in sorted(hg.hyperedges.items()):
        members = frozenset(edge.members)
        if len(members) < 2:
            out.append(hid)
            continue
        whole = before is None or len(before.hyperedges[hid].members) == len(edge.members)
        rank = (not whole, -edge.weight, hid)
        held = best.get(members)
        if held is None or rank < held:
            if held is not None:
                out.append(held[2])
            best[members] = rank
        else:
            out.append(hid)
    return sorted(out)


def _without(hg: Hypergraph, hids: list[str]) -> Hypergraph:
    """A copy of ``hg`` without the hyperedges ``hids`` (its entities all kept)."""
    gone = set(hids)
    return Hypergraph(
        entities={key: ent.model_copy(deep=True) for key, ent in sorted(hg.entities.items())},
        hyperedges={hid: edge.model_copy(deep=True)
                    for hid, edge in sorted(hg.hyperedges.items()) if hid not in gone},
        metadata=dict(hg.metadata))
