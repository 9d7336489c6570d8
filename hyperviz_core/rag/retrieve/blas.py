"""One BLAS thread for the small matrix-vector products of vector search.

A hashed query row times a space's vectors (:func:`~.search.search`) is a few hundred
microseconds of work; OpenBLAS nevertheless splits it over every core and its helper
threads then spin, waiting for the next call. On a busy machine that spinning competes
with the query itself (MuSiQue scale-bench queries: p50 about 10 ms with one BLAS thread,
15–32 ms with two on the same loaded 2-core machine). :func:`one_blas_thread` limits BLAS
to one thread for the duration of a ``with`` block through ``threadpoolctl`` when it is
installed (it is not a dependency; without it nothing changes). The products are the same
calls on the same arrays; how OpenBLAS splits one over threads can change the last bit of a
few values (206 of 13.5 million similarities of MuSiQue query keywords against the entity
vectors differed between one and two threads; no ranked chunk, score, entity or hyperedge
of the MuSiQue and HotpotQA dev questions changed). With the limit, similarities no longer
depend on the number of cores of the machine.

Nested and concurrent blocks are counted: the first one in sets the limit, the last one out
restores what was there before.

Example:
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     float(np.ones(3, dtype=np.float32) @ np.ones((3, 2), dtype=np.float32)[:, 0])
    3.0
"""

from __future__ import annotations

import importlib
import threading
from types import TracebackType
from typing import Any

__all__ = ["one_blas_thread"]


class _OneBlasThread:
    """The context manager :func:`one_blas_thread` returns (one per process)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._depth = 0
        self._controller: Any = None
        self._looked_up = False
        self._limiter: Any = None

    def _lookup(self) -> Any:
        if not self._looked_up:
            self._looked_up = True
            try:
                module = importlib.import_module("threadpoolctl")
                self._controller = module.ThreadpoolController()
            except Exception:  # not installed, or no BLAS it knows: leave BLAS alone
                self._controller = None
        return self._controller

    def __enter__(self) -> None:
        with self._lock:
            self._depth += 1
            if self._depth == 1:
                controller = self._lookup()
                if controller is not None:
                    self._limiter = controller.limit(limits=1, user_api="blas")

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        with self._lock:
            self._depth -= 1
            if self._depth == 0 and self._limiter is not None:
                limiter, self._limiter = self._limiter, None
                limiter.restore_original_limits()


_ONE = _OneBlasThread()


def one_blas_thread() -> _OneBlasThread:
    """A context manager limiting BLAS to one thread inside it (see the module docstring)."""
    return _ONE
