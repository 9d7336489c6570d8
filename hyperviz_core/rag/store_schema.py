"""SQLite schema of the VizRAG store, opening checks and small (de)serialisation helpers.

One file holds documents, chunks, per-chunk entity/hyperedge *mentions* (the raw extraction
output, from which merged entities and hyperedges are rebuilt), the merged entities,
hyperedges and ordered incidences, chunk themes and key entities, float32 embeddings per space
and the LLM-call cache. JSON is used for lists and dicts; nothing is pickled.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

__all__ = [
    "FORMAT",
    "SCHEMA_VERSION",
    "STORE_FILENAME",
    "StoreError",
    "dumps",
    "loads",
    "open_connection",
    "resolve_path",
]

FORMAT = "vizrag-store"
SCHEMA_VERSION = 1
STORE_FILENAME = "vizrag.sqlite"
_FILE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


class StoreError(ValueError):
    """The store file is missing, corrupt, of another format or newer; or a write is invalid."""


SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents (
    id TEXT PRIMARY KEY, hash TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL,
    metadata TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE chunks (
    id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL, text TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL,
    metadata TEXT NOT NULL);
CREATE INDEX chunks_doc ON chunks(doc_id, idx);
CREATE TABLE entity_mentions (
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    key TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT NOT NULL,
    metadata TEXT NOT NULL, PRIMARY KEY (chunk_id, key));
CREATE INDEX entity_mentions_key ON entity_mentions(key);
CREATE TABLE entities (
    key TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT NOT NULL,
    metadata TEXT NOT NULL, source_ids TEXT NOT NULL);
CREATE TABLE hyperedge_mentions (
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    hid TEXT NOT NULL, kind TEXT NOT NULL, members TEXT NOT NULL, description TEXT NOT NULL,
    keywords TEXT NOT NULL, weight REAL NOT NULL, member_attrs TEXT NOT NULL,
    metadata TEXT NOT NULL, PRIMARY KEY (chunk_id, hid));
CREATE INDEX hyperedge_mentions_hid ON hyperedge_mentions(hid);
CREATE TABLE hyperedges (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, description TEXT NOT NULL, keywords TEXT NOT NULL,
    weight REAL NOT NULL, member_attrs TEXT NOT NULL, metadata TEXT NOT NULL,
    source_ids TEXT NOT NULL);
CREATE INDEX hyperedges_kind ON hyperedges(kind);
CREATE TABLE incidences (
    hid TEXT NOT NULL REFERENCES hyperedges(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    entity_key TEXT NOT NULL REFERENCES entities(key),
    PRIMARY KEY (hid, position));
CREATE INDEX incidences_entity ON incidences(entity_key);
CREATE TABLE themes (
    chunk_id TEXT PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    theme TEXT NOT NULL, keywords TEXT NOT NULL, hid TEXT);
CREATE TABLE key_entities (
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    position INTEGER NOT NULL, key TEXT NOT NULL, PRIMARY KEY (chunk_id, position));
CREATE INDEX key_entities_key ON key_entities(key);
CREATE TABLE embeddings (
    space TEXT NOT NULL, id TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (space, id));
CREATE TABLE llm_cache (
    key TEXT PRIMARY KEY, value TEXT NOT NULL, model TEXT NOT NULL, created REAL NOT NULL);
"""


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def loads(text: str) -> Any:
    """Inverse of :func:`dumps`."""
    return json.loads(text)


def resolve_path(path: str | Path) -> Path:
    """The SQLite file of a store given as a directory or as a ``.sqlite``/``.db`` file."""
    p = Path(path).expanduser()
    if p.is_dir() or (not p.exists() and p.suffix.lower() not in _FILE_SUFFIXES):
        return p / STORE_FILENAME
    return p


def _init_schema(conn: sqlite3.Connection, version: str) -> None:
    import time

    conn.execute("BEGIN IMMEDIATE")
    for stmt in SCHEMA.split(";"):
        if stmt.strip():
            conn.execute(stmt)
    conn.executemany(
        "INSERT INTO meta(key, value) VALUES (?, ?)",
        [
            ("format", FORMAT),
            ("schema_version", str(SCHEMA_VERSION)),
            ("created_by", f"vizrag {version}"),
            ("created", str(round(time.time(), 3))),
        ],
    )
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    conn.execute("COMMIT")


def open_connection(path: Path, *, version: str = "0") -> sqlite3.Connection:
    """Open (creating when new) and validate a store file; :class:`StoreError` if unusable."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        conn = sqlite3.connect(
            str(path), timeout=60.0, isolation_level=None, check_same_thread=False
        )
    except sqlite3.Error as exc:
        raise StoreError(f"cannot open VizRAG store {path}: {exc}") from exc
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        uv = int(conn.execute("PRAGMA user_version").fetchone()[0])
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if uv == 0 and not tables:
            conn.execute("PRAGMA journal_mode = WAL")
            _init_schema(conn, version)
            uv = SCHEMA_VERSION
        elif "meta" not in tables:
            raise StoreError(f"{path} is an SQLite database but not a VizRAG store")
        meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if meta.get("format") != FORMAT:
            raise StoreError(f"{path} is an SQLite database but not a VizRAG store")
        if uv > SCHEMA_VERSION or int(meta.get("schema_version", "0")) > SCHEMA_VERSION:
            raise StoreError(
                f"{path} was written by a newer VizRAG (store schema {uv}, this version reads "
                f"up to {SCHEMA_VERSION}); upgrade vizrag to open it"
            )
        if uv < SCHEMA_VERSION:
            raise StoreError(f"{path} has an unknown old store schema {uv}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise StoreError(
            f"{path} is not a usable VizRAG store (corrupt or not SQLite: {exc})"
        ) from exc
    except StoreError:
        conn.close()
        raise
    return conn
