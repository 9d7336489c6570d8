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

from collections.abc import Iterable

from ...model import Hyperedge, Hypergraph

__all__ = ["expand", "induced", "trim_descriptions"]


def induced(hg: Hypergraph, keys: Iterable[str]) -> Hypergraph:
    """The sub-hypergraph on ``keys`` with every hyperedge whose members all lie in it.

    Entities and hyperedges are shared with ``hg`` (not copied): treat the result as
    read-only, like the store's cached layers.
    """
    keep = {k for k in keys if k in hg.entities}
    edges: dict[str, Hyperedge] = {}
    for key in sorted(keep):
        for hid in hg.neighbors(key):
            if hid not in edges and all(m in keep for m in hg.hyperedges[hid].members):
                edges[hid] = hg.hyperedges[hid]
    return Hypergraph(entities={k: hg.entities[k] for k in sorted(keep)},
                      hyperedges={h: edges[h] for h in sorted(edges)},
                      metadata=dict(hg.metadata))


def trim_descriptions(hg: Hypergraph, chars: int = 160) -> Hypergraph:
    """A copy with descriptions cut to ``chars`` (cheap BM25 importance on merged hubs)."""
    ents = {k: e.model_copy(update={"description": e.description[:chars]})
            for k, e in hg.entities.items()}
    return Hypergraph(entities=ents, hyperedges=dict(hg.hyperedges))


def expand(
    hg: Hypergraph,
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
    hub, its ``max_entities`` smallest hyperedges, so hubs cannot blow it up). The result
    keeps whole hyperedges, best first, while their members fit in ``max_entities``, plus the
    best seeds left without a hyperedge (at most a quarter of the budget); every hyperedge
    inside the kept entities is returned.
    """
    ents = {k: float(s) for k, s in seeds.items() if k in hg.entities}
    edges: dict[str, float] = {}
    for hid, s in sorted((seed_edges or {}).items()):
        if hid not in hg.hyperedges:
            continue
        edges[hid] = max(edges.get(hid, 0.0), float(s))
        for m in hg.hyperedges[hid].members:
            ents[m] = max(ents.get(m, 0.0), float(s) * decay)

    def best(scores: dict[str, float], n: int) -> list[str]:
        return sorted(scores, key=lambda k: (-scores[k], k))[:n]

    wide = max_entities
    ents = {k: ents[k] for k in best(ents, wide)}
    frontier = dict(ents)
    for _ in range(hops):
        new: dict[str, float] = {}
        for key in sorted(frontier):
            incident = hg.neighbors(key)
            if len(incident) > max_entities:  # a hub: its smallest hyperedges only
                incident = sorted(incident, key=lambda h: (len(hg.hyperedges[h].members), h))
                incident = incident[:max_entities]
            for hid in incident:
                s = frontier[key] * decay
                if s > edges.get(hid, 0.0):
                    edges[hid] = s
                for m in hg.hyperedges[hid].members:
                    if m not in ents and s * decay > new.get(m, 0.0):
                        new[m] = s * decay
        frontier = {k: new[k] for k in best(new, wide)}
        ents.update(frontier)
        if not frontier:
            break
    kept: dict[str, None] = {}
    inside = {h: v for h, v in edges.items() if all(m in ents for m in hg.hyperedges[h].members)}
    for hid in best(inside, len(inside)):
        fresh = [m for m in hg.hyperedges[hid].members if m not in kept]
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
    out_h = {h: v for h, v in inside.items() if all(m in kept for m in hg.hyperedges[h].members)}
    return out_e, out_h
