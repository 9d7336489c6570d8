"""Congestion control that decides (paper §3.1): C from the drawn geometry, budget first,
caps after, uniform scale, and label ownership."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from hyperviz_core.layouts import available_layouts
from hyperviz_core.metrics import compute_metrics, visual_cost
from hyperviz_core.prune import Budget
from hyperviz_core.render import HyperViz, Rendering
from hyperviz_core.testing import random_hypergraph

SIX = ("set-hier", "set-radial", "set-force", "bi-inc", "ra-cen", "cli-exp")


@functools.cache
def dual(n: int, m: int, seed: int, enabled: bool = True, gamma: float | None = None
         ) -> Rendering:
    kw = {} if gamma is None else {"gamma": gamma}
    return HyperViz(budget=Budget(enabled=enabled, **kw)).render(
        random_hypergraph(n, m, seed=seed))


def test_export_carries_cost_cmax_and_reasons() -> None:
    r = dual(80, 40, 3)
    pruned = r.export()["pruned"]
    assert isinstance(pruned["cost"], float) and isinstance(pruned["c_max"], float)
    assert pruned["cost"] <= pruned["c_max"] < pruned["cost_before"]
    assert pruned["entities"] and pruned["removals"]
    assert {x["reason"] for x in pruned["removals"]} == {"budget"}
    assert set(pruned["reasons"].values()) == {"budget"}
    steps = pruned["steps"]
    assert steps[-1]["cost"] == pruned["cost"] and steps[-1]["drawn"] == len(r.id_map.entities)
    assert r.pruning.layouts_run == len(steps) + 1  # the first, unpruned drawing + one per step
    drawn = 80  # replaying the steps' removals and restorations gives what is drawn
    for st in steps:
        drawn += len(st["restored"]) - len(st["entities"])
        assert drawn == st["drawn"] and st["reason"] == "budget"


@pytest.mark.parametrize(("n", "m", "seed"), [(60, 30, 1), (100, 50, 3), (45, 30, 8)])
def test_cost_recomputed_from_export_is_within_budget(n: int, m: int, seed: int) -> None:
    r = dual(n, m, seed)
    exp = r.export()
    assert exp["pruned"]["entities"]  # these sizes exceed the default budget
    recomputed = visual_cost(exp)
    assert recomputed <= exp["pruned"]["c_max"]
    assert recomputed == pytest.approx(exp["pruned"]["cost"], rel=1e-3)
    assert compute_metrics(exp)["cost"] == pytest.approx(recomputed)


@pytest.mark.parametrize(("n", "m", "seed", "gamma"),
                         [(30, 15, 7, 0.05), (20, 10, 1, 0.03), (40, 20, 2, None)])
def test_switching_congestion_control_off_changes_the_image_when_over_budget(
        n: int, m: int, seed: int, gamma: float | None) -> None:
    on = dual(n, m, seed, True, gamma)
    off = dual(n, m, seed, False, gamma)
    assert off.export()["pruned"]["cost"] > on.export()["pruned"]["c_max"]
    assert on.pruning.pruned and not off.pruning.pruned
    assert on.png != off.png
    assert len(off.id_map.entities) == n > len(on.id_map.entities)


def test_default_budget_keeps_30_whole_and_prunes_100() -> None:
    assert not dual(30, 15, 7).pruning.pruned
    assert len(dual(30, 15, 7).id_map.entities) == 30
    big = dual(100, 50, 3)
    assert big.pruning.pruned and 15 <= len(big.id_map.entities) < 100


def test_caps_apply_after_the_budget_and_are_reported_separately() -> None:
    hg = random_hypergraph(60, 30, seed=4)
    r = HyperViz(budget=Budget(max_entities=12)).render(hg, layouts="set-force")
    pruned = r.export()["pruned"]
    reasons = [x["reason"] for x in pruned["removals"] if x["kind"] == "entity"]
    assert "budget" in reasons and "cap" in reasons
    assert reasons.index("cap") > max(i for i, x in enumerate(reasons) if x == "budget")
    assert [st["reason"] for st in pruned["steps"]][-1] == "cap"
    assert len(r.id_map.entities) <= 12 and pruned["cost"] <= pruned["c_max"]


@pytest.mark.parametrize("layout", SIX)
def test_one_uniform_scale_for_every_layout(layout: str) -> None:
    assert layout in available_layouts()
    r = HyperViz(budget=Budget(enabled=False)).render(random_hypergraph(25, 12, seed=2),
                                                      layouts=layout)
    (panel,) = r.export()["panels"]
    sx, sy = panel["scale"]
    assert sx > 0 and sx == sy


@pytest.mark.parametrize("layout", SIX)
@pytest.mark.parametrize(("n", "m", "seed"), [(20, 10, 1), (50, 25, 2)])
def test_no_ambiguous_labels_up_to_50_entities(layout: str, n: int, m: int, seed: int) -> None:
    r = HyperViz(budget=Budget(enabled=False)).render(random_hypergraph(n, m, seed=seed),
                                                      layouts=layout)
    assert r.metrics["ambiguous_labels"] == 0
    exp = r.export()
    unnamed = exp["panels"][0]["unnamed"]
    names = {lab["id"] for lab in exp["labels"] if lab["kind"] == "name"}
    assert not names & set(unnamed)  # an unnamed entity shows its ID only
    assert len(names) + len(unnamed) == n
    if unnamed:
        assert "Shown by ID only" in r.caption
        assert all(f"{vid} " in r.caption.split("Shown by ID only")[1] for vid in unnamed)


def test_ambiguous_label_metric_counts_a_name_beside_a_neighbour() -> None:
    ent = [{"id": f"E{i}", "panel_positions": [{"panel": 0, "x": x, "y": 50, "r": 10}]}
           for i, x in ((1, 50), (2, 130))]
    export = {"width": 300, "height": 100, "panels": [{"layout": "x", "bbox": [0, 0, 300, 100]}],
              "entities": ent, "hyperedges": [],
              "labels": [{"id": "E1", "panel": 0, "kind": "name", "bbox": [95, 45, 115, 55]},
                         {"id": "E2", "panel": 0, "kind": "name", "bbox": [143, 45, 170, 55]}]}
    m = compute_metrics(export)
    assert m["ambiguous_labels"] == 1  # E1's name sits next to E2, E2's next to itself


@pytest.mark.parametrize(("n", "m", "seed", "names", "radius"), [
    (12, 6, 1, ("set-hier", "bi-inc"), 11.0),
    (45, 30, 8, ("set-radial",), 11.0),
    (120, 60, 2, ("set-force", "ra-cen"), 11.0),
    (30, 15, 5, SIX, 11.0),
    (25, 12, 4, ("cli-exp", "set-hier"), 20.0),
    (10, 120, 6, ("set-force", "bi-inc"), 11.0),  # dense: the hyperedge terms
])
def test_the_undrawn_bounds_hold_for_real_drawings(n: int, m: int, seed: int,
                                                   names: tuple[str, ...], radius: float) -> None:
    from hyperviz_core.render import _cost_bounds, _draw
    from hyperviz_core.style import Style

    hg = random_hypergraph(n, m, seed=seed)
    style, budget = Style(node_radius=radius), Budget()
    collage = len(names) > 2
    cols = 3 if collage else len(names)
    side = max(200, style.width // 2)
    width = side * cols if collage else (style.width if cols == 2 else side)
    panel_h = round(side * 0.85) if collage else None
    lower, upper = _cost_bounds(hg, names, style, budget, cols=cols, width=width,
                                height=style.height, panel_h=panel_h)
    d = _draw(hg, list(names), style, cols, width, style.height, panel_h, {})
    assert lower <= d.cost(budget) and d.c_max(budget) <= upper
    d.label(hg, style)  # labels only add length
    assert lower <= d.cost(budget)


def test_a_large_input_is_not_drawn_whole() -> None:
    big = HyperViz().render(random_hypergraph(400, 200, seed=1))
    report, pruned = big.pruning, big.export()["pruned"]
    assert report.cost_before_bound and pruned["cost_before_bound"] is True
    assert report.cost <= report.c_max < report.cost_before
    assert report.layouts_run == len(report.steps) <= 6  # never the 400 entities
    assert 15 <= len(big.id_map.entities) < 400 and all(s.drawn < 400 for s in report.steps)
    assert not dual(80, 40, 3).pruning.cost_before_bound  # retrieval-sized views: drawn whole


def test_a_drawing_whose_nodes_overlap_is_not_accepted() -> None:
    """Ten entities in 120 three-member facts: the bi-inc squares of the 8 entities the cost
    alone accepted exceeded the panel's capacity and overlapped (21 overlaps, 13 colliding
    labels). Congestion control now prunes on until nothing overlaps."""
    from hyperviz_core.testing import facts_hypergraph

    r = HyperViz().render(facts_hypergraph(10, 120), layouts="bi-inc")
    assert r.metrics["node_overlaps"] == 0 and r.metrics["label_label_collisions"] == 0
    assert r.pruning.cost <= r.pruning.c_max and r.pruning.pruned
    assert 0 < len(r.id_map.entities) < 10


def test_counts_the_bounds_put_over_budget_are_not_drawn() -> None:
    """A dense input: every count whose bounds (entities' disks, hyperedges' outlines)
    exceed the budget is an overshoot without a layout (the first cut of 60 entities in
    1,500 facts drew 29 entities and took most of two minutes)."""
    from hyperviz_core.prune import prune

    hg = random_hypergraph(30, 60, seed=2)
    drawn: list[int] = []

    def cost_fn(h: Any) -> tuple[float, float]:
        drawn.append(len(h.entities))
        return 100.0 * len(h.entities), 1000.0

    def bound_fn(h: Any) -> tuple[float, float]:
        return 90.0 * len(h.entities) ** 2, 1000.0  # over budget above 3 entities

    small, report = prune(hg, Budget(), None, cost_fn, bound_fn=bound_fn)
    assert drawn and max(drawn) <= 3 and len(small.entities) == 3
    assert report.cost_before_bound and report.layouts_run == len(drawn)
