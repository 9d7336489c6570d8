"""HIF import/export against the standard's conformance files and a real dataset."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core import (
    Entity,
    HIFAliasWarning,
    HIFError,
    Hyperedge,
    Hypergraph,
    HypergraphError,
    validate_hif,
)

DATA = Path(__file__).parent / "data"
COMPLIANT = sorted((DATA / "hif_compliant").glob("*.json"))
NONCOMPLIANT = sorted((DATA / "hif_noncompliant").glob("*.json"))


def canonical(doc: dict) -> dict:
    """HIF with defaults filled, empty ``attrs`` dropped and lists sorted."""
    def key(item: dict) -> str:
        return json.dumps(item, sort_keys=True)

    def strip(item: dict) -> dict:
        return {k: v for k, v in item.items() if not (k == "attrs" and v == {})}

    out = {"network-type": doc.get("network-type", "undirected"),
           "metadata": doc.get("metadata", {})}
    for part in ("nodes", "edges", "incidences"):
        uniq = {key(strip(x)): strip(x) for x in doc.get(part, [])}
        out[part] = sorted(uniq.values(), key=key)
    return out


@pytest.mark.parametrize("path", COMPLIANT, ids=lambda p: p.name)
def test_compliant_files_load_and_round_trip(path: Path) -> None:
    doc = json.loads(path.read_text())
    hg = Hypergraph.from_hif(doc)
    out = hg.to_hif()
    validate_hif(out)
    assert Hypergraph.from_hif(out).to_hif() == out
    if path.name != "duplicated_nodes_edges.json":
        # every node/edge named anywhere appears, attributes kept
        named_nodes = {str(n["node"]) for n in doc.get("nodes", [])}
        named_nodes |= {str(i["node"]) for i in doc["incidences"]}
        assert {str(n["node"]) for n in out["nodes"]} == named_nodes
        assert canonical(out)["incidences"] == canonical(doc)["incidences"]
        for part in ("nodes", "edges"):
            listed = {json.dumps(x, sort_keys=True) for x in canonical(doc)[part]}
            assert listed <= {json.dumps(x, sort_keys=True) for x in canonical(out)[part]}


@pytest.mark.parametrize("path", NONCOMPLIANT, ids=lambda p: p.name)
def test_noncompliant_files_are_rejected(path: Path) -> None:
    with pytest.raises(HIFError, match="invalid HIF"):
        Hypergraph.from_hif(path)


def test_lesmis_round_trip_is_identical() -> None:
    doc = json.loads((DATA / "lesmis.hif.json").read_text())
    hg = Hypergraph.from_hif(doc)
    s = hg.stats()
    assert (s.entities, s.hyperedges, s.incidences) == (80, 402, 862)
    assert canonical(hg.to_hif()) == canonical(doc)


def test_model_fields_survive_hif() -> None:
    hg = Hypergraph()
    hg.add_entity(Entity(name="Marie Curie", type="person", description="physicist",
                         source_ids=["c1"], metadata={"born": 1867}))
    hg.add_entity(Entity(name="Radium", type="element"))
    hg.add_hyperedge(Hyperedge(id="disc", members=["marie curie", "radium"], kind="theme",
                               description="discovered", keywords=["discovery"], weight=2.5,
                               source_ids=["c1"], member_attrs={"radium": {"direction": "head"}},
                               metadata={"year": 1898}))
    back = Hypergraph.from_hif(json.dumps(hg.to_hif()))
    assert back.model_dump() == hg.model_dump()


def test_malformed_inputs_name_the_problem(tmp_path: Path) -> None:
    with pytest.raises(HIFError, match="not valid JSON"):
        Hypergraph.from_hif("{ nope")
    with pytest.raises(HIFError, match="cannot read HIF file"):
        Hypergraph.from_hif(str(tmp_path / "missing.json"))
    with pytest.raises(HIFError, match="nodes/0/node"):
        Hypergraph.from_hif({"incidences": [], "nodes": [{"node": 1.5}]})
    with pytest.raises(HIFError, match="empty name"):
        Hypergraph.from_hif({"incidences": [{"edge": "e", "node": "   "}]})
    with pytest.warns(HIFAliasWarning, match=r"'A' and 'a'"):  # merged, not refused (issue 10)
        merged = Hypergraph.from_hif({"incidences": [], "nodes": [{"node": "A"}, {"node": "a"}]})
    assert [n["node"] for n in merged.to_hif()["nodes"]] == ["A", "a"]
    from hyperviz_core.hif_fields import AttributeKeptWarning

    with pytest.warns(AttributeKeptWarning, match="edge 'e' kind='x'"):  # kept, not refused
        Hypergraph.from_hif({"incidences": [], "edges": [{"edge": "e", "attrs": {"kind": "x"}}]})
    assert issubclass(HIFError, HypergraphError)


def test_integer_ids_and_weights_round_trip() -> None:
    doc = {"network-type": "directed", "metadata": {"name": "t"},
           "nodes": [{"node": 1, "weight": 0.5}, {"node": "x"}],
           "edges": [{"edge": 7, "weight": 2}],
           "incidences": [{"edge": 7, "node": 1, "direction": "tail", "weight": 3.0},
                          {"edge": 7, "node": "x"}]}
    out = Hypergraph.from_hif(doc).to_hif()
    assert canonical(out) == canonical(doc)


def test_extractor_member_roles_export_as_valid_hif() -> None:
    """The heuristic extractor marks an implied subject ``role: implicit-subject``; HIF
    allows no such top-level incidence key, so it goes under ``attrs`` (and reads back)."""
    from hyperviz_core.hif import validate_hif
    from hyperviz_core.rag import HeuristicExtractor
    from hyperviz_core.rag.types import Chunk

    text = "Marie Curie lived in Paris. She discovered Radium with Pierre Curie in Paris."
    found = HeuristicExtractor().extract(
        Chunk(id="c1", doc_id="d", text=text, metadata={"title": "Marie Curie"}))
    hg = Hypergraph()
    for ent in found.entities:
        hg.add_entity(ent)
    for edge in found.hyperedges:
        hg.add_hyperedge(edge)
    roles = [a for e in hg.hyperedges.values() for a in e.member_attrs.values()]
    assert {"role": "implicit-subject"} in roles
    doc = hg.to_hif()
    validate_hif(doc)
    marked = [i for i in doc["incidences"] if i.get("attrs", {}).get("role")]
    assert marked and all("role" not in i for i in doc["incidences"])
    back = Hypergraph.from_hif(json.dumps(doc))
    assert sorted(back.hyperedges) == sorted(hg.hyperedges)


def test_non_finite_numbers_are_refused() -> None:
    """HIF is JSON, which has no NaN/Infinity: refused on import, and a hyperedge cannot
    hold a non-finite weight that export would then write."""
    doc = ('{"network-type": "undirected", "incidences": [{"edge": 1, "node": "a", '
           '"weight": NaN}]}')
    with pytest.raises(HIFError, match="NaN is not a JSON number"):
        Hypergraph.from_hif(doc)
    with pytest.raises(HIFError, match="is not of type 'object'"):
        Hypergraph.from_hif("[1, 2]")  # JSON text, not a file name
    with pytest.raises(ValueError):
        Hyperedge(id="h", members=["a", "b"], weight=float("inf"))


def test_edge_ids_that_differ_only_in_type_are_refused() -> None:
    doc = {"network-type": "undirected",
           "edges": [{"edge": 1, "attrs": {"description": "int one"}},
                     {"edge": "1", "attrs": {"description": "str one"}}],
           "incidences": [{"edge": 1, "node": "a"}, {"edge": 1, "node": "b"},
                          {"edge": "1", "node": "b"}, {"edge": "1", "node": "c"}]}
    with pytest.raises(HIFError, match="HIF edges 1 and '1' have the same id"):
        Hypergraph.from_hif(json.dumps(doc))


def test_values_a_field_refuses_are_kept_not_refused() -> None:
    """HyperNetX writes ``"type": null``; other tools use their own edge kinds. Such a value
    stays in metadata (one warning names it) and HIF → model → HIF gives it back."""
    from hyperviz_core.hif_fields import AttributeKeptWarning

    doc = {"network-type": "undirected", "metadata": {},
           "nodes": [{"node": "carol", "attrs": {"type": None, "description": ["x"]}},
                     {"node": "dave", "attrs": {"type": "person"}}],
           "edges": [{"edge": "e1", "attrs": {"kind": "reaction", "order": 2,
                                               "description": "made"}}],
           "incidences": [{"edge": "e1", "node": "carol"}, {"edge": "e1", "node": "dave"}]}
    with pytest.warns(AttributeKeptWarning) as caught:
        hg = Hypergraph.from_hif(doc)
    assert len(caught) == 1
    assert "node 'carol' description=['x']; node 'carol' type=None" in str(caught[0].message)
    assert hg.entities["carol"].type == "entity"
    assert hg.entities["carol"].metadata == {"type": None, "description": ["x"]}
    assert hg.entities["dave"].type == "person"
    edge = hg.hyperedges["e1"]
    assert (edge.kind, edge.description, edge.metadata) == (
        "relation", "made", {"kind": "reaction", "order": 2})
    assert hg.to_hif() == doc


def test_a_node_both_head_and_tail_keeps_both_incidences() -> None:
    doc = {"network-type": "directed", "metadata": {}, "nodes": [{"node": "atp"},
                                                                 {"node": "enzyme"}],
           "edges": [{"edge": "cat"}],
           "incidences": [{"edge": "cat", "node": "enzyme", "direction": "tail"},
                          {"edge": "cat", "node": "enzyme", "direction": "head"},
                          {"edge": "cat", "node": "atp", "direction": "tail"}]}
    out = Hypergraph.from_hif(doc).to_hif()
    assert sorted((i["node"], i["direction"]) for i in out["incidences"]) == [
        ("atp", "tail"), ("enzyme", "head"), ("enzyme", "tail")]
    dup = {**doc, "incidences": doc["incidences"] + [doc["incidences"][0]]}
    assert Hypergraph.from_hif(dup).to_hif()["incidences"] == out["incidences"]


def test_an_empty_edge_id_is_refused() -> None:
    with pytest.raises(HIFError, match="edge id '' is empty"):
        Hypergraph.from_hif({"incidences": [{"edge": "", "node": "a"}]})
