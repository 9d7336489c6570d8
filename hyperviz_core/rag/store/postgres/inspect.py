"""Layers, counts, integrity checks and the LLM-call cache of the PostgreSQL store.

``bottom()``/``top()`` read a whole layer in one snapshot (through the SQLite backend's
:func:`~hyperviz_core.rag.store.sqlite.graphs.read_layer`, which only needs a query function)
and cache it until any process commits a write.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

from ....model import Hypergraph
from ..base import StoreStats, read_stats
from ..sqlite.check import PG_VECTOR_OK, invariant_problems
from ..sqlite.graphs import read_layer
from .connection import Pool, QmarkConnection

__all__ = ["PgInspectMixin"]


def _query(c: QmarkConnection) -> Callable[..., list[Any]]:
    return lambda sql, params=(): list(c.execute(sql, params).fetchall())


class PgInspectMixin:
    """``bottom``/``top``, ``stats``/``check`` and ``cache_*`` (mixed into the store)."""

    path: str
    _pool: Pool
    _lock: threading.RLock
    _bottom: Hypergraph | None
    _top: Hypergraph | None
    _sync_external: Callable[[], None]
    embedder_info: Callable[[], tuple[str, int] | None]

    def bottom(self) -> Hypergraph:
        """G_bot: every entity and every relation hyperedge (cached; do not mutate)."""
        with self._lock:
            self._sync_external()
            if self._bottom is None:
                with self._pool.read() as c:
                    self._bottom = read_layer(_query(c), "relation", None)
            return self._bottom

    def top(self) -> Hypergraph:
        """G_top: key entities and theme hyperedges (cached; do not mutate)."""
        with self._lock:
            self._sync_external()
            if self._top is None:
                with self._pool.read() as c:
                    q = _query(c)
                    keys = {r[0] for r in q("SELECT DISTINCT key FROM key_entities")}
                    self._top = read_layer(q, "theme", keys)
            return self._top

    def stats(self) -> StoreStats:
        """Counts of documents, chunks, entities, hyperedges, themes and vectors."""
        info = self.embedder_info()
        with self._pool.read() as c:
            return read_stats(lambda sql: c.execute(sql).fetchall(), info, str(self.path))

    def check(self) -> list[str]:
        """Cross-table integrity problems (empty = healthy): the invariants the SQLite
        store's check runs (:data:`~..sqlite.check.INVARIANTS`: every entity and hyperedge
        has a mention, every hyperedge a member, incidences and themes name known rows,
        vectors have the recorded dimension ...), in one snapshot. PostgreSQL checks its
        own pages and foreign keys."""
        with self._pool.read() as c:
            return invariant_problems(_query(c), vector_ok=PG_VECTOR_OK)

    def cache_get(self, key: str) -> str | None:
        """A cached LLM response, or None."""
        with self._pool.read() as c:
            row = c.execute("SELECT value FROM llm_cache WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def cache_put(self, key: str, value: str, model: str = "") -> None:
        """Store an LLM response (its own transaction, outside document transactions)."""
        self._pool.write(lambda c: c.execute(
            "INSERT INTO llm_cache(key, value, model, created) VALUES (?, ?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value, model = excluded.model, "
            "created = excluded.created", (key, value, model, time.time())))

    def cache_size(self) -> int:
        """Number of cached LLM responses."""
        with self._pool.read() as c:
            return int(c.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    def cache_items(self) -> list[tuple[str, str, str]]:
        """Every cached response as (key, value, model), sorted by key."""
        with self._pool.read() as c:
            rows = c.execute("SELECT key, value, model FROM llm_cache ORDER BY key").fetchall()
        return [(str(k), str(v), str(m)) for k, v, m in rows]
