"""After ``close(timeout=s)``/``aclose(timeout=s)`` gave up waiting for a query, the query
makes no further embedder or keyword-extractor call either (a review of stop 47: only the
chat model's calls were halted, so a query went on paying a remote embedder after the
shutdown). Its next such call raises ``EngineClosedError`` before the provider is asked."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest
from held_queries import async_gate, closed_while_held, run_in_thread

from hyperviz_core.rag import Document, EngineClosedError, VizRAG
from hyperviz_core.rag.providers.offline import HashingEmbedder
from hyperviz_core.rag.store import HypergraphStore

Q = "Who discovered radium?"
WAIT = 5.0
GAVE_UP = r"is closed \(its close\(\) gave up waiting for this query\)"


class CountingEmbedder:
    """A hashed embedder (not the built-in one: ranking asks it for vectors) whose calls are
    counted; ``hold`` set, each call waits until :meth:`release`."""

    name = "counting-hash"
    dim = 64

    def __init__(self) -> None:
        self.inner = HashingEmbedder(dim=self.dim)
        self.cond = threading.Condition()
        self.hold = False
        self.released = False
        self.calls: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        with self.cond:
            self.calls.append(list(texts))
            self.cond.notify_all()
            if self.hold:
                assert self.cond.wait_for(lambda: self.released, WAIT), "never released"
        return self.inner.embed(texts)

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self.embed(texts)

    def wait_for(self, n: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: len(self.calls) >= n, WAIT), "calls never came"

    def release(self) -> None:
        with self.cond:
            self.released = True
            self.cond.notify_all()


class Keywords:
    """A keyword extractor that counts its calls."""

    def __init__(self) -> None:
        self.calls: list[str] = []

    def keywords(self, query: str) -> list[str]:
        self.calls.append(query)
        return ["radium"]

    async def akeywords(self, query: str) -> list[str]:
        return self.keywords(query)


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[HypergraphStore]:
    """A store indexed with :class:`CountingEmbedder`, given to the engines (it stays open
    when they close)."""
    with VizRAG(tmp_path / "s", embedder=CountingEmbedder(), show_progress=False) as rag:
        rag.insert([Document(id="curie", title="Marie Curie",
                             text="Marie Curie discovered radium in Paris.")])
    given = HypergraphStore(tmp_path / "s")
    yield given
    given.close()


def test_a_query_held_in_its_embedder_call_makes_no_other_one(
        store: HypergraphStore) -> None:
    emb = CountingEmbedder()
    rag = VizRAG(store, embedder=emb, show_progress=False)
    assert rag.retrieve(Q, render=False).chunks  # the embedder is asked more than once
    asked = len(emb.calls)
    assert asked > 1
    emb.calls.clear()
    emb.hold = True
    thread, out = run_in_thread(lambda: rag.retrieve(Q, render=False))
    emb.wait_for(1)  # in its first embedder call
    with pytest.warns(RuntimeWarning, match=r"still running in 1 thread"):
        rag.close(timeout=0.05)
    emb.release()
    thread.join(WAIT)
    assert len(emb.calls) == 1  # the held call only
    with pytest.raises(EngineClosedError, match=GAVE_UP):
        raise out[0]


def test_a_query_held_before_its_keywords_asks_neither_extractor_nor_embedder(
        store: HypergraphStore) -> None:
    emb, kw = CountingEmbedder(), Keywords()
    rag = VizRAG(store, embedder=emb, keyword_extractor=kw, show_progress=False)
    outcome = closed_while_held(rag, "keywords", lambda: rag.retrieve(Q, render=False))
    assert kw.calls == [] and emb.calls == []
    with pytest.raises(EngineClosedError, match=GAVE_UP):
        raise outcome


def test_a_task_left_by_aclose_makes_no_embedder_call(store: HypergraphStore) -> None:
    async def serve() -> tuple[BaseException | None, int, int]:
        emb, kw = CountingEmbedder(), Keywords()
        rag = VizRAG(store, embedder=emb, keyword_extractor=kw, show_progress=False)
        entered, gate, hook = async_gate()
        rag.add_hook(hook)
        task = asyncio.create_task(rag.aretrieve(Q, render=False))
        await asyncio.wait_for(entered.wait(), WAIT)
        with pytest.warns(RuntimeWarning, match=r"still running in 1 thread or task"):
            await rag.aclose(timeout=0.05)
        gate.set()
        await asyncio.wait([task], timeout=WAIT)
        return task.exception(), len(kw.calls), len(emb.calls)

    err, keyword_calls, embed_calls = asyncio.run(serve())
    assert (keyword_calls, embed_calls) == (0, 0)
    with pytest.raises(EngineClosedError, match=GAVE_UP):
        raise err  # type: ignore[misc]
