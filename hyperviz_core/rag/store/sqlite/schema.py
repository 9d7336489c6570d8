"""SQLite schema of the VizRAG store, its creation and small (de)serialisation helpers.

One file holds documents, chunks, per-chunk entity/hyperedge *mentions* (the raw extraction
output, from which merged entities and hyperedges are rebuilt), the merged entities,
hyperedges and ordered incidences, chunk themes and key entities, float32 embeddings per space
and the LLM-call cache. JSON is used for lists and dicts; nothing is pickled.
"""

from __future__ import annotations

import functools
import json
import os
import re
import sqlite3
import stat
import time
from pathlib import Path
from typing import Any

from ..base import STORE_URL, StoreError, redact_url
from ..compact import COMPACT_META
from .conditions import file_condition
from .damage import loads  # a damaged value: DamagedRowError naming its row

__all__ = [
    "FORMAT", "OLDEST_SCHEMA", "SCHEMA_VERSION", "STORE_FILENAME", "classify_error",
    "connect_read_only", "damaged", "dumps", "init_schema", "loads",
    "open_connection", "required_tables", "resolve_path", "statements", "validate",
]

FORMAT = "vizrag-store"
SCHEMA_VERSION = 3
#: the oldest schema this version reads (and upgrades on its first write)
OLDEST_SCHEMA = 1
STORE_FILENAME = "vizrag.sqlite"
_FILE_SUFFIXES = (".sqlite", ".sqlite3", ".db")


_COMMON = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS documents (
    id TEXT PRIMARY KEY, hash TEXT NOT NULL, title TEXT NOT NULL, text TEXT NOT NULL,
    metadata TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (
    id TEXT PRIMARY KEY,
    doc_id TEXT NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    idx INTEGER NOT NULL, text TEXT NOT NULL, start INTEGER NOT NULL, "end" INTEGER NOT NULL,
    metadata TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_doc ON chunks(doc_id, idx);
CREATE INDEX IF NOT EXISTS documents_seq ON documents(seq);
CREATE TABLE IF NOT EXISTS themes (
    chunk_id TEXT PRIMARY KEY REFERENCES chunks(id) ON DELETE CASCADE,
    theme TEXT NOT NULL, keywords TEXT NOT NULL, hid TEXT);
CREATE TABLE IF NOT EXISTS embeddings (
    space TEXT NOT NULL, id TEXT NOT NULL, text_hash TEXT NOT NULL, vector BLOB NOT NULL,
    PRIMARY KEY (space, id));
CREATE TABLE IF NOT EXISTS llm_cache (
    key TEXT PRIMARY KEY, value TEXT NOT NULL, model TEXT NOT NULL, created REAL NOT NULL);
"""

# Mentions, incidences and key entities are clustered by the key they are read by (WITHOUT
# ROWID: one B-tree fewer per row than schema 1's rowid tables with a separate index).
# Schema 3: a description that is a passage of the chunk's text is stored as (d_start,
# d_len) into it (:mod:`.spans`); the columns come last, as ``ALTER TABLE`` adds them.
_MENTIONS = """
CREATE TABLE IF NOT EXISTS entity_mentions (
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    key TEXT NOT NULL, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT NOT NULL,
    metadata TEXT NOT NULL, d_start INTEGER, d_len INTEGER,
    PRIMARY KEY (key, chunk_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS entity_mentions_chunk ON entity_mentions(chunk_id);
CREATE TABLE IF NOT EXISTS hyperedge_mentions (
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    hid TEXT NOT NULL, kind TEXT NOT NULL, members TEXT NOT NULL, description TEXT NOT NULL,
    keywords TEXT NOT NULL, weight REAL NOT NULL, member_attrs TEXT NOT NULL,
    metadata TEXT NOT NULL, d_start INTEGER, d_len INTEGER,
    PRIMARY KEY (hid, chunk_id)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS hyperedge_mentions_chunk ON hyperedge_mentions(chunk_id);
CREATE TABLE IF NOT EXISTS key_entities (
    chunk_id TEXT NOT NULL REFERENCES chunks(id) ON DELETE CASCADE,
    position INTEGER NOT NULL, key TEXT NOT NULL,
    PRIMARY KEY (chunk_id, position)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS key_entities_key ON key_entities(key);
"""

# Schema 2 (issue 17): merged rows carry the state an appending merge needs (type counts,
# mention count, last mention) and no ``source_ids``: sources are read from the mentions
# (:mod:`.sources`). A write then costs the same however often an entity was mentioned
# before: nothing stored grows with the corpus.
_MERGED = """
CREATE TABLE IF NOT EXISTS entities (
    key TEXT PRIMARY KEY, name TEXT NOT NULL, type TEXT NOT NULL, description TEXT NOT NULL,
    metadata TEXT NOT NULL, types TEXT NOT NULL DEFAULT '{}',
    mentions INTEGER NOT NULL DEFAULT 0, last_doc TEXT, last_idx INTEGER);
CREATE TABLE IF NOT EXISTS hyperedges (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, description TEXT NOT NULL, keywords TEXT NOT NULL,
    weight REAL NOT NULL, member_attrs TEXT NOT NULL, metadata TEXT NOT NULL,
    last_doc TEXT, last_idx INTEGER);
CREATE INDEX IF NOT EXISTS hyperedges_kind ON hyperedges(kind);
CREATE TABLE IF NOT EXISTS incidences (
    hid TEXT NOT NULL REFERENCES hyperedges(id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    entity_key TEXT NOT NULL REFERENCES entities(key),
    PRIMARY KEY (hid, position)) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS incidences_entity ON incidences(entity_key);
"""

SCHEMA = _COMMON + _MENTIONS + _MERGED

_ENCODER = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def dumps(value: Any) -> str:
    """Compact, key-sorted JSON.

    >>> dumps({"b": [1, "é"], "a": {}})
    '{"a":{},"b":[1,"é"]}'
    """
    if not value and isinstance(value, dict | list | tuple):
        return "{}" if isinstance(value, dict) else "[]"
    if type(value) is dict and len(value) <= 4 and all(
            type(k) is str and type(v) in _SCALARS for k, v in value.items()):
        return _small_dict(tuple(sorted(value.items())))  # e.g. {"mentions": 1}, repeated
    return _ENCODER.encode(value)


_SCALARS = (str, int, float, bool)


@functools.lru_cache(maxsize=4096)
def _small_dict(items: tuple[tuple[str, Any], ...]) -> str:
    return _ENCODER.encode(dict(items))


def resolve_path(path: str | Path) -> Path:
    """The SQLite file of a store given as a directory or as a ``.sqlite``/``.db`` file.

    A value that looks like a URL (``scheme://...``) is not a path of this (SQLite) backend:
    :class:`StoreError`, rather than a folder called ``scheme:`` (``open_store`` routes the
    URLs of other backends).

    >>> resolve_path("mysql://u@h/db")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.store.base.StoreError: store 'mysql://u@h/db' is a URL, not ...
    """
    text = str(path)
    url = STORE_URL.match(text.strip())
    if url:
        raise StoreError(
            f"store {redact_url(text)!r} is a URL, not a SQLite store path: the SQLite backend "
            f"has no {url.group(1)!r} store backend; give a directory or a .sqlite file"
        )
    p = Path(path).expanduser()
    try:  # one stat: another process may create the folder meanwhile (no is_dir + exists)
        is_dir = stat.S_ISDIR(p.stat().st_mode)
    except OSError:  # missing (or not reachable): a new folder unless .sqlite/.db
        is_dir = p.suffix.lower() not in _FILE_SUFFIXES
    return p / STORE_FILENAME if is_dir else p


def required_tables(version: int = SCHEMA_VERSION) -> list[str]:
    """The tables (and views) every store of schema ``version`` has (sorted)."""
    return sorted(re.findall(r"CREATE TABLE IF NOT EXISTS (\w+)", SCHEMA))


def statements(script: str) -> list[str]:
    return [stmt for stmt in script.split(";") if stmt.strip()]


def init_schema(conn: sqlite3.Connection, version: str) -> None:
    """Create the schema in an open write transaction; idempotent (``IF NOT EXISTS``)."""
    for stmt in statements(SCHEMA):
        conn.execute(stmt)
    conn.executemany(
        "INSERT OR IGNORE INTO meta(key, value) VALUES (?, ?)",
        [
            ("format", FORMAT),
            ("schema_version", str(SCHEMA_VERSION)),
            ("created_by", f"vizrag {version}"),
            ("created", str(round(time.time(), 3))),
            *COMPACT_META,
        ],
    )
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


# ---------------------------------------------------------------------------- opening
_RETRY_S = 60.0  # how long opening waits out other processes' locks
#: page cache of a writable connection (KiB; SQLite's default is 2 MiB): a batch touches
#: pages of many B-trees (mentions by key, incidences, merged rows)
CACHE_KIB = 16 * 1024
#: ... raised to this while ``add_documents`` writes (a caller's own size is kept): 10 MB of
#: the scale benchmark indexed 9–12 % faster than with 16 MiB (paired runs); readers keep 16
WRITE_CACHE_KIB = 64 * 1024


def damaged(path: Path, exc: BaseException | str) -> StoreError:
    """The one-line error for a damaged store file, pointing to ``vizrag check``."""
    return StoreError(
        f"store {path} is not a usable VizRAG store (damaged or not SQLite: {exc}); run "
        f"`vizrag check --store {path}` for details"
    )


def open_connection(
    path: Path, *, version: str = "0", read_only: bool = False
) -> sqlite3.Connection:
    """Open and validate a store file; :class:`StoreError` if unusable.

    Writable (default): creates the folder and the store when new, race-free against other
    processes creating it at the same moment (``BEGIN IMMEDIATE`` + ``IF NOT EXISTS``, and
    retries while another process holds a lock). ``read_only=True``: opens with SQLite's
    ``mode=ro`` URI and writes nothing (no schema, no journal-mode change), so it works on a
    read-only file or folder; a missing or empty file is "not a VizRAG store".
    """
    if read_only:
        return _open_read_only(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + _RETRY_S
    delay = 0.01
    while True:
        try:
            conn = sqlite3.connect(
                str(path), timeout=_RETRY_S, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as exc:
            # SQLITE_CANTOPEN can be transient while other processes create the same file
            # (seen with 20 simultaneous creators); a missing or forbidden path stays so.
            if "unable to open" not in str(exc).lower() or time.monotonic() > deadline:
                raise StoreError(f"cannot open VizRAG store {path}: {exc}") from exc
            if not os.access(path.parent, os.W_OK) or path.is_dir():
                raise StoreError(f"cannot open VizRAG store {path}: {exc}") from exc
            time.sleep(delay)
            delay = min(delay * 2, 0.5)
            continue
        try:
            _prepare_writable(conn, path, version)
            return conn
        except sqlite3.OperationalError as exc:
            conn.close()
            if file_condition(exc) != "busy" or time.monotonic() > deadline:
                raise classify_error(path, exc) from exc
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            conn.close()
            raise classify_error(path, exc) from exc
        except BaseException:
            conn.close()
            raise
        time.sleep(delay)
        delay = min(delay * 2, 0.5)


def classify_error(path: Path, exc: sqlite3.Error | UnicodeDecodeError) -> StoreError:
    """The one-line :class:`StoreError` for an SQLite error on the store file ``path``: its
    cause (read-only, locked, disk full, I/O failure, cannot open: :func:`file_condition`)
    and what to do; anything else is a damaged store (:func:`damaged`), as is text SQLite
    gave Python that is not UTF-8 (a damaged schema its error quotes, which Python's
    ``sqlite3`` fails to decode: a ``UnicodeDecodeError``)."""
    if isinstance(exc, UnicodeDecodeError):
        return damaged(path, f"it holds text that is not UTF-8: {exc.reason} at byte "
                             f"{exc.start}")
    condition = file_condition(exc)
    if condition == "read-only":
        return StoreError(
            f"store {path} is read-only ({exc}); writing needs write access to the file and "
            "its folder"
        )
    if condition == "busy":
        return StoreError(f"store {path} is busy: another process holds a lock ({exc})")
    if condition == "full":
        return StoreError(f"store {path}: the disk is full ({exc}); free some space and "
                          "re-run: the unfinished write was rolled back, nothing committed "
                          "was lost")
    if condition == "io":
        return StoreError(f"store {path}: disk I/O error ({exc}): the operating system "
                          "failed to read or write the file (a failing disk, a removed or "
                          "network drive, no space left); fix that and re-run, then run "
                          f"`vizrag check --store {path}`")
    if condition == "open":
        return StoreError(f"cannot open store {path} ({exc}): the file or its folder is "
                          "missing or not accessible, or SQLite cannot create its journal "
                          "files beside it (permissions, free space)")
    return damaged(path, exc)


def _prepare_writable(conn: sqlite3.Connection, path: Path, version: str) -> None:
    conn.execute("PRAGMA foreign_keys = ON")
    if "meta" not in _tables(conn):
        # New (or being created by another process right now): the schema is written in
        # one IMMEDIATE transaction, which waits for any other creator; IF NOT EXISTS and
        # INSERT OR IGNORE make the loser's pass a no-op.
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN IMMEDIATE")
        try:
            tables = _tables(conn)
            if tables and "meta" not in tables:
                raise StoreError(f"{path} is an SQLite database but not a VizRAG store")
            if not tables:
                init_schema(conn, version)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    validate(conn, path)
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(f"PRAGMA cache_size = -{CACHE_KIB}")


def _open_read_only(path: Path) -> sqlite3.Connection:
    if not path.is_file():
        raise StoreError(f"no VizRAG store at {path} (create one with `vizrag index`)")
    if path.stat().st_size == 0:
        raise StoreError(f"{path} is an empty file, not a VizRAG store")
    conn = connect_read_only(path)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        validate(conn, path)
    except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
        conn.close()
        raise classify_error(path, exc) from exc
    except BaseException:
        conn.close()
        raise
    return conn


def connect_read_only(path: Path) -> sqlite3.Connection:
    """A raw ``mode=ro`` connection to an existing file (no validation); writes nothing.

    ``immutable=1`` is the fallback for a WAL store in a folder where SQLite may not create
    its ``-shm`` file (a read-only folder): nobody can be writing there.
    """
    last: sqlite3.Error | UnicodeDecodeError | None = None
    for query in ("mode=ro", "mode=ro&immutable=1"):
        try:
            conn = sqlite3.connect(
                f"{path.resolve().as_uri()}?{query}", uri=True, timeout=_RETRY_S,
                isolation_level=None, check_same_thread=False,
            )
        except sqlite3.Error as exc:
            raise StoreError(f"cannot open VizRAG store {path}: {exc}") from exc
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            return conn
        except (sqlite3.DatabaseError, UnicodeDecodeError) as exc:
            conn.close()
            last = exc
            text = str(exc).lower()
            if "unable to open" not in text and "readonly" not in text:
                break
    assert last is not None
    raise classify_error(path, last) from last


def _tables(conn: sqlite3.Connection) -> set[str]:
    return {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}


def validate(conn: sqlite3.Connection, path: Path) -> None:
    """Raise :class:`StoreError` unless ``conn`` holds a VizRAG store this version reads."""
    uv = int(conn.execute("PRAGMA user_version").fetchone()[0])
    tables = _tables(conn)
    if "meta" not in tables:
        what = "an empty SQLite database" if not tables else "an SQLite database"
        raise StoreError(f"{path} is {what} but not a VizRAG store")
    meta = dict(conn.execute("SELECT key, value FROM meta").fetchall())
    if meta.get("format") != FORMAT:
        raise StoreError(f"{path} is an SQLite database but not a VizRAG store")
    raw = meta.get("schema_version")
    try:
        sv = int(str(raw).strip())
    except ValueError:
        raise damaged(path, f"invalid schema_version {raw!r} in its meta table, expected "
                            f"an integer") from None
    if uv > SCHEMA_VERSION:  # the file header decides; an edited meta row alone does not
        raise StoreError(
            f"{path} was written by a newer VizRAG (store schema {uv}, this version "
            f"reads up to {SCHEMA_VERSION}); upgrade vizrag to open it"
        )
    if sv != uv:
        raise damaged(path, f"schema_version {raw!r} in its meta table disagrees with the "
                            f"file header (user_version {uv})")
    if sv < OLDEST_SCHEMA:
        raise damaged(path, f"unknown old store schema_version {raw!r}")
    missing = [t for t in required_tables(sv) if t not in tables]
    if missing:
        raise damaged(path, f"missing table{'s' if len(missing) > 1 else ''} "
                            f"{', '.join(missing)}")
