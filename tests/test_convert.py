"""HyperNetX interop, including HyperNetX objects built independently of our model."""

from __future__ import annotations

import warnings

import hypernetx as hnx
import pandas as pd
import pytest

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
    # HyperNetX node ids are the entities' names, not their case-folded keys
    assert sorted(H.incidence_dict["h-eng"]) == ["Ada Lovelace", "Analytical Engine",
                                                 "Charles Babbage"]
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
        "meet": ["Alice", "Bob"], "trio": ["Alice", "Bob", "Carol"]}


def test_hypernetx_ids_and_node_weights_go_both_ways() -> None:
    """Integer ids stay integers and node weights survive, to HyperNetX and back."""
    doc = {"nodes": [{"node": 7, "weight": 18.0}, {"node": "H2O"}],
           "edges": [{"edge": 1}],
           "incidences": [{"edge": 1, "node": 7}, {"edge": 1, "node": "H2O"}]}
    hg = Hypergraph.from_hif(doc)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        H = hg.to_hypernetx()
    assert {k: sorted(v, key=str) for k, v in H.incidence_dict.items()} == {1: [7, "H2O"]}
    assert H.nodes[7].weight == 18.0
    assert from_hypernetx(H).to_hif() == hg.to_hif()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        foreign = hnx.Hypergraph({"e": ["a", "b"]},
                                 node_properties=pd.DataFrame({"id": ["a", "b"],
                                                               "weight": [2.0, 1.0]}))
    back = from_hypernetx(foreign)
    assert back.entities["a"].metadata == {"hif_weight": 2.0}
    assert back.entities["b"].metadata == {}


def test_foreign_fields_fill_the_model_as_hif_does() -> None:
    """A HyperNetX ``type``/``description`` property fills the entity's fields, as the same
    attribute does through HIF; a value the field refuses is kept with a warning."""
    from hyperviz_core.hif_fields import AttributeKeptWarning

    props = pd.DataFrame({"id": ["water", "salt"], "type": ["molecule", None],
                          "description": ["H2O", "NaCl"]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        H = hnx.Hypergraph({"mix": ["water", "salt"]}, node_properties=props)
    hg = from_hypernetx(H)
    assert hg.entities["water"].type == "molecule"
    assert hg.entities["water"].description == "H2O"
    assert hg.entities["water"].metadata == {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        via_hif = Hypergraph.from_hif({"nodes": [{"node": "water", "attrs": {"type": "molecule"}},
                                                 {"node": "carol", "attrs": {"type": None}}],
                                       "incidences": [{"edge": "e", "node": "water"}]})
    assert via_hif.entities["water"].type == hg.entities["water"].type
    assert [w.category for w in caught] == [AttributeKeptWarning]
    assert "node 'carol' type=None" in str(caught[0].message)


def test_incidence_graph_edges_carry_membership_attributes() -> None:
    from hyperviz_core.convert import incidence_graph

    hg = Hypergraph.from_hif({"network-type": "directed", "incidences": [
        {"edge": "r", "node": "a", "direction": "tail", "weight": 2},
        {"edge": "r", "node": "b", "direction": "head"}]})
    g = incidence_graph(hg)
    assert g.edges[("E", "a"), ("H", "r")] == {"direction": "tail", "weight": 2}
    assert g.edges[("E", "b"), ("H", "r")] == {"direction": "head"}


def test_incidence_graph_round_trip_and_a_foreign_bipartite_graph() -> None:
    import networkx as nx

    from hyperviz_core import from_incidence_graph
    from hyperviz_core.items import HypergraphError

    hg = rich()
    back = from_incidence_graph(hg.to_incidence_graph())
    assert sorted(back.entities) == sorted(hg.entities)
    assert {k: (e.name, e.type) for k, e in back.entities.items()} == {
        k: (e.name, e.type) for k, e in hg.entities.items()}
    for hid, edge in hg.hyperedges.items():
        got = back.hyperedges[hid]
        assert (got.members, got.kind, got.weight, got.member_attrs) == (
            edge.members, edge.kind, edge.weight, edge.member_attrs)
    g = nx.Graph()
    g.add_nodes_from(["Ada", "Bob"], bipartite=0)
    g.add_nodes_from(["meet", "alone"], bipartite=1)
    g.add_edge("meet", "Ada", role="host")
    g.add_edge("meet", "Bob")
    foreign = from_incidence_graph(g)
    assert foreign.members("meet") == ["ada", "bob"]
    assert foreign.hyperedges["meet"].member_attrs == {"ada": {"role": "host"}}
    assert foreign.metadata["nx_empty_edges"] == ["alone"]
    g.add_node("stray")
    with pytest.raises(HypergraphError, match="'stray' has no 'bipartite'"):
        from_incidence_graph(g)
