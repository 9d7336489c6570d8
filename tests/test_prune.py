"""Congestion control: importance, cost, caps, query awareness, the report."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.prune import Budget, entity_importance, estimate_cost, peel_order, prune
from hyperviz_core.testing import random_hypergraph


def _star() -> Hypergraph:
    ents = [Entity(name="hub"), Entity(name="radium", description="radium isotope chemistry"),
            Entity(name="carbon", description="carbon fibre weaving"), Entity(name="leaf")]
    edges = [Hyperedge(id="a", members=["hub", "radium"]),
             Hyperedge(id="b", members=["hub", "carbon"]),
             Hyperedge(id="c", members=["hub", "leaf"]),
             Hyperedge(id="d", members=["hub", "radium", "carbon"])]
    return Hypergraph(entities=ents, hyperedges=edges)


def test_importance_is_degree_centrality_without_query() -> None:
    imp = entity_importance(_star(), alpha=1.0, beta=0.0)
    assert imp["hub"] == 1.0
    assert imp["radium"] == imp["carbon"] == 0.5
    assert imp["leaf"] == 0.25


def test_query_raises_matching_entities() -> None:
    hg = _star()
    plain = entity_importance(hg)
    q = entity_importance(hg, query="radium chemistry")
    assert q["radium"] > plain["radium"]
    assert q["carbon"] == plain["carbon"]
    assert q["radium"] > q["carbon"]


def test_prune_respects_caps_and_reports() -> None:
    hg = _star()
    before = hg.to_hif()
    small, report = prune(hg, Budget(max_entities=2))
    assert hg.to_hif() == before  # input untouched
    assert len(small.entities) == 2 and "hub" in small.entities
    assert report.pruned and len(report.entities) == 2
    assert all(report.reasons[k] == "cap" for k in report.entities)
    assert [r["reason"] for r in report.removals()] == ["cap"] * len(report.removals())
    for hid in report.hyperedges:
        assert hid not in small.hyperedges and report.reasons[hid]
    small.check_consistency()


@pytest.mark.parametrize(("query", "kept"), [("radium", "radium"), ("carbon fibre", "carbon")])
def test_query_aware_pruning(query: str, kept: str) -> None:
    # radium and carbon have equal centrality; the query decides which one survives
    small, report = prune(_star(), Budget(max_entities=2), query=query)
    assert kept in small.entities
    other = ({"radium", "carbon"} - {kept}).pop()
    assert other in report.entities


def test_beta_zero_ignores_the_query() -> None:
    hg = _star()
    plain = peel_order(hg, Budget(beta=0.0))
    for query in ("carbon", "radium", "leaf hub"):
        assert peel_order(hg, Budget(beta=0.0), query=query) == plain
    small, _ = prune(hg, Budget(max_entities=2, beta=0.0), query="carbon")
    assert set(small.entities) == set(prune(hg, Budget(max_entities=2, beta=0.0))[0].entities)


def test_caps_are_opt_in_and_run_after_the_budget() -> None:
    assert Budget().max_entities is None and Budget().max_hyperedges is None
    hg = random_hypergraph(40, 20, seed=5)
    b = Budget(gamma=0.15, max_entities=5, max_hyperedges=1000)
    small, report = prune(hg, b)
    reasons = [st.reason for st in report.steps]
    assert reasons[0] == "budget" and reasons[-1] == "cap"
    assert reasons == sorted(reasons, key=lambda r: r == "cap")  # budget steps first
    assert len(small.entities) <= 5


def test_hyperedge_cap_removes_orphans() -> None:
    hg = random_hypergraph(30, 15, seed=7)
    small, report = prune(hg, Budget(max_hyperedges=5, max_entities=100, gamma=1.0))
    assert len(small.hyperedges) == 5
    assert all(small.degree(k) > 0 for k in small.entities)
    assert sum(1 for h in report.hyperedges if report.reasons[h] == "cap") == 10


def test_cost_budget_prunes_until_under_cmax() -> None:
    hg = random_hypergraph(40, 20, seed=5)
    b = Budget(gamma=0.01, max_entities=1000, max_hyperedges=1000)
    small, report = prune(hg, b)
    assert report.cost_before > report.c_max
    assert estimate_cost(small, b) <= report.c_max
    assert all(report.reasons[k] == "budget" for k in report.entities)
    # the search keeps the largest count it measured within budget
    fits = [st.drawn for st in report.steps if st.cost <= st.c_max]
    assert fits and len(small.entities) == max(fits)
    assert all(st.drawn > len(small.entities) for st in report.steps if st.cost > st.c_max)


def test_cost_fn_decides_and_steps_are_bounded() -> None:
    hg = random_hypergraph(60, 30, seed=2)
    calls: list[int] = []

    def cost_fn(h: Hypergraph) -> tuple[float, float]:  # a stand-in "drawing": 100/entity
        calls.append(len(h.entities))
        return 100.0 * len(h.entities), 1234.0

    small, report = prune(hg, Budget(), cost_fn=cost_fn)
    assert len(small.entities) == 12  # the largest count with C <= C_max
    assert report.cost == 1200.0 and report.c_max == 1234.0 and report.cost_before == 6000.0
    assert report.layouts_run == len(calls) <= 3
    assert calls[0] == 60
    small2, _ = prune(hg, Budget(enabled=False), cost_fn=cost_fn)
    assert len(small2.entities) == 60


def test_disabled_budget_and_validation() -> None:
    hg = random_hypergraph(60, 30, seed=1)
    small, report = prune(hg, Budget(enabled=False))
    assert len(small.entities) == 60 and not report.pruned
    for bad in ({"w_v": 0.5}, {"w_e": 11}, {"gamma": 1.5}, {"alpha": -0.1}, {"beta": 2}):
        with pytest.raises(ValidationError):
            Budget(**bad)


def test_empty_hypergraph() -> None:
    small, report = prune(Hypergraph(), Budget())
    assert len(small.entities) == 0 and not report.pruned
    assert entity_importance(Hypergraph(), "x") == {}
