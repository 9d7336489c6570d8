"""Review 44 of HyperViz for users with their own hypergraphs: a repeated constructor id
says it is one member set twice, counts read "1 entity", a layout function of the wrong
signature is refused when registered, and a layout named twice is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph, HyperViz, register_layout
from hyperviz_core.items import DuplicateIdError
from hyperviz_core.rag.retrieve.config import RetrievalConfig


def _ab() -> list[Entity]:
    return [Entity(name="a"), Entity(name="b")]


def test_two_id_less_hyperedges_over_one_member_set_are_named_as_such() -> None:
    """It named only the derived id ('r-4f2a...'), which the user never wrote."""
    with pytest.raises(DuplicateIdError, match=r"two hyperedges over the members \['a', 'b'\]; "
                                               r"give each its own id="):
        Hypergraph(entities=_ab(), hyperedges=[
            Hyperedge(members=["a", "b"], description="met"),
            Hyperedge(members=["a", "b"], description="sued")])
    kept = Hypergraph(entities=_ab(), hyperedges=[
        Hyperedge(id="met", members=["a", "b"]), Hyperedge(id="sued", members=["a", "b"])])
    assert sorted(kept.hyperedges) == ["met", "sued"]


def test_a_repeated_explicit_id_over_other_members_names_only_the_id() -> None:
    """A guard: no member-set hint where the member sets differ."""
    with pytest.raises(DuplicateIdError, match=r"^duplicate hyperedge id 'x'$"):
        Hypergraph(entities=[*_ab(), Entity(name="c")], hyperedges=[
            Hyperedge(id="x", members=["a", "b"]), Hyperedge(id="x", members=["b", "c"])])


def test_repr_counts_in_the_singular() -> None:
    hg = Hypergraph(entities=[Entity(name="a")], hyperedges=[Hyperedge(members=["a"])])
    assert repr(hg) == "Hypergraph(1 entity, 1 hyperedge, metadata={})"


def test_a_layout_of_the_wrong_signature_is_refused_when_registered() -> None:
    """It was accepted, and the first render failed with the function's own TypeError."""
    with pytest.raises(TypeError, match=r"layout 'one-arg' must take two arguments, "
                                        r"fn\(hg, order\).*it takes \(hg\)"):
        register_layout("one-arg", lambda hg: None)
    register_layout("two-args-44", lambda hg, order, *rest: None, replace=True)  # accepted


@pytest.mark.parametrize("make", [
    lambda: HyperViz().render(Hypergraph(entities=_ab()), layouts=("bi-inc", "bi-inc")),
    lambda: RetrievalConfig(layouts=("set-force", "bi-inc", "set-force")),
])
def test_a_layout_named_twice_is_refused(make: object) -> None:
    """It drew the same panel twice."""
    with pytest.raises(ValueError, match="is given twice"):
        make()  # type: ignore[operator]


def test_the_clique_expansion_keeps_names_and_writes_to_graphml(tmp_path: Path) -> None:
    """Its nodes had no attributes, so a GraphML file lost the entities' names."""
    import networkx as nx

    hg = Hypergraph(entities=[Entity(name="Marie Curie"), Entity(name="Pierre Curie")],
                    hyperedges=[Hyperedge(id="wed", members=["marie curie", "pierre curie"])])
    clique = hg.to_clique_expansion()
    assert clique.nodes["marie curie"] == {"name": "Marie Curie", "type": "entity"}
    for _, _, d in clique.edges(data=True):  # README's recipe
        d["hyperedges"] = " ".join(d["hyperedges"])
    path = f"{tmp_path}/c.graphml"
    nx.write_graphml(clique, path)
    back = nx.read_graphml(path)
    assert back.nodes["marie curie"]["name"] == "Marie Curie"
    assert back.edges["marie curie", "pierre curie"]["hyperedges"] == "wed"
