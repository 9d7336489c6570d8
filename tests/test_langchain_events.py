"""Engine stage hooks reach LangChain callbacks as custom events (IDs and timings, no PNG)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from test_langchain_retriever import QUERY, VisionSpy, build_store

from vizrag_langchain import VizRAGRetriever
from vizrag_langchain.events import event_data, event_hook


class Collect(BaseCallbackHandler):
    """Records (name, data, run_id) of every custom event."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any], UUID]] = []
        self.model_parents: list[UUID | None] = []

    def on_custom_event(self, name: str, data: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self.events.append((name, data, run_id))

    def on_retriever_start(self, serialized: Any, query: str, *, run_id: UUID,
                           **kwargs: Any) -> None:
        self.retriever_run = run_id

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID,
                            parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        self.model_parents.append(parent_run_id)


@pytest.fixture(scope="module")
def retriever(tmp_path_factory: pytest.TempPathFactory) -> VizRAGRetriever:
    return VizRAGRetriever(store=build_store(tmp_path_factory.mktemp("lc-events")), k=3)


def test_stage_events_on_invoke(retriever: VizRAGRetriever) -> None:
    seen = Collect()
    retriever.invoke(QUERY, config={"callbacks": [seen]})
    names = [n for n, _, _ in seen.events]
    assert names[:2] == ["vizrag.load.start", "vizrag.load.end"]  # the store read first
    for stage in ("load", "keywords", "themes", "locate", "bottom_entities", "rank"):
        start, end = f"vizrag.{stage}.start", f"vizrag.{stage}.end"
        assert start in names and end in names and names.index(start) < names.index(end)
    assert not any(n.startswith("vizrag.render.") for n in names)  # nothing rendered
    assert {r for _, _, r in seen.events} == {seen.retriever_run}
    for name, data, _ in seen.events:
        assert name == f"vizrag.{data['event']}.{data['phase']}"
        if data["phase"] == "end":
            assert data["elapsed_ms"] >= 0


async def test_render_events_in_astream_events(retriever: VizRAGRetriever) -> None:
    events = [e async for e in retriever.astream_events(QUERY, version="v2",
                                                          include_image=True)
              if e["event"] == "on_custom_event"]
    renders = [e["data"] for e in events if e["name"] == "vizrag.render.end"]
    assert [r["view"] for r in renders] == ["bottom"]  # the image document's view only
    assert all(r["width"] == 1536 and len(r["sha256"]) == 64 for r in renders)
    assert "iVBOR" not in repr([e["data"] for e in events])


def test_no_handlers_no_hook_and_bytes_dropped() -> None:
    assert event_hook(None) is None
    data = event_data("render", "end", {"png": b"\x89PNG", "width": 10})
    assert data == {"width": 10, "event": "render", "phase": "end"}


def test_model_call_events_name_their_stage(retriever: VizRAGRetriever) -> None:
    spy_retriever = VizRAGRetriever(store=retriever.engine.store, k=2, chat=VisionSpy())
    seen = Collect()
    spy_retriever.invoke(QUERY, config={"callbacks": [seen]})
    calls = [d for n, d, _ in seen.events if n == "vizrag.model_call.end"]
    assert [(d["stage"], d["images"]) for d in calls] == [("keywords", 0), ("locate", 1)]
    assert seen.model_parents == [seen.retriever_run] * 2  # model calls nest in the retrieval


async def test_async_model_calls_nest_in_the_retrieval(retriever: VizRAGRetriever) -> None:
    spy_retriever = VizRAGRetriever(store=retriever.engine.store, k=2, chat=VisionSpy())
    seen = Collect()
    await spy_retriever.ainvoke(QUERY, config={"callbacks": [seen]})
    assert seen.model_parents == [seen.retriever_run] * 2
    assert sum(n == "vizrag.model_call.end" for n, _, _ in seen.events) == 2


@pytest.mark.parametrize("mode", ["text", "naive"])
async def test_the_passage_rendering_of_a_text_mode_sends_render_events(
        retriever: VizRAGRetriever, mode: str) -> None:
    """``text``/``naive`` draw no view: the image is the ranked passages' rendering, and it
    is traced like any rendering (sync and async)."""
    seen = Collect()
    docs = retriever.invoke(QUERY, mode=mode, include_image=True,
                            config={"callbacks": [seen]})
    assert docs[-1].metadata["view"] == "passages"
    names = [n for n, _, _ in seen.events]
    assert names.count("vizrag.render.start") == names.count("vizrag.render.end") == 1
    end = next(d for n, d, _ in seen.events if n == "vizrag.render.end")
    assert (end["view"], end["passages"]) == ("passages", 3)
    assert end["sha256"] == docs[-1].metadata["sha256"] and end["elapsed_ms"] >= 0
    events = [e async for e in retriever.astream_events(QUERY, version="v2", mode=mode,
                                                          include_image=True)
              if e["event"] == "on_custom_event" and e["name"].startswith("vizrag.render.")]
    assert [e["name"] for e in events] == ["vizrag.render.start", "vizrag.render.end"]
    assert events[1]["data"]["view"] == "passages"
