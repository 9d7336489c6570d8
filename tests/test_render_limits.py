"""Safety limits on what a rendered view is given (``render_max_hyperedges`` for I_bot,
``render_max_themes`` for I_top): a dense neighbourhood — many facts about a few hub
entities — is cut to its best-scored hyperedges before it is laid out; a view within the
limit is drawn exactly as before; the result's lists are never cut."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rag_fakes import demo_documents, store_with

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.rag import Document, RetrievalConfig, VizRAG
from hyperviz_core.rag.retrieve.subgraph import limit_hyperedges
from hyperviz_core.testing import dense_reports

Q = "When did Alice Morgan meet someone in Oslo?"
DEMO_Q = "Where did the band form that made the live album Maiden Japan?"


def _dense_documents() -> list[Document]:
    """36 reports in which seven people meet in five cities: each person is in dozens of
    facts, so the neighbourhood of any question holds far more hyperedges than entities."""
    return [Document(**d) for d in dense_reports(36, n_people=7, n_cities=5)]


@pytest.fixture(scope="module")
def dense_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_with(tmp_path_factory.mktemp("dense-store"), _dense_documents())


def _run(store: Path, query: str = Q, **options: Any) -> tuple[Any, dict[str, dict[str, Any]]]:
    events: dict[str, dict[str, Any]] = {}

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if phase == "end" and name in ("top_view", "bottom_view"):
            events[name] = payload
        if name == "render" and phase == "start":
            events[f"render_{payload['view']}"] = payload

    with VizRAG(store, show_progress=False) as rag:
        res = rag.retrieve(query, render=True, hooks=[hook], **options)
    return res, events


def test_a_dense_view_is_cut_to_its_best_hyperedges(dense_store: Path) -> None:
    res, ev = _run(dense_store, render_max_hyperedges=12, render_max_themes=5)
    bottom, top = ev["bottom_view"], ev["top_view"]
    assert bottom["hyperedges"] > 12 and top["hyperedges"] > 5  # the neighbourhoods
    assert bottom["render_hyperedges_limited"] and bottom["render_hyperedge_limit"] == 12
    assert top["render_hyperedges_limited"] and top["render_hyperedge_limit"] == 5
    assert ev["render_bottom"]["hyperedges"] == 12 and ev["render_top"]["hyperedges"] == 5
    drawn = res.bottom_view.export["hyperedges"]
    assert 0 < len(drawn) <= 12 and len(res.top_view.export["hyperedges"]) <= 5
    # the result's lists are not cut: every hyperedge of the neighbourhood is listed
    relations = [h for h in res.hyperedges if h.kind == "relation"]
    assert len(relations) == bottom["hyperedges"]
    assert len([h for h in relations if h.visual_id]) == len(drawn)
    # the query's own entities stay in the drawing
    shown = {e["name"] for e in res.bottom_view.export["entities"]}
    assert {"Alice Morgan", "Oslo"} <= shown


@pytest.fixture(scope="module")
def demo_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_with(tmp_path_factory.mktemp("demo-store"), demo_documents(0, 12))


def test_a_view_within_the_limits_is_drawn_as_before(demo_store: Path) -> None:
    res, ev = _run(demo_store, query=DEMO_Q)  # the defaults: nothing cut on this corpus
    assert not ev["bottom_view"]["render_hyperedges_limited"]
    assert not ev["top_view"]["render_hyperedges_limited"]
    n_bot, n_top = ev["bottom_view"]["hyperedges"], ev["top_view"]["hyperedges"]
    assert n_bot > 1 and n_top > 1
    same, ev2 = _run(demo_store, query=DEMO_Q, render_max_hyperedges=n_bot,
                     render_max_themes=n_top)
    assert not ev2["bottom_view"]["render_hyperedges_limited"]
    assert same.bottom_view.sha256 == res.bottom_view.sha256
    assert same.top_view.sha256 == res.top_view.sha256
    cut, ev3 = _run(demo_store, query=DEMO_Q, render_max_hyperedges=n_bot - 1,
                    render_max_themes=n_top - 1)
    assert ev3["bottom_view"]["render_hyperedges_limited"]
    assert ev3["render_bottom"]["hyperedges"] == n_bot - 1
    assert ev3["render_top"]["hyperedges"] == n_top - 1
    assert len(cut.bottom_view.export["hyperedges"]) <= n_bot - 1


def test_the_limits_are_validated_and_have_defaults() -> None:
    cfg = RetrievalConfig()
    assert (cfg.render_max_hyperedges, cfg.render_max_themes) == (100, 30)
    with pytest.raises(ValueError, match="render_max_hyperedges"):
        RetrievalConfig(render_max_hyperedges=0)
    with pytest.raises(ValueError, match="render_max_themes"):
        RetrievalConfig(render_max_themes=0)


def _graph() -> Hypergraph:
    return Hypergraph(
        entities=[Entity(name=n) for n in "abcdef"],
        hyperedges=[Hyperedge(id="h1", members=["a", "b"]),
                    Hyperedge(id="h2", members=["a", "c"]),
                    Hyperedge(id="h3", members=["c", "d"]),
                    Hyperedge(id="h4", members=["e", "f"])])


def test_limit_hyperedges_orders_by_score_then_members_then_id() -> None:
    hg = _graph()
    assert limit_hyperedges(hg, 4, {}, {}) is hg  # within the limit: the graph itself
    edges = {"h1": 1.0, "h2": 1.0, "h3": 0.5, "h4": 0.5}
    ents = {"a": 1.0, "b": 0.2, "c": 0.5, "d": 0.0, "e": 0.9, "f": 0.0}
    two = limit_hyperedges(hg, 2, edges, ents)
    assert sorted(two.hyperedges) == ["h1", "h2"]  # scores first
    assert sorted(limit_hyperedges(hg, 1, edges, ents).hyperedges) == ["h2"]  # then members
    three = limit_hyperedges(hg, 3, edges, {})
    assert sorted(three.hyperedges) == ["h1", "h2", "h3"]  # then ids (h3 before h4)
    assert sorted(two.entities) == ["a", "b", "c"]  # entities of no kept hyperedge go
    kept = limit_hyperedges(hg, 1, edges, ents, keep=["f"])
    assert sorted(kept.entities) == ["a", "c", "f"]  # unless kept
    assert sorted(hg.hyperedges) == ["h1", "h2", "h3", "h4"]  # the input is not changed
