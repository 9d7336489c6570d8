"""Inspecting a store: counts (:class:`StoreStats`, what ``vizrag stats`` prints) and
integrity checks (SQLite's own plus cross-table ones)."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...vectors import SPACES
from ..base import StoreStats

__all__ = ["StoreStatsMixin"]


class StoreStatsMixin:
    """``stats()`` and ``check()`` (mixed into the store)."""

    path: Path
    _conn: sqlite3.Connection
    _lock: threading.RLock
    _q: Callable[..., list[Any]]
    embedder_info: Callable[[], tuple[str, int] | None]

    def stats(self) -> StoreStats:
        """Counts of documents, chunks, entities, hyperedges, themes and vectors."""
        with self._lock:
            one = lambda sql: int(self._conn.execute(sql).fetchone()[0])  # noqa: E731
            kinds = dict(self._q("SELECT kind, COUNT(*) FROM hyperedges GROUP BY kind"))
            vecs = dict(self._q("SELECT space, COUNT(*) FROM embeddings GROUP BY space"))
            info = self.embedder_info()
            return StoreStats(
                documents=one("SELECT COUNT(*) FROM documents"),
                chunks=one("SELECT COUNT(*) FROM chunks"),
                entities=one("SELECT COUNT(*) FROM entities"),
                relation_hyperedges=int(kinds.get("relation", 0)),
                theme_hyperedges=int(kinds.get("theme", 0)),
                key_entities=one("SELECT COUNT(DISTINCT key) FROM key_entities"),
                themes=one("SELECT COUNT(*) FROM themes"),
                vectors={s: int(vecs.get(s, 0)) for s in SPACES},
                embedder=info[0] if info else None,
                embedding_dim=info[1] if info else None,
                llm_cache_entries=one("SELECT COUNT(*) FROM llm_cache"),
                path=str(self.path),
            )

    def check(self) -> list[str]:
        """Integrity problems found by SQLite and by cross-table checks (empty = healthy).

        The same checks as ``vizrag check`` (:func:`~.check.invariant_problems`).
        """
        from .check import invariant_problems

        problems: list[str] = []
        with self._lock:
            res = [r[0] for r in self._q("PRAGMA integrity_check")]
            if res != ["ok"]:
                problems.extend(res)
            problems.extend(invariant_problems(self._q))
        return problems
