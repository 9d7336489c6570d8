"""Sub-hypergraph selection: induced sub-hypergraphs and score-bounded h-hop expansion.

Example:
    >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
    >>> hg = Hypergraph(entities=[Entity(name=n) for n in "abcd"],
    ...                 hyperedges=[Hyperedge(id="h1", members=["a", "b"]),
    ...                             Hyperedge(id="h2", members=["b", "c", "d"])])
    >>> sorted(induced(hg, ["a", "b", "c"]).hyperedges)
    ['h1']
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Protocol

from ...model import Entity, Hyperedge, Hypergraph

__all__ = [
    "DESCRIPTION_CHARS", "NO_RELAY_TYPES", "FullLayer", "Layer", "as_layer", "expand",
    "induced", "limit_hyperedges", "trim_descriptions",
]

#: entity types (case-folded) an expansion hop does not go on from, seed or not: a date or an
#: amount names a time or a number, not a thing, so two facts that share only "1986" or
#: "70 m" are not connected through it (the hop from a date, a hub, drew the facts of
#: unrelated passages into I_bot, even when the question names the date: "founded in 1986");
#: the heuristic extractor's ``date``/``quantity`` and the usual spellings of LLM extractors
NO_RELAY_TYPES = frozenset({"date", "time", "year", "duration", "quantity", "number",
                            "percent", "percentage", "money", "cardinal", "ordinal"})


class Layer(Protocol):
    """What :func:`expand` and :func:`induced` read of a layer: a loaded
    :class:`~hyperviz_core.model.Hypergraph` (:class:`FullLayer`) or indexed store lookups
    (:class:`~.layer_index.IndexedLayer`)."""

    def prefetch(self, keys: Iterable[str]) -> None:
        """Hint: ``neighbors`` of these keys will be read next."""
    def known(self, keys: Iterable[str]) -> set[str]: ...
    def neighbors(self, key: str) -> list[str]: ...
    def degree(self, key: str) -> int:
        """``len(neighbors(key))``."""
    def edge_sizes(self, hids: Iterable[str]) -> dict[str, int]: ...
    def smallest_edges(self, key: str, n: int) -> list[str]:
        """The ``n`` first of ``neighbors(key)`` by (number of members, id)."""
    def has_edge(self, hid: str) -> bool: ...
    def members(self, hids: Iterable[str]) -> dict[str, list[str]]: ...
    def inside(self, keys: set[str]) -> list[str]:
        """Sorted ids of the hyperedges whose members all lie in ``keys``."""
    def entity_objects(self, keys: Iterable[str]) -> dict[str, Entity]: ...
    def edge_objects(self, hids: Iterable[str]) -> dict[str, Hyperedge]: ...
    def metadata(self) -> dict[str, object]: ...


class FullLayer:
    """:class:`Layer` over a loaded hypergraph.

    Kept per store state by the loaded corpus (:meth:`~.state.Corpus.layer`), so it caches
    what every query reads again: the incident hyperedges of an entity sorted by id and by
    size (a hub's lists are sorted once, not per hop) and each hyperedge's number of
    distinct members (for :meth:`inside`). The lists it returns (cached, or the stored
    members) are shared: callers must not change them.
    """

    def __init__(self, hg: Hypergraph) -> None:
        self.hg = hg
        self._neighbors: dict[str, list[str]] = {}
        self._distinct: dict[str, int] = {}
        self._by_size: dict[str, list[str]] = {}

    def prefetch(self, keys: Iterable[str]) -> None:
        """Nothing to fetch."""

    def known(self, keys: Iterable[str]) -> set[str]:
        return {k for k in keys if k in self.hg.entities}

    def neighbors(self, key: str) -> list[str]:
        out = self._neighbors.get(key)
        if out is None:
            out = self._neighbors[key] = self.hg.neighbors(key)
        return out

    def degree(self, key: str) -> int:
        return len(self.neighbors(key))

    def edge_sizes(self, hids: Iterable[str]) -> dict[str, int]:
        return {h: len(self.hg.hyperedges[h].members) for h in hids}

    def smallest_edges(self, key: str, n: int) -> list[str]:
        order = self._by_size.get(key)
        if order is None:
            edges = self.hg.hyperedges
            order = sorted(self.neighbors(key), key=lambda h: (len(edges[h].members), h))
            self._by_size[key] = order
        return order[:n]

    def has_edge(self, hid: str) -> bool:
        return hid in self.hg.hyperedges

    def members(self, hids: Iterable[str]) -> dict[str, list[str]]:
        edges = self.hg.hyperedges
        return {h: edges[h].members for h in hids}  # the stored lists (read-only)

    def inside(self, keys: set[str]) -> list[str]:
        """Sorted ids of the hyperedges whose members all lie in ``keys`` (entity keys of
        the layer): those incident to as many of ``keys`` as they have distinct members."""
        hits: dict[str, int] = {}
        for key in keys:
            for hid in self.neighbors(key):
                hits[hid] = hits.get(hid, 0) + 1
        if not self._distinct:
            self._distinct = {h: len(set(e.members)) for h, e in self.hg.hyperedges.items()}
        size = self._distinct
        return sorted(h for h, n in hits.items() if n == size[h])

    def entity_objects(self, keys: Iterable[str]) -> dict[str, Entity]:
        return {k: self.hg.entities[k] for k in keys}

    def edge_objects(self, hids: Iterable[str]) -> dict[str, Hyperedge]:
        return {h: self.hg.hyperedges[h] for h in hids}

    def metadata(self) -> dict[str, object]:
        return dict(self.hg.metadata)


def as_layer(hg: Hypergraph | Layer) -> Layer:
    """``hg`` as a :class:`Layer`."""
    return FullLayer(hg) if isinstance(hg, Hypergraph) else hg


def induced(hg: Hypergraph | Layer, keys: Iterable[str]) -> Hypergraph:
    """The sub-hypergraph on ``keys`` with every hyperedge whose members all lie in it.

    Entities and hyperedges are shared with ``hg`` (not copied): treat the result as
    read-only, like the store's cached layers.
    """
    layer = as_layer(hg)
    keep = layer.known(keys)
    inside = layer.inside(keep)
    ents = layer.entity_objects(sorted(keep))
    edges = layer.edge_objects(inside)
    return Hypergraph(entities={k: ents[k] for k in sorted(keep)},
                      hyperedges={h: edges[h] for h in sorted(edges)},
                      metadata=layer.metadata())


def limit_hyperedges(
    hg: Hypergraph, n: int, edge_scores: Mapping[str, float],
    entity_scores: Mapping[str, float], keep: Iterable[str] = (),
    first: Mapping[str, float] | None = None,
) -> Hypergraph:
    """``hg`` with at most ``n`` hyperedges (``hg`` itself when it has no more).

    The kept hyperedges are those ``first`` ranks higher (hyperedge id → priority, 0 when
    not named; the retrieval's: the ranked passages' facts), then the best by score, then by
    the summed scores of their members (a fact joining two relevant entities before one
    touching a single hub), then by id; an entity left in no kept hyperedge goes, unless it
    is in ``keep``. Shares entities and hyperedges with ``hg``, like :func:`induced`.

    Example:
        >>> from hyperviz_core import Entity, Hyperedge, Hypergraph
        >>> hg = Hypergraph(entities=[Entity(name=n) for n in "abcd"],
        ...                 hyperedges=[Hyperedge(id="h1", members=["a", "b"]),
        ...                             Hyperedge(id="h2", members=["a", "c"]),
        ...                             Hyperedge(id="h3", members=["c", "d"])])
        >>> small = limit_hyperedges(hg, 1, {"h1": 1.0, "h2": 1.0}, {"a": 1.0, "c": 0.5})
        >>> sorted(small.hyperedges), sorted(small.entities)
        (['h2'], ['a', 'c'])
    """
    if len(hg.hyperedges) <= n:
        return hg

    before = first or {}

    def rank(hid: str) -> tuple[float, float, float, str]:
        members = hg.hyperedges[hid].members
        return (-before.get(hid, 0.0), -edge_scores.get(hid, 0.0),
                -sum(entity_scores.get(m, 0.0) for m in dict.fromkeys(members)), hid)

    kept = sorted(sorted(hg.hyperedges, key=rank)[:n])
    names = set(keep) | {m for hid in kept for m in hg.hyperedges[hid].members}
    return Hypergraph(entities={k: e for k, e in hg.entities.items() if k in names},
                      hyperedges={h: hg.hyperedges[h] for h in kept},
                      metadata=dict(hg.metadata))


#: description characters the importance of the top view reads (cheap BM25 on merged hubs)
DESCRIPTION_CHARS = 160


def trim_descriptions(hg: Hypergraph, chars: int = DESCRIPTION_CHARS) -> Hypergraph:
    """A copy with descriptions cut to ``chars`` (cheap BM25 importance on merged hubs)."""
    ents = {k: e.model_copy(update={"description": e.description[:chars]})
            for k, e in hg.entities.items()}
    return Hypergraph(entities=ents, hyperedges=dict(hg.hyperedges))


def _hop(layer: Layer, frontier: dict[str, float], max_entities: int, decay: float,
         ents: dict[str, float], edges: dict[str, float], members: dict[str, list[str]]
         ) -> dict[str, float]:
    """One hop of :func:`expand`: score the hyperedges of the frontier (a hub's
    ``max_entities`` smallest only) into ``edges`` and return their new members' scores."""
    new: dict[str, float] = {}
    layer.prefetch(frontier)
    chosen: dict[str, list[str]] = {}
    for key in sorted(frontier):
        if layer.degree(key) > max_entities:  # a hub: its smallest hyperedges only
            chosen[key] = layer.smallest_edges(key, max_entities)
        else:
            chosen[key] = layer.neighbors(key)
    members.update(layer.members({h for hs in chosen.values() for h in hs} - members.keys()))
    for key in sorted(frontier):
        for hid in chosen[key]:
            s = frontier[key] * decay
            if s > edges.get(hid, 0.0):
                edges[hid] = s
            for m in members[hid]:
                if m not in ents and s * decay > new.get(m, 0.0):
                    new[m] = s * decay
    return new


def _relays(layer: Layer, frontier: dict[str, float]) -> dict[str, float]:
    """``frontier`` without the entities of :data:`NO_RELAY_TYPES` — all of it when that
    leaves nothing (a question anchored on a date alone still gets that date's facts)."""
    objects = layer.entity_objects(frontier)
    kept = {k: s for k, s in frontier.items()
            if k not in objects or objects[k].type.casefold() not in NO_RELAY_TYPES}
    return kept or frontier


def expand(
    hg: Hypergraph | Layer,
    seeds: dict[str, float],
    hops: int,
    max_entities: int,
    decay: float = 0.5,
    seed_edges: dict[str, float] | None = None,
) -> tuple[dict[str, float], dict[str, float]]:
    """Score-bounded h-hop sub-hypergraph: (entity scores, hyperedge scores).

    Seed entities (and members of ``seed_edges``) keep their scores; each hop gives every
    hyperedge touching a scored entity ``decay × its best member score`` and its new members
    ``decay × the hyperedge score`` (at most ``max_entities`` entities per hop and, for a
    hub, its ``max_entities`` smallest hyperedges, so hubs cannot blow it up; a hop does not
    go on from an entity whose type is in :data:`NO_RELAY_TYPES`, a date or an amount, seed
    or not, unless nothing else is left to go on from: it is kept, and its hyperedges come
    in through their other members). The result
    keeps whole hyperedges, best first, while their members fit in ``max_entities``, plus the
    best seeds left without a hyperedge (at most a quarter of the budget); every hyperedge
    inside the kept entities is returned.
    """
    layer = as_layer(hg)
    known = layer.known(seeds)
    ents = {k: float(s) for k, s in seeds.items() if k in known}
    edges: dict[str, float] = {}
    seeded = {h: s for h, s in sorted((seed_edges or {}).items()) if layer.has_edge(h)}
    seed_members = layer.members(seeded)
    for hid, s in seeded.items():
        edges[hid] = max(edges.get(hid, 0.0), float(s))
        for m in seed_members[hid]:
            ents[m] = max(ents.get(m, 0.0), float(s) * decay)

    def best(scores: dict[str, float], n: int) -> list[str]:
        return sorted(scores, key=lambda k: (-scores[k], k))[:n]

    wide = max_entities
    ents = {k: ents[k] for k in best(ents, wide)}
    frontier = dict(ents)
    members: dict[str, list[str]] = dict(seed_members)
    for _ in range(hops):
        frontier = _relays(layer, frontier)  # a date is a member, not a bridge
        if not frontier:
            break
        new = _hop(layer, frontier, max_entities, decay, ents, edges, members)
        frontier = {k: new[k] for k in best(new, wide)}
        ents.update(frontier)
    kept: dict[str, None] = {}
    inside = {h: v for h, v in edges.items() if all(m in ents for m in members[h])}
    for hid in best(inside, len(inside)):
        fresh = [m for m in members[hid] if m not in kept]
        if len(kept) + len(fresh) <= max_entities:
            kept.update(dict.fromkeys(fresh))
    loners = 0
    for key in best({k: v for k, v in ents.items() if k in seeds}, len(seeds)):
        if len(kept) >= max_entities or loners >= max(1, max_entities // 4):
            break
        if key not in kept:
            kept[key] = None
            loners += 1
    out_e = {k: ents[k] for k in kept}
    out_h = {h: v for h, v in inside.items() if all(m in kept for m in members[h])}
    return out_e, out_h
