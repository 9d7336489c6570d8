"""Stage hooks: exact event order per mode (sync and async), payloads, registration, errors."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from rag_fakes import ParrotChat, demo_documents

from hyperviz_core.rag import (
    HypergraphStore,
    RankWeights,
    RetrievalConfig,
    StoreProtocol,
    VizRAG,
)
from hyperviz_core.rag.hooks import EVENTS, STAGES, HookList

Q = "Where did the band form that made the live album Maiden Japan?"

S = "start"
E = "end"


def _stage(name: str, *inner: tuple[str, str]) -> list[tuple[str, str]]:
    return [(name, S), *inner, (name, E)]


RENDER = (("render", S), ("render", E))
CALL = (("model_call", S), ("model_call", E))
LOAD = (("load", S), ("load", E))  # the store's state read (since stop 48)

# offline (no chat model): no model_call events; renderings in vizrag/hyper-lite only
OFFLINE = {
    "vizrag": [*LOAD, *_stage("keywords"), *_stage("themes"), *_stage("top_view", *RENDER),
               *_stage("locate"), *_stage("bottom_entities"), *_stage("rank"),
               *_stage("bottom_view", *RENDER)],  # I_bot drawn after ranking (stop 49)
    "text": [*LOAD, *_stage("keywords"), *_stage("themes"), *_stage("top_view"), *_stage("locate"),
             *_stage("bottom_entities"), *_stage("rank"), *_stage("bottom_view")],
    "hyper-lite": [*LOAD, *_stage("keywords"), *_stage("bottom_entities"), *_stage("rank"),
                   *_stage("bottom_view", *RENDER)],
    "naive": [*LOAD, *_stage("rank")],
}
# with a chat model: keywords, locate and answer call it
CHAT = {
    "vizrag": [*LOAD, *_stage("keywords", *CALL), *_stage("themes"), *_stage("top_view", *RENDER),
               *_stage("locate", *CALL), *_stage("bottom_entities"), *_stage("rank"),
               *_stage("bottom_view", *RENDER), *_stage("answer", *CALL)],
    "text": [*LOAD, *_stage("keywords", *CALL), *_stage("themes"), *_stage("top_view"),
             *_stage("locate", *CALL), *_stage("bottom_entities"), *_stage("rank"),
             *_stage("bottom_view"), *_stage("answer", *CALL)],
    "hyper-lite": [*LOAD, *_stage("keywords", *CALL), *_stage("bottom_entities"),
                   *_stage("rank"), *_stage("bottom_view", *RENDER), *_stage("answer", *CALL)],
    "naive": [*LOAD, *_stage("rank"), *_stage("answer", *CALL)],
}


class Recorder:
    """A sync hook recording (name, phase, payload)."""

    def __init__(self) -> None:
        self.events: list[tuple[str, str, dict[str, Any]]] = []

    def __call__(self, name: str, phase: str, payload: dict[str, Any]) -> None:
        self.events.append((name, phase, payload))

    @property
    def order(self) -> list[tuple[str, str]]:
        return [(n, p) for n, p, _ in self.events]


class AsyncRecorder(Recorder):
    """An async hook (returns a coroutine) recording the same."""

    async def __call__(self, name: str, phase: str,  # type: ignore[override]
                       payload: dict[str, Any]) -> None:
        await asyncio.sleep(0)
        self.events.append((name, phase, payload))


def _no_bytes(value: Any) -> bool:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return False
    if isinstance(value, dict):
        return all(_no_bytes(v) for v in value.values())
    if isinstance(value, (list, tuple)):
        return all(_no_bytes(v) for v in value)
    return True


def _check_payloads(rec: Recorder) -> None:
    for name, phase, payload in rec.events:
        assert name in EVENTS and phase in ("start", "end", "error")
        json.dumps(payload)  # JSON-serialisable
        assert _no_bytes(payload), (name, phase)
        if phase == "end":
            assert isinstance(payload["elapsed_ms"], float) and payload["elapsed_ms"] >= 0
        if name == "model_call":
            assert payload["stage"] in STAGES and isinstance(payload["images"], int)


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hooks-store")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(0, 20))
    return path


@pytest.mark.parametrize("mode", ["vizrag", "text", "hyper-lite", "naive"])
def test_offline_stage_order_sync_and_async(store_dir: Path, mode: str) -> None:
    sync, asy = Recorder(), AsyncRecorder()
    with VizRAG(store_dir, show_progress=False) as rag:
        rag.retrieve(Q, mode=mode, hooks=[sync], render=True)  # offline: opt-in rendering
        asyncio.run(rag.aretrieve(Q, mode=mode, hooks=[asy], render=True))
        assert sync.order == OFFLINE[mode]
        assert asy.order == OFFLINE[mode]
        answered = Recorder()
        rag.query(Q, mode=mode, hooks=[answered], render=True)
        assert answered.order == [*OFFLINE[mode], ("answer", S), ("answer", E)]
        assert answered.events[-1][2]["answer_kind"] == "extractive"
    _check_payloads(sync)
    _check_payloads(asy)


@pytest.mark.parametrize("mode", ["vizrag", "text", "hyper-lite", "naive"])
def test_chat_stage_order_sync_and_async(store_dir: Path, mode: str) -> None:
    sync, asy = Recorder(), AsyncRecorder()
    with VizRAG(store_dir, chat=ParrotChat(), show_progress=False) as rag:
        res = rag.query(Q, mode=mode, hooks=[sync])
        asyncio.run(rag.aquery(Q, mode=mode, hooks=[asy]))
    assert sync.order == CHAT[mode]
    assert asy.order == CHAT[mode]
    _check_payloads(sync)
    _check_payloads(asy)
    calls = [p for n, ph, p in sync.events if n == "model_call" and ph == "end"]
    assert [c["stage"] for c in calls] == [p.stage for p in res.prompts]
    assert [c["images"] for c in calls] == [len(p.images) for p in res.prompts]


def test_payloads_name_ids_sizes_and_render_hashes(store_dir: Path) -> None:
    rec = Recorder()
    with VizRAG(store_dir, show_progress=False, hooks=[rec]) as rag:
        res = rag.retrieve(Q, render=True)
    ends = {n: p for n, ph, p in rec.events if ph == "end" and n != "render"}
    assert ends["keywords"]["keywords"] == res.keywords
    assert ends["locate"]["located"] == res.located and ends["locate"]["anchors"] == res.anchors
    assert ends["rank"]["chunks"] == [c.chunk_id for c in res.chunks]
    renders = [p for n, ph, p in rec.events if n == "render" and ph == "end"]
    assert res.top_view is not None and res.bottom_view is not None
    assert [r["view"] for r in renders] == ["top", "bottom"]
    assert [r["sha256"] for r in renders] == [res.top_view.sha256, res.bottom_view.sha256]
    assert [(r["width"], r["height"]) for r in renders] == [
        (res.top_view.width, res.top_view.height),
        (res.bottom_view.width, res.bottom_view.height)]
    assert all(r["entities"] >= r["shown_entities"] > 0 for r in renders)
    for stage in ("keywords", "themes", "top_view", "locate", "bottom_entities",
                  "bottom_view", "rank"):
        assert res.timings[stage] == ends[stage]["elapsed_ms"]


def test_render_false_fires_no_render_event(store_dir: Path) -> None:
    rec = Recorder()
    with VizRAG(store_dir, show_progress=False) as rag:
        res = rag.retrieve(Q, render=False, hooks=[rec])
    assert res.top_view is None and res.bottom_view is None
    assert "render" not in {n for n, _ in rec.order}
    assert rec.order == OFFLINE["text"]


def test_registration_order_add_and_remove(store_dir: Path) -> None:
    seen: list[str] = []

    def first(name: str, phase: str, payload: dict[str, Any]) -> None:
        seen.append("engine")

    def per_call(name: str, phase: str, payload: dict[str, Any]) -> None:
        seen.append("call")

    with VizRAG(store_dir, show_progress=False, hooks=[first]) as rag:
        rag.retrieve(Q, mode="naive", hooks=[per_call])
        assert seen == ["engine", "call"] * 4  # load start, load end, rank start, rank end
        seen.clear()
        rag.remove_hook(first)
        rag.retrieve(Q, mode="naive")
        assert seen == []
        rag.add_hook(first)
        rag.retriever.retrieve(Q, mode="naive")
        assert seen == ["engine"] * 4
        with pytest.raises(ValueError, match="per_call"):
            rag.remove_hook(per_call)
        with pytest.raises(TypeError, match="callable"):
            rag.add_hook("not a hook")  # type: ignore[arg-type]


def test_sync_path_rejects_an_async_hook_by_name(store_dir: Path) -> None:
    async def my_async_hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        return None

    with VizRAG(store_dir, show_progress=False) as rag, \
            pytest.raises(TypeError, match="my_async_hook"):
        rag.retrieve(Q, hooks=[my_async_hook])


def test_a_failing_hook_is_logged_and_ignored(store_dir: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    def broken(name: str, phase: str, payload: dict[str, Any]) -> None:
        raise RuntimeError("hook bug")

    async def abroken(name: str, phase: str, payload: dict[str, Any]) -> None:
        raise RuntimeError("async hook bug")

    with VizRAG(store_dir, show_progress=False) as rag, \
            caplog.at_level(logging.ERROR, logger="hyperviz_core.rag.hooks"):
        plain = rag.retrieve(Q, render=False)
        res = rag.retrieve(Q, render=False, hooks=[broken])
        ares = asyncio.run(rag.aretrieve(Q, render=False, hooks=[abroken, broken]))
    assert [c.chunk_id for c in res.chunks] == [c.chunk_id for c in plain.chunks]
    assert [c.chunk_id for c in ares.chunks] == [c.chunk_id for c in plain.chunks]
    assert "hook bug" in caplog.text and "async hook bug" in caplog.text


def test_model_failure_fires_model_call_error_and_the_stage_falls_back(store_dir: Path) -> None:
    rec = Recorder()
    with VizRAG(store_dir, chat=ParrotChat(fail_stage="keywords"), show_progress=False) as rag:
        res = rag.retrieve(Q, hooks=[rec])
    assert rec.order[:6] == [*LOAD, ("keywords", S), ("model_call", S),
                             ("model_call", "error"), ("keywords", E)]
    err = rec.events[4][2]
    assert err["stage"] == "keywords" and "provider down" in err["error"]
    assert res.keywords and any("heuristic keywords used" in w for w in res.warnings)


def test_a_failing_stage_fires_error_then_raises(store_dir: Path) -> None:
    class BadEmbedder:
        name = "hashing-512"
        dim = 512

        def embed(self, texts: Any) -> Any:
            raise RuntimeError("embedder down")

        async def aembed(self, texts: Any) -> Any:
            raise RuntimeError("embedder down")

    rec = Recorder()
    with VizRAG(store_dir, show_progress=False) as rag:
        rag.retriever.embedder = BadEmbedder()  # type: ignore[assignment]
        with pytest.raises(RuntimeError, match="embedder down"):
            rag.retrieve(Q, hooks=[rec])
    assert rec.order == [*LOAD, ("keywords", S), ("keywords", "error")]
    assert "embedder down" in rec.events[-1][2]["error"]


def test_chunk_vectors_are_only_computed_when_weighted(store_dir: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    spaces: list[str] = []  # the spaces read, whole (vectors) or as a search's copy
    original, unit = HypergraphStore.vectors, HypergraphStore.unit_vectors

    def spy(self: HypergraphStore, space: str, ids: Any = None) -> Any:
        spaces.append(space)
        return original(self, space, ids)

    def unit_spy(self: HypergraphStore, space: str) -> Any:
        spaces.append(space)
        return unit(self, space)

    monkeypatch.setattr(HypergraphStore, "vectors", spy)
    monkeypatch.setattr(HypergraphStore, "unit_vectors", unit_spy)
    with VizRAG(store_dir, show_progress=False) as rag:
        res = rag.retrieve(Q, render=False)
        assert "chunk" not in spaces and {"theme", "entity"} <= set(spaces)
        assert all(c.evidence["vector"] == 0.0 for c in res.chunks)
        weighted = RetrievalConfig(weights=RankWeights(vector=0.5))
        rag.retriever.refresh()
        res = rag.retrieve(Q, render=False, weights=weighted.weights)
        assert "chunk" in spaces and any(c.evidence["vector"] > 0 for c in res.chunks)
        rag.retriever.refresh()
        spaces.clear()
        rag.retrieve(Q, mode="naive")
        assert spaces == ["chunk"]


def test_engine_accepts_any_store_protocol_object(store_dir: Path) -> None:
    store = HypergraphStore(store_dir)
    assert isinstance(store, StoreProtocol)
    rag = VizRAG(store, show_progress=False)
    assert rag.store is store and rag.retrieve(Q, render=False).chunks
    store.close()
    with pytest.raises(TypeError, match="StoreProtocol"):
        VizRAG(object())  # type: ignore[arg-type]


def test_hook_list_basics() -> None:
    hooks = HookList()
    assert len(hooks) == 0 and hooks.with_extra(None) == []
    with pytest.raises(TypeError):
        hooks.with_extra([42])  # type: ignore[list-item]
