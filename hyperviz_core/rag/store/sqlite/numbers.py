"""Integer copies of the incidences and entity mentions (derived data) for lazy retrieval.

Lazy retrieval keeps, per store state, the entity–hyperedge incidences and the chunk–entity
mentions as integer arrays (:mod:`hyperviz_core.rag.retrieve.view`). Read from ``incidences``
and ``entity_mentions``, whose keys are texts, every row costs two index lookups (hyperedge
id → rowid, entity key → rowid): 11 s of a 13 s first query on a 50 MB store. Two tables
hold the same rows by rowid, so the arrays are read in key order without a lookup:

* ``vizrag_incidence_nums_v1(kind, h, pos, e)`` — hyperedge kind, hyperedge rowid, member
  position, entity rowid (primary key ``(kind, h, pos)``: one layer's rows are one range);
* ``vizrag_mention_nums_v1(c, e)`` — chunk rowid, entity rowid of every mention of an
  entity that exists (as ``entity_mentions`` joined with ``chunks`` and ``entities``).

They are *derived* like the full-text index of :mod:`.fts`: created with the schema of a new
store, created and filled in one write transaction by the first lazy query of an older one
(:func:`ensure_numbers`), and kept current by triggers, so every writer process of any
version keeps them: a row is added when its incidence or mention is, or when the entity a
mention names is created after it; removed when its incidence, mention, hyperedge, chunk or
entity is. A read-only store without them reads the texts (:func:`numbers_ready`). Rowids
stay what they are: rows are upserted (``ON CONFLICT DO UPDATE`` keeps the rowid) and
``VACUUM`` keeps the rowids of these tables (as the full-text index relies on too).

Example:
    >>> import sqlite3
    >>> conn = sqlite3.connect(":memory:", isolation_level=None)
    >>> _ = conn.executescript(
    ...     "CREATE TABLE chunks (id TEXT PRIMARY KEY);"
    ...     "CREATE TABLE entities (key TEXT PRIMARY KEY);"
    ...     "CREATE TABLE hyperedges (id TEXT PRIMARY KEY, kind TEXT);"
    ...     "CREATE TABLE incidences (hid TEXT, position INTEGER, entity_key TEXT,"
    ...     " PRIMARY KEY (hid, position)) WITHOUT ROWID;"
    ...     "CREATE TABLE entity_mentions (chunk_id TEXT, key TEXT,"
    ...     " PRIMARY KEY (key, chunk_id)) WITHOUT ROWID;")
    >>> ensure_numbers(conn)
    True
    >>> _ = conn.executescript(
    ...     "INSERT INTO chunks VALUES ('c1'); INSERT INTO entity_mentions VALUES ('c1', 'b');"
    ...     "INSERT INTO entities VALUES ('a'); INSERT INTO entities VALUES ('b');"
    ...     "INSERT INTO hyperedges VALUES ('h', 'relation');"
    ...     "INSERT INTO incidences VALUES ('h', 0, 'b'), ('h', 1, 'a');")
    >>> incidence_numbers(conn, "relation").tolist(), mention_numbers(conn).tolist()
    ([[1, 2], [1, 1]], [[1, 2]])
"""

from __future__ import annotations

import itertools
import sqlite3

import numpy as np
import numpy.typing as npt

__all__ = ["INCIDENCES", "MENTIONS", "ensure_numbers", "incidence_numbers", "mention_numbers",
           "numbers_ready"]

IntArray = npt.NDArray[np.int64]

_VERSION = 1
INCIDENCES = f"vizrag_incidence_nums_v{_VERSION}"
MENTIONS = f"vizrag_mention_nums_v{_VERSION}"
_I, _M = INCIDENCES, MENTIONS

# the rows of one incidence / one mention (``{r}`` = new or old), as inserted or deleted
_INC_ADD = (f"INSERT OR REPLACE INTO {_I}(kind, h, pos, e) SELECT h.kind, h.rowid, "
            "{r}.position, e.rowid FROM hyperedges h JOIN entities e ON e.key = "
            "{r}.entity_key WHERE h.id = {r}.hid;")
_INC_DEL = (f"DELETE FROM {_I} WHERE kind = (SELECT kind FROM hyperedges WHERE id = {{r}}.hid)"
            " AND h = (SELECT rowid FROM hyperedges WHERE id = {r}.hid) AND pos = {r}.position;")
_MEN_ADD = (f"INSERT OR IGNORE INTO {_M}(c, e) SELECT c.rowid, e.rowid FROM chunks c JOIN "
            "entities e ON e.key = {r}.key WHERE c.id = {r}.chunk_id;")
_MEN_DEL = (f"DELETE FROM {_M} WHERE c = (SELECT rowid FROM chunks WHERE id = {{r}}.chunk_id)"
            " AND e = (SELECT rowid FROM entities WHERE key = {r}.key);")

_CREATE = (
    f"CREATE TABLE {_I} (kind TEXT NOT NULL, h INTEGER NOT NULL, pos INTEGER NOT NULL, "
    "e INTEGER NOT NULL, PRIMARY KEY (kind, h, pos)) WITHOUT ROWID",
    f"CREATE TABLE {_M} (c INTEGER NOT NULL, e INTEGER NOT NULL, PRIMARY KEY (c, e)) "
    "WITHOUT ROWID",
    f"CREATE TRIGGER {_I}_ai AFTER INSERT ON incidences BEGIN {_INC_ADD.format(r='new')} END",
    f"CREATE TRIGGER {_I}_ad AFTER DELETE ON incidences BEGIN {_INC_DEL.format(r='old')} END",
    f"CREATE TRIGGER {_I}_au AFTER UPDATE ON incidences BEGIN {_INC_DEL.format(r='old')} "
    f"{_INC_ADD.format(r='new')} END",
    # a hyperedge deleted first (its incidences cascade after it) or changing kind
    f"CREATE TRIGGER {_I}_hd AFTER DELETE ON hyperedges BEGIN "
    f"DELETE FROM {_I} WHERE kind = old.kind AND h = old.rowid; END",
    f"CREATE TRIGGER {_I}_hu AFTER UPDATE OF kind ON hyperedges BEGIN "
    f"DELETE FROM {_I} WHERE kind = old.kind AND h = old.rowid; "
    f"INSERT OR REPLACE INTO {_I}(kind, h, pos, e) SELECT new.kind, new.rowid, i.position, "
    "e.rowid FROM incidences i JOIN entities e ON e.key = i.entity_key WHERE i.hid = new.id; "
    "END",
    f"CREATE TRIGGER {_M}_ai AFTER INSERT ON entity_mentions BEGIN {_MEN_ADD.format(r='new')} "
    "END",
    f"CREATE TRIGGER {_M}_ad AFTER DELETE ON entity_mentions BEGIN {_MEN_DEL.format(r='old')} "
    "END",
    f"CREATE TRIGGER {_M}_au AFTER UPDATE OF chunk_id, key ON entity_mentions BEGIN "
    f"{_MEN_DEL.format(r='old')} {_MEN_ADD.format(r='new')} END",
    # mentions are written before the entity they name is created
    f"CREATE TRIGGER {_M}_ei AFTER INSERT ON entities BEGIN INSERT OR IGNORE INTO {_M}(c, e) "
    "SELECT c.rowid, new.rowid FROM entity_mentions m JOIN chunks c ON c.id = m.chunk_id "
    "WHERE m.key = new.key; END",
    f"CREATE TRIGGER {_M}_ed AFTER DELETE ON entities BEGIN DELETE FROM {_M} WHERE e = "
    "old.rowid AND c IN (SELECT c.rowid FROM entity_mentions m JOIN chunks c ON "
    "c.id = m.chunk_id WHERE m.key = old.key); END",
    f"CREATE TRIGGER {_M}_cd AFTER DELETE ON chunks BEGIN DELETE FROM {_M} WHERE c = "
    "old.rowid; END",
)
_NAMES = (_I, _M, *(f"{_I}_{s}" for s in ("ai", "ad", "au", "hd", "hu")),
          *(f"{_M}_{s}" for s in ("ai", "ad", "au", "ei", "ed", "cd")))
_FILL = (
    f"INSERT INTO {_I}(kind, h, pos, e) SELECT h.kind, h.rowid, i.position, e.rowid FROM "
    "incidences i JOIN hyperedges h ON h.id = i.hid JOIN entities e ON e.key = i.entity_key",
    f"INSERT OR IGNORE INTO {_M}(c, e) SELECT c.rowid, e.rowid FROM entity_mentions m JOIN "
    "chunks c ON c.id = m.chunk_id JOIN entities e ON e.key = m.key",
)


def numbers_ready(conn: sqlite3.Connection) -> bool:
    """Whether both tables and every trigger exist in this store file."""
    marks = ",".join("?" * len(_NAMES))
    found = conn.execute(f"SELECT COUNT(*) FROM sqlite_master WHERE name IN ({marks})",
                         _NAMES).fetchone()[0]
    return int(found) == len(_NAMES)


def create_numbers(conn: sqlite3.Connection) -> None:
    """Drop what exists of the tables and triggers, create them and fill them, in the
    caller's write transaction."""
    for name in _NAMES[2:]:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for name in _NAMES[:2]:
        conn.execute(f"DROP TABLE IF EXISTS {name}")
    for statement in (*_CREATE, *_FILL):
        conn.execute(statement)


def ensure_numbers(conn: sqlite3.Connection) -> bool:
    """Create and fill the tables when missing (one write transaction); False when they
    are missing and cannot be made (a read-only or busy store)."""
    if numbers_ready(conn):
        return True
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error:
        return False
    try:
        if not numbers_ready(conn):  # another process may have made them meanwhile
            create_numbers(conn)
        conn.execute("COMMIT")
    except sqlite3.Error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return False
    return True


def _pairs(conn: sqlite3.Connection, sql: str, *args: object) -> IntArray:
    flat = np.fromiter(itertools.chain.from_iterable(conn.execute(sql, args)), dtype=np.int64)
    return flat.reshape(-1, 2)


def incidence_numbers(conn: sqlite3.Connection, kind: str) -> IntArray:
    """(hyperedge rowid, entity rowid) of the incidences of the hyperedges of ``kind``, in
    (hyperedge rowid, member position) order."""
    return _pairs(conn, f"SELECT h, e FROM {_I} WHERE kind = ? ORDER BY h, pos", kind)


def mention_numbers(conn: sqlite3.Connection) -> IntArray:
    """Distinct (chunk rowid, entity rowid) pairs of the mentions of existing entities, in
    that order."""
    return _pairs(conn, f"SELECT c, e FROM {_M} ORDER BY c, e")
