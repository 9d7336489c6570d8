"""A misspelt name the query repair matches is named for the views too, not for ranking only.

The repair ("Aschenbrodel" → *Aschenbrödel*) used to run in the rank stage, after the views:
the entity the query names, misspelt, was no anchor of I_bot (score 0.23 in ``vizrag``,
0.046 in ``hyper-lite``, below entities the query does not name) and the views' importance
read the unrepaired words.
"""

from __future__ import annotations

import pytest

from hyperviz_core.rag import RankWeights, VizRAG
from hyperviz_core.rag.types import Document

DOCS = [
    Document(id="a", text="Aschenbrödel is an opera by Johann Strauss II. Johann Strauss II "
                          "was born in Vienna."),
    Document(id="b", text="Vienna is the capital of Austria. The Danube flows through Vienna."),
    Document(id="c", text="Cinderella is a folk tale. Charles Perrault wrote Cinderella in 1697."),
    Document(id="d", text="Iron Maiden is a band from London. London is the capital of England."),
]
QUERY = "Where was the composer of Aschenbrodel born?"


def _bottom(res: object) -> dict[str, float]:
    return {e.key: e.score for e in res.entities if e.layer == "bottom"}  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def rag(tmp_path_factory: pytest.TempPathFactory) -> VizRAG:
    engine = VizRAG(tmp_path_factory.mktemp("repair") / "s", show_progress=False)
    engine.insert(DOCS)
    return engine


@pytest.mark.parametrize("mode", ["vizrag", "hyper-lite"])
def test_a_misspelt_name_is_the_views_best_entity(rag: VizRAG, mode: str) -> None:
    events: list[tuple[str, str, dict[str, object]]] = []
    res = rag.retrieve(QUERY, mode=mode, render=False,
                       hooks=[lambda *e: events.append(e)])
    bottom = _bottom(res)
    assert bottom["aschenbrödel"] == 1.0, bottom
    assert bottom["aschenbrödel"] >= max(bottom.values())
    if mode == "vizrag":
        assert "aschenbrödel" in res.anchors
    ends = [p for s, k, p in events if s == "keywords" and k == "end"]
    assert ends and ends[0]["spelled"] == ["aschenbrödel"]


def test_the_spelling_weight_bounds_the_named_entity(rag: VizRAG) -> None:
    res = rag.retrieve(QUERY, mode="hyper-lite", render=False,
                       weights=RankWeights(spelling=0.5))
    assert _bottom(res)["aschenbrödel"] == 0.5


def test_without_spelling_repair_the_views_are_as_before(rag: VizRAG) -> None:
    res = rag.retrieve(QUERY, mode="hyper-lite", render=False,
                       weights=RankWeights(spelling=0.0, word_forms=False))
    assert _bottom(res)["aschenbrödel"] < 0.5
