"""The store's LLM-call cache (the ``llm_cache`` table): get, put and count responses.

Used by :class:`~hyperviz_core.rag.providers.middleware.StoreCacheBackend`; entries are written at
once, outside the document transactions.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable

__all__ = ["LLMCacheMixin"]


class LLMCacheMixin:
    """Cached LLM responses by key (mixed into the store)."""

    _conn: sqlite3.Connection
    _lock: threading.RLock
    _check_file: Callable[[], None]

    def cache_get(self, key: str) -> str | None:
        """A cached LLM response, or None."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM llm_cache WHERE key = ?", (key,))
            found = row.fetchone()
        return None if found is None else str(found[0])

    def cache_put(self, key: str, value: str, model: str = "") -> None:
        """Store an LLM response (committed at once, outside document transactions).

        A store opened read-only keeps nothing (the cache is an optimisation).
        """
        if getattr(self, "read_only", False):
            return
        with self._lock:
            self._check_file()  # a replaced store file: StoreReplacedError, never its -wal
            self._conn.execute(
                "INSERT OR REPLACE INTO llm_cache(key, value, model, created) VALUES (?, ?, ?, ?)",
                (key, value, model, time.time()),
            )

    def cache_size(self) -> int:
        """Number of cached LLM responses."""
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def cache_items(self) -> list[tuple[str, str, str]]:
        """Every cached response as (key, value, model), sorted by key."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT key, value, model FROM llm_cache ORDER BY key").fetchall()
        return [(str(k), str(v), str(m)) for k, v, m in rows]
