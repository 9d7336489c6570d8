"""Readability metrics on hand-built export dicts with known answers (+ the test generator)."""

from __future__ import annotations

import doctest
import json
import math
import random
from collections.abc import Sequence
from itertools import combinations
from typing import Any

import pytest

import hyperviz_core.metrics
import hyperviz_core.testing
from hyperviz_core import HypergraphError
from hyperviz_core.metrics import ReadabilityMetrics, compute_metrics, readability_metrics
from hyperviz_core.testing import random_hypergraph

Pt = tuple[float, float]


def ent(eid: str, x: float, y: float, r: float = 10.0, panel: int = 0) -> dict[str, Any]:
    return {"id": eid, "panel_positions": [{"panel": panel, "x": x, "y": y, "r": r}]}


def rect(x0: float, y0: float, x1: float, y1: float) -> list[list[float]]:
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


def edge(hid: str, members: list[str], *rings: list[list[float]], panel: int = 0,
         node: Pt | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"id": hid, "members": members, "regions": [], "node": []}
    if rings:
        out["regions"] = [{"panel": panel, "polygons": list(rings)}]
    if node is not None:
        out["node"] = [{"panel": panel, "x": node[0], "y": node[1]}]
    return out


def export(entities: Sequence[dict[str, Any]], hyperedges: Sequence[dict[str, Any]] = (),
           labels: Sequence[dict[str, Any]] = (), width: int = 400, height: int = 200,
           panels: int = 1) -> dict[str, Any]:
    pw = width / panels
    return {
        "width": width, "height": height,
        "panels": [{"layout": "x", "bbox": [i * pw, 0, (i + 1) * pw, height]}
                   for i in range(panels)],
        "entities": list(entities), "hyperedges": list(hyperedges), "labels": list(labels),
    }


def label(lid: str, x0: float, y0: float, x1: float, y1: float, panel: int = 0) -> dict[str, Any]:
    return {"id": lid, "panel": panel, "bbox": [x0, y0, x1, y1]}


ROW = [ent("E1", 50, 100), ent("E2", 150, 100), ent("E3", 250, 100)]


# ------------------------------------------------------------------ purity & intruders
def test_pure_regions() -> None:
    m = compute_metrics(export(ROW, [edge("H1", ["E1", "E2"], rect(30, 80, 170, 120)),
                                     edge("H2", ["E3"], rect(230, 80, 270, 120))]))
    assert m["regions"] == 2
    assert m["purity"] == 1.0 and m["purity_disk"] == 1.0
    assert m["intruder_pairs"] == 0 and m["uncovered_members"] == 0


def test_intruder_centre_inside() -> None:
    m = compute_metrics(export(ROW, [edge("H1", ["E1", "E3"], rect(30, 80, 270, 120)),
                                     edge("H2", ["E2"], rect(130, 80, 170, 120))]))
    assert m["intruder_pairs"] == 1  # E2 inside H1
    assert m["purity"] == 0.5 and m["pure_regions"] == 1
    assert m["panel0.purity"] == 0.5


def test_disk_touch_without_centre() -> None:
    # H1 ends 5 px left of E2's centre: the disk (r=10) is touched, the centre is not inside.
    m = compute_metrics(export(ROW, [edge("H1", ["E1"], rect(30, 80, 145, 120))]))
    assert m["intruder_pairs"] == 0 and m["purity"] == 1.0
    assert m["disk_intruder_pairs"] == 1 and m["purity_disk"] == 0.0
    # 12 px away: clear of the disk
    m = compute_metrics(export(ROW, [edge("H1", ["E1"], rect(30, 80, 138, 120))]))
    assert m["disk_intruder_pairs"] == 0 and m["purity_disk"] == 1.0


def test_hole_ring_excludes_non_member() -> None:
    outer = rect(30, 60, 270, 140)
    hole = rect(130, 80, 170, 120)  # around E2
    m = compute_metrics(export(ROW, [edge("H1", ["E1", "E3"], outer, hole)]))
    assert m["intruder_pairs"] == 0 and m["purity"] == 1.0 and m["purity_disk"] == 1.0
    m = compute_metrics(export(ROW, [edge("H1", ["E1", "E3"], outer)]))
    assert m["intruder_pairs"] == 1


def test_uncovered_member() -> None:
    m = compute_metrics(export(ROW, [edge("H1", ["E1", "E2"], rect(30, 80, 70, 120))]))
    assert m["uncovered_members"] == 1


# ------------------------------------------------------------------ overlaps & splits
def test_spurious_overlap_only_for_disjoint_hyperedges() -> None:
    ents = [ent("E1", 50, 100), ent("E2", 150, 100), ent("E3", 250, 100), ent("E4", 350, 100)]
    disjoint = [edge("H1", ["E1", "E2"], rect(30, 80, 200, 120)),
                edge("H2", ["E3", "E4"], rect(190, 80, 370, 120))]
    m = compute_metrics(export(ents, disjoint))
    assert m["disjoint_pairs"] == 1 and m["spurious_overlaps"] == 1
    apart = [edge("H1", ["E1", "E2"], rect(30, 80, 170, 120)),
             edge("H2", ["E3", "E4"], rect(230, 80, 370, 120))]
    m = compute_metrics(export(ents, apart))
    assert m["disjoint_pairs"] == 1 and m["spurious_overlaps"] == 0
    sharing = [edge("H1", ["E1", "E2"], rect(30, 80, 170, 120)),
               edge("H2", ["E2", "E3"], rect(130, 70, 270, 130))]
    m = compute_metrics(export(ents, sharing))
    assert m["disjoint_pairs"] == 0 and m["spurious_overlaps"] == 0


def test_split_region() -> None:
    split = edge("H1", ["E1", "E3"], rect(30, 80, 70, 120), rect(230, 80, 270, 120))
    m = compute_metrics(export(ROW, [split]))
    assert m["split_regions"] == 1 and m["fragmentation"] == 1 and m["purity"] == 1.0
    # a second piece holding no member is not a split
    stray = edge("H1", ["E1"], rect(30, 80, 70, 120), rect(300, 10, 320, 30))
    m = compute_metrics(export(ROW, [stray]))
    assert m["split_regions"] == 0 and m["fragmentation"] == 0


def test_connector_bridges_split() -> None:
    split = edge("H1", ["E1", "E3"], rect(30, 80, 70, 120), rect(230, 80, 270, 120))
    m = compute_metrics(export(ROW, [split]))
    assert m["unbridged_splits"] == 1
    split["regions"][0]["connectors"] = [[[70, 100], [230, 100]]]
    m = compute_metrics(export(ROW, [split]))
    assert m["split_regions"] == 1 and m["unbridged_splits"] == 0
    split["regions"][0]["connectors"] = [[[70, 100], [150, 100]]]  # ends short of the piece
    assert compute_metrics(export(ROW, [split]))["unbridged_splits"] == 1


def test_edge_label_inside_own_region() -> None:
    h1 = edge("H1", ["E1", "E2"], rect(30, 60, 170, 140))
    inside = [label("H1", 90, 65, 110, 75)]
    assert compute_metrics(export(ROW, [h1], inside))["edge_labels_outside"] == 0
    outside = [label("H1", 190, 65, 210, 75)]
    assert compute_metrics(export(ROW, [h1], outside))["edge_labels_outside"] == 1


# ------------------------------------------------------------------ nodes
def test_node_overlap_and_min_distance() -> None:
    ents = [ent("E1", 50, 100), ent("E2", 65, 100), ent("E3", 200, 100)]
    m = compute_metrics(export(ents))
    assert m["node_overlaps"] == 1
    assert m["min_node_distance"] == 15.0 and m["min_node_gap"] == -5.0
    assert m["max_node_diameter"] == 20.0
    tangent = [ent("E1", 50, 100), ent("E2", 70, 100)]
    assert compute_metrics(export(tangent))["node_overlaps"] == 0
    rounded = [ent("E1", 50, 100), ent("E2", 69.98, 100)]  # within the rounding tolerance
    assert compute_metrics(export(rounded))["node_overlaps"] == 0
    sub_pixel = [ent("E1", 50, 100), ent("E2", 69.9, 100)]
    assert compute_metrics(export(sub_pixel))["node_overlaps"] == 1


def test_hyperedge_squares() -> None:
    ents = [ent("E1", 50, 100, r=10)]
    # squares of half-side 10 (r = 10·√2): 25 px apart do not overlap although the
    # circumscribed circles (reach 28.3) would
    apart = [edge("H1", ["E1"], node=(200, 100)), edge("H2", ["E1"], node=(225, 100))]
    for e in apart:
        e["node"][0]["r"] = 10 * math.sqrt(2)
    m = compute_metrics(export(ents, apart))
    assert m["node_overlaps"] == 0 and m["min_node_distance"] == 25.0
    apart[1]["node"][0]["x"] = 215  # squares share 5x20 px
    assert compute_metrics(export(ents, apart))["node_overlaps"] == 1
    apart[1]["node"][0]["x"] = 62  # square over the entity disk
    assert compute_metrics(export(ents, apart))["node_overlaps"] == 1
    own = [label("H1", 192, 95, 208, 105)]
    apart[1]["node"][0]["x"] = 300
    assert compute_metrics(export(ents, apart, own))["label_node_collisions"] == 0
    other = [label("H2", 192, 95, 208, 105)]
    assert compute_metrics(export(ents, apart, other))["label_node_collisions"] == 1


def test_panels_are_separate_drawings() -> None:
    both = [{"id": "E1", "panel_positions": [{"panel": 0, "x": 100, "y": 100, "r": 10},
                                             {"panel": 1, "x": 100, "y": 100, "r": 10}]}]
    m = compute_metrics(export(both, panels=2))
    assert m["node_overlaps"] == 0 and m["nodes"] == 2
    assert m["panel0.nodes"] == 1 and m["panel1.nodes"] == 1


# ------------------------------------------------------------------ labels
def test_label_collisions() -> None:
    labs = [label("E1", 10, 10, 40, 20), label("E2", 38, 18, 60, 30)]  # 2x2 = 4 px²
    assert compute_metrics(export([], labels=labs))["label_label_collisions"] == 1
    labs = [label("E1", 10, 10, 40, 20), label("E2", 39.5, 19.5, 60, 30)]  # 0.25 px²
    assert compute_metrics(export([], labels=labs))["label_label_collisions"] == 0


def test_own_node_exemption() -> None:
    on_own = [label("E1", 44, 96, 56, 104)]
    assert compute_metrics(export(ROW, labels=on_own))["label_node_collisions"] == 0
    on_other = [label("E1", 144, 96, 156, 104)]  # written on E2
    assert compute_metrics(export(ROW, labels=on_other))["label_node_collisions"] == 1
    beside_own = [label("E1", 55, 95, 90, 105)]  # right of E1, covering part of its disk
    assert compute_metrics(export(ROW, labels=beside_own))["label_node_collisions"] == 1
    clear = [label("E1", 62, 95, 90, 105)]
    assert compute_metrics(export(ROW, labels=clear))["label_node_collisions"] == 0


def test_clipped_labels() -> None:
    labs = [label("E1", 390, 10, 410, 20), label("E2", -3, 10, 10, 20), label("E3", 0, 0, 400, 200)]
    m = compute_metrics(export([], labels=labs))
    assert m["labels_clipped"] == 2 and m["labels"] == 3
    # panel 0 is the left half (0..200): the first and the last box leave it
    m = compute_metrics(export([], labels=labs, panels=2))
    assert m["panel0.labels_outside_panel"] == 3 and m["labels_clipped"] == 2
    inside = [label("E1", 10, 10, 190, 20)]
    assert compute_metrics(export([], labels=inside, panels=2))["labels_outside_panel"] == 0


def test_labels_without_panel_count_in_totals() -> None:
    labs = [label("L1", 10, 10, 40, 20), label("L2", 20, 12, 50, 22)]
    for lab in labs:
        lab["panel"] = None
    m = compute_metrics(export([], labels=labs))
    assert m["label_label_collisions"] == 1 and m["panel0.label_label_collisions"] == 0


# ------------------------------------------------------------------ incidence crossings
def test_incidence_crossing() -> None:
    ents = [ent("E1", 0, 0, r=3), ent("E2", 0, 100, r=3)]
    crossed = [edge("H1", ["E1"], node=(100, 100)), edge("H2", ["E2"], node=(100, 0))]
    m = compute_metrics(export(ents, crossed))
    assert m["incidence_edges"] == 2 and m["incidence_crossings"] == 1
    straight = [edge("H1", ["E1"], node=(100, 0)), edge("H2", ["E2"], node=(100, 100))]
    assert compute_metrics(export(ents, straight))["incidence_crossings"] == 0
    shared_end = [edge("H1", ["E1", "E2"], node=(100, 50))]
    assert compute_metrics(export(ents, shared_end))["incidence_crossings"] == 0


def _proper_cross(a: Pt, b: Pt, c: Pt, d: Pt) -> bool:
    def orient(p: Pt, q: Pt, r: Pt) -> float:
        return (q[0] - p[0]) * (r[1] - p[1]) - (q[1] - p[1]) * (r[0] - p[0])
    if {a, b} & {c, d}:
        return False
    o1, o2, o3, o4 = orient(a, b, c), orient(a, b, d), orient(c, d, a), orient(c, d, b)
    return o1 * o2 < 0 and o3 * o4 < 0


def test_crossings_match_brute_force() -> None:
    rng = random.Random(3)
    ents = [ent(f"E{i}", 50, 10 + 7 * i, r=3) for i in range(40)]
    edges = []
    for h in range(20):
        members = rng.sample([f"E{i}" for i in range(40)], rng.randint(2, 5))
        edges.append(edge(f"H{h}", members, node=(300 + rng.uniform(-40, 40), 10 + 14 * h)))
    pos = {e["id"]: (e["panel_positions"][0]["x"], e["panel_positions"][0]["y"]) for e in ents}
    segs = [(pos[m], (e["node"][0]["x"], e["node"][0]["y"])) for e in edges for m in e["members"]]
    expected = sum(_proper_cross(*s, *t) for s, t in combinations(segs, 2))
    m = compute_metrics(export(ents, edges))
    assert expected > 20
    assert m["incidence_crossings"] == expected and m["incidence_edges"] == len(segs)


# ------------------------------------------------------------------ utilisation, shape, scale
def test_canvas_utilisation() -> None:
    ents = [ent("E1", 50, 50), ent("E2", 150, 150)]  # bbox 40..160 x 40..160 in 200x200
    m = compute_metrics(export(ents, width=200, height=200))
    assert m["canvas_utilisation"] == pytest.approx(120 * 120 / (200 * 200))
    two = [ent("E1", 50, 50), ent("E2", 150, 150, panel=1)]
    m = compute_metrics(export(two, width=400, height=200, panels=2))
    assert m["panel0.canvas_utilisation"] == pytest.approx(20 * 20 / (200 * 200))
    assert m["panel1.canvas_utilisation"] == 0.0  # E2 lies outside panel 1's box


def test_empty_export_and_json() -> None:
    m = compute_metrics({"width": 10, "height": 10})
    assert m["purity"] == 1.0 and m["min_node_distance"] == -1.0 and m["nodes"] == 0
    full = compute_metrics(export(ROW, [edge("H1", ["E1", "E3"], rect(30, 80, 270, 120))],
                                  [label("E1", 44, 96, 56, 104)]))
    assert json.loads(json.dumps(full)) == full
    assert all(isinstance(v, int | float) and math.isfinite(v) for v in full.values())
    assert isinstance(readability_metrics(export(ROW)), ReadabilityMetrics)


def test_purity_matches_brute_force_at_scale() -> None:
    rng = random.Random(11)
    ents = [ent(f"E{i}", rng.uniform(20, 780), rng.uniform(20, 580), r=8) for i in range(150)]
    pos = {e["id"]: e["panel_positions"][0] for e in ents}
    edges = []
    for h in range(60):
        members = rng.sample(sorted(pos), 3)
        xs = [pos[m]["x"] for m in members]
        ys = [pos[m]["y"] for m in members]
        edges.append(edge(f"H{h}", members, rect(min(xs) - 9, min(ys) - 9,
                                                 max(xs) + 9, max(ys) + 9)))
    intruders = 0
    impure = 0
    for e in edges:
        (x0, y0), _, (x1, y1), _ = e["regions"][0]["polygons"][0]
        inside = [k for k, p in pos.items() if k not in e["members"]
                  and x0 <= p["x"] <= x1 and y0 <= p["y"] <= y1]
        intruders += len(inside)
        impure += bool(inside)
    m = compute_metrics(export(ents, edges, width=800, height=600))
    assert intruders > 0
    assert m["intruder_pairs"] == intruders
    assert m["purity"] == pytest.approx((60 - impure) / 60)
    assert m["uncovered_members"] == 0


# ------------------------------------------------------------------ generator
@pytest.mark.parametrize(("n", "m"), [(30, 15), (50, 25), (100, 50), (7, 2)])
def test_random_hypergraph_covers_every_entity(n: int, m: int) -> None:
    hg = random_hypergraph(n, m, seed=5)
    assert len(hg.entities) == n and len(hg.hyperedges) == m
    assert hg.stats().isolated_entities == 0
    assert all(2 <= len(e.members) <= 6 for e in hg.hyperedges.values())
    sets = [tuple(sorted(e.members)) for e in hg.hyperedges.values()]
    assert len(set(sets)) == len(sets)


def test_random_hypergraph_deterministic() -> None:
    assert random_hypergraph(40, 20, seed=9).to_hif() == random_hypergraph(40, 20, seed=9).to_hif()
    assert random_hypergraph(40, 20, seed=9).to_hif() != random_hypergraph(40, 20, seed=10).to_hif()


def test_random_hypergraph_rejects_impossible() -> None:
    with pytest.raises(HypergraphError):
        random_hypergraph(100, 5, seed=1, max_size=6)
    with pytest.raises(HypergraphError):
        random_hypergraph(10, 5, seed=1, min_size=4, max_size=3)


@pytest.mark.parametrize("module", [hyperviz_core.metrics, hyperviz_core.testing])
def test_docstring_examples(module: Any) -> None:
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0
