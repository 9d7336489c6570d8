"""Closing a :class:`~vizrag_llamaindex.VizRAGIndex`: ``close(timeout=None)``,
``await aclose(timeout=None)``, ``with`` and ``async with``.

The index closes what it opened, nothing else: the engine it made (one given as
``engine=`` stays open: its owner closes it), through the core's ``VizRAG.close`` /
``aclose`` — new queries raise ``hyperviz_core.rag.EngineClosedError``, the queries in flight
are waited for (at most ``timeout`` seconds), then the store closes —, then its temporary
store directory (an index made without ``store_dir``), removed only once no query runs on
the engine any more. When queries still run after the engine's close returned — ``timeout``
ran out, or a sync ``close()`` was called on an event loop's thread, which cannot wait for
that loop's ``aquery`` tasks (they need the thread it would block; use ``await
index.aclose()`` there) — the directory is left to them: one ``RuntimeWarning`` says so and
names it (the engine's close is asked not to warn about them too: ``warn=False``), and a
worker thread removes it as soon as the last of them has ended (they fail with
``StoreClosedError`` when they next read the closed store, and past a ``timeout`` with
``EngineClosedError`` at their next model call; never with a store "deleted or replaced"
under them). ``aclose`` removes the directory in a worker thread too, so the event loop is
never held up. Closing again is a no-op.

Example:
    >>> from llama_index.core import Document
    >>> from vizrag_llamaindex import VizRAGIndex
    >>> with VizRAGIndex.from_documents([Document(text="Ada met Babbage.", id_="a")]) as index:
    ...     tmp = index.store.path.parent
    ...     nodes = index.as_retriever(top_k=1).retrieve("Who met Babbage?")
    >>> tmp.exists()
    False
"""

from __future__ import annotations

import asyncio
import logging
import tempfile
import threading
import warnings
import weakref
from typing import Any, TypeVar

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.callsite import caller_level

__all__ = ["IndexLifecycle", "close_owned"]

log = logging.getLogger(__name__)

_I = TypeVar("_I", bound="IndexLifecycle")
Tmp = tempfile.TemporaryDirectory[str]


def _remove_when_idle(engine: VizRAG, tmp: Tmp) -> None:
    """Wait (in this worker thread) for every query on the closed ``engine`` to end — a
    second ``close()`` waits for all of them, this thread running none — then remove
    ``tmp``."""
    try:
        engine.close()
    except Exception:  # the store was closed already; only the wait matters here
        log.debug("closing the engine again before removing %s failed", tmp.name,
                  exc_info=True)
    tmp.cleanup()
    log.info("removed the temporary VizRAG store %s (its last query has ended)", tmp.name)


def _leave_to_queries(engine: VizRAG, tmp: Tmp, left: int, where: str,
                      timeout: float | None) -> None:
    """Warn that ``left`` queries still run, and remove ``tmp`` once they have ended."""
    reason = (f"past timeout={timeout}; their next model call raises EngineClosedError"
              if timeout is not None else
              "not waited for: they run on the thread that closed it, e.g. as tasks of its "
              "event loop, where `await index.aclose()` waits for them")
    warnings.warn(
        f"VizRAGIndex.{where}: queries or writes still run in {left} thread"
        f"{'s' * (left != 1)} or task{'s' * (left != 1)} ({reason}); the temporary store "
        f"directory {tmp.name} is left to them and removed once the last of them has ended "
        "(they fail with StoreClosedError when they next read the closed store)",
        RuntimeWarning, stacklevel=caller_level())
    threading.Thread(target=_remove_when_idle, args=(engine, tmp), daemon=True,
                     name="vizrag-llamaindex-tmp-cleanup").start()


def close_owned(engine: VizRAG | None, tmp: Tmp | None) -> None:
    """Close what an index opened: its engine (None: the caller's, left open), then its
    temporary directory (if any) — the finalizer of an index collected without
    ``close()``."""
    try:
        if engine is not None:
            engine.close()
    finally:
        if tmp is not None:
            tmp.cleanup()


class IndexLifecycle:
    """``close``/``aclose`` and the sync and async context managers of an index that owns
    ``_engine`` when ``_owns_engine`` and ``_tmp`` (see the module docstring)."""

    _engine: VizRAG
    _owns_engine: bool
    _tmp: Tmp | None
    _finalizer: weakref.finalize[Any, Any]

    def close(self, timeout: float | None = None) -> None:
        """Close the engine the index opened (new queries raise ``EngineClosedError``, the
        ones in flight are waited for at most ``timeout`` seconds; None: as long as they
        take), then remove the temporary store directory, if the index owns one, once no
        query runs any more (see the module docstring); a no-op when closed already."""
        if not self._finalizer.alive:
            return
        if self._owns_engine:  # a bad timeout raises here, before anything is closed
            self._engine.close(timeout, warn=self._tmp is None)  # one warning: the index's
        if self._finalizer.detach() is None:  # closed meanwhile by another thread
            return
        self._release_tmp("close()", timeout)

    async def aclose(self, timeout: float | None = None) -> None:
        """:meth:`close` for an event loop: the engine's ``aclose`` (the wait and closing
        the store run in a worker thread, the loop's ``aquery`` tasks go on meanwhile, and
        are waited for), then the temporary directory is removed in a worker thread."""
        if not self._finalizer.alive:
            return
        if self._owns_engine:
            await self._engine.aclose(timeout, warn=self._tmp is None)
        if self._finalizer.detach() is None:
            return
        tmp = self._tmp
        if tmp is not None and not self._engine.queries_running():
            await asyncio.to_thread(tmp.cleanup)
        elif tmp is not None:
            self._release_tmp("aclose()", timeout)

    def _release_tmp(self, where: str, timeout: float | None) -> None:
        tmp = self._tmp
        if tmp is None:
            return
        left = self._engine.queries_running()
        if left:
            _leave_to_queries(self._engine, tmp, left, where, timeout)
        else:
            tmp.cleanup()

    def __enter__(self: _I) -> _I:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self: _I) -> _I:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
