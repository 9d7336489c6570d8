"""Unit tests of the hypergraph model."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hyperviz_core import (
    DuplicateIdError,
    EmptyNameError,
    Entity,
    Hyperedge,
    Hypergraph,
    HypergraphError,
    UnknownEntityError,
    UnknownHyperedgeError,
    normalize_key,
)


def build() -> Hypergraph:
    """a-b-c in h1, c-d in h2, d-e-f in h3, g isolated."""
    hg = Hypergraph()
    for name in "ABCDEFG":
        hg.add_entity(Entity(name=name, type="letter", description=f"letter {name}"))
    hg.add_hyperedge(Hyperedge(id="h1", members=["a", "b", "c"], description="abc"))
    hg.add_hyperedge(Hyperedge(id="h2", members=["c", "d"], description="cd"))
    hg.add_hyperedge(Hyperedge(id="h3", members=["d", "e", "f"], description="def"))
    return hg


def test_normalize_key_casefolds_collapses_and_nfkc() -> None:
    assert normalize_key("  Marie\t\nCURIE ") == "marie curie"
    assert normalize_key("Ｅｃｏｌｅ") == "ecole"  # full-width → NFKC
    assert normalize_key("Straße") == "strasse"  # casefold, not lower
    with pytest.raises(EmptyNameError, match="empty"):
        normalize_key("  \t ")


def test_entity_rejects_empty_name_with_a_value_error() -> None:
    with pytest.raises(ValueError, match="empty"):
        Entity(name="   ")
    with pytest.raises(ValidationError):
        Entity(name="x", unknown_field=1)  # type: ignore[call-arg]


def test_hyperedge_defaults_order_and_id() -> None:
    low = Hyperedge(members=["A", "b"])
    high = Hyperedge(members=["a", "b", "c"])
    assert low.order == "low" and high.order == "high"
    assert low.members == ["a", "b"]
    assert Hyperedge(members=["b", "a"]).id == low.id  # order-insensitive identity
    assert Hyperedge(members=["a", "b"], kind="theme").id != low.id
    assert Hyperedge(members=["a", "a", "b"]).members == ["a", "b"]


def test_neighbors_members_degree() -> None:
    hg = build()
    assert hg.neighbors("C") == ["h1", "h2"]
    assert hg.members("h3") == ["d", "e", "f"]
    assert hg.entity_neighbors("c") == ["a", "b", "d"]
    assert hg.degree("c") == 2 and hg.degree("g") == 0
    with pytest.raises(UnknownEntityError, match="'zz'"):
        hg.neighbors("zz")
    with pytest.raises(UnknownHyperedgeError, match="'nope'"):
        hg.members("nope")


def test_unknown_member_is_rejected_and_nothing_changes() -> None:
    hg = build()
    before = hg.to_hif()
    with pytest.raises(UnknownEntityError, match="ghost"):
        hg.add_hyperedge(Hyperedge(members=["a", "ghost"]))
    assert hg.to_hif() == before
    with pytest.raises(UnknownEntityError, match="ghost"):
        Hypergraph(entities=[Entity(name="a")], hyperedges=[Hyperedge(members=["a", "ghost"])])


def test_duplicate_ids_in_constructor_are_rejected() -> None:
    with pytest.raises(DuplicateIdError, match="Alice"):
        Hypergraph(entities=[Entity(name="alice"), Entity(name="Alice")])
    with pytest.raises(DuplicateIdError, match="'x'"):
        Hypergraph(
            entities=[Entity(name="a"), Entity(name="b")],
            hyperedges=[Hyperedge(id="x", members=["a"]), Hyperedge(id="x", members=["b"])],
        )
    assert issubclass(DuplicateIdError, HypergraphError)
    assert issubclass(HypergraphError, ValueError)


def test_add_entity_merges_descriptions_and_sources() -> None:
    hg = Hypergraph()
    hg.add_entity(Entity(name="Paris", description="capital of France", source_ids=["c2"]))
    merged = hg.add_entity(
        Entity(name="PARIS", type="city", description="capital of France\non the Seine",
               source_ids=["c1", "c2"])
    )
    assert merged.name == "Paris" and merged.type == "city"
    assert merged.description == "capital of France\non the Seine"
    assert merged.source_ids == ["c1", "c2"]
    assert len(hg) == 1


def test_subgraph_hops() -> None:
    hg = build()
    s0 = hg.subgraph(seed_entities=["a"], hops=0)
    assert sorted(s0.entities) == ["a"] and not s0.hyperedges
    s1 = hg.subgraph(seed_entities=["a"], hops=1)
    assert sorted(s1.entities) == ["a", "b", "c"] and sorted(s1.hyperedges) == ["h1"]
    s2 = hg.subgraph(seed_entities=["a"], hops=2)
    assert sorted(s2.entities) == ["a", "b", "c", "d"]
    assert sorted(s2.hyperedges) == ["h1", "h2"]
    s3 = hg.subgraph(seed_entities=["a"], hops=3)
    assert sorted(s3.entities) == list("abcdef")
    e1 = hg.subgraph(seed_hyperedges=["h2"], hops=0)
    assert sorted(e1.entities) == ["c", "d"] and sorted(e1.hyperedges) == ["h2"]
    e2 = hg.subgraph(seed_hyperedges=["h2"], hops=1)
    assert sorted(e2.hyperedges) == ["h1", "h2", "h3"]
    s1.check_consistency()
    with pytest.raises(HypergraphError, match="hops"):
        hg.subgraph(seed_entities=["a"], hops=-1)


def test_remove_entity_shrinks_and_drops_small_hyperedges() -> None:
    hg = build()
    removed = hg.remove_entity("d")
    assert removed == ["h2"]  # c-d left with one member
    assert hg.members("h3") == ["e", "f"] and hg.hyperedges["h3"].order == "low"
    assert "d" not in hg.entities
    hg.check_consistency()
    hg2 = build()
    assert hg2.remove_entity("d", keep_singletons=True) == []
    assert hg2.members("h2") == ["c"]
    hg2.check_consistency()


def test_merge_unions_entities_and_same_member_hyperedges() -> None:
    a = build()
    b = Hypergraph()
    for name in ["B", "a", "C", "Z"]:
        b.add_entity(Entity(name=name, description=f"other {name}", source_ids=["doc2"]))
    b.add_hyperedge(Hyperedge(id="other-id", members=["c", "b", "a"], description="abc again",
                              keywords=["k"], source_ids=["doc2"]))
    b.add_hyperedge(Hyperedge(members=["a", "z"], kind="theme", description="theme"))
    m = a.merge(b)
    assert sorted(m.entities) == ["a", "b", "c", "d", "e", "f", "g", "z"]
    assert m.entities["a"].description == "letter A\nother a"
    assert m.entities["a"].source_ids == ["doc2"]
    assert "other-id" not in m.hyperedges  # merged into h1 by member set + kind
    assert m.hyperedges["h1"].description == "abc\nabc again"
    assert m.hyperedges["h1"].keywords == ["k"]
    assert m.stats().theme_hyperedges == 1
    m.check_consistency()
    assert a.merge(a).to_hif() == a.to_hif()  # idempotent


def test_stats_and_components() -> None:
    s = build().stats()
    assert (s.entities, s.hyperedges, s.incidences) == (7, 3, 8)
    assert s.max_degree == 2 and s.isolated_entities == 1 and s.components == 2
    assert build().components()[0] == list("abcdef")


def test_restrict_and_copy_are_independent() -> None:
    hg = build()
    r = hg.restrict(["a", "b", "d", "e"])
    assert sorted(r.hyperedges) == ["h1", "h3"]
    assert r.members("h1") == ["a", "b"]
    c = hg.copy()
    c.remove_entity("a")
    assert "a" in hg.entities


def test_incidence_and_clique_graphs() -> None:
    hg = build()
    inc = hg.to_incidence_graph()
    assert inc.number_of_nodes() == 10 and inc.number_of_edges() == 8
    assert inc.nodes[("H", "h1")]["bipartite"] == 1
    cl = hg.to_clique_expansion()
    assert sorted(cl.edges()) == [("a", "b"), ("a", "c"), ("b", "c"), ("c", "d"),
                                  ("d", "e"), ("d", "f"), ("e", "f")]
    assert cl["a"]["b"]["hyperedges"] == ["h1"]


def test_a_name_of_only_invisible_characters_is_empty() -> None:
    from hyperviz_core.items import EmptyNameError, normalize_key

    for name in ("\u200b", " \u200d\u2060 ", "\u202e"):
        with pytest.raises(EmptyNameError):
            normalize_key(name)
    assert normalize_key("Ada\u200b") == "ada\u200b"  # a visible name keeps its key
