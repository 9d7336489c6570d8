"""Congestion control drops the hyperedges a drawing repeats before any entity.

A one-member hyperedge draws a region around one disk (no relation), and a second
hyperedge of the same member set a second outline around the same disks. Over budget they
go first; before, the search cut entities instead: Les Misérables (80 characters, 402
scenes, 105 of them with one character) was drawn as 2 characters inside 62 outlines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hyperviz_core import Entity, Hyperedge, Hypergraph, hypergraph_from_hif
from hyperviz_core.prune import Budget, prune

DATA = Path(__file__).parent / "data"


def _graph(*edges: tuple[str, list[str], float]) -> Hypergraph:
    keys = sorted({m for _, members, _ in edges for m in members})
    return Hypergraph(entities=[Entity(name=k) for k in keys],
                      hyperedges=[Hyperedge(id=h, members=m, weight=w) for h, m, w in edges])


def _per_outline(h: Hypergraph) -> tuple[float, float]:
    """A stand-in drawing: 10 per hyperedge outline, 1 per disk; 30 fit."""
    return 10.0 * len(h.hyperedges) + len(h.entities), 30.0


def test_repeated_hyperedges_go_before_any_entity() -> None:
    hg = _graph(("h1", ["a", "b"], 1.0), ("h2", ["b", "a"], 1.0), ("h3", ["a"], 1.0),
                ("h4", ["b", "c"], 1.0))
    small, report = prune(hg, Budget(), cost_fn=_per_outline)
    assert sorted(small.entities) == ["a", "b", "c"] and report.entities == []
    assert sorted(small.hyperedges) == ["h1", "h4"]  # of h1/h2 the first id stays
    assert report.hyperedges == ["h2", "h3"]
    assert report.reasons == {"h2": "budget", "h3": "budget"}
    assert report.steps[0].hyperedges == ["h2", "h3"] and report.steps[0].drawn == 3
    assert report.cost == 23.0 and report.layouts_run == 2


def test_the_heaviest_of_a_member_set_stays() -> None:
    hg = _graph(("h1", ["a", "b"], 1.0), ("h2", ["a", "b"], 3.0), ("h3", ["a", "b"], 2.0))
    small, report = prune(hg, Budget(), cost_fn=lambda h: (10.0 * len(h.hyperedges), 15.0))
    assert list(small.hyperedges) == ["h2"] and report.hyperedges == ["h1", "h3"]


def test_within_budget_repeats_are_drawn() -> None:
    hg = _graph(("h1", ["a", "b"], 1.0), ("h2", ["a", "b"], 1.0), ("h3", ["a"], 1.0))
    small, report = prune(hg, Budget(), cost_fn=lambda h: (1.0, 30.0))
    assert small is hg and not report.pruned


def test_the_caps_alone_keep_repeats() -> None:
    """With congestion control off only the caps cut, as before."""
    hg = _graph(("h1", ["a", "b"], 1.0), ("h2", ["a", "b"], 1.0), ("h3", ["c", "d"], 1.0))
    small, report = prune(hg, Budget(enabled=False, max_entities=3), cost_fn=_per_outline)
    assert sorted(small.hyperedges) == ["h1", "h2"] and report.entities == ["c"]


def test_a_hyperedge_peeling_leaves_repeated_goes_the_whole_one_stays() -> None:
    """Peeling ``x`` shrinks h1 to {a, b}, which h2 draws whole: h1 goes, though heavier."""
    hg = _graph(("h1", ["a", "b", "x"], 5.0), ("h2", ["a", "b"], 1.0),
                ("h3", ["c", "d", "a"], 1.0), ("h4", ["c", "d", "b"], 1.0))

    def cost(h: Hypergraph) -> tuple[float, float]:  # x (degree 1) peeled first
        return (10.0 * len(h.hyperedges) + 10.0 * len(h.entities), 75.0)

    small, report = prune(hg, Budget(beta=0.0), cost_fn=cost)
    assert sorted(small.entities) == ["a", "b", "c", "d"]  # 3 outlines and 4 disks fit
    assert "h1" not in small.hyperedges and "h2" in small.hyperedges
    assert report.reasons["h1"] == "budget"
    for edge in small.hyperedges.values():
        assert len(set(edge.members)) >= 2 and set(edge.members) <= set(small.entities)


def test_les_miserables_is_drawn_with_its_relations() -> None:
    """Rendered with the default budget: more characters than two, and no outline that
    repeats another or holds one character."""
    from hyperviz_core.render import HyperViz

    hg = hypergraph_from_hif(json.loads((DATA / "lesmis.hif.json").read_text()))
    rendering = HyperViz().render(hg)
    report = rendering.pruning
    drawn = {h: set(e.members) for h, e in hg.hyperedges.items()
             if h not in report.hyperedges}
    kept = set(hg.entities) - set(report.entities)
    assert len(kept) >= 10, len(kept)
    assert all(len(m & kept) >= 2 for m in drawn.values())
    sets = [frozenset(m & kept) for m in drawn.values()]
    assert len(sets) == len(set(sets))
    assert report.cost <= report.c_max


def test_a_fact_peeling_left_repeated_is_drawn_when_the_drawing_fits_with_it() -> None:
    """Without C, "A married B in C" repeats {A, B} of "A sued B": the count is searched
    without it, then drawn with it when that fits too (it is another fact)."""
    hg = _graph(("h1", ["a", "b"], 1.0), ("h2", ["a", "b", "c"], 1.0), ("h3", ["c", "d"], 1.0))

    def cost(h: Hypergraph) -> tuple[float, float]:
        return 10.0 * len(h.hyperedges) + 10.0 * len(h.entities), 45.0

    small, report = prune(hg, Budget(beta=0.0), cost_fn=cost)
    assert sorted(small.entities) == ["a", "b"]
    assert sorted(small.hyperedges) == ["h1", "h2"] and report.hyperedges == ["h3"]
    assert report.cost == 40.0  # the drawing with h2, measured
    tight = prune(hg, Budget(beta=0.0), cost_fn=lambda h: (cost(h)[0], 35.0))[0]
    assert sorted(tight.hyperedges) == ["h1"]  # with h2 it would not fit: h2 goes


def test_one_entity_over_budget_loses_its_one_member_hyperedges() -> None:
    hg = _graph(("h1", ["a"], 1.0), ("h2", ["a", "a"], 1.0))
    small, report = prune(hg, Budget(), cost_fn=lambda h: (10.0 * len(h.hyperedges) + 1, 5.0))
    assert list(small.entities) == ["a"] and not small.hyperedges
    assert report.hyperedges == ["h1", "h2"]


def test_the_footer_names_the_caps_beside_congestion_control(monkeypatch: Any) -> None:
    """A drawing pruned by the budget and then the caps says so under the image, as the
    caption does (the footer used to blame congestion control for both)."""
    from hyperviz_core import render
    from hyperviz_core.testing import random_hypergraph

    said: list[str] = []
    footer = render.footer_text

    def spy(*args: Any, **kwargs: Any) -> str:
        text = footer(*args, **kwargs)
        said.append(text)
        return text

    monkeypatch.setattr(render, "footer_text", spy)
    hg = random_hypergraph(60, 30, seed=1)
    r = render.HyperViz(budget=Budget(max_entities=8)).render(hg)
    assert set(r.pruning.reasons.values()) == {"budget", "cap"}
    assert "congestion control and the caps omitted" in said[-1]
    said.clear()
    r = render.HyperViz(budget=Budget(max_entities=3)).render(_graph(
        ("h1", ["a", "b"], 1.0), ("h2", ["c", "d"], 1.0)))
    assert set(r.pruning.reasons.values()) == {"cap"}
    assert " the caps omitted" in said[-1] and "congestion" not in said[-1]
