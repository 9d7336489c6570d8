"""Running a coroutine to completion from sync code, even inside a running event loop
(``Indexer.index`` in Jupyter or a framework callback).

Example:
    >>> import asyncio
    >>> run_sync(lambda: asyncio.sleep(0, result=7))
    7
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import signal
import threading
from collections.abc import Callable, Coroutine, Iterator
from typing import Any, TypeVar

__all__ = ["run_sync"]

_T = TypeVar("_T")


def run_sync(coro_factory: Callable[[], Coroutine[Any, Any, _T]]) -> _T:
    """Run a coroutine to completion from sync code, even inside a running event loop.

    With no running loop this is ``asyncio.run``; inside one (Jupyter, LlamaIndex
    callbacks) the coroutine runs on a fresh loop in a worker thread, and Ctrl-C ("interrupt
    the kernel") cancels it there as ``asyncio.run`` would, then waits for it to stop (an
    indexing run stops at its next commit) before raising ``KeyboardInterrupt``: nothing
    goes on writing in the background.
    """
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro_factory())
    started: dict[str, Any] = {}
    ready = threading.Event()

    async def main() -> _T:
        started["task"], started["loop"] = asyncio.current_task(), asyncio.get_running_loop()
        ready.set()
        return await coro_factory()

    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool, _ctrl_c_raises():
        future = pool.submit(asyncio.run, main())
        try:
            return future.result()
        except KeyboardInterrupt:
            _cancel_and_wait(future, started, ready)
            raise


@contextlib.contextmanager
def _ctrl_c_raises() -> Iterator[None]:
    """Ctrl-C raises ``KeyboardInterrupt`` here while :func:`run_sync` waits, also under
    ``asyncio.run``, whose own handler would only cancel the task that waits (blocked, so
    the run went on to its end)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _cancel_and_wait(future: concurrent.futures.Future[Any], started: dict[str, Any],
                     ready: threading.Event) -> None:
    """Cancel the coroutine :func:`run_sync` runs in its worker thread and wait until it has
    stopped; a further Ctrl-C while it stops cancels again and goes on waiting."""
    while True:
        try:
            if ready.wait(10) and not future.done():
                with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: done
                    started["loop"].call_soon_threadsafe(started["task"].cancel)
            concurrent.futures.wait([future])
            return
        except KeyboardInterrupt:
            continue
