"""Readability of real renderings, measured by :mod:`hyperviz_core.metrics`.

* every set layout (set-hier, set-radial, set-force) on random hypergraphs of 20, 50 and 100
  entities: purity 1.0 (centre and disk), no intruder, every member inside its region, no
  unbridged split, no node overlap — with congestion control off, so every entity is drawn;
  the 100-entity case also through the default budget (the product path); no node overlap
  in crowded panels (a squeezed ``dot`` rank, a ``bi-inc`` column beyond capacity);
* no label collisions (label–label, label–node) and no clipped labels up to 50 entities, for
  the set layouts and the default dual view; hyperedge IDs inside their own region;
* the metrics stored in the rendering equal a recomputation from its export.

Determinism across ``PYTHONHASHSEED`` is tested in ``test_render.py``.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

from hyperviz_core.metrics import compute_metrics
from hyperviz_core.prune import Budget
from hyperviz_core.render import HyperViz, Rendering
from hyperviz_core.testing import random_hypergraph

SET_LAYOUTS = ("set-hier", "set-radial", "set-force")
SMALL = [(20, 10, 1), (50, 25, 2)]  # (entities, hyperedges, seed): label checks apply
LARGE = (100, 50, 3)
# found by metric sweeps: a dot rank wider than the panel squeezed onto one line (set-hier),
# a bi-inc column beyond the panel's capacity (100 entities in the dual view)
CROWDED = [(("set-hier",), 50, 25, 3), (("set-force", "bi-inc"), 100, 50, 7)]

PURITY_ZERO = ("intruder_pairs", "disk_intruder_pairs", "uncovered_members", "node_overlaps",
               "unbridged_splits")
LABEL_ZERO = ("label_label_collisions", "label_node_collisions", "labels_clipped",
              "labels_outside_panel")


@functools.cache
def render(layouts: tuple[str, ...], n: int, m: int, seed: int, prune: bool) -> Rendering:
    """One cached rendering per configuration (several tests read the same one)."""
    viz = HyperViz() if prune else HyperViz(budget=Budget(enabled=False))
    return viz.render(random_hypergraph(n, m, seed=seed), layouts=layouts)


def set_panel(r: Rendering) -> int:
    layouts = [p["layout"] for p in r.export()["panels"]]
    return next(i for i, name in enumerate(layouts) if name.startswith("set-"))


def nonzero(metrics: dict[str, float | int], keys: tuple[str, ...]) -> dict[str, float | int]:
    return {k: metrics[k] for k in keys if metrics[k] != 0}


def assert_pure(r: Rendering, drawn: int | None = None) -> None:
    m = r.metrics
    p = set_panel(r)
    assert m[f"panel{p}.regions"] > 0
    assert m["purity"] == 1.0 and m["purity_disk"] == 1.0, m
    assert nonzero(m, PURITY_ZERO) == {}
    if drawn is not None:
        assert m[f"panel{p}.nodes"] == drawn


@pytest.mark.parametrize("layout", SET_LAYOUTS)
@pytest.mark.parametrize(("n", "m", "seed"), SMALL)
def test_set_layout_pure_and_legible(layout: str, n: int, m: int, seed: int) -> None:
    r = render((layout,), n, m, seed, prune=False)
    assert_pure(r, drawn=n)
    assert nonzero(r.metrics, LABEL_ZERO) == {}


@pytest.mark.slow
@pytest.mark.parametrize("layout", SET_LAYOUTS)
def test_set_layout_pure_at_100_entities(layout: str) -> None:
    r = render((layout,), *LARGE, prune=False)
    assert_pure(r, drawn=LARGE[0])


@pytest.mark.parametrize("layout", SET_LAYOUTS)
def test_set_layout_pure_at_100_entities_with_budget(layout: str) -> None:
    r = render((layout,), *LARGE, prune=True)
    assert r.pruning.pruned  # the default budget must cut 100 entities down
    assert_pure(r)


@pytest.mark.parametrize(("layouts", "n", "m", "seed"), CROWDED)
def test_no_node_overlaps_in_crowded_panels(
    layouts: tuple[str, ...], n: int, m: int, seed: int
) -> None:
    r = render(layouts, n, m, seed, prune=False)
    assert nonzero(r.metrics, ("node_overlaps",)) == {}
    assert r.metrics["min_node_gap"] >= 0
    assert_pure(r, drawn=n)


@pytest.mark.parametrize(("n", "m", "seed"), [(30, 15, 7), (50, 25, 2)])
def test_dual_view_legible(n: int, m: int, seed: int) -> None:
    r = render(("set-force", "bi-inc"), n, m, seed, prune=True)
    assert len(r.export()["panels"]) == 2
    assert r.metrics["labels"] > 0
    assert nonzero(r.metrics, (*LABEL_ZERO, "node_overlaps")) == {}
    assert_pure(r)


@pytest.mark.parametrize("layout", SET_LAYOUTS)
@pytest.mark.parametrize(("n", "m", "seed"), SMALL)
def test_hyperedge_labels_inside_their_region(layout: str, n: int, m: int, seed: int) -> None:
    r = render((layout,), n, m, seed, prune=False)
    assert r.metrics["edge_labels_outside"] == 0


def test_stored_metrics_match_the_export() -> None:
    r = render(("set-force", "bi-inc"), 30, 15, 7, prune=True)
    export: dict[str, Any] = r.export()
    stored = export.pop("metrics")
    assert stored == r.metrics
    assert compute_metrics(export) == stored
    assert r.metrics["panel1.incidence_edges"] == sum(
        len(h["members"]) for h in export["hyperedges"] if h["node"])
    assert json.loads(json.dumps(stored)) == stored
