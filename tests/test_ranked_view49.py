"""I_bot is drawn after ranking, and its congestion control keeps the ranked passages' facts
first (stop 49): ``HyperViz.render(priority=...)``, ``prune(priority=...)`` and the
retrieval's :mod:`hyperviz_core.rag.retrieve.drawing`."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
from rag_fakes import demo_documents

from hyperviz_core import Budget, Entity, Hyperedge, Hypergraph, HyperViz, prune
from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.retrieve.drawing import RANKED_FACT_PRIORITY, ranked_facts
from hyperviz_core.rag.retrieve.subgraph import limit_hyperedges

Q = "Where did the band form that made the live album Maiden Japan?"


def _hub_graph() -> Hypergraph:
    """A hub in five facts (three with ``a``), and one fact of two leaves that nothing
    else touches."""
    ents = [Entity(name=n) for n in ["hub", "a", "b", "c", "f", "g"]]
    edges = [Hyperedge(id=f"h{i}", members=["hub", m]) for i, m in enumerate("aaabc")]
    edges.append(Hyperedge(id="fg", members=["f", "g"]))
    return Hypergraph(entities=ents, hyperedges=edges)


def test_priority_keeps_the_named_entities_over_a_hub() -> None:
    hg = _hub_graph()
    viz = HyperViz(budget=Budget(enabled=False, max_entities=2))
    plain = viz.render(hg, layouts="set-force")
    assert "hub" in plain.id_map.entities  # degree wins without a priority
    kept = viz.render(hg, layouts="set-force", priority={"f": 2.0, "g": 2.0})
    assert sorted(kept.id_map.entities) == ["f", "g"]
    assert sorted(kept.id_map.hyperedges) == ["fg"]
    small, report = prune(hg, Budget(enabled=False, max_entities=2),
                          priority={"f": 2.0, "g": 2.0})
    assert sorted(small.entities) == ["f", "g"]
    assert report.importance["f"] == report.importance["g"] > report.importance["hub"]


def test_priority_numbers_its_entities_first() -> None:
    hg = _hub_graph()
    r = HyperViz().render(hg, layouts="set-force", priority={"g": 2.0})
    assert r.id_map.entities["g"] == "E1"
    assert HyperViz().render(hg, layouts="set-force").id_map.entities["hub"] == "E1"


@pytest.mark.parametrize(("priority", "error", "text"), [
    (["f"], TypeError, "priority must map entity keys to numbers, got list"),
    ({"f": math.nan}, ValueError, "priority of 'f' must be a finite number, got nan"),
    ({"f": "high"}, ValueError, "priority of 'f' must be a finite number"),
    ({"f": True}, ValueError, "priority of 'f' must be a finite number, got True"),
    ({1: 1.0}, TypeError, "priority keys must be entity keys"),
])
def test_bad_priority_is_named(priority: Any, error: type[Exception], text: str) -> None:
    with pytest.raises(error, match=text.replace("(", r"\(")):
        HyperViz().render(_hub_graph(), layouts="set-force", priority=priority)
    with pytest.raises(error, match=text.replace("(", r"\(")):
        HyperViz().render_collage(_hub_graph(), ["set-force", "bi-inc"], priority=priority)


async def test_arender_passes_the_priority() -> None:
    viz = HyperViz(budget=Budget(enabled=False, max_entities=2))
    r = await viz.arender(_hub_graph(), "set-force", priority={"f": 2.0, "g": 2.0})
    assert sorted(r.id_map.entities) == ["f", "g"]


def test_safety_limit_keeps_the_ranked_facts_first() -> None:
    hg = _hub_graph()
    scores = {f"h{i}": 1.0 for i in range(5)}  # h0 wins the tie by id
    plain = limit_hyperedges(hg, 1, scores, {})
    assert sorted(plain.hyperedges) == ["h0"]
    first = limit_hyperedges(hg, 1, scores, {}, first={"fg": 2.0})
    assert sorted(first.hyperedges) == ["fg"] and sorted(first.entities) == ["f", "g"]


class SpyViz(HyperViz):
    """A HyperViz that records the priority each rendering was given."""

    def __init__(self, **kw: Any) -> None:
        super().__init__(**kw)
        self.given: list[dict[str, float] | None] = []

    def render(self, *args: Any, **kw: Any) -> Any:
        self.given.append(kw.get("priority"))
        return super().render(*args, **kw)


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("ranked-view")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(0, 40))
    return path


@pytest.mark.parametrize("mode", ["vizrag", "hyper-lite"])
def test_bottom_view_is_drawn_after_ranking_with_the_ranked_facts_first(
        store: Path, mode: str) -> None:
    spy = SpyViz(budget=Budget(max_entities=5))
    names: list[str] = []
    with VizRAG(store, show_progress=False, renderer=spy) as rag:
        res = rag.retrieve(Q, mode=mode, render=True,
                           hooks=[lambda n, p, _: names.append(f"{n}.{p}")])
    stages = [n for n in names if n.endswith(".start") and not n.startswith("render")]
    assert stages.index("rank.start") < stages.index("bottom_view.start")
    ranked = {c.chunk_id for c in res.chunks}
    facts = [h for h in res.hyperedges if h.kind != "theme"]
    want = sorted({m for h in facts if ranked & set(h.source_ids) for m in h.members})
    assert len(want) >= 5  # enough for the cap: every drawn entity must be one of them
    given = spy.given[-1]
    assert given is not None and sorted(given) == want
    assert set(given.values()) == {RANKED_FACT_PRIORITY}
    drawn = [e.key for e in res.entities if e.layer == "bottom" and e.visual_id]
    assert drawn and set(drawn) <= set(want)
    assert res.bottom_view is not None
    assert set(res.bottom_view.export.get("chunks", {})) >= ranked  # evidence still given


def test_ranked_facts_reads_the_sources() -> None:
    hg = Hypergraph(entities=[Entity(name=n) for n in "ab"],
                    hyperedges=[Hyperedge(id="x", members=["a", "b"], source_ids=["c1"])])
    assert ranked_facts(hg, []) == {}
    assert ranked_facts(hg, [type("C", (), {"chunk_id": "c1"})()]) == {"x": 2.0}
