"""Deterministic sub-hypergraph samples for probes (what a retrieval would render).

Example:
    >>> from hyperviz_core.testing import random_hypergraph
    >>> subs = sample_subgraphs(random_hypergraph(80, 40, seed=1), 3, seed=7, size=(10, 20))
    >>> [10 <= len(s.entities) <= 20 for s in subs]
    [True, True, True]
"""

from __future__ import annotations

import random

from ..model import Hypergraph

__all__ = ["sample_at", "sample_subgraph", "sample_subgraphs"]


def sample_subgraph(hg: Hypergraph, rng: random.Random, target: int) -> Hypergraph:
    """Grow whole hyperedges breadth-first from a random entity until ``target`` entities;
    the result is the sub-hypergraph induced on them (every hyperedge wholly inside)."""
    starts = sorted(k for k in hg.entities if hg.degree(k) > 0)
    if not starts:
        return hg.copy()
    kept: dict[str, None] = {starts[rng.randrange(len(starts))]: None}
    frontier = list(kept)
    seen: set[str] = set()
    while frontier and len(kept) < target:
        nxt: list[str] = []
        for key in frontier:
            hids = [h for h in hg.neighbors(key) if h not in seen]
            rng.shuffle(hids)
            for hid in hids:
                seen.add(hid)
                fresh = [m for m in hg.members(hid) if m not in kept]
                if len(kept) + len(fresh) > target:
                    continue
                for m in fresh:
                    kept[m] = None
                    nxt.append(m)
        frontier = nxt
    keys = set(kept)
    hids = sorted({h for k in keys for h in hg.neighbors(k)
                   if all(m in keys for m in hg.members(h))})
    return Hypergraph(entities=[hg.entities[k].model_copy(deep=True) for k in sorted(keys)],
                      hyperedges=[hg.hyperedges[h].model_copy(deep=True) for h in hids])


def sample_subgraphs(
    hg: Hypergraph, n: int, seed: int = 0, size: tuple[int, int] = (12, 30)
) -> list[Hypergraph]:
    """``n`` samples, sample ``i`` drawn with ``random.Random(seed * 1_000_003 + i)``;
    a hypergraph no larger than ``size[1]`` is used whole (``n`` copies of it: the probes
    made from them repeat, and :func:`~hyperviz_core.probe.make.make_probes` keeps one of
    each)."""
    return [sample_at(hg, i, seed, size) for i in range(n)]


def sample_at(hg: Hypergraph, i: int, seed: int = 0, size: tuple[int, int] = (12, 30)
              ) -> Hypergraph:
    """Sample ``i`` of :func:`sample_subgraphs` alone (drawn lazily, one at a time)."""
    if len(hg.entities) <= size[1]:
        return hg.copy()
    rng = random.Random(seed * 1_000_003 + i)
    return sample_subgraph(hg, rng, rng.randint(size[0], size[1]))
