"""``aretrieve`` pinned to the store's read snapshot (stop 49).

A lazy async query the store changed under used to be tried three times and then run on
the whole store loaded: its steps ran in several threads, and a snapshot belongs to the
thread that opened it. The pipeline now announces the pinned attempt (``PIN``) and the async
driver runs that attempt's steps in one thread of its own (:class:`AsyncSteps`), so the
second attempt has nothing to restart for, as under ``retrieve``.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Generator
from typing import Any

import pytest
from pinned_stores import committing_writer

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve.steps import PIN, AsyncSteps

Q = "Where did Marie Curie meet person 3?"
VAR: contextvars.ContextVar[str] = contextvars.ContextVar("var", default="unset")


def _recording(ids: list[tuple[str, int]]) -> Generator[Any, Any, str]:
    ids.append(("before", threading.get_ident()))
    yield PIN
    for i in range(3):
        ids.append((f"pinned {VAR.get()}", threading.get_ident()))
        yield i
    return "done"


def test_steps_after_the_pin_run_in_one_thread_with_the_task_context() -> None:
    ids: list[tuple[str, int]] = []

    async def drive() -> tuple[str, int]:
        VAR.set("seen")
        steps = AsyncSteps(threading.RLock(), _recording(ids))  # type: ignore[arg-type]
        try:
            done, item = await steps.step()
            assert item is PIN
            steps.pin()
            while not done:
                done, item = await steps.step()
        finally:
            steps.close()
        return item, threading.get_ident()

    result, loop_thread = asyncio.run(drive())
    assert result == "done"
    assert ids[0] == ("before", loop_thread)  # a quick step: on the loop, as before
    pinned = {t for label, t in ids[1:]}
    assert len(pinned) == 1 and loop_thread not in pinned
    assert [label for label, _ in ids[1:]] == ["pinned seen"] * 3


def test_a_cancelled_pinned_pipeline_is_closed_in_its_thread() -> None:
    closed: list[int] = []

    def pipeline() -> Generator[Any, Any, str]:
        yield PIN
        try:
            yield "held"
            yield "never"
        finally:
            closed.append(threading.get_ident())
        return "unreached"

    async def drive() -> int:
        steps = AsyncSteps(threading.RLock(), pipeline())  # type: ignore[arg-type]
        await steps.step()
        steps.pin()
        await steps.step()  # in the pinned thread, now at "held"
        assert steps.home is not None
        home = steps.home
        steps.close()  # as after a cancellation: not done
        home.shutdown(wait=True)
        return threading.get_ident()

    loop_thread = asyncio.run(drive())
    assert len(closed) == 1 and closed[0] != loop_thread


def test_concurrent_async_queries_while_one_is_pinned(changing_store: str) -> None:
    (writer, other), ranks = committing_writer(changing_store)

    async def run() -> list[Any]:
        with VizRAG(changing_store, show_progress=False) as rag:
            first = asyncio.create_task(rag.aretrieve(Q, render=False, hooks=[writer]))
            others = [asyncio.create_task(rag.aretrieve(f"Where did Marie Curie meet "
                                                        f"person {i}?", render=False))
                      for i in range(4)]
            return await asyncio.wait_for(asyncio.gather(first, *others), 60)

    results = asyncio.run(run())
    other.close()
    assert len(ranks) == 2  # the writer's query restarted once, pinned
    assert all(r.chunks for r in results)


def test_a_query_cancelled_while_pinned_lets_the_store_go(changing_store: str) -> None:
    (writer, other), ranks = committing_writer(changing_store)
    rag = VizRAG(changing_store, show_progress=False)

    async def stall(name: str, phase: str, payload: dict[str, Any]) -> None:
        if (name, phase) == ("bottom_entities", "end") and ranks:  # the pinned attempt
            await asyncio.sleep(30)

    async def run() -> None:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(rag.aretrieve(Q, render=False, hooks=[writer, stall]),
                                   1.0)

    asyncio.run(run())
    out: dict[str, Any] = {}

    def after() -> None:  # the snapshot and the stages lock were let go
        out["res"] = rag.retrieve(Q, render=False)
        rag.insert([Document(id="after", text="Marie Curie wrote in Warsaw.")])
        out["written"] = rag.retriever.store.has_document("after")

    t = threading.Thread(target=after, daemon=True)
    t.start()
    t.join(20)
    if t.is_alive():  # closing would wait for it too
        pytest.fail("the engine stayed held by the cancelled query")
    rag.close()
    other.close()
    assert out["res"].chunks and out["written"]


def test_a_sync_retrieve_on_the_loop_of_a_pinned_query_is_refused(changing_store: str) -> None:
    """It would wait for the pinned query's stages lock, and the pinned query for the loop
    it blocks: refused with a clear error instead of waiting forever."""
    (writer, other), ranks = committing_writer(changing_store)
    rag = VizRAG(changing_store, show_progress=False)
    errors: list[str] = []

    async def sync_call_meanwhile(name: str, phase: str, payload: dict[str, Any]) -> None:
        if (name, phase) == ("bottom_entities", "end") and ranks and not errors:
            try:
                rag.retrieve("Marie Curie", render=False)  # on the loop's own thread
            except RuntimeError as exc:
                errors.append(str(exc))

    async def run() -> Any:
        return await asyncio.wait_for(
            rag.aretrieve(Q, render=False, hooks=[writer, sync_call_meanwhile]), 30)

    res = asyncio.run(run())
    after = rag.retrieve("Marie Curie", render=False)  # no loop here: allowed
    rag.close()
    other.close()
    assert len(ranks) == 2 and res.chunks and after.chunks
    assert len(errors) == 1 and "use `await aretrieve()` in async code" in errors[0]
