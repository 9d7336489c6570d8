"""Core API fixes: HIF/HyperNetX round trips, empty hyperedges, unknown keywords, stale ids
after ``remove_entity``, ``IdMap`` lookups, the footer key, NaN/inf, ``model_copy``, renames
in place, and small input checks."""

from __future__ import annotations

import copy
import json
import math
import warnings

import pytest
from pydantic import ValidationError

from hyperviz_core import (
    Entity,
    HIFError,
    Hyperedge,
    Hypergraph,
    HypergraphError,
    IdMap,
    Style,
    from_hypernetx,
)
from hyperviz_core.hif import HIFAliasWarning
from hyperviz_core.render import footer_text

DEFAULT_KEY = ("E# = entity (circle) · H# = hyperedge (region in set views, square node in "
               "induced views) · legend: H# descriptions")


def _pair(**edge: object) -> Hypergraph:
    return Hypergraph(entities=[{"name": "a"}, {"name": "b"}],
                      hyperedges=[{"id": "h", "members": ["a", "b"], **edge}])


# 1 ------------------------------------------------------------------ member_attrs via HIF
def test_hif_round_trip_keeps_member_attrs() -> None:
    g = _pair(member_attrs={"b": {"role": "object"}, "a": {"weight": 2.0, "direction": "head"}})
    doc = g.to_hif()
    assert {"edge": "h", "node": "b", "attrs": {"role": "object"}} in doc["incidences"]
    back = Hypergraph.from_hif(doc)
    assert back == g
    assert back.hyperedges["h"].member_attrs == g.hyperedges["h"].member_attrs
    assert back.to_hif() == doc


def test_hif_incidence_attrs_named_like_a_top_level_key_stay_in_attrs() -> None:
    doc = {"incidences": [{"edge": "e", "node": "a", "attrs": {"weight": 3, "role": "s"}},
                          {"edge": "e", "node": "b"}]}
    g = Hypergraph.from_hif(doc)
    assert g.hyperedges["e"].member_attrs == {"a": {"role": "s", "attrs": {"weight": 3}}}
    assert g.to_hif()["incidences"][0] == {"edge": "e", "node": "a",
                                           "attrs": {"weight": 3, "role": "s"}}


# 2 ------------------------------------------------------------------ HyperNetX case aliases
def test_hypernetx_case_collision_is_an_alias_not_a_silent_merge() -> None:
    import hypernetx as hnx

    from hyperviz_core.convert import HyperNetXAliasWarning
    from hyperviz_core.hif import NodeAliasWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        H = hnx.Hypergraph({"e1": ["Apple", "apple"], "e2": ["apple", "pear"]})
        hg = from_hypernetx(H)
    ours = [w for w in caught if issubclass(w.category, NodeAliasWarning)]
    assert [w.category for w in ours] == [HyperNetXAliasWarning]
    assert "'Apple' and 'apple'" in str(ours[0].message)
    assert not issubclass(HyperNetXAliasWarning, HIFAliasWarning)
    assert sorted(hg.entities) == ["apple", "pear"]
    assert hg.entities["apple"].metadata["hif_aliases"] == [{"node": "apple"}]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        H2 = hg.to_hypernetx()
        back = from_hypernetx(H2)
    assert {k: sorted(v) for k, v in H2.incidence_dict.items()} == {
        "e1": ["Apple", "apple"], "e2": ["apple", "pear"]}
    assert back == hg
    doc = hg.to_hif()  # HIF writes both ids back as well
    assert [n["node"] for n in doc["nodes"]] == ["Apple", "apple", "pear"]
    assert [(i["edge"], i["node"]) for i in doc["incidences"]] == [
        ("e1", "Apple"), ("e1", "apple"), ("e2", "apple"), ("e2", "pear")]


def test_hypernetx_integer_ids_are_remembered_for_hif() -> None:
    import hypernetx as hnx

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hg = from_hypernetx(hnx.Hypergraph({7: [1, 2]}))
    doc = hg.to_hif()
    assert doc["incidences"] == [{"edge": 7, "node": 1}, {"edge": 7, "node": 2}]


def test_hif_aliases_survive_hypernetx() -> None:
    with pytest.warns(HIFAliasWarning):
        hg = Hypergraph.from_hif({"incidences": [{"edge": "e", "node": "b"},
                                                 {"edge": "e", "node": "B"},
                                                 {"edge": "e", "node": "c"}]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        back = from_hypernetx(hg.to_hypernetx())
    assert back == hg
    assert back.to_hif() == hg.to_hif()


# 3 ------------------------------------------------------------------ empty hyperedges
def test_empty_hyperedge_is_refused() -> None:
    hg = Hypergraph(entities=[{"name": "a"}])
    with pytest.raises(HypergraphError, match="no members"):
        hg.add_hyperedge(Hyperedge(members=[], description="empty"))
    assert hg.hyperedges == {}
    with pytest.raises(HypergraphError, match="'h' has no members"):
        Hypergraph(entities=[{"name": "a"}], hyperedges=[{"id": "h", "members": []}])


def test_hif_edge_without_incidences_is_kept_for_export_only() -> None:
    doc = {"edges": [{"edge": "lonely", "weight": 2, "attrs": {"x": 1}}],
           "incidences": [{"edge": "e1", "node": "a"}, {"edge": "e1", "node": "b"}]}
    hg = Hypergraph.from_hif(doc)
    assert sorted(hg.hyperedges) == ["e1"]
    out = hg.to_hif()
    assert out["edges"] == [{"edge": "e1"}, {"edge": "lonely", "weight": 2, "attrs": {"x": 1}}]
    assert Hypergraph.from_hif(out) == hg


def test_hypernetx_edge_without_nodes_is_not_a_hyperedge() -> None:
    import hypernetx as hnx
    import pandas as pd

    props = pd.DataFrame({"id": ["e1", "ghost"], "weight": [1.0, 2.0]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        H = hnx.Hypergraph({"e1": ["a", "b"]}, edge_properties=props)
        hg = from_hypernetx(H)
    assert sorted(hg.hyperedges) == ["e1"]
    if "ghost" in H.edges.property_store.properties.index:
        assert hg.metadata["hnx_empty_edges"] == ["ghost"]


# 4 ------------------------------------------------------------------ unknown keywords
def test_unknown_constructor_keyword_is_an_error() -> None:
    with pytest.raises(ValidationError, match="entity"):
        Hypergraph(entity=[{"name": "a"}], nodes=[1])


# 5 ------------------------------------------------------------------ ids after removal
def test_removal_keeps_every_id_as_pruning_does() -> None:
    """A shrunk hyperedge keeps its id, derived or given (stores, H#s and chunk links name
    it), as congestion control's cut does."""
    s = Hypergraph(entities=[{"name": n} for n in "abc"],
                   hyperedges=[{"members": ["a", "b", "c"], "description": "abc"}])
    (hid,) = s.hyperedges
    assert s.remove_entity("c") == []
    assert s.members(hid) == ["a", "b"]
    s.check_consistency()


def test_removal_keeps_a_given_id() -> None:
    s = Hypergraph(entities=[{"name": n} for n in "abc"],
                   hyperedges=[{"id": "mine", "members": ["a", "b", "c"]}])
    s.remove_entity("c")
    assert s.members("mine") == ["a", "b"]


# 6 ------------------------------------------------------------------ IdMap
def test_idmap_entity_id_takes_names_and_resolve_checks_types() -> None:
    g = Hypergraph(entities=[{"name": "Marie Curie"}])
    ids = IdMap.build(g)
    assert ids.entity_id("Marie  CURIE") == ids.entity_id("marie curie") == "E1"
    with pytest.raises(KeyError, match="no visual id"):
        ids.entity_id("   ")
    with pytest.raises(TypeError, match="visual id is a string"):
        ids.resolve(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="entity key or name"):
        ids.entity_id(5)  # type: ignore[arg-type]


# 7 ------------------------------------------------------------------ footer follows style
def test_footer_follows_the_style() -> None:
    assert footer_text(0, 0, False) == DEFAULT_KEY
    assert footer_text(0, 0, False, style=Style()) == DEFAULT_KEY
    text = footer_text(0, 0, False, style=Style(node_shape="box", show_legend=False))
    assert "(box)" in text and "legend" not in text and "in the caption" in text
    short = footer_text(2, 1, True, short=True, style=Style(show_legend=False))
    assert short.startswith("E# = entity · H# = hyperedge · H# descriptions in the caption")


def test_rendered_footer_follows_the_style(monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core import HyperViz
    from hyperviz_core import render as render_mod

    seen: list[str] = []
    real = render_mod.rasterize

    def spy(*args: object, **kwargs: object) -> bytes:
        seen.append(str(args[-1]))  # the footer text drawn
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(render_mod, "rasterize", spy)
    HyperViz(style=Style(node_shape="polygon", show_legend=False)).render(_pair())
    HyperViz().render(_pair())
    assert "(polygon)" in seen[0] and "legend:" not in seen[0]
    assert seen[1].startswith(DEFAULT_KEY)


# 8 ------------------------------------------------------------------ NaN / inf
def test_hif_dict_with_nan_incidence_weight_is_refused() -> None:
    inc = [{"edge": "e1", "node": "a", "weight": float("nan")}, {"edge": "e1", "node": "b"}]
    with pytest.raises(HIFError, match="incidences/0/weight is not finite"):
        Hypergraph.from_hif({"incidences": inc})
    with pytest.raises(HIFError, match="nodes/0/weight"):
        Hypergraph.from_hif({"nodes": [{"node": "a", "weight": math.inf}], "incidences": []})


def test_to_hif_never_emits_nan_or_inf() -> None:
    g = _pair(metadata={"score": float("inf")})
    with pytest.raises(HIFError, match="edges/0/attrs/score is not finite"):
        g.to_hif()
    g = Hypergraph(entities=[{"name": "a"}], metadata={"x": [float("nan")]})
    with pytest.raises(HIFError, match="metadata/x/0"):
        g.to_hif()
    json.dumps(_pair(weight=2.5).to_hif(), allow_nan=False)


def test_nan_membership_weight_is_refused_by_the_model() -> None:
    with pytest.raises(ValidationError, match="finite"):
        Hyperedge(members=["a", "b"], member_attrs={"a": {"weight": float("nan")}})


# 9 ------------------------------------------------------------------ model_copy
@pytest.mark.parametrize("how", ["shallow", "deep", "copy.copy", "copy.deepcopy"])
def test_copies_share_nothing_with_the_original(how: str) -> None:
    hg = _pair()
    before = hg.model_dump()
    c = {"shallow": lambda: hg.model_copy(), "deep": lambda: hg.model_copy(deep=True),
         "copy.copy": lambda: copy.copy(hg), "copy.deepcopy": lambda: copy.deepcopy(hg)}[how]()
    c.add_entity(Entity(name="z"))
    c.add_hyperedge(Hyperedge(members=["a", "z"]))
    c.entities["a"].description = "changed"
    assert hg.model_dump() == before
    assert hg.neighbors("a") == ["h"] and "z" not in hg
    hg.check_consistency()
    c.check_consistency()


def test_model_copy_update_is_checked_and_indexed() -> None:
    hg = _pair()
    c = hg.model_copy(update={"hyperedges": {}})
    assert c.neighbors("a") == [] and hg.neighbors("a") == ["h"]
    with pytest.raises(HypergraphError, match="unknown entity"):
        hg.model_copy(update={"entities": {}})


# 10 ----------------------------------------------------------------- rename in place
def test_renaming_an_entity_in_place_to_another_key_is_reported() -> None:
    """A standalone entity may be renamed (it is in no hypergraph); one a hypergraph stores
    under its key, renamed to another key, is reported by ``check_consistency``."""
    g = _pair()
    g.entities["a"].name = "A"  # same key: fine
    assert g.entities["a"].key == "a"
    g.check_consistency()
    g.entities["a"].name = "Renamed"
    with pytest.raises(HypergraphError, match="stored under key 'a'"):
        g.check_consistency()


def test_check_consistency_reports_a_key_mismatch() -> None:
    g = _pair()
    g.entities["zzz"] = g.entities.pop("a")
    with pytest.raises(HypergraphError, match="stored under key 'zzz'"):
        g.check_consistency()


# 11 ----------------------------------------------------------------- small checks
def test_empty_hif_path_says_so() -> None:
    for src in ("", "   "):
        with pytest.raises(HIFError, match="empty string"):
            Hypergraph.from_hif(src)


@pytest.mark.parametrize("color", ["#ff000080", "none", (1, 0, 0, 0.5)])
def test_transparent_colours_are_refused(color: object) -> None:
    with pytest.raises(ValidationError):
        Style(background=color)  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        Style(palette=["red", color])  # type: ignore[list-item]


def test_opaque_colours_still_pass() -> None:
    assert Style(background="#ff0000ff").background_hex == "#ff0000"
    assert Style(background=(255, 0, 0), node_outline="black").outline_hex == "#000000"



def test_a_membership_direction_is_head_or_tail() -> None:
    """``to_hif`` writes a membership's direction as it is: one HIF does not know would make
    a document that fails its own schema, so the model refuses it."""
    Hyperedge(members=["a", "b"], member_attrs={"a": {"direction": "tail"}})
    with pytest.raises(ValueError, match="'head' or 'tail'"):
        Hyperedge(members=["a", "b"], member_attrs={"a": {"direction": "sideways"}})
