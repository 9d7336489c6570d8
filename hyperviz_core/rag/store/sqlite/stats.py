"""Inspecting a store: counts (:class:`StoreStats`, what ``vizrag stats`` prints) and
integrity checks (SQLite's own plus cross-table ones)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..base import StoreStats, read_stats

__all__ = ["StoreStatsMixin"]


class StoreStatsMixin:
    """``stats()`` and ``check()`` (mixed into the store)."""

    path: Path
    _conn: sqlite3.Connection
    _lock: threading.RLock
    _q: Callable[..., list[Any]]
    embedder_info: Callable[[], tuple[str, int] | None]
    _check_file: Callable[[], None]

    def stats(self) -> StoreStats:
        """Counts of documents, chunks, entities, hyperedges, themes and vectors."""
        with self._lock:
            self._check_file()  # a deleted or replaced store file: StoreError
            return read_stats(self._q, self.embedder_info(), str(self.path))

    def check(self) -> list[str]:
        """Integrity problems found by SQLite and by cross-table checks (empty = healthy).

        The same checks as ``vizrag check`` (:func:`~.check.invariant_problems`).
        """
        from .check import integrity_problems, invariant_problems

        with self._lock:
            problems = integrity_problems(self._q("PRAGMA integrity_check"))
            problems.extend(invariant_problems(self._q))
        return problems
