"""The ``load`` hook events: a retrieval reads the store's state between ``load`` ``start``
and ``end`` (payload ``lazy``, ``chunks``, ``elapsed_ms``), and a store that fails to load
fires ``load`` ``error`` before the exception propagates (a review: a store failure during
the load fired no hook, so a tracer saw a query fail with no event at all)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Document, StoreClosedError, VizRAG

Q = "Who discovered radium?"
DOCS = [Document(id="curie", title="Marie Curie", text="Marie Curie discovered radium in Paris."),
        Document(id="ada", title="Ada Lovelace", text="Ada Lovelace wrote the first program.")]
Event = tuple[str, str, dict[str, Any]]


@pytest.fixture()
def store_dir(tmp_path: Path) -> Path:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(DOCS)
    return tmp_path / "s"


def _recording(rag: VizRAG) -> list[Event]:
    events: list[Event] = []
    rag.add_hook(lambda name, phase, payload: events.append((name, phase, payload)))
    return events


@pytest.mark.parametrize("lazy", [False, True])
def test_load_events_say_what_was_read(store_dir: Path, lazy: bool) -> None:
    with VizRAG(store_dir, show_progress=False, lazy=lazy) as rag:
        events = _recording(rag)
        res = rag.retrieve(Q, mode="naive")
    assert [(n, p) for n, p, _ in events] == [("load", "start"), ("load", "end"),
                                              ("rank", "start"), ("rank", "end")]
    assert events[0][2] == {"mode": "naive"}
    end = events[1][2]
    assert end == {"lazy": lazy, "chunks": 2, "elapsed_ms": res.timings["load"]}


def test_a_store_that_fails_to_load_fires_load_error(store_dir: Path) -> None:
    rag = VizRAG(store_dir, show_progress=False)
    events = _recording(rag)
    rag.store.close()
    with pytest.raises(StoreClosedError):
        rag.retrieve(Q)
    assert [(n, p) for n, p, _ in events] == [("load", "start"), ("load", "error")]
    error = events[1][2]
    assert error["error"].startswith("StoreClosedError: the store") and error["elapsed_ms"] >= 0


def test_a_store_that_fails_to_load_fires_load_error_async(store_dir: Path) -> None:
    async def run() -> list[Event]:
        rag = VizRAG(store_dir, show_progress=False)
        events: list[Event] = []

        async def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
            events.append((name, phase, payload))

        rag.add_hook(hook)
        rag.store.close()
        with pytest.raises(StoreClosedError):
            await rag.aretrieve(Q)
        return events

    events = asyncio.run(run())
    assert [(n, p) for n, p, _ in events] == [("load", "start"), ("load", "error")]
    assert "StoreClosedError" in events[1][2]["error"]


def test_a_bad_option_raises_before_any_event(store_dir: Path) -> None:
    with VizRAG(store_dir, show_progress=False) as rag:
        events = _recording(rag)
        with pytest.raises(TypeError, match="unknown retrieval option"):
            rag.retrieve(Q, top_kk=3)
        with pytest.raises(ValueError):
            rag.retrieve(Q, mode="nope")
    assert events == []
