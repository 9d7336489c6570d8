"""Loading the two hypergraph layers of the store: G_bot (relations) and G_top (themes).

Both layers are built from the merged ``entities``, ``hyperedges`` and ordered
``incidences`` rows (their sources from the mentions: :mod:`.sources`) and cached on the
store until a write (from any process) invalidates them; the cached graphs are shared and
must not be mutated by callers.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Literal

from ....model import Entity, Hyperedge, Hypergraph, HypergraphError
from .damage import DamagedRowError, real, shown
from .schema import damaged, loads
from .sources import entity_sources, hyperedge_sources

__all__ = ["GraphLayersMixin", "read_layer", "snapshot", "stored_graph"]

Query = Callable[..., list[Any]]


@contextmanager
def snapshot(conn: sqlite3.Connection) -> Iterator[None]:
    """One read transaction: every SELECT inside sees the same committed state.

    A layer is read with several SELECTs; without this a writer (another process) could
    commit between them and the reader would see hyperedges naming entities it has not
    read. Inside an already open transaction this adds nothing.

    A damaged page met inside (SQLite's "database disk image is malformed") raises the
    one-line :class:`StoreError` of a damaged store, the SQLite error as its ``__cause__``
    (a damaged row's :class:`DamagedRowError` gets the file's name);
    ending the transaction after any error never replaces that error with its own.
    """
    if conn.in_transaction:
        yield
        return
    conn.execute("BEGIN")
    try:
        yield
    except BaseException as exc:
        if conn.in_transaction:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")  # a read transaction: nothing to lose
        if isinstance(exc, sqlite3.DatabaseError) and _corrupt(exc):
            raise damaged(_file(conn), exc) from exc
        if isinstance(exc, DamagedRowError) and exc.path is None:  # name the file
            raise exc.at(_file(conn)) from exc.__cause__
        raise
    if conn.in_transaction:
        conn.execute("COMMIT")


def _corrupt(exc: sqlite3.DatabaseError) -> bool:
    """Whether ``exc`` says the file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB)."""
    return getattr(exc, "sqlite_errorcode", None) in (11, 26) or "malformed" in str(exc)


def _file(conn: sqlite3.Connection) -> Path:
    """The main database file of ``conn`` (read from SQLite's schema list: no page read)."""
    try:
        rows = conn.execute("PRAGMA database_list").fetchall()
    except sqlite3.Error:
        rows = []
    return Path(next((str(r[2]) for r in rows if r[1] == "main" and r[2]), "the store file"))


class GraphLayersMixin:
    """``bottom()``/``top()`` with their caches (mixed into the store)."""

    _lock: threading.RLock
    _conn: sqlite3.Connection
    _bottom: Hypergraph | None
    _top: Hypergraph | None
    _q: Query
    _sync_external: Callable[[], None]

    def bottom(self) -> Hypergraph:
        """G_bot: every entity and every relation hyperedge (cached; do not mutate)."""
        with self._lock:
            self._sync_external()
            if self._bottom is None:
                with snapshot(self._conn):
                    self._bottom = read_layer(self._q, "relation", None)
            return self._bottom

    def top(self) -> Hypergraph:
        """G_top: key entities and theme hyperedges (cached; do not mutate)."""
        with self._lock:
            self._sync_external()
            if self._top is None:
                with snapshot(self._conn):
                    keys = {r[0] for r in self._q("SELECT DISTINCT key FROM key_entities")}
                    self._top = read_layer(self._q, "theme", keys)
            return self._top


def read_layer(q: Query, kind: Literal["relation", "theme"], keys: set[str] | None) -> Hypergraph:
    """The hyperedges of ``kind`` with the entities of ``keys`` (all when None), via ``q``.

    Call it inside :func:`snapshot` (its SELECTs must see one state).
    """
    entities: dict[str, Entity] = {}
    sources = entity_sources(q)
    for key, name, typ, desc, meta in q(
        "SELECT key, name, type, description, metadata FROM entities ORDER BY key"
    ):
        if keys is None or key in keys:
            entities[key] = Entity.model_construct(
                name=name, type=typ, description=desc, source_ids=sources.get(key, []),
                metadata=loads(meta, "entities", "metadata", key))
    del sources
    members: dict[str, list[str]] = {}
    for hid, key in q(
        "SELECT i.hid, i.entity_key FROM incidences i JOIN hyperedges h ON h.id = i.hid "
        "WHERE h.kind = ? ORDER BY i.hid, i.position", (kind,)
    ):
        members.setdefault(hid, []).append(key)
    edges: dict[str, Hyperedge] = {}
    edge_sources = hyperedge_sources(q, kind=kind)
    for hid, desc, kw, weight, attrs, meta in q(
        "SELECT id, description, keywords, weight, member_attrs, metadata "
        "FROM hyperedges WHERE kind = ? ORDER BY id", (kind,)
    ):
        mem = members.get(hid, [])
        edges[hid] = Hyperedge.model_construct(
            id=hid, members=mem, description=desc,
            keywords=loads(kw, "hyperedges", "keywords", hid),
            weight=real(weight, "hyperedges", hid), order="low" if len(mem) <= 2 else "high",
            kind=kind, source_ids=edge_sources.get(hid, []),
            member_attrs=loads(attrs, "hyperedges", "member_attrs", hid),
            metadata=loads(meta, "hyperedges", "metadata", hid))
    return stored_graph(entities, edges, {"layer": "bottom" if kind == "relation" else "top"})


def stored_graph(entities: dict[str, Entity], edges: dict[str, Hyperedge],
                 metadata: dict[str, Any]) -> Hypergraph:
    """The :class:`Hypergraph` of rows read from a store; an entity whose stored name
    no longer gives its key (an edited row) is a :class:`DamagedRowError` naming it."""
    try:
        return Hypergraph(entities=entities, hyperedges=edges, metadata=metadata)
    except HypergraphError as exc:
        bad = next(((k, got) for k, e in entities.items() if (got := _key(e)) != k), None)
        if bad is None:
            raise
        gives = "no key" if bad[1] is None else f"the key {bad[1]!r}"
        raise DamagedRowError("entities", "name", bad[0], f"the name "
                              f"{shown(entities[bad[0]].name)} gives {gives}, not the row's "
                              "key") from exc


def _key(entity: Entity) -> str | None:
    try:
        return entity.key
    except HypergraphError:  # a name empty after normalisation
        return None
