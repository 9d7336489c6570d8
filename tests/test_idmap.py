"""Stable visual IDs."""

from __future__ import annotations

import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph, IdMap, UnknownVisualIdError


def graph() -> Hypergraph:
    return Hypergraph(
        entities=[Entity(name=n) for n in ["delta", "alpha", "charlie", "bravo"]],
        hyperedges=[Hyperedge(id="r2", members=["alpha", "bravo"]),
                    Hyperedge(id="r1", members=["charlie", "delta", "alpha"])],
    )


def test_default_order_is_by_key() -> None:
    ids = IdMap.build(graph())
    assert ids.entities == {"alpha": "E1", "bravo": "E2", "charlie": "E3", "delta": "E4"}
    assert ids.hyperedges == {"r1": "H1", "r2": "H2"}


def test_importance_order_with_key_tiebreak() -> None:
    ids = IdMap.build(graph(), entity_importance={"delta": 2.0, "charlie": 2.0, "bravo": 1.0},
                      hyperedge_importance={"r2": 5})
    assert [ids.entity_id(k) for k in ["charlie", "delta", "bravo", "alpha"]] == [
        "E1", "E2", "E3", "E4"]
    assert ids.hyperedge_id("r2") == "H1"


def test_lookups_both_directions_and_errors() -> None:
    ids = IdMap.build(graph())
    assert ids.resolve("e3") == ("entity", "charlie")
    assert ids.resolve(" H2 ") == ("hyperedge", "r2")
    assert ids.entity_key("E1") == "alpha" and ids.hyperedge_key("H1") == "r1"
    with pytest.raises(UnknownVisualIdError, match="E9"):
        ids.resolve("E9")
    with pytest.raises(UnknownVisualIdError, match="not an entity"):
        ids.entity_key("H1")
    with pytest.raises(UnknownVisualIdError, match="zulu"):
        ids.entity_id("zulu")


def test_find_ids_in_model_output() -> None:
    ids = IdMap.build(graph())
    text = "The answer involves E2, e4 and H1; E17 and E02? also H 2."
    assert ids.find_ids(text) == ["E2", "E4", "H1", "H2"]
    assert ids.find_ids("nothing here") == []


def test_deterministic_across_insertion_order() -> None:
    g1 = graph()
    g2 = Hypergraph(entities=list(reversed(list(g1.entities.values()))),
                    hyperedges=list(reversed(list(g1.hyperedges.values()))))
    assert IdMap.build(g1) == IdMap.build(g2)
