"""``cli-exp`` keeps room for names between its nodes (stop 51).

Its spring layout packs nodes one ``SEP_PX`` apart, so a name beside a node in a cluster lay
nearer a neighbour and was left out: 6 to 20 of 30 entities of a random hypergraph were shown
by ID only. Nodes are now kept ``NAME_GAP`` of the widest name's room apart. ``ra-cen`` is
left as it was: pushing its nodes apart would move them off their distance rings.
"""

from __future__ import annotations

import math

import pytest

from hyperviz_core import HyperViz
from hyperviz_core.draw.scene import SEP_PX
from hyperviz_core.testing import random_hypergraph


@pytest.mark.parametrize(("size", "seed"), [((24, 8), 1), ((30, 10), 0), ((30, 10), 2)])
def test_cli_exp_names_its_entities(size: tuple[int, int], seed: int) -> None:
    r = HyperViz().render(random_hypergraph(*size, seed=seed), layouts=("cli-exp",))
    ex = r.export()
    assert ex["panels"][0]["unnamed"] == []
    assert r.metrics["ambiguous_labels"] == 0 and r.metrics["node_overlaps"] == 0
    pts = [(p["x"], p["y"], p["r"]) for e in ex["entities"] for p in e["panel_positions"]]
    gaps = [math.dist(a[:2], b[:2]) - a[2] - b[2]
            for i, a in enumerate(pts) for b in pts[i + 1:]]
    assert min(gaps) > SEP_PX + 5  # wider apart than the plain node gap


def test_ra_cen_nodes_stay_on_their_rings() -> None:
    r = HyperViz().render(random_hypergraph(20, 8, seed=2), layouts=("ra-cen",))
    panel = r.export()["panels"][0]
    cx, cy = panel["center"]
    kx, ky = panel["ring_stretch"]
    assert kx > 1.0 and ky == 1.0  # a wide panel: the rings are ellipses as wide as it
    radii = [0.0, *panel["rings"]]
    for e in r.export()["entities"]:
        (p,) = e["panel_positions"]
        d = math.hypot((p["x"] - cx) / kx, (p["y"] - cy) / ky)  # the ring a node sits on
        assert min(abs(d - ring) for ring in radii) < 3.0, (e["id"], d, radii)
