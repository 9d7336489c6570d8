"""Per-store-state query arrays kept in the store file, so a new process need not rebuild them.

Lazy retrieval (:mod:`hyperviz_core.rag.retrieve.lazy`) needs, once per store state, the
integer incidence structure of both layers and the chunk–entity mentions. Reading them
costs two index lookups per row because the rows are keyed by text: on a 50 MB store
(2.5 million incidences and mentions) about 15 s, paid by the first query of every process
— every ``vizrag query`` — until this table kept them. The first query after a write
computes them as before and stores them here (when the store is writable and no write
happened meanwhile); later processes read them back in a fraction of a second.

The table ``vizrag_state_arrays_v1(name, state, data)`` is *derived* data, like the
full-text index of :mod:`.fts`: dropping it loses nothing. ``state`` is the store's state
when the arrays were read — its ``writes`` counter (bumped by every document write, delete,
upgrade and compaction, in the write's own transaction), the last document sequence number,
the highest rowid of ``chunks``, ``entities`` and ``hyperedges`` and the table's format —
and a row whose state differs from the store's is never used (the next query replaces it).
``data`` is an uncompressed ``.npz`` (numpy's format, read with ``allow_pickle=False``:
nothing in it is executed); lists of strings are stored as their UTF-8 bytes and offsets.

Example:
    >>> import sqlite3
    >>> import numpy as np
    >>> conn = sqlite3.connect(":memory:", isolation_level=None)
    >>> _ = conn.executescript(
    ...     "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
    ...     "CREATE TABLE documents (seq INTEGER); CREATE TABLE chunks (id TEXT);"
    ...     "CREATE TABLE entities (key TEXT); CREATE TABLE hyperedges (id TEXT);")
    >>> calls = []
    >>> def compute():
    ...     calls.append(1)
    ...     return {"pairs": np.arange(6).reshape(3, 2)}, {"ids": ["a", "bé"]}
    >>> first = kept_arrays(conn, "demo", compute, writable=True)
    >>> again = kept_arrays(conn, "demo", compute, writable=True)
    >>> again[0]["pairs"].tolist(), again[1]["ids"], len(calls)
    ([[0, 1], [2, 3], [4, 5]], ['a', 'bé'], 1)
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
from collections.abc import Callable, Iterator
from typing import Any

from ..kept import STATE_TABLE, Arrays, Strings, pack_arrays, read_kept
from .writes import WRITES_KEY

__all__ = ["STATE_TABLE", "brief_wait", "kept_arrays", "store_state"]

log = logging.getLogger(__name__)

_FORMAT = 1
_CREATE = (f"CREATE TABLE IF NOT EXISTS {STATE_TABLE} (name TEXT PRIMARY KEY, "
           "state TEXT NOT NULL, data BLOB NOT NULL)")
_SAVE_WAIT_MS = 200  # a query does not wait longer than this for a writer's lock

def store_state(conn: sqlite3.Connection) -> str:
    """The persistent state token the kept arrays are valid for (see the module text)."""
    writes = conn.execute("SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?",
                          (WRITES_KEY,)).fetchone()
    seq = conn.execute("SELECT COALESCE(MAX(seq), 0) FROM documents").fetchone()[0]
    tops = [conn.execute(f"SELECT COALESCE(MAX(rowid), 0) FROM {t}").fetchone()[0]
            for t in ("chunks", "entities", "hyperedges")]
    return json.dumps([_FORMAT, int(writes[0]) if writes else 0, int(seq), *map(int, tops)])


def kept_arrays(conn: sqlite3.Connection, name: str,
                compute: Callable[[], tuple[Arrays, Strings]], *, writable: bool,
                lock: contextlib.AbstractContextManager[Any] | None = None,
                valid: Callable[[tuple[Arrays, Strings]], bool] | None = None
                ) -> tuple[Arrays, Strings]:
    """``compute()``'s arrays for the store's current state: read back from the table
    when it holds them for this state (and ``valid`` accepts them: arrays derived from
    inputs read before, which a write may have changed, say what they were made from), else
    computed and (on a writable store, when no write happened while computing) stored for
    the next process, replacing the row. ``lock`` (the store's) is held while ``conn`` is
    used, not while ``compute`` runs: a compute that reads ``conn`` takes it itself."""
    held = lock if lock is not None else contextlib.nullcontext()
    with held:
        state = store_state(conn)
        found = _load(conn, name, state)
    if found is not None and (valid is None or valid(found)):
        return found
    arrays, strings = compute()
    if writable:
        with held:
            if store_state(conn) == state:
                _save(conn, name, state, pack_arrays(arrays, strings))
    return arrays, strings


def _load(conn: sqlite3.Connection, name: str, state: str) -> tuple[Arrays, Strings] | None:
    try:
        row = conn.execute(f"SELECT data FROM {STATE_TABLE} WHERE name = ? AND state = ?",
                           (name, state)).fetchone()
    except sqlite3.OperationalError:  # no table yet (never written, or a read-only store)
        return None
    return None if row is None else read_kept(name, bytes(row[0]))


@contextlib.contextmanager
def brief_wait(conn: sqlite3.Connection) -> Iterator[None]:
    """While the block runs, a lock held by a writer is waited for 0.2 s at most (instead
    of the connection's 60 s): for a query's writes of derived data, which may be skipped."""
    wait = int(conn.execute("PRAGMA busy_timeout").fetchone()[0])
    conn.execute(f"PRAGMA busy_timeout = {_SAVE_WAIT_MS}")
    try:
        yield
    finally:
        conn.execute(f"PRAGMA busy_timeout = {wait}")


def _save(conn: sqlite3.Connection, name: str, state: str, blob: bytes) -> None:
    """Store one row in its own short transaction; skipped (logged) when the store is
    locked by a writer, full or not writable — the arrays are only a cache."""
    try:
        with brief_wait(conn):
            conn.execute("BEGIN IMMEDIATE")
            try:
                if store_state(conn) == state:  # no write slipped in before the lock
                    conn.execute(_CREATE)
                    conn.execute(f"INSERT OR REPLACE INTO {STATE_TABLE}(name, state, data) "
                                 "VALUES (?, ?, ?)", (name, state, blob))
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
    except sqlite3.Error as exc:
        log.info("query arrays %r not kept in the store (%s)", name, exc)
