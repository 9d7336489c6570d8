"""HyperNetX interop, including HyperNetX objects built independently of our model."""

from __future__ import annotations

import warnings

import hypernetx as hnx
import pandas as pd

from hyperviz_core import Entity, Hyperedge, Hypergraph, from_hypernetx, to_hypernetx


def rich() -> Hypergraph:
    hg = Hypergraph(metadata={"source": "test"})
    for name, typ in [("Ada Lovelace", "person"), ("Charles Babbage", "person"),
                      ("Analytical Engine", "machine"), ("London", "place"), ("Alone", "x")]:
        hg.add_entity(Entity(name=name, type=typ, description=f"about {name}",
                             source_ids=["c1"], metadata={"n": len(name)}))
    hg.add_hyperedge(Hyperedge(id="h-eng", members=["charles babbage", "analytical engine",
                                                     "ada lovelace"],
                               description="designed and programmed", keywords=["design"],
                               weight=3.0, source_ids=["c1", "c2"],
                               member_attrs={"ada lovelace": {"role": "programmer"}}))
    hg.add_hyperedge(Hyperedge(id="h-lon", members=["ada lovelace", "london"], kind="theme"))
    return hg


def test_model_to_hypernetx_and_back_preserves_everything() -> None:
    hg = rich()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        H = to_hypernetx(hg)
    assert set(H.edges) == {"h-eng", "h-lon"}  # HyperNetX itself counts non-empty edges only
    assert sorted(H.incidence_dict["h-eng"]) == sorted(hg.members("h-eng"))
    back = from_hypernetx(H)
    assert back.model_dump() == hg.model_dump()
    assert back.members("h-eng") == ["charles babbage", "analytical engine", "ada lovelace"]


def test_independent_hypernetx_object() -> None:
    edges = pd.DataFrame({"id": ["meet", "trio"], "weight": [2.0, 1.0],
                          "color": ["red", "blue"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        H = hnx.Hypergraph({"meet": ["Alice", "Bob"], "trio": ["Alice", "Bob", "Carol"]},
                           edge_properties=edges)
    hg = Hypergraph.from_hypernetx(H)
    assert sorted(hg.entities) == ["alice", "bob", "carol"]
    assert hg.entities["carol"].name == "Carol"
    assert sorted(hg.members("trio")) == ["alice", "bob", "carol"]
    assert hg.hyperedges["meet"].weight == 2.0
    assert hg.hyperedges["meet"].metadata["color"] == "red"
    assert hg.degree("alice") == 2
    # and it converts back to an equivalent HyperNetX object
    H2 = hg.to_hypernetx()
    assert {k: sorted(v) for k, v in H2.incidence_dict.items()} == {
        "meet": ["alice", "bob"], "trio": ["alice", "bob", "carol"]}
