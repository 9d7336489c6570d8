"""``async with VizRAG(...)`` and ``aclose()`` for async services (a reviewer's FastAPI-style
lifespan got ``TypeError: 'VizRAG' object does not support the asynchronous context manager
protocol``, and there was no ``aclose``)."""

from __future__ import annotations

import asyncio
import threading
from pathlib import Path

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.store import HypergraphStore, StoreError

DOC = Document(id="curie", title="Marie Curie", text="Marie Curie discovered radium in Paris.")


def test_async_with_closes_the_store_it_opened(tmp_path: Path) -> None:
    async def serve() -> VizRAG:
        async with VizRAG(tmp_path / "s", show_progress=False) as rag:
            await rag.ainsert([DOC])
            assert (await rag.aretrieve("radium", render=False)).chunks
        return rag

    rag = asyncio.run(serve())
    with pytest.raises(StoreError, match="is closed"):
        rag.retrieve("radium", render=False)


def test_aclose_runs_in_a_worker_thread_and_leaves_a_given_store_open(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    closed_in: list[int] = []
    real = HypergraphStore.close

    def close(self: HypergraphStore) -> None:
        closed_in.append(threading.get_ident())
        real(self)

    monkeypatch.setattr(HypergraphStore, "close", close)
    store = HypergraphStore(tmp_path / "given")

    async def run() -> int:
        given = VizRAG(store, show_progress=False)
        await given.aclose()  # not its store: left open
        assert not closed_in
        own = VizRAG(tmp_path / "own", show_progress=False)
        await own.aclose()
        return threading.get_ident()

    loop_thread = asyncio.run(run())
    assert len(closed_in) == 1 and closed_in[0] != loop_thread
    assert store.stats().documents == 0  # still usable
    store.close()


def test_a_cached_model_on_a_closed_store_is_not_called(tmp_path: Path,
                                                       caplog: pytest.LogCaptureFixture
                                                       ) -> None:
    """A query still running when its engine closes made paid calls behind a cache on the
    closed store, each logging a ``StoreClosedError`` traceback ("cache get failed; calling
    the model")."""
    from hyperviz_core.rag import build_chat_stack
    from hyperviz_core.rag.store import StoreClosedError

    calls: list[str] = []

    class Model:
        model_name = "m"

        def complete(self, prompt: str, **kw: object) -> str:
            calls.append(prompt)
            return "ok"

    store = HypergraphStore(tmp_path / "s")
    chat = build_chat_stack(Model(), cache=store, max_retries=0)
    assert chat.complete("one") == "ok" and chat.complete("one") == "ok"  # cached
    store.close()
    with pytest.raises(StoreClosedError):
        chat.complete("two")
    assert calls == ["one"] and "cache get failed" not in caplog.text
