"""Queries held in flight, for the tests of closing an engine or a wrapper while they run.

A retrieval is held at its ``keywords`` stage by a stage hook until the test releases it: in
a thread (:func:`held_in_thread`) or as an asyncio task (:func:`async_gate`); or a call in a thread
whose outcome the test reads (:func:`run_in_thread`), held at a stage while its engine's
close gives up waiting for it (:func:`closed_while_held`), or while a close that is
expected to warn runs (:func:`close_past_held`). Plus the
RuntimeWarnings a close gave (:func:`runtime_warnings`) and a wait for a directory a worker
thread removes (:func:`gone`).
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
import warnings
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

Hook = Callable[[str, str, dict[str, Any]], Any]


def held_in_thread(add_hook: Callable[[Hook], None], run: Callable[[], object]
                   ) -> tuple[threading.Thread, threading.Event]:
    """``run()`` (a retrieval) started in a thread and held at its keywords stage (a hook
    given to ``add_hook``) until the returned event is set; its exception (a read of the
    closed store) is swallowed."""
    entered, gate = threading.Event(), threading.Event()

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if name == "keywords" and phase == "start":
            entered.set()
            gate.wait(20)

    add_hook(hook)

    def query() -> None:
        with contextlib.suppress(Exception):
            run()

    thread = threading.Thread(target=query)
    thread.start()
    assert entered.wait(20)
    return thread, gate


def close_past_held(add_hook: Callable[[Hook], None], run: Callable[[], object],
                    close: Callable[[], object]) -> list[warnings.WarningMessage]:
    """``run()`` held in a thread (:func:`held_in_thread`) while ``close()`` runs (a
    coroutine it returns is run by ``asyncio.run``), every warning recorded; then the query
    is released and its thread joined: the warnings. Give ``close`` as a lambda written in the
    test, so a warning names the test's line."""
    thread, gate = held_in_thread(add_hook, run)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = close()
        if asyncio.iscoroutine(out):
            asyncio.run(out)
    gate.set()
    thread.join(20)
    return caught


def closed_while_held(rag: Any, stage: str, run: Callable[[], Any], wait: float = 5.0
                      ) -> Any:
    """``run()`` (a retrieval or query on engine ``rag``) in a thread, held at the start of
    ``stage`` by a hook (no model call under way) while ``rag.close(timeout=0.05)`` gives up
    waiting for it (its RuntimeWarning checked), then released: what it returned or raised."""
    import pytest

    entered, gate = threading.Event(), threading.Event()

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if name == stage and phase == "start":
            entered.set()
            assert gate.wait(wait)

    rag.add_hook(hook)
    thread, out = run_in_thread(run)
    assert entered.wait(wait)
    with pytest.warns(RuntimeWarning, match=r"still running in 1 thread"):
        rag.close(timeout=0.05)
    gate.set()
    thread.join(wait)
    return out[0]


def run_in_thread(target: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    """``target()`` started in a daemon thread; the list gets its result or its exception."""
    out: list[Any] = []

    def run() -> None:
        try:
            out.append(target())
        except BaseException as exc:  # handed to the test
            out.append(exc)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, out


def async_gate() -> tuple[asyncio.Event, asyncio.Event,
                          Callable[[str, str, dict[str, Any]], Awaitable[None] | None]]:
    """(entered, gate, hook): the hook holds an async retrieval at its keywords stage until
    ``gate`` is set (``entered`` says it got there)."""
    entered, gate = asyncio.Event(), asyncio.Event()

    def hook(name: str, phase: str, payload: dict[str, Any]) -> Awaitable[None] | None:
        if name == "keywords" and phase == "start":
            entered.set()
            return gate.wait()
        return None
    return entered, gate, hook


def runtime_warnings(caught: list[warnings.WarningMessage]) -> list[str]:
    """The texts of the RuntimeWarnings among ``caught``."""
    return [str(w.message) for w in caught if issubclass(w.category, RuntimeWarning)]


def gone(path: Path, within: float = 20.0) -> bool:
    """Whether ``path`` is removed within ``within`` seconds (a worker thread removes it)."""
    end = time.monotonic() + within
    while path.exists() and time.monotonic() < end:
        time.sleep(0.05)
    return not path.exists()
