"""Upgrading a store of an older schema in place (``vizrag migrate --upgrade``, first write).

Schema 1 → 2 (issue 17): the merged ``entities``/``hyperedges`` rows lose their stored
``source_ids`` (read from the mentions since: :mod:`.sources`) and gain the state of an
appending merge, unknown for existing rows (``last_doc`` NULL), so each is rebuilt from all
its mentions by its next write, as schema 1 always did. What every read returns is unchanged.

Schema 2 → 3 (issue 17): the mention tables gain ``d_start``/``d_len`` (a description
stored as a span of its chunk's text, :mod:`.spans`); existing rows keep their text
(both NULL). Only new mentions are stored as spans.

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag.store import HypergraphStore
    >>> with HypergraphStore(tempfile.mkdtemp()) as store:
    ...     store.schema_version(), store.upgrade()
    (3, False)
"""

from __future__ import annotations

import sqlite3

from .schema import SCHEMA_VERSION, statements

__all__ = ["UPGRADE_V1", "UPGRADE_V2", "schema_version", "upgrade"]

#: schema 1 → 2, run in one write transaction: the merged tables lose ``source_ids`` and
#: gain the merge state, unknown (``last_doc`` NULL: their next write rebuilds them from
#: all their mentions, as schema 1 always did)
UPGRADE_V1 = """
ALTER TABLE entities DROP COLUMN source_ids;
ALTER TABLE entities ADD COLUMN types TEXT NOT NULL DEFAULT '{}';
ALTER TABLE entities ADD COLUMN mentions INTEGER NOT NULL DEFAULT 0;
ALTER TABLE entities ADD COLUMN last_doc TEXT;
ALTER TABLE entities ADD COLUMN last_idx INTEGER;
ALTER TABLE hyperedges DROP COLUMN source_ids;
ALTER TABLE hyperedges ADD COLUMN last_doc TEXT;
ALTER TABLE hyperedges ADD COLUMN last_idx INTEGER;
CREATE INDEX IF NOT EXISTS documents_seq ON documents(seq);
"""

#: schema 2 → 3: descriptions as spans of the chunk text (existing rows: NULL, their text)
UPGRADE_V2 = """
ALTER TABLE entity_mentions ADD COLUMN d_start INTEGER;
ALTER TABLE entity_mentions ADD COLUMN d_len INTEGER;
ALTER TABLE hyperedge_mentions ADD COLUMN d_start INTEGER;
ALTER TABLE hyperedge_mentions ADD COLUMN d_len INTEGER;
"""



def schema_version(conn: sqlite3.Connection) -> int:
    """The schema version of an open store (its file header)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def upgrade(conn: sqlite3.Connection) -> bool:
    """Bring a store of an older schema to :data:`SCHEMA_VERSION` (in its own ``BEGIN
    IMMEDIATE`` transaction; a no-op when another process did it first). Whether it ran."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        old = schema_version(conn)
        if old >= SCHEMA_VERSION:
            conn.execute("ROLLBACK")
            return False
        for script in (UPGRADE_V1,) * (old < 2) + (UPGRADE_V2,) * (old < 3):
            for stmt in statements(script):
                conn.execute(stmt)
        conn.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'",
                     (str(SCHEMA_VERSION),))
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return True
