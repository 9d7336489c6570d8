"""Opening and closing an engine: ``with VizRAG(...)`` and ``async with VizRAG(...)``
(a mixin of the engine), and the queries in flight that closing waits for.

``close()`` stops new queries and writes at once (``query``, ``aquery``, ``retrieve``,
``aretrieve``, ``stream``, ``astream``, ``insert``, ``ainsert``, ``delete``,
``delete_many``, and ``adelete``/``adelete_many`` through them, raise
:class:`EngineClosedError`, a :class:`~.store.StoreClosedError`), waits for the ones still
running on the engine to end — a stream counts until it is exhausted or closed, an insert
until its last document is stored — then closes the store if the engine
opened it (one it was given stays open: its owner closes it). ``close(timeout=...)`` waits
at most that many seconds, then warns (:class:`RuntimeWarning`, naming how many were still
running) and closes anyway. A query still running then makes no further chat-model call:
its next one raises :class:`EngineClosedError` before the model is asked (a call under way
is not cut off; a retrieval stage falls back as on a model failure, the answer fails with
it, carrying the query's usage), and a read of a closed store raises ``StoreClosedError``.
``aclose()`` does the same in a worker thread — the wait, and
closing a SQLite store, which writes its ANN index files and folds its write-ahead log back,
should not hold up an event loop — for an async service's shutdown (a FastAPI lifespan, an
``AsyncExitStack``): the ``aquery`` tasks on the loop go on meanwhile.

Closing never waits for itself: a ``close()`` called from a hook of a running query (or any
code on the thread that runs it) does not wait for the queries of its own thread, which
cannot go on until it returns, nor an ``aclose()`` awaited in a query's async hook for that
query (its task); the other queries are waited for. Queries are not cancelled: cancel the
tasks first for a quick shutdown. A sync ``close()`` called on the thread of a running
event loop cannot wait for that loop's tasks (they cannot go on until it returns): it warns
(:class:`RuntimeWarning`, naming how many) that ``await aclose()`` is what async code
calls.

Example::

    async with VizRAG("out/store") as rag:
        result = await rag.aquery("Who discovered radium?")
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import math
import threading
import warnings
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Generator, Iterator
from typing import Any, TypeVar, cast

from .callsite import caller_level
from .query_usage import QuerySpend, spending
from .store.base import StoreClosedError, StoreError, redact_url

__all__ = ["EngineClosedError", "Lifecycle", "in_flight"]

_E = TypeVar("_E", bound="Lifecycle")
_F = TypeVar("_F", bound=Callable[..., Any])
#: who runs a query: (thread id, asyncio task or None)
_Who = tuple[int, object]
_MADE = threading.Lock()  # guards the lazy creation of an engine's _Flight


class EngineClosedError(StoreClosedError):
    """A query was started on an engine after ``close()``/``aclose()`` (or the end of its
    ``with`` block) began, or (``running``) a query still running when a close gave up
    waiting for it called the model again: a :class:`~.store.StoreClosedError`, whichever
    owns the store.

    >>> str(EngineClosedError("out/store"))[:60]
    'the VizRAG engine over out/store is closed: a closed object '
    >>> str(EngineClosedError("out/store", running=True))[42:]
    ' (its close() gave up waiting for this query): the chat model is not called again in it'
    """

    def __init__(self, path: object, *, running: bool = False) -> None:
        why = (" (its close() gave up waiting for this query): the chat model is not called "
               "again in it" if running else ": a closed object is not reopened; make a new "
               "one over the same path (a new VizRAG, retriever or index)")
        StoreError.__init__(
            self, f"the VizRAG engine over {redact_url(str(path))} is closed{why}")


def _who() -> _Who:
    try:
        task: object = asyncio.current_task()
    except RuntimeError:  # no event loop running in this thread
        task = None
    return threading.get_ident(), task


class _Flight:
    """The queries running on one engine: what each thread or task spends, one entry per
    call in flight (a query's own ``retrieve`` counts again under the same key), and
    whether the engine is closing."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.running: dict[_Who, list[QuerySpend]] = {}
        self.closing = False

    def enter(self, who: _Who, engine: Any, spend: QuerySpend) -> None:
        with self.cond:
            if self.closing and who not in self.running:  # nested calls of a query go on
                raise EngineClosedError(_path(engine))
            self.running.setdefault(who, []).append(spend)

    def leave(self, who: _Who, spend: QuerySpend) -> None:
        with self.cond:
            spends = self.running[who]
            spends.remove(spend)
            if not spends:
                del self.running[who]
                self.cond.notify_all()

    def drain(self, timeout: float | None, skip: _Who | None,
              halt: Callable[[], BaseException]) -> tuple[int, int]:
        """Refuse new queries, wait for the running ones (not this thread's, nor ``skip``'s)
        at most ``timeout`` seconds, then halt those still running (their later model calls
        raise ``halt()``); how many threads or tasks still run one, and how many
        tasks of this thread's event loop (other than the caller's own) were not waited for
        (a sync ``close()`` on the loop's thread: they cannot go on until it returns)."""
        me, caller = threading.get_ident(), _who()

        def others() -> list[_Who]:
            return [who for who in self.running if who[0] != me and who != skip]

        with self.cond:
            self.closing = True
            self.cond.wait_for(lambda: not others(), timeout)
            given_up = others()
            for who in given_up:
                for spend in self.running[who]:
                    spend.halt = halt
            stranded = sum(1 for who in self.running
                           if who[0] == me and who[1] is not None and who != caller)
            return len(given_up), stranded


def _path(engine: Any) -> object:
    return getattr(engine.store, "path", "?")


def _flight(engine: object) -> _Flight:
    got = vars(engine).get("_flight")
    if got is None:
        with _MADE:
            got = vars(engine).setdefault("_flight", _Flight())
    return cast(_Flight, got)


def _check_timeout(timeout: object) -> float | None:
    if timeout is None:
        return None
    if (isinstance(timeout, bool) or not isinstance(timeout, int | float)
            or math.isnan(timeout) or timeout < 0):
        raise ValueError(f"close(timeout=...) takes None (wait as long as it takes) or a "
                         f"number of seconds >= 0, not {timeout!r}")
    return float(timeout)


@contextlib.contextmanager
def _flying(engine: Any, spend: QuerySpend) -> Iterator[None]:
    """The block runs as a query in flight on ``engine`` (refused once it is closing), its
    model calls counted into ``spend`` (halted when a close gives up waiting for it)."""
    flight, who = _flight(engine), _who()
    flight.enter(who, engine, spend)
    try:
        yield
    finally:
        flight.leave(who, spend)


def in_flight(method: _F) -> _F:
    """Run an engine method (sync, async, a generator or an async generator) as a query in
    flight: refused once the engine is closing, waited for by ``close()``, its exception
    carrying the query's usage (:func:`~.query_usage.spending`)."""
    if inspect.isasyncgenfunction(method):
        return cast(_F, _async_stream(method))
    if inspect.isgeneratorfunction(method):
        return cast(_F, _stream(method))
    if inspect.iscoroutinefunction(method):
        @functools.wraps(method)
        async def arun(self: Any, *args: Any, **kwargs: Any) -> Any:
            with spending() as spend, _flying(self, spend):
                return await method(self, *args, **kwargs)
        return cast(_F, arun)

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Any:
        with spending() as spend, _flying(self, spend):
            return method(self, *args, **kwargs)
    return cast(_F, run)


def _stream(method: Callable[..., Generator[Any, None, None]]) -> Callable[..., Iterator[Any]]:
    """:func:`in_flight` of a generator: in flight from its first step until it is
    exhausted, fails or is closed; its usage counted only while a step runs."""
    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> Iterator[Any]:
        spend = QuerySpend()
        with _flying(self, spend), contextlib.closing(method(self, *args, **kwargs)) as gen:
            while True:
                with spending(spend):
                    try:
                        piece = next(gen)
                    except StopIteration:
                        return
                yield piece
    return run


def _async_stream(method: Callable[..., AsyncGenerator[Any, None]]
                  ) -> Callable[..., AsyncIterator[Any]]:
    """:func:`_stream` of an async generator."""
    @functools.wraps(method)
    async def run(self: Any, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        spend = QuerySpend()
        with _flying(self, spend):
            async with contextlib.aclosing(method(self, *args, **kwargs)) as gen:
                while True:
                    with spending(spend):
                        try:
                            piece = await anext(gen)
                        except StopAsyncIteration:
                            return
                    yield piece
    return run


class Lifecycle:
    """``close``/``aclose`` and the sync and async context managers."""

    _owns_store: bool
    store: Any

    def queries_running(self) -> int:
        """How many threads or asyncio tasks run a query or a write on this engine now (a
        query's own nested calls count once): what ``close()`` waits for (see the module
        docstring); 0 when none."""
        flight = vars(self).get("_flight")
        if flight is None:
            return 0
        with flight.cond:
            return len(flight.running)

    def close(self, timeout: float | None = None, *, warn: bool = True) -> None:
        """Stop new queries, wait for the running ones (at most ``timeout`` seconds; None:
        as long as they take), then close the store if this engine opened it (see the
        module docstring). ``warn=False``: no ``RuntimeWarning`` about queries left running
        — for a wrapper that says so in its own warning (:meth:`queries_running` tells)."""
        self._close(_check_timeout(timeout), None, warn)

    async def aclose(self, timeout: float | None = None, *, warn: bool = True) -> None:
        """:meth:`close` in a worker thread (see the module docstring)."""
        await asyncio.to_thread(self._close, _check_timeout(timeout), _who(), warn)

    def _close(self, timeout: float | None, skip: _Who | None, warn: bool = True) -> None:
        halt = functools.partial(EngineClosedError, _path(self), running=True)
        left, stranded = _flight(self).drain(timeout, skip, halt)
        if stranded and warn:
            warnings.warn(
                f"VizRAG.close() was called on the thread of a running event loop: {stranded} "
                f"quer{'ies' if stranded != 1 else 'y'} or write{'s' * (stranded != 1)} "
                "running as its tasks were not waited for (they cannot go on until close() "
                "returns); use `await aclose()` in async code", RuntimeWarning,
                stacklevel=caller_level())
        if left and warn:
            warnings.warn(
                f"VizRAG.close(timeout={timeout}): queries were still running in {left} "
                f"thread{'s' * (left != 1)} or task{'s' * (left != 1)}; closing anyway (their "
                "next model call raises EngineClosedError, a read of the closed store "
                "StoreClosedError)",
                RuntimeWarning, stacklevel=caller_level())
        if self._owns_store:
            self.store.close()

    def __enter__(self: _E) -> _E:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self: _E) -> _E:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
