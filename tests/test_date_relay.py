"""An expansion hop does not go on from a date or an amount (``subgraph.NO_RELAY_TYPES``).

Guards: two facts sharing only a year were connected through it, so a date — a hub of the
store — drew the facts of unrelated passages into I_bot (on the MuSiQue dev questions the
share of gold passages with a fact drawn in I_bot rose 0.567 → 0.578 without it, HotpotQA
0.689 → 0.717; benchmarks/view_facts_bench.py).
"""

from __future__ import annotations

import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.rag.retrieve.subgraph import NO_RELAY_TYPES, expand


def _graph(kind: str = "date") -> Hypergraph:
    hg = Hypergraph(entities=[Entity(name="Ada"), Entity(name="1843", type=kind),
                              Entity(name="Babbage"), Entity(name="Kyoto")])
    hg.add_hyperedge(Hyperedge(id="h1", members=["ada", "1843", "babbage"]))
    hg.add_hyperedge(Hyperedge(id="h2", members=["1843", "kyoto"]))  # unrelated: same year
    return hg


@pytest.mark.parametrize("kind", ["date", "quantity", "DATE", "Money"])
def test_a_date_joins_the_view_but_does_not_bridge_to_unrelated_facts(kind: str) -> None:
    ents, edges = expand(_graph(kind), {"ada": 1.0}, hops=2, max_entities=10)
    assert "1843" in ents and "babbage" in ents and sorted(edges) == ["h1"]
    assert "kyoto" not in ents


def test_a_named_thing_still_bridges() -> None:
    ents, edges = expand(_graph("entity"), {"ada": 1.0}, hops=2, max_entities=10)
    assert "kyoto" in ents and sorted(edges) == ["h1", "h2"]


def test_a_date_seed_relays_when_it_is_the_only_one() -> None:
    """A question anchored on a date alone still gets that date's facts."""
    ents, edges = expand(_graph(), {"1843": 1.0}, hops=1, max_entities=10)
    assert sorted(edges) == ["h1", "h2"] and "kyoto" in ents


def test_a_date_seed_beside_another_does_not_relay() -> None:
    _, edges = expand(_graph(), {"1843": 1.0, "kyoto": 0.5}, hops=1, max_entities=10)
    assert sorted(edges) == ["h2"]  # through Kyoto; h1 came only through the date


def test_the_types_are_case_folded() -> None:
    assert all(t == t.casefold() for t in NO_RELAY_TYPES) and "date" in NO_RELAY_TYPES
