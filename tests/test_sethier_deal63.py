"""``set-hier`` deals leaf entities over ranks across all hyperedges (stop 63).

Stop 52 dealt the leaves under each hyperedge over 2, then 3 ranks, but restarted the count
at every hyperedge: under a hub whose hyperedges have one leaf each (what a query's
sub-hypergraph around one well-connected entity often looks like) every leaf still went into
the first rank, and their names had no room. The count now runs across the hyperedges.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_sethier_stagger52 import CITIES, _order

from hyperviz_core import HyperViz, hypergraph_from_hif
from hyperviz_core.layouts import get_layout
from hyperviz_core.model import Entity, Hyperedge, Hypergraph

PROBE = Path(__file__).parent / "data" / "probe_india.hif.json"


def one_leaf_star(n: int) -> Hypergraph:
    """A hub in ``n`` hyperedges of two members: the hub and a leaf of its own."""
    hg = Hypergraph()
    hg.add_entity(Entity(name="Boston"))
    for name in CITIES[:n]:
        hg.add_entity(Entity(name=name))
        hg.add_hyperedge(Hyperedge(members=["boston", name.lower()], description=name))
    return hg


@pytest.mark.parametrize("n", [8, 12, 16])
def test_one_leaf_per_hyperedge_is_dealt_over_ranks(n: int) -> None:
    hg = one_leaf_star(n)
    res = get_layout("set-hier")(hg, _order(hg))
    assert res.engine == "dot"
    leaf_ys = {round(res.entities[k][1], 3) for k in hg.entities if k != "boston"}
    assert len(leaf_ys) >= 2  # before: every leaf in one rank


def test_a_probe_around_one_entity_names_more_entities() -> None:
    """A probe sub-hypergraph of the MuSiQue index (around *Indian*; 37 entities, 14
    hyperedges): 5 entities were shown by ID only, now 2."""
    hg = hypergraph_from_hif(json.loads(PROBE.read_text(encoding="utf-8")))
    panel = HyperViz().render(hg, layouts=("set-hier",)).export()["panels"][0]
    assert panel["engine"] == "dot"
    assert len(panel["unnamed"]) <= 2


def test_leaves_stay_in_their_hyperedges_region() -> None:
    hg = hypergraph_from_hif(json.loads(PROBE.read_text(encoding="utf-8")))
    metrics = HyperViz().render(hg, layouts=("set-hier",)).metrics
    assert metrics["purity"] == 1.0
    assert metrics["label_label_collisions"] == 0
    assert metrics["uncovered_members"] == 0
