"""Deterministic random hypergraphs for tests, benchmarks and demos.

:func:`random_hypergraph` builds ``n_entities`` entities ("Entity 001" ...) and
``n_hyperedges`` relation hyperedges ("h001" ...) of ``min_size``..``max_size`` members, with
**every entity in at least one hyperedge** and no two hyperedges with the same member set.
The result depends only on the arguments (a private :class:`random.Random` seeded with
``seed``; no set or dict iteration order is involved), so the same call gives the same
hypergraph in every process, whatever ``PYTHONHASHSEED`` is.

Example:
    >>> from hyperviz_core.testing import random_hypergraph
    >>> hg = random_hypergraph(30, 15, seed=7)
    >>> len(hg.entities), len(hg.hyperedges), hg.stats().isolated_entities
    (30, 15, 0)
    >>> hg.to_hif() == random_hypergraph(30, 15, seed=7).to_hif()
    True
    >>> all(2 <= len(e.members) <= 6 for e in hg.hyperedges.values())
    True

:func:`dense_reports` writes short reports in which a few people meet in a few cities: every
person is in dozens of facts, the dense neighbourhoods that rendered views must cope with.
"""

from __future__ import annotations

import itertools
import random

from .model import Entity, Hyperedge, Hypergraph, HypergraphError

__all__ = ["dense_reports", "facts_hypergraph", "random_hypergraph"]

_TYPES = ("person", "organization", "place", "concept", "event")
_WORDS = (
    "river", "bridge", "council", "harvest", "archive", "signal", "market", "voyage", "treaty",
    "engine", "garden", "lantern", "mineral", "orbit", "festival", "library", "harbor", "canal",
    "theory", "vaccine", "circuit", "glacier", "chapel", "railway",
)


def _phrase(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(n))


def random_hypergraph(
    n_entities: int,
    n_hyperedges: int,
    seed: int,
    min_size: int = 2,
    max_size: int = 6,
) -> Hypergraph:
    """A random hypergraph with every entity covered; deterministic in all arguments.

    Hyperedge sizes are drawn uniformly from ``[min_size, max_size]`` (capped at
    ``n_entities``); when they cannot cover every entity they are grown round-robin up to
    ``max_size``. Entities are first dealt round-robin over the hyperedges (in a shuffled
    order), then each hyperedge is topped up with random distinct entities, so hyperedges
    overlap the way relations of a text do. Entities carry a ``type`` and a short
    description (for query-aware pruning); hyperedges a description naming their members.

    Raises :class:`~hyperviz_core.HypergraphError` when the arguments cannot satisfy the
    contract (negative counts, ``min_size`` > ``max_size``, ``min_size`` < 1, entities but
    no hyperedges, or ``n_hyperedges * max_size < n_entities``).
    """
    if n_entities < 0 or n_hyperedges < 0:
        raise HypergraphError("n_entities and n_hyperedges must be >= 0")
    if min_size < 1 or min_size > max_size:
        raise HypergraphError(f"need 1 <= min_size <= max_size, got {min_size}, {max_size}")
    if n_entities and n_hyperedges * max_size < n_entities:
        raise HypergraphError(
            f"{n_hyperedges} hyperedges of at most {max_size} members cannot cover "
            f"{n_entities} entities"
        )
    if n_hyperedges and n_entities < min_size:
        raise HypergraphError(f"{n_entities} entities cannot fill hyperedges of {min_size}")
    rng = random.Random(seed)
    width = max(3, len(str(max(n_entities, n_hyperedges))))
    entities = [
        Entity(
            name=f"Entity {i:0{width}d}",
            type=_TYPES[rng.randrange(len(_TYPES))],
            description=f"entity {i} about {_phrase(rng, 3)}",
        )
        for i in range(1, n_entities + 1)
    ]
    keys = [e.key for e in entities]
    cap = min(max_size, n_entities)
    sizes = [rng.randint(min_size, cap) for _ in range(n_hyperedges)]
    j = 0
    while sum(sizes) < n_entities:  # grow round-robin; terminates by the check above
        if sizes[j % n_hyperedges] < cap:
            sizes[j % n_hyperedges] += 1
        j += 1
    members: list[list[str]] = [[] for _ in range(n_hyperedges)]
    order = list(range(n_hyperedges))
    rng.shuffle(order)
    dealt = list(keys)
    rng.shuffle(dealt)
    slot = 0
    for key in dealt:  # deal every entity once, skipping full hyperedges
        while len(members[order[slot % n_hyperedges]]) >= sizes[order[slot % n_hyperedges]]:
            slot += 1
        members[order[slot % n_hyperedges]].append(key)
        slot += 1
    seen: set[tuple[str, ...]] = set()
    edges: list[Hyperedge] = []
    for h in range(n_hyperedges):
        base = list(members[h])
        chosen = base
        for _attempt in range(50):  # top up; re-draw when the member set repeats
            pool = [k for k in keys if k not in base]
            chosen = base + rng.sample(pool, sizes[h] - len(base))
            if tuple(sorted(chosen)) not in seen:
                break
        seen.add(tuple(sorted(chosen)))
        names = ", ".join(chosen)
        edges.append(
            Hyperedge(
                id=f"h{h + 1:0{width}d}",
                members=chosen,
                description=f"{_phrase(rng, 2)} linking {names}",
                keywords=_phrase(rng, 2).split(),
            )
        )
    return Hypergraph(entities=entities, hyperedges=edges)


_FIRST = ("Alice", "Bruno", "Clara", "David", "Elena", "Felix", "Greta", "Hugo", "Irene",
          "Jonas", "Karin", "Lars", "Maya", "Nils", "Olga", "Pavel", "Quinn")
_LAST = ("Morgan", "Berg", "Costa", "Dahl", "Eriksen", "Fischer", "Gomez")
_CITIES = ("Oslo", "Bergen", "Lisbon", "Porto", "Madrid", "Berlin", "Vienna", "Prague",
           "Zurich", "Geneva", "Paris", "Lyon", "Milan", "Turin", "Athens", "Sofia", "Riga")


def facts_hypergraph(n_entities: int, n_facts: int, size: int = 3) -> Hypergraph:
    """``n_entities`` entities (``entity 00`` ...) and the first ``n_facts`` of their
    ``size``-member combinations as hyperedges (``fact 0`` ...): many facts over few
    entities, the densest neighbourhood a drawing meets (deterministic).

    >>> hg = facts_hypergraph(10, 120)
    >>> len(hg.entities), len(hg.hyperedges)
    (10, 120)
    """
    names = [f"entity {i:02d}" for i in range(n_entities)]
    hg = Hypergraph()
    for name in names:
        hg.add_entity(Entity(name=name))
    combos = itertools.islice(itertools.combinations(names, size), n_facts)
    for i, combo in enumerate(combos):
        hg.add_hyperedge(Hyperedge(members=list(combo), description=f"fact {i}"))
    return hg


def dense_reports(n_docs: int, n_people: int = 17, n_cities: int = 17,
                  seed: int = 7) -> list[dict[str, str]]:
    """``n_docs`` reports (``{"id", "title", "text"}``) of four sentences, each naming three
    of ``n_people`` people and two of ``n_cities`` cities (at most 17 each), drawn by a
    private ``random.Random(seed)``.

    Example:
        >>> docs = dense_reports(3)
        >>> [d["id"] for d in docs], docs[0]["text"].count(".") == 4
        (['doc000', 'doc001', 'doc002'], True)
        >>> dense_reports(3) == docs
        True
    """
    if not (3 <= n_people <= len(_FIRST) and 2 <= n_cities <= len(_CITIES)):
        raise ValueError(f"3..{len(_FIRST)} people and 2..{len(_CITIES)} cities, got "
                         f"{n_people} and {n_cities}")
    rng = random.Random(seed)
    people = [f"{f} {_LAST[i % len(_LAST)]}" for i, f in enumerate(_FIRST[:n_people])]
    cities = list(_CITIES[:n_cities])
    out = []
    for i in range(n_docs):
        a, b, c = rng.sample(people, 3)
        p, q = rng.sample(cities, 2)
        text = (f"{a} met {b} in {p} in {1990 + i % 30}. {b} later worked with {c} at the "
                f"{q} office. {c} wrote a report about {p} and {q}. {a} travelled to {q}.")
        out.append({"id": f"doc{i:03d}", "title": f"Report {i}", "text": text})
    return out
