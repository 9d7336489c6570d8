"""A process pool broken by its workers' deaths (SIGTERM to the whole process group) while a
future is cancelled already makes ``concurrent.futures``' manager thread raise
``InvalidStateError``; its traceback buried the one line ``vizrag index`` says on SIGTERM
(a fresh-clone CI run failed on it once). The pool's thread hook drops that one error."""

from __future__ import annotations

import threading
from concurrent.futures import InvalidStateError
from typing import Any

import pytest

from hyperviz_core.rag.index import workers


class _ExecutorManagerThread(threading.Thread):
    """Named as ``concurrent.futures.process``'s manager thread."""


def _args(exc: BaseException, thread: threading.Thread) -> Any:
    return threading.ExceptHookArgs((type(exc), exc, None, thread))


def test_the_broken_pool_race_is_dropped_and_nothing_else(
        monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[BaseException] = []
    monkeypatch.setattr(workers, "_EXCEPTHOOK", lambda a: seen.append(a.exc_value))
    manager, other = _ExecutorManagerThread(), threading.Thread()
    workers._quiet_broken_pool(_args(InvalidStateError("CANCELLED"), manager))
    assert seen == []
    boom, late = RuntimeError("boom"), InvalidStateError("elsewhere")
    workers._quiet_broken_pool(_args(boom, manager))
    workers._quiet_broken_pool(_args(late, other))
    assert seen == [boom, late]


def test_a_pool_installs_the_hook_once(monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.rag.extract import HeuristicExtractor
    from hyperviz_core.rag.extract.heuristic import HeuristicThemeExtractor

    monkeypatch.setattr(threading, "excepthook", workers._EXCEPTHOOK)
    pool = workers.ExtractionPool(HeuristicExtractor(), HeuristicThemeExtractor(), 1)
    try:
        assert threading.excepthook is workers._quiet_broken_pool
    finally:
        pool.close()
