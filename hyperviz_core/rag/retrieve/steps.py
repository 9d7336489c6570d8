"""Stepping a retrieval pipeline: one step at a time under the engine's stages lock, from
the sync driver (the caller's thread) or the async one (:class:`AsyncSteps`).

A pipeline yields :data:`PIN` before an attempt that holds the store's read snapshot, which
belongs to the thread that opened it (SQLite's: its one connection, held with the stages
lock). The sync driver runs every step in one thread anyway; the async driver then runs the
attempt's steps in one thread of its own (before 2026-12-06 it never pinned: a query a
writer kept changing the store under was tried lazily three times and then loaded the whole
store).
"""

from __future__ import annotations

import asyncio
import contextvars
import functools
import threading
from collections.abc import Generator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..hooks import HookEvent
from ..result import RetrievalResult
from .state import LLMRequest

__all__ = ["PIN", "AsyncSteps", "Pin", "Pipeline", "advance"]


class Pin:
    """What a pipeline yields before an attempt in the store's read snapshot: its later
    steps must run in one thread (the driver answers with nothing)."""

    def __repr__(self) -> str:
        return "PIN"


#: the one :class:`Pin`
PIN = Pin()

Pipeline = Generator[LLMRequest | HookEvent | Pin, Any, RetrievalResult]

#: how many stage steps the current thread is inside (a stage that retrieves again)
_INSIDE = threading.local()


def advance(lock: threading.RLock, gen: Pipeline, value: Any = None,
            throw: BaseException | None = None) -> tuple[bool, Any]:
    """One step of a pipeline under ``lock``: ``(False, next item)`` or, when it is over,
    ``(True, result)`` (a ``StopIteration`` cannot cross ``asyncio.to_thread``)."""
    with lock:
        _INSIDE.depth = getattr(_INSIDE, "depth", 0) + 1
        try:
            return _step(gen, value, throw)
        finally:
            _INSIDE.depth -= 1


def _step(gen: Pipeline, value: Any, throw: BaseException | None) -> tuple[bool, Any]:
    try:
        return False, gen.throw(throw) if throw is not None else gen.send(value)
    except StopIteration as stop:
        return True, stop.value


async def _astep(lock: threading.RLock, gen: Pipeline, value: Any = None,
                 throw: BaseException | None = None, *, slow: bool = False
                 ) -> tuple[bool, Any]:
    """:func:`advance` for the async driver: a quick step runs on the event loop when the
    lock is free; a slow one, or one that would wait for another retrieval's step, runs in
    a worker thread (the loop never blocks on the lock). Inside a stage step of this thread
    (a stage that retrieves again, e.g. ``asyncio.run(rag.aretrieve(...))`` in a renderer)
    every step runs here: that thread holds the lock, a worker would wait for it forever."""
    if getattr(_INSIDE, "depth", 0):
        return advance(lock, gen, value, throw)
    if not slow and lock.acquire(blocking=False):
        try:
            return advance(lock, gen, value, throw)
        finally:
            lock.release()
    return await asyncio.to_thread(advance, lock, gen, value, throw)


class AsyncSteps:
    """The async driver's steps of one pipeline: as :func:`_astep` until the pipeline
    yields :data:`PIN`, then all in one thread of their own (the snapshot's and the stages
    lock's owner), with this task's context (the query's spend) as ``asyncio.to_thread``
    gives it. :meth:`close` ends a pipeline left in that thread (a cancelled query) there,
    so the lock and the snapshot are let go by their owner."""

    def __init__(self, lock: threading.RLock, gen: Pipeline,
                 pinned_loops: list[asyncio.AbstractEventLoop] | None = None) -> None:
        self.lock, self.gen = lock, gen
        self.home: ThreadPoolExecutor | None = None
        self.done = False
        #: the event loops of the engine's pinned attempts: this one's while it is pinned
        #: (a sync ``retrieve`` on that loop's thread would wait for it forever)
        self.pinned_loops = pinned_loops if pinned_loops is not None else []

    def pin(self) -> None:
        if self.home is None:
            self.home = ThreadPoolExecutor(1, thread_name_prefix="vizrag-snapshot")
            self.pinned_loops.append(asyncio.get_running_loop())

    async def step(self, value: Any = None, throw: BaseException | None = None, *,
                   slow: bool = False) -> tuple[bool, Any]:
        if self.home is None:
            out = await _astep(self.lock, self.gen, value, throw, slow=slow)
        else:
            call = functools.partial(contextvars.copy_context().run, advance, self.lock,
                                     self.gen, value, throw)
            out = await asyncio.get_running_loop().run_in_executor(self.home, call)
        self.done = out[0]
        return out

    def close(self) -> None:
        """Let the pinned thread go; a pipeline not finished is closed in it first (after
        any step still running there), without waiting on the event loop."""
        if self.home is None:
            return
        if not self.done:
            self.home.submit(self.gen.close)
        self.home.shutdown(wait=False)
        self.pinned_loops.remove(asyncio.get_running_loop())
