"""``ra-cen`` with other components beside its shells (stop 63).

``ra-cen`` stretches its shells into ellipses shaped like the panel, then packs the graph's
other components beside them; packed beside, they could make the whole much wider than the
panel, which one uniform scale then shrinks. The round shells are now packed too and the
layout whose shape is nearer the panel's is kept.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from hyperviz_core import HyperViz
from hyperviz_core.layouts import induced
from hyperviz_core.model import Entity, Hyperedge, Hypergraph


def star_and_others(seed: int, skip: int) -> Hypergraph:
    """A hub in 4–10 hyperedges of 1–3 leaves each, and 1–5 other small components (the
    ``skip``-th graph the seed draws)."""
    rng = random.Random(seed)
    for _ in range(skip + 1):
        hg = Hypergraph()
        hg.add_entity(Entity(name="Hub"))
        n = 0
        for i in range(rng.randint(4, 10)):
            members = ["hub"]
            for _ in range(rng.randint(1, 3)):
                n += 1
                hg.add_entity(Entity(name=f"Leaf{n}x"))
                members.append(f"leaf{n}x")
            hg.add_hyperedge(Hyperedge(members=members, description=f"f{i}"))
        for c in range(rng.randint(1, 5)):
            members = []
            for _ in range(rng.randint(2, 4)):
                n += 1
                hg.add_entity(Entity(name=f"Other{n}y"))
                members.append(f"other{n}y")
            hg.add_hyperedge(Hyperedge(members=members, description=f"o{c}"))
    return hg


def _panel(hg: Hypergraph) -> dict[str, Any]:
    panel: dict[str, Any] = HyperViz().render(hg, layouts=("ra-cen",)).export()["panels"][0]
    return panel


def test_round_shells_when_the_packed_whole_fits_the_panel_better() -> None:
    panel = _panel(star_and_others(2, 5))
    assert panel["ring_stretch"] == [1.0, 1.0]  # before: stretched, and the whole too wide
    assert panel["unnamed"] == []  # before: 3 shown by ID only


def test_fewer_names_lost_over_many_such_graphs(monkeypatch: pytest.MonkeyPatch) -> None:
    graphs = [star_and_others(2, k) for k in range(30)]
    now = sum(len(_panel(hg)["unnamed"]) for hg in graphs)
    monkeypatch.setattr(induced, "_stretches", lambda shells, aspect: [
        induced.shell_stretch(list(shells.values()), aspect)])  # as before: stretched only
    before = sum(len(_panel(hg)["unnamed"]) for hg in graphs)
    assert now < before  # 14 and 19 when written


def test_one_component_keeps_its_stretched_shells() -> None:
    hg = Hypergraph()
    hg.add_entity(Entity(name="Hub"))
    for i in range(8):
        hg.add_entity(Entity(name=f"Leaf{i}"))
        hg.add_hyperedge(Hyperedge(members=["hub", f"leaf{i}"], description=f"f{i}"))
    stretch = _panel(hg)["ring_stretch"]
    assert stretch[0] > 1.0 == stretch[1]
