"""bi-inc names every entity of a staggered entity column (stop 51).

When the entity column needs sub-columns, they were one node pitch apart: a name beside a
node of an inner sub-column lay nearer a neighbour's node, so it was left out and the entity
shown by ID only (9 of 28 entities of a 32-entity random hypergraph; about 7 per bottom view
of the MuSiQue dev questions). The sub-columns, and the entity and hyperedge columns, are
now a name's width farther apart where the panel has room.
"""

from __future__ import annotations

import numpy as np
import pytest

from hyperviz_core import HyperViz
from hyperviz_core.draw.fit import columns_width, stack_columns
from hyperviz_core.draw.scene import MIN_SEP_PX, SEP_PX, _columns
from hyperviz_core.testing import random_hypergraph


@pytest.mark.parametrize("size", [(32, 9), (40, 12)])
def test_bi_inc_names_every_entity_of_a_staggered_column(size: tuple[int, int]) -> None:
    r = HyperViz().render(random_hypergraph(*size, seed=0), layouts=("bi-inc",))
    ex = r.export()
    xs = {p["x"] for e in ex["entities"] for p in e["panel_positions"]}
    assert len(xs) >= 2  # the entity column is staggered into sub-columns
    assert ex["panels"][0]["unnamed"] == []
    assert "Shown by ID only" not in r.caption
    assert r.metrics["ambiguous_labels"] == 0 and r.metrics["node_overlaps"] == 0
    names = {lab["id"]: lab["bbox"] for lab in ex["labels"] if lab["kind"] == "name"}
    assert len(names) == len(ex["entities"])
    for e in ex["entities"]:
        (pos,) = e["panel_positions"]
        assert names[e["id"]][0] > pos["x"]  # each name right of its own node


def test_stack_columns_extra_widens_the_sub_columns_and_the_lane() -> None:
    radii = [[10.0] * 30, [12.0] * 6]
    frame = (0.0, 0.0, 700.0, 300.0)
    plain = stack_columns(radii, frame, 10.0)
    wide = stack_columns(radii, frame, 10.0, [90.0, 0.0])
    assert plain is not None and wide is not None
    assert np.array_equal(plain[0][:, 1], wide[0][:, 1])  # rows unchanged
    assert np.array_equal(plain[1], wide[1])  # the hyperedge column stays flush right
    subs = sorted({float(x) for x in wide[0][:, 0]})
    assert len(subs) == 3 and np.allclose(np.diff(subs), 30.0 + 90.0)
    lane = wide[1][0, 0] - max(subs)
    assert lane >= 10.0 + 12.0 + 10.0 + 90.0  # the last sub-column's names fit too
    assert columns_width(radii, frame, 10.0, [90.0, 0.0]) == pytest.approx(
        2 * 120.0 + 22.0 + 10.0 + 90.0)
    assert stack_columns(radii, frame, 10.0, [250.0, 0.0]) is None  # too wide
    assert stack_columns(radii, frame, 10.0, None) is not None


def test_the_name_room_shrinks_before_the_gap_between_nodes() -> None:
    ents, edges = [f"e{i}" for i in range(30)], ["h0", "h1"]
    frame = (0.0, 0.0, 400.0, 300.0)
    full = 2 * (2 * 10.0 + SEP_PX + 120.0) + 10.0 + 12.0 + SEP_PX + 120.0  # 452 px > 400
    assert full > frame[2]
    xy, sep, _, overflow = _columns((ents, edges), ents, edges, 10.0, 12.0, frame, 120.0)
    assert sep == SEP_PX and overflow == 1.0  # the room gave way, not the gap
    subs = sorted({float(x) for x in xy[:30, 0]})
    assert len(subs) == 3
    assert 2 * 10.0 + SEP_PX < subs[1] - subs[0] < 2 * 10.0 + SEP_PX + 120.0
    assert subs[0] >= 120.0  # the first sub-column's names have their room on the left
    crowded = [f"e{i}" for i in range(150)]
    xy, sep, _, _ = _columns((crowded, edges), crowded, edges, 10.0, 12.0, frame, 120.0)
    assert MIN_SEP_PX <= sep < SEP_PX  # no room left for names: the gap shrinks as before
