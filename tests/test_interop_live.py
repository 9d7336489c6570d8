"""A live Hyper-RAG query result → sub-hypergraph (+ rendering), replayed from the fixture."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest
from interop_fakes import HYPERRAG_DIR, ReplayHyperRAG, queries, small_renderer

from hyperviz_core.interop import (
    HyperRAGFormatError,
    QueryParamLike,
    aquery_hyperrag,
    default_query_param,
    from_hyperrag_result,
    hyperrag_chunk_id,
    read_workdir,
)
from hyperviz_core.prune import Budget
from hyperviz_core.render import HyperViz


def _distinct_sets(result: dict[str, Any]) -> int:
    return len({tuple(sorted(set(h["entity_set"]))) for h in result["hyperedges"]})


@pytest.mark.parametrize("i", range(5))
def test_conversion_deduplicates_hyperedges(i: int) -> None:
    q = queries()[i]
    raw = q["result"]
    live = from_hyperrag_result(raw, query=q["query"])
    hg = live.hypergraph
    assert len(hg.hyperedges) == _distinct_sets(raw)
    assert live.duplicate_hyperedges == len(raw["hyperedges"]) - _distinct_sets(raw) > 0
    members = {m for h in raw["hyperedges"] for m in h["entity_set"]}
    names = {e["entity_name"] for e in raw["entities"]} | members
    assert {e.metadata["hyperrag_name"] for e in hg.entities.values()} == names
    assert [t for _, t in live.passages] == [t["content"] for t in raw["text_units"]]
    assert live.response == raw["response"] and live.query == q["query"]
    hg.check_consistency()


def test_passage_ids_are_hyperrag_chunk_ids() -> None:
    wd = read_workdir(HYPERRAG_DIR, vectors=False)
    for q in queries():
        live = from_hyperrag_result(q["result"])
        assert all(cid in wd.chunks for cid, _ in live.passages)
    assert hyperrag_chunk_id("x") == "chunk-9dd4e461268c8034f5c8564e155c67a6"


def test_entity_fields_and_quirks() -> None:
    live = from_hyperrag_result(queries()[0]["result"])
    g = live.hypergraph
    gross = g.entities["gross"]
    assert (gross.name, gross.type) == ("Gross", "person")
    assert gross.metadata["additional_properties"] == ["mentions in passage: 1"]
    # relation-side entities carry additional_properties "UNKNOWN" (Hyper-RAG quirk): dropped
    assert all("UNKNOWN" not in e.metadata.get("additional_properties", [])
               for e in g.entities.values())
    edge = next(iter(g.hyperedges.values()))
    assert edge.kind == "relation" and edge.keywords and "<SEP>" not in edge.description


def test_accepts_json_text_and_rejects_plain_answers() -> None:
    raw = queries()[1]["result"]
    assert len(from_hyperrag_result(json.dumps(raw)).hypergraph.hyperedges) == _distinct_sets(raw)
    with pytest.raises(HyperRAGFormatError, match="return_type='json'"):
        from_hyperrag_result("The answer is 42.")
    fail = "Sorry, I'm not able to provide an answer to that question."  # Hyper-RAG's own
    empty = from_hyperrag_result(fail)  # nothing retrieved: an empty result, not an error
    assert not empty.passages and not empty.hypergraph.entities
    with pytest.raises(HyperRAGFormatError, match="malformed Hyper-RAG result"):
        from_hyperrag_result({"hyperedges": [{"entity_set": "not a list"}]})
    with pytest.raises(HyperRAGFormatError, match="got list"):
        from_hyperrag_result([1, 2])


def test_empty_result() -> None:
    live = from_hyperrag_result({"entities": [], "hyperedges": [], "text_units": [],
                                 "response": "Sorry"})
    assert not live.hypergraph.entities and live.passages == []


async def test_aquery_with_a_duck_typed_instance() -> None:
    rag = ReplayHyperRAG()
    q = queries()[2]
    live = await aquery_hyperrag(rag, q["query"])
    assert rag.calls[0][1] == default_query_param()
    assert isinstance(rag.calls[0][1], QueryParamLike)  # hyperrag is not installed here
    assert len(live.passages) == len(q["result"]["text_units"])
    with pytest.raises(HyperRAGFormatError, match="plain text"):
        await aquery_hyperrag(rag, q["query"], QueryParamLike(mode="hyper", return_type="str"))
    with pytest.raises(TypeError, match="aquery"):
        await aquery_hyperrag(object(), "q")


def test_rendering_dual_view_caption_export() -> None:
    q = queries()[2]  # the smallest result: quick to lay out
    live = from_hyperrag_result(q["result"], query=q["query"])
    ctx = live.render(small_renderer())
    assert ctx.png[:4] == b"\x89PNG" and 0 < ctx.entities <= 12
    assert "E1" in ctx.caption and "H1" in ctx.caption
    shown = {e["key"] for e in ctx.export["entities"]}
    assert shown <= set(live.hypergraph.entities)
    dual = HyperViz(budget=Budget(max_entities=10, max_hyperedges=8))  # default layouts
    full = live.render(dual)  # dual view: two panels side by side
    assert full.width == 2 * full.height


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_weight_is_refused_as_the_importer_does(bad: float) -> None:
    """A NaN weight made the rendering's export invalid JSON (a bare NaN)."""
    result = {"entities": [{"entity_name": "A"}, {"entity_name": "B"}],
              "hyperedges": [{"entity_set": ["A", "B"], "weight": bad}],
              "text_units": [{"content": "A met B."}]}
    with pytest.raises(HyperRAGFormatError, match=r"hyperedges.0.weight .*finite number"):
        from_hyperrag_result(result, "q")
