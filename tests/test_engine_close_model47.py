"""A query still running when ``close(timeout=s)``/``aclose(timeout=s)`` gives up waiting for
it makes no further model call (a review: it went on after the shutdown and still called the
LLM/MLLM, paid calls of a service already closed). Its next call raises
``EngineClosedError`` before the model is asked, carrying the usage of the calls made."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from held_queries import closed_while_held, run_in_thread

from hyperviz_core.rag import Document, EngineClosedError, VizRAG
from hyperviz_core.rag.query_usage import usage_of
from hyperviz_core.rag.store import HypergraphStore

Q = "Who discovered radium?"
WAIT = 5.0  # the most a test waits for something that must happen (it happens at once)
GAVE_UP = r"is closed \(its close\(\) gave up waiting for this query\)"


class Held:
    """A chat model whose keyword calls (``json_mode``) wait until released; every call it
    is asked (complete, acomplete, stream, astream) is counted in ``calls``."""

    model_name = "held"
    thread_safe = True  # called by three queries at once (else one at a time)

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.waiting = 0
        self.released = False
        self.calls: list[str] = []

    def wait_for(self, n: int) -> None:
        with self.cond:
            assert self.cond.wait_for(lambda: self.waiting >= n, WAIT), "calls never came"

    def release(self) -> None:
        with self.cond:
            self.released = True
            self.cond.notify_all()

    def _call(self, prompt: str, json_mode: bool) -> str:
        with self.cond:
            self.calls.append(prompt)
            if json_mode:
                self.waiting += 1
                self.cond.notify_all()
                assert self.cond.wait_for(lambda: self.released, WAIT), "never released"
        return '["radium"]' if json_mode else "Marie Curie."

    def complete(self, prompt: str, *, images: Any = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        return self._call(prompt, json_mode)

    def stream(self, prompt: str, *, images: Any = (), system: str | None = None
               ) -> Iterator[str]:
        yield self._call(prompt, False)


class AsyncHeld:
    """:class:`Held` for the async path: its keyword calls await an asyncio.Event."""

    model_name = "aheld"

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.calls: list[str] = []

    def complete(self, prompt: str, **kw: Any) -> str:
        raise AssertionError("the async path calls acomplete")

    async def acomplete(self, prompt: str, *, images: Any = (), system: str | None = None,
                        json_mode: bool = False) -> str:
        self.calls.append(prompt)
        if json_mode:
            await asyncio.wait_for(self.release.wait(), WAIT)
            return '["radium"]'
        return "Marie Curie."

    async def astream(self, prompt: str, *, images: Any = (), system: str | None = None
                      ) -> AsyncIterator[str]:
        self.calls.append(prompt)
        yield "Marie Curie."


@pytest.fixture()
def store(tmp_path: Path) -> Iterator[HypergraphStore]:
    """A store the engines are given (it stays open when they close: only the model can
    stop a query)."""
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="curie", title="Marie Curie",
                             text="Marie Curie discovered radium in Paris.")])
    given = HypergraphStore(tmp_path / "s")
    yield given
    given.close()


def _stopped(exc: object) -> None:
    """``exc`` is the query's EngineClosedError, carrying its one (keyword) call."""
    assert isinstance(exc, EngineClosedError), exc
    usage = usage_of(exc)
    assert usage is not None and usage.calls == 1 and usage.failures == 0
    assert usage.prompt_tokens > 0


def test_a_timed_out_close_stops_the_model_calls_of_queries_still_running(
        store: HypergraphStore) -> None:
    chat = Held()
    rag = VizRAG(store, chat=chat, show_progress=False)
    runs = [run_in_thread(lambda: rag.query(Q, render=False)),
            run_in_thread(lambda: list(rag.stream(Q, render=False))),
            run_in_thread(lambda: rag.retrieve(Q, render=False))]
    chat.wait_for(3)  # each in its keyword call
    with pytest.warns(RuntimeWarning, match=r"still running in 3 threads or tasks"):
        rag.close(timeout=0.05)
    chat.release()
    for t, _ in runs:
        t.join(WAIT)
    assert len(chat.calls) == 3  # the keyword calls only: no locate, no answer
    (_, queried), (_, streamed), (_, retrieved) = runs
    with pytest.raises(EngineClosedError, match=GAVE_UP):
        raise queried[0]
    _stopped(queried[0])
    _stopped(streamed[0])
    _stopped(retrieved[0])  # at its keywords' embedding, which has no fallback (stop 48)


def test_a_retrieval_held_before_locate_makes_no_locate_call(store: HypergraphStore) -> None:
    """Held at its locate stage (by a hook: no call under way) when the close gives up, a
    retrieval's locate call is refused (the stage falls back, as on a model failure) and
    its next embedder call ends it (stop 48: embedder calls are halted too)."""
    chat = Held()
    chat.release()  # the keyword call goes through
    rag = VizRAG(store, chat=chat, show_progress=False)
    outcome = closed_while_held(rag, "locate", lambda: rag.retrieve(Q, render=False))
    assert len(chat.calls) == 1  # the keyword call only
    _stopped(outcome)


def test_a_timed_out_aclose_stops_the_model_calls_of_tasks_still_running(
        store: HypergraphStore) -> None:
    async def serve() -> tuple[BaseException | None, BaseException | None, list[str]]:
        chat = AsyncHeld()
        rag = VizRAG(store, chat=chat, show_progress=False)
        query = asyncio.create_task(rag.aquery(Q, render=False))

        async def consume() -> list[str]:
            return [piece async for piece in rag.astream(Q, render=False)]

        stream = asyncio.create_task(consume())
        while len(chat.calls) < 2:
            await asyncio.sleep(0.01)
        with pytest.warns(RuntimeWarning, match=r"still running in 2 threads or tasks"):
            await rag.aclose(timeout=0.05)
        chat.release.set()
        await asyncio.wait([query, stream], timeout=WAIT)
        return query.exception(), stream.exception(), chat.calls

    queried, streamed, calls = asyncio.run(serve())
    assert len(calls) == 2  # the keyword calls only
    _stopped(queried)
    _stopped(streamed)


def test_a_close_that_waits_lets_the_queries_make_their_model_calls(
        store: HypergraphStore) -> None:
    chat = Held()
    rag = VizRAG(store, chat=chat, show_progress=False)
    query, got = run_in_thread(lambda: rag.query(Q, render=False))
    chat.wait_for(1)
    closer, closed = run_in_thread(rag.close)
    chat.release()
    query.join(WAIT)
    closer.join(WAIT)
    assert closed == [None]
    result = got[0]
    assert result.answer == "Marie Curie." and result.usage.calls == 3  # keywords, locate, answer
    assert len(chat.calls) == 3 and not any("closed" in w for w in result.warnings)
