"""Per-state query arrays kept in the PostgreSQL database, as the SQLite store keeps them.

The same arrays as :mod:`..sqlite.state_arrays` — both layers' incidence structure, the
chunk–entity mentions and the query-repair vocabulary — in the table
``vizrag_state_arrays_v1(name, state, data bytea)``, valid for the store state ``state``:
:meth:`~.lookups.PgQueryLookupsMixin.query_generation` (the count and last id of
``data_changes``, which every write adds to, and the postings table's object id). A row is
written when no write happened while its arrays were read, in a short transaction that waits
at most 0.2 s for a lock; a role without ``CREATE`` or ``INSERT`` keeps nothing (said once
in the log, asked again after :data:`RETRY_REFUSED_S`) and computes the arrays per process.
It is derived data: dropping the table loses nothing.
"""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Callable

from ..base import StoreError
from ..kept import STATE_TABLE, Arrays, Strings, pack_arrays, read_kept
from .connection import Pool, QmarkConnection

__all__ = ["STATE_TABLE", "PgKeptArrays"]

log = logging.getLogger(__name__)

RETRY_REFUSED_S = 600  # seconds before a database that refused the table is asked again
_CREATE = (f"CREATE TABLE IF NOT EXISTS {STATE_TABLE} (name TEXT PRIMARY KEY, "
           "state TEXT NOT NULL, data BYTEA NOT NULL)")


class PgKeptArrays:
    """The kept arrays of one store (its pool and generation)."""

    def __init__(self, pool: Pool, generation: Callable[[], tuple[int, int, int]]) -> None:
        self._pool = pool
        self._generation = generation
        self._refused: float | None = None

    def get(self, name: str, compute: Callable[[], tuple[Arrays, Strings]],
            valid: Callable[[tuple[Arrays, Strings]], bool] | None = None
            ) -> tuple[Arrays, Strings]:
        """``compute()``'s arrays for the current state: read back when kept (and ``valid``
        accepts them, as in :func:`..sqlite.state_arrays.kept_arrays`), else computed and
        kept for the next process (when allowed and nothing was written meanwhile)."""
        state = self._state()
        found = self._load(name, state)
        if found is not None and (valid is None or valid(found)):
            return found
        arrays, strings = compute()
        refused = self._refused
        allowed = refused is None or time.monotonic() - refused >= RETRY_REFUSED_S
        if allowed and self._state() == state:
            self._save(name, state, pack_arrays(arrays, strings))
        return arrays, strings

    def _state(self) -> str:
        """The store's state now, as the ``state`` column holds it."""
        return json.dumps(list(self._generation()))

    def _load(self, name: str, state: str) -> tuple[Arrays, Strings] | None:
        try:
            rows = self._pool.query(  # binary: the blob's bytes, not twice as much hex
                f"SELECT data FROM {STATE_TABLE} WHERE name = ? AND state = ?", (name, state),
                binary=True)
        except StoreError:  # no table yet (never kept, or a role that cannot create it)
            return None
        return read_kept(name, bytes(rows[0][0])) if rows else None

    def _save(self, name: str, state: str, blob: bytes) -> None:
        def write(c: QmarkConnection) -> None:
            c.execute("SET LOCAL lock_timeout = '200ms'")
            if self._state() != state:
                return  # a write committed meanwhile: these arrays are already stale
            c.execute(_CREATE)
            c.execute(f"INSERT INTO {STATE_TABLE}(name, state, data) VALUES (?, ?, ?) "
                      "ON CONFLICT (name) DO UPDATE SET state = EXCLUDED.state, "
                      "data = EXCLUDED.data", (name, state, blob))

        try:
            self._pool.write(write)
            self._refused = None
        except StoreError as exc:
            if self._refused is None:
                log.warning("query arrays not kept in %s (%s): each process computes them",
                            self._pool.where, exc)
            self._refused = time.monotonic()

