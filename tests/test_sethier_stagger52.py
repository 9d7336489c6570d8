"""``set-hier`` deals a wide rank of leaf entities over several ranks (stop 52).

Under a hub, ``dot`` put every leaf entity of every hyperedge in one rank: a strip many
times wider than tall, drawn at one uniform scale, with leaves so close that their names had
no room of their own (shown by ID only). The leaves are now dealt over 2, then 3 ranks
(Graphviz's ``unflatten -l``) before left-to-right ranks are tried.
"""

from __future__ import annotations

import pytest

from hyperviz_core import HyperViz
from hyperviz_core.layouts import LayoutOrder, get_layout
from hyperviz_core.layouts import gv as gv_module
from hyperviz_core.model import Entity, Hyperedge, Hypergraph

CITIES = ["Somerville", "Cambridge", "Watertown", "Brookline", "Newton", "Dedham", "Quincy",
          "Milton", "Needham", "Chelsea", "Revere", "Everett", "Winthrop", "Medford",
          "Malden", "Waltham", "Belmont", "Arlington", "Lexington", "Wellesley", "Natick",
          "Framingham", "Braintree", "Weymouth"]


def wide_star() -> Hypergraph:
    """A hub in 8 hyperedges, each with 3 leaf entities of its own."""
    hg = Hypergraph()
    hg.add_entity(Entity(name="Boston"))
    for i in range(8):
        leaves = CITIES[3 * i:3 * i + 3]
        for name in leaves:
            hg.add_entity(Entity(name=name))
        hg.add_hyperedge(Hyperedge(members=["boston", *(n.lower() for n in leaves)],
                                   description=f"fact {i}"))
    return hg


def _order(hg: Hypergraph) -> LayoutOrder:
    return LayoutOrder(entities=sorted(hg.entities), hyperedges=sorted(hg.hyperedges))


def test_leaves_under_a_hyperedge_are_dealt_over_ranks() -> None:
    hg = wide_star()
    res = get_layout("set-hier")(hg, _order(hg))
    assert res.engine == "dot"
    leaf_ys = {round(res.entities[k][1], 3) for k in hg.entities if k != "boston"}
    assert len(leaf_ys) >= 2  # before: one rank of 24 leaves


def test_the_leaves_names_find_room(monkeypatch: pytest.MonkeyPatch) -> None:
    hg = wide_star()
    now = HyperViz().render(hg, layouts=("set-hier",)).export()["panels"][0]["unnamed"]
    monkeypatch.setattr(gv_module, "_HIER_TRIES", (("TB", 1), ("LR", 1)))  # as before
    before = HyperViz().render(hg, layouts=("set-hier",)).export()["panels"][0]["unnamed"]
    assert len(now) < len(before)


def test_a_hierarchy_that_fits_is_drawn_as_before(monkeypatch: pytest.MonkeyPatch) -> None:
    hg = Hypergraph()
    for name in ("Marie Curie", "Pierre Curie", "Paris", "Radium"):
        hg.add_entity(Entity(name=name))
    hg.add_hyperedge(Hyperedge(members=["marie curie", "pierre curie"], description="wed"))
    hg.add_hyperedge(Hyperedge(members=["marie curie", "radium", "paris"], description="found"))
    now = get_layout("set-hier")(hg, _order(hg))
    monkeypatch.setattr(gv_module, "_HIER_TRIES", (("TB", 1),))
    assert get_layout("set-hier")(hg, _order(hg)).entities == now.entities
