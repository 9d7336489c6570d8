"""The PPR walk computes only the half of each step its result reads: equal, bit for bit, to
the full power iteration over the whole bipartite transition matrix."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
import scipy.sparse as sp

from hyperviz_core.items import Entity, Hyperedge
from hyperviz_core.model import Hypergraph
from hyperviz_core.rag.retrieve.walk import EntityWalk


def _full_walk(hg: Hypergraph, seeds: dict[str, float], damping: float, iterations: int
               ) -> np.ndarray:
    """The textbook iteration p ← (1−d)s + d·P·p over entities + hyperedges."""
    keys = sorted(hg.entities)
    pos = {k: i for i, k in enumerate(keys)}
    edges = sorted(hg.hyperedges)
    rows, cols = [], []
    for j, hid in enumerate(edges):
        for m in sorted(set(hg.hyperedges[hid].members)):
            rows.append(pos[m])
            cols.append(j)
    inc = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(keys), len(edges)))
    adj = sp.bmat([[None, inc], [inc.T, None]], format="csr")
    deg = np.asarray(adj.sum(axis=0)).ravel()
    inv = np.divide(1.0, deg, out=np.zeros_like(deg, dtype=np.float64), where=deg > 0)
    transition = (adj @ sp.diags(inv)).tocsr()
    s = np.zeros(len(keys) + len(edges))
    for key, value in sorted(seeds.items()):
        i = pos[key]
        s[i] = max(s[i], value / math.sqrt(max(deg[i], 1.0)))
    s /= s.sum()
    p = s.copy()
    for _ in range(iterations):
        p = (1.0 - damping) * s + damping * (transition @ p)
    return p[: len(keys)]


def _random_hypergraph(seed: int, entities: int = 60, facts: int = 150, largest: int = 5
                       ) -> Hypergraph:
    """``facts`` random hyperedges of 2..``largest`` of ``entities`` entities."""
    rnd = random.Random(seed)
    hg = Hypergraph()
    names = [f"entity {i}" for i in range(entities)]
    for name in names:
        hg.add_entity(Entity(name=name))
    for i in range(facts):
        hg.add_hyperedge(Hyperedge(members=rnd.sample(names, rnd.randint(2, largest)),
                                   description=f"fact {i}"))
    return hg


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("iterations", [0, 1, 2, 5, 12])
def test_pagerank_equals_full_iteration(seed: int, iterations: int) -> None:
    hg = _random_hypergraph(seed)
    walk = EntityWalk(hg, {}, 0)
    rnd = random.Random(seed * 31 + iterations)
    seeds = {f"entity {i}": rnd.random() for i in rnd.sample(range(60), 4)}
    got = walk.pagerank(seeds, 0.5, iterations)
    want = _full_walk(hg, seeds, 0.5, iterations)
    assert np.array_equal(got, want)
    if iterations:
        assert float(got.sum()) > 0


def test_pagerank_without_seeds_is_zero() -> None:
    walk = EntityWalk(_random_hypergraph(4), {}, 0)
    assert not walk.pagerank({"no such entity": 1.0}).any()


def _dense_hypergraph(seed: int) -> Hypergraph:
    """Few entities, many facts: the walk takes the two-step dense matrix."""
    return _random_hypergraph(seed, entities=12, facts=80, largest=4)


@pytest.mark.parametrize("iterations", [0, 1, 2, 7, 12])
def test_dense_two_step_walk_equals_full_iteration(iterations: int) -> None:
    hg = _dense_hypergraph(5)
    walk = EntityWalk(hg, {}, 0)
    assert walk._two_steps is not None  # 12² ≤ 4 × incidences
    seeds = {"entity 3": 1.0, "entity 7": 0.4}
    got = walk.pagerank(seeds, 0.5, iterations)
    want = _full_walk(hg, seeds, 0.5, iterations)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    sparse = EntityWalk(_random_hypergraph(1), {}, 0)
    assert sparse._two_steps is None  # 60² > 4 × incidences: the half-step path
