"""Congestion control: importance, cost, caps, query awareness, the report."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.prune import Budget, entity_importance, estimate_cost, prune
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
    assert all(report.reasons[k] == "max_entities" for k in report.entities)
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


def test_query_wins_ties_even_with_beta_zero() -> None:
    small, _ = prune(_star(), Budget(max_entities=2, beta=0.0), query="carbon")
    assert "carbon" in small.entities


def test_hyperedge_cap_removes_orphans() -> None:
    hg = random_hypergraph(30, 15, seed=7)
    small, report = prune(hg, Budget(max_hyperedges=5, max_entities=100, gamma=1.0))
    assert len(small.hyperedges) == 5
    assert all(small.degree(k) > 0 for k in small.entities)
    assert sum(1 for h in report.hyperedges if report.reasons[h] == "max_hyperedges") == 10


def test_default_budget_keeps_30_and_cuts_100() -> None:
    small, report = prune(random_hypergraph(30, 15, seed=7), Budget())
    assert not report.pruned and len(small.entities) == 30
    big, report = prune(random_hypergraph(120, 60, seed=3), Budget())
    assert 25 <= len(big.entities) <= 40
    assert len(big.hyperedges) <= 25
    assert report.cost_after <= report.cost_max < report.cost_before


def test_cost_budget_prunes_until_under_cmax() -> None:
    hg = random_hypergraph(40, 20, seed=5)
    b = Budget(gamma=0.05, max_entities=1000, max_hyperedges=1000)
    small, report = prune(hg, b)
    assert report.cost_before > report.cost_max
    assert estimate_cost(small, b) <= report.cost_max
    assert all(report.reasons[k] == "cost" for k in report.entities)


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
