"""VizRAGRetriever: node mapping, the image node, options, async, instrumentation."""

from __future__ import annotations

import asyncio
import base64
import inspect
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

import llama_index.core.instrumentation as instrument
from llama_index.core import Document
from llama_index.core.base.llms.types import ImageBlock, TextBlock
from llama_index.core.instrumentation.event_handlers import BaseEventHandler
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.span_handlers import SimpleSpanHandler
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.schema import MetadataMode, TextNode
from pydantic import Field
from rag_fakes import demo_documents

from hyperviz_core.rag import UnknownModeError, VizRAG, render_passages, visual_ids
from vizrag_llamaindex import (
    StageSpans,
    VizRAGImageNode,
    VizRAGIndex,
    VizRAGLocateEvent,
    VizRAGRenderEvent,
    VizRAGRetriever,
)

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QUERY = "Who worked with Marie Curie in Paris?"
IRON_MAIDEN = "Who founded Iron Maiden?"


@pytest.fixture(scope="module")
def index() -> VizRAGIndex:
    return VizRAGIndex.from_documents([
        Document(text="Marie Curie worked with Pierre Curie in Paris. Marie Curie won the "
                      "Nobel Prize in Physics.", id_="curie", metadata={"title": "Curie"}),
        Document(text="Albert Einstein lived in Bern. Albert Einstein worked at the Patent "
                      "Office in Bern.", id_="einstein"),
        Document(text="Ada Lovelace worked with Charles Babbage in London on the Analytical "
                      "Engine.", id_="ada"),
    ])


def split(nodes: list[Any]) -> tuple[list[Any], list[Any]]:
    text = [n for n in nodes if not isinstance(n.node, VizRAGImageNode)]
    return text, [n for n in nodes if isinstance(n.node, VizRAGImageNode)]


def test_text_nodes_carry_the_ranked_chunks(index: VizRAGIndex) -> None:
    result = index.engine.retrieve(QUERY, top_k=2, render=True)
    texts, images = split(index.as_retriever(top_k=2).retrieve(QUERY))
    assert [n.node.node_id for n in texts] == [c.chunk_id for c in result.chunks]
    assert [n.score for n in texts] == [c.score for c in result.chunks]
    first = texts[0].node
    assert isinstance(first, TextNode) and first.text == result.chunks[0].text
    assert first.ref_doc_id == "curie" and first.metadata["doc_id"] == "curie"
    assert first.metadata["chunk_id"] == result.chunks[0].chunk_id
    assert first.metadata["entities"] == result.chunks[0].entities
    assert set(first.metadata["entity_ids"].values()) <= {f"E{i}" for i in range(1, 100)}
    assert "score_bm25" in first.metadata and "hyperedges" in first.metadata
    llm_view = first.get_content(metadata_mode=MetadataMode.LLM)
    assert "Curie" in llm_view and "entity_ids" not in llm_view and "score_" not in llm_view
    assert first.get_content(metadata_mode=MetadataMode.EMBED) == first.text
    assert len(images) == 1


def test_image_node(index: VizRAGIndex) -> None:
    result = index.engine.retrieve(QUERY, top_k=3, render=True)
    texts, images = split(index.as_retriever(top_k=3).retrieve(QUERY))
    node = images[0].node
    assert result.bottom_view is not None
    assert node.image == result.bottom_view.png_base64
    assert base64.b64decode(node.image).startswith(PNG_MAGIC)
    assert node.resolve_image().read().startswith(PNG_MAGIC)
    assert node.image_mimetype == "image/png" and node.text == result.bottom_view.caption
    assert node.node_id == "vizrag-image-" + result.bottom_view.sha256[:32]
    # scored like the weakest chunk: it sorts and fuses after the chunks it shows
    assert images[0].score == texts[-1].score == min(n.score for n in texts)
    blocks = node.get_content_blocks()
    assert [type(b) for b in blocks] == [ImageBlock, TextBlock]
    assert blocks[0].image is not None and blocks[0].detail == "high"
    assert blocks[1].text == node.text
    for shown in (repr(node), str(node), repr(images[0])):
        assert node.image[:200] not in shown
    # stable id: the same query gives the same node id; a cutoff keeping every chunk keeps it
    again = split(index.as_retriever(top_k=3).retrieve(QUERY))[1][0]
    assert again.node.node_id == node.node_id
    kept = SimilarityPostprocessor(similarity_cutoff=0.01).postprocess_nodes(texts + images)
    assert any(isinstance(n.node, VizRAGImageNode) for n in kept)


def test_the_engine_draws_only_the_view_asked_for(index: VizRAGIndex) -> None:
    views: list[str] = []

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if name == "render" and phase == "start":
            views.append(payload["view"])

    index.engine.add_hook(hook)
    try:
        assert len(split(index.as_retriever(top_k=2).retrieve(QUERY))[1]) == 1
        assert views == ["bottom"]  # the default image_view: I_top is not drawn
        views.clear()
        index.as_retriever(top_k=2, image_view="top").retrieve(QUERY)
        assert views == ["top"]
        views.clear()
        index.as_retriever(top_k=2, image_view="both").retrieve(QUERY)
        assert views == ["top", "bottom"]
    finally:
        index.engine.remove_hook(hook)


def test_options(index: VizRAGIndex) -> None:
    nodes = index.as_retriever(top_k=1, include_image=False).retrieve(QUERY)
    assert len(nodes) == 1 and isinstance(nodes[0].node, TextNode)
    both = split(index.as_retriever(top_k=2, image_view="both").retrieve(QUERY))[1]
    assert [n.node.metadata["view"] for n in both] == ["top", "bottom"]
    top = split(index.as_retriever(top_k=2, image_view="top").retrieve(QUERY))[1]
    assert top[0].node.node_id == both[0].node.node_id
    naive = index.as_retriever(top_k=2, mode="naive").retrieve(QUERY)
    texts, images = split(naive)
    assert len(texts) == 2 and images[0].node.metadata["view"] == "passages"
    assert len(index.as_retriever(similarity_top_k=3, include_image=False).retrieve(QUERY)) == 3
    hops0 = VizRAGRetriever(index, hops=0, top_k=2, include_image=False)
    assert len(hops0.retrieve(QUERY)) == 2
    with pytest.raises(UnknownModeError, match="valid modes"):
        index.as_retriever(mode="global")
    with pytest.raises(ValueError, match="image_view"):
        index.as_retriever(image_view="left")
    with pytest.raises(ValueError, match="top_k"):
        index.as_retriever(top_k=0)
    with pytest.raises(TypeError, match="VizRAG engine"):
        VizRAGRetriever(object())


def test_engine_works_directly_and_empty_results(index: VizRAGIndex, tmp_path: Any) -> None:
    nodes = VizRAGRetriever(index.engine, top_k=1).retrieve(QUERY)
    assert len(split(nodes)[1]) == 1
    empty = VizRAG(tmp_path / "empty", show_progress=False)
    assert VizRAGRetriever(empty).retrieve("anything") == []


def test_aretrieve_is_async_and_matches(index: VizRAGIndex) -> None:
    assert inspect.iscoroutinefunction(VizRAGRetriever._aretrieve)
    retriever = index.as_retriever(top_k=2)
    sync = retriever.retrieve(QUERY)
    got = asyncio.run(retriever.aretrieve(QUERY))
    assert [(n.node.node_id, n.score) for n in got] == [(n.node.node_id, n.score) for n in sync]
    naive = index.as_retriever(top_k=2, mode="naive")
    assert [n.node.node_id for n in asyncio.run(naive.aretrieve(QUERY))] == \
        [n.node.node_id for n in naive.retrieve(QUERY)]


class Events(BaseEventHandler):
    events: list[BaseEvent] = Field(default_factory=list)

    @classmethod
    def class_name(cls) -> str:
        return "Events"

    def handle(self, event: BaseEvent, **kwargs: Any) -> None:
        self.events.append(event)


def test_stage_spans_bridge_maps_the_hook_contract() -> None:
    spans, events = SimpleSpanHandler(), Events()
    root = instrument.get_dispatcher()
    root.add_span_handler(spans)
    root.add_event_handler(events)
    try:
        hook = StageSpans(parent_id="Retriever._retrieve-1")
        hook("keywords", "start", {})
        hook("keywords", "end", {"elapsed_ms": 1.0, "keywords": ["curie"]})
        hook("top_view", "start", {})
        hook("render", "start", {"view": "top"})
        hook("render", "end", {"view": "top", "entities": 4, "hyperedges": 2, "width": 1536,
                               "height": 768, "sha256": "ab", "elapsed_ms": 3.0})
        hook("top_view", "end", {"elapsed_ms": 4.0})
        hook("locate", "start", {})
        hook("locate", "error", {"error": "timeout"})
        hook("locate", "start", {})
        hook("locate", "end", {"located": ["E1"], "elapsed_ms": 2.0})
    finally:
        root.span_handlers.remove(spans)
        root.event_handlers.remove(events)
    done = {s.id_.split("-")[0]: s for s in spans.completed_spans}
    assert sorted(done) == ["VizRAG.keywords", "VizRAG.locate", "VizRAG.render",
                            "VizRAG.top_view"]
    assert done["VizRAG.render"].parent_id == done["VizRAG.top_view"].id_
    assert done["VizRAG.keywords"].parent_id == "Retriever._retrieve-1"
    assert [s.id_.split("-")[0] for s in spans.dropped_spans] == ["VizRAG.locate"]
    render = [e for e in events.events if isinstance(e, VizRAGRenderEvent)]
    assert [(r.view, r.entities, r.width, r.span_id) for r in render] == \
        [("top", 4, 1536, done["VizRAG.render"].id_)]
    locate = [e for e in events.events if isinstance(e, VizRAGLocateEvent)]
    assert locate[0].payload["located"] == ["E1"] and locate[0].class_name() == \
        "VizRAGLocateEvent"
    assert hook.finished == ["keywords", "render", "top_view", "locate"]


def _stage_names(spans: SimpleSpanHandler) -> list[str]:
    return [s.id_.split("-")[0] for s in spans.completed_spans
            if s.id_.startswith("VizRAG.")]


@pytest.mark.skipif("hooks" not in inspect.signature(VizRAG.retrieve).parameters,
                    reason="the engine's per-call hooks= (issue 9) has not landed")
def test_retrieval_emits_stage_spans_and_events(index: VizRAGIndex) -> None:
    spans, events = SimpleSpanHandler(), Events()
    root = instrument.get_dispatcher()
    root.add_span_handler(spans)
    root.add_event_handler(events)
    try:
        index.as_retriever(top_k=2).retrieve(QUERY)
        sync_names = _stage_names(spans)
        spans.completed_spans.clear()
        asyncio.run(index.as_retriever(top_k=2).aretrieve(QUERY))
        async_names = _stage_names(spans)
        parents = {s.parent_id for s in spans.completed_spans if s.id_.startswith("VizRAG.")}
        aretrieve = [s.id_ for s in spans.completed_spans
                     if s.id_.startswith("VizRAGRetriever._aretrieve")]
    finally:
        root.span_handlers.remove(spans)
        root.event_handlers.remove(events)
    for names in (sync_names, async_names):
        for stage in ("VizRAG.keywords", "VizRAG.themes", "VizRAG.locate", "VizRAG.rank",
                      "VizRAG.render"):
            assert stage in names
    assert aretrieve and parents & set(aretrieve)
    assert any(isinstance(e, VizRAGRenderEvent) and e.sha256 for e in events.events)
    assert any(isinstance(e, VizRAGLocateEvent) for e in events.events)


@pytest.mark.parametrize("mode", ["text", "naive"])
async def test_modes_without_a_view_label_chunks_with_the_passage_rendering(
        tmp_path: Path, mode: str) -> None:
    """The passage rendering is the image sent: the chunks' E#/H# must be its own, not the
    numbering of the listings of a view never drawn."""
    rag = VizRAG(tmp_path / "store", show_progress=False)
    rag.insert(demo_documents(0, 12))
    retriever = VizRAGRetriever(rag, top_k=3, mode=mode)
    for nodes in (retriever.retrieve(IRON_MAIDEN), await retriever.aretrieve(IRON_MAIDEN)):
        texts, images = split(nodes)
        assert len(texts) == 3 and [i.node.metadata["view"] for i in images] == ["passages"]
        drawn = render_passages([(t.node.node_id, t.node.get_content()) for t in texts],
                                store=rag.store, query=IRON_MAIDEN)
        assert images[0].node.metadata["sha256"] == drawn.sha256
        entities, edges = visual_ids(drawn.export)
        labels = [(k, v, entities) for t in texts
                  for k, v in t.node.metadata["entity_ids"].items()]
        labels += [(h, v, edges) for t in texts
                   for h, v in t.node.metadata["hyperedge_ids"].items()]
        assert mode == "naive" or labels
        assert all(drawn_ids.get(key) == label for key, label, drawn_ids in labels)
    rag.close()


@pytest.mark.parametrize("mode", ["text", "naive"])
def test_the_passage_rendering_is_a_render_span_and_event(index: VizRAGIndex,
                                                           mode: str) -> None:
    """A mode without a view sends the passages' rendering: it is traced as a retrieval's
    renderings are (a VizRAG.render span, a VizRAGRenderEvent with view "passages")."""
    spans, events = SimpleSpanHandler(), Events()
    root = instrument.get_dispatcher()
    root.add_span_handler(spans)
    root.add_event_handler(events)
    try:
        nodes = index.as_retriever(top_k=2, mode=mode).retrieve(QUERY)
        asyncio.run(index.as_retriever(top_k=2, mode=mode).aretrieve(QUERY))
    finally:
        root.span_handlers.remove(spans)
        root.event_handlers.remove(events)
    image = [n for n in nodes if n.node.metadata.get("view") == "passages"]
    render = [e for e in events.events if isinstance(e, VizRAGRenderEvent)]
    assert [r.view for r in render] == ["passages", "passages"]
    assert image and render[0].sha256 == image[0].node.metadata["sha256"]
    assert _stage_names(spans).count("VizRAG.render") == 2
