"""Property tests on random hypergraphs (hypothesis)."""

from __future__ import annotations

import warnings

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hyperviz_core import Entity, Hyperedge, Hypergraph

NAMES = st.text(alphabet="abcdefghij XYZ\u00e9\u00c9", min_size=1, max_size=6).filter(
    lambda s: s.strip() != "")


@st.composite
def hypergraphs(draw: st.DrawFn, max_entities: int = 12) -> Hypergraph:
    names = draw(st.lists(NAMES, min_size=1, max_size=max_entities))
    hg = Hypergraph()
    for name in names:
        hg.add_entity(Entity(name=name, description=draw(st.sampled_from(["", "d1", "d2"])),
                             source_ids=draw(st.lists(st.sampled_from(["c1", "c2", "c3"]),
                                                      max_size=2))))
    keys = sorted(hg.entities)
    for _ in range(draw(st.integers(0, 10))):
        members = draw(st.lists(st.sampled_from(keys), min_size=1, max_size=5, unique=True))
        hg.add_hyperedge(Hyperedge(members=members,
                                   kind=draw(st.sampled_from(["relation", "theme"])),
                                   description=draw(st.sampled_from(["", "r", "s"])),
                                   weight=draw(st.sampled_from([1.0, 0.5, 3.0]))))
    return hg


FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def contained(small: Hypergraph, big: Hypergraph) -> bool:
    return set(small.entities) <= set(big.entities) and set(small.hyperedges) <= set(
        big.hyperedges)


@FAST
@given(hypergraphs(), st.integers(0, 3), st.data())
def test_subgraph_grows_with_hops(hg: Hypergraph, hops: int, data: st.DataObject) -> None:
    seeds = data.draw(st.lists(st.sampled_from(sorted(hg.entities)), min_size=1, max_size=3))
    a = hg.subgraph(seed_entities=seeds, hops=hops)
    b = hg.subgraph(seed_entities=seeds, hops=hops + 1)
    assert contained(a, b)
    assert set(seeds) <= set(a.entities)
    a.check_consistency()
    # induced: every hyperedge of the parent whose members all lie inside is present
    for hid, edge in hg.hyperedges.items():
        if edge.members and set(edge.members) <= set(a.entities):
            assert hid in a.hyperedges


@FAST
@given(hypergraphs(), hypergraphs(), st.data())
def test_incidence_stays_consistent_under_mutation(
    a: Hypergraph, b: Hypergraph, data: st.DataObject
) -> None:
    hg = a.merge(b)
    hg.check_consistency()
    assert set(a.entities) | set(b.entities) == set(hg.entities)
    for _ in range(data.draw(st.integers(0, 6))):
        op = data.draw(st.sampled_from(["remove_entity", "remove_edge", "add_edge", "merge"]))
        if op == "remove_entity" and hg.entities:
            key = data.draw(st.sampled_from(sorted(hg.entities)))
            hg.remove_entity(key, keep_singletons=data.draw(st.booleans()))
            assert key not in hg.entities
            assert all(key not in e.members for e in hg.hyperedges.values())
        elif op == "remove_edge" and hg.hyperedges:
            hg.remove_hyperedge(data.draw(st.sampled_from(sorted(hg.hyperedges))))
        elif op == "add_edge" and hg.entities:
            members = data.draw(st.lists(st.sampled_from(sorted(hg.entities)), min_size=1,
                                         max_size=4, unique=True))
            hg.add_hyperedge(Hyperedge(members=members))
        elif op == "merge":
            hg = hg.merge(b)
        hg.check_consistency()
        for key in hg.entities:
            assert hg.degree(key) == sum(key in e.members for e in hg.hyperedges.values())


@FAST
@given(hypergraphs())
def test_hif_round_trip_identity(hg: Hypergraph) -> None:
    doc = hg.to_hif()
    back = Hypergraph.from_hif(doc)
    assert back.model_dump() == hg.model_dump()
    assert back.to_hif() == doc


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(hypergraphs(max_entities=8))
def test_hypernetx_round_trip_identity(hg: Hypergraph) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = Hypergraph.from_hypernetx(hg.to_hypernetx())
    assert back.model_dump() == hg.model_dump()
