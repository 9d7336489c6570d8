"""A full-text index of the chunks (SQLite FTS5) as derived data, for BM25 candidates.

The table ``vizrag_chunk_fts`` holds one row per chunk (``rowid`` = the chunk's rowid) with
the passage text ranking reads — ``title + newline + text`` (the document title, else the
chunk's ``metadata["title"]``; the title only once when the text already starts with it).
It is *derived*: created on first use when missing and filled from ``chunks`` in one
statement, then kept in sync by triggers on ``chunks`` and ``documents`` (so every writer
process, of any version, keeps it current). Nothing else depends on it: dropping it loses
nothing, the next query rebuilds it. No schema version change is involved.

Tokens: ``unicode61`` without diacritic folding and with ``_`` as a token character, i.e.
maximal runs of letters, digits and underscores, case-folded — the tokens of the ranking's
BM25 (``bm25s``: ``\\b\\w\\w+\\b`` on lower-cased text, English stop words removed) are
those of at least two characters that are not stop words. The index only *selects* the
candidates (chunks holding a query token) and gives the corpus token total; the scores are
computed from the candidates' own text (:mod:`hyperviz_core.rag.retrieve.lexical`).

Example:
    >>> import sqlite3
    >>> conn = sqlite3.connect(":memory:", isolation_level=None)
    >>> _ = conn.executescript(
    ...     "CREATE TABLE documents (id TEXT PRIMARY KEY, title TEXT NOT NULL);"
    ...     "CREATE TABLE chunks (id TEXT PRIMARY KEY, doc_id TEXT, text TEXT, metadata TEXT);"
    ...     "INSERT INTO documents VALUES ('d', 'Hank Snow');")
    >>> ensure_chunk_fts(conn)
    True
    >>> _ = conn.execute("INSERT INTO chunks VALUES ('c1', 'd', 'A Canadian singer.', '{}')")
    >>> [r[0] for r in match_chunks(conn, ["hank"], "id")]
    ['c1']
    >>> token_total(conn, {"a"})
    4
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

__all__ = ["FTS_TABLE", "ensure_chunk_fts", "fts_ready", "match_chunks", "token_total"]

FTS_TABLE = "vizrag_chunk_fts"
_VOCAB = "vizrag_chunk_fts_vocab"

# the title a chunk's passage starts with (as ChunkIndex: document title, else metadata title)
_TITLE = ("COALESCE(NULLIF((SELECT d.title FROM documents d WHERE d.id = {c}.doc_id), ''), "
          "CASE WHEN json_valid({c}.metadata) AND json_type({c}.metadata, '$.title') = 'text' "
          "THEN json_extract({c}.metadata, '$.title') END, '')")
_WS = "' ' || char(9, 10, 11, 12, 13)"


def _body(c: str) -> str:
    t = _TITLE.format(c=c)
    return (f"(SELECT CASE WHEN t = '' OR substr(ltrim({c}.text, {_WS}), 1, length(t)) = t "
            f"THEN {c}.text ELSE t || char(10) || {c}.text END FROM (SELECT {t} AS t))")


_CREATE = (
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5("
    "body, tokenize = \"unicode61 remove_diacritics 0 tokenchars '_'\")",
    f"CREATE VIRTUAL TABLE IF NOT EXISTS {_VOCAB} USING fts5vocab({FTS_TABLE}, 'row')",
    f"CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_ai AFTER INSERT ON chunks BEGIN "
    f"INSERT INTO {FTS_TABLE}(rowid, body) VALUES (new.rowid, {_body('new')}); END",
    f"CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_ad AFTER DELETE ON chunks BEGIN "
    f"DELETE FROM {FTS_TABLE} WHERE rowid = old.rowid; END",
    f"CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_au AFTER UPDATE ON chunks BEGIN "
    f"DELETE FROM {FTS_TABLE} WHERE rowid = old.rowid; "
    f"INSERT INTO {FTS_TABLE}(rowid, body) VALUES (new.rowid, {_body('new')}); END",
    f"CREATE TRIGGER IF NOT EXISTS {FTS_TABLE}_du AFTER UPDATE OF title ON documents BEGIN "
    f"DELETE FROM {FTS_TABLE} WHERE rowid IN (SELECT rowid FROM chunks WHERE doc_id = new.id); "
    f"INSERT INTO {FTS_TABLE}(rowid, body) SELECT c.rowid, {_body('c')} FROM chunks c "
    "WHERE c.doc_id = new.id; END",
)


def fts_ready(conn: sqlite3.Connection) -> bool:
    """Whether the index and its triggers exist in this store file."""
    names = {r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE name IN (?, ?, ?, ?, ?)",
        (FTS_TABLE, _VOCAB, f"{FTS_TABLE}_ai", f"{FTS_TABLE}_ad", f"{FTS_TABLE}_du"))}
    return len(names) == 5


def ensure_chunk_fts(conn: sqlite3.Connection) -> bool:
    """Create and fill the index when missing (one write transaction); False when it is
    missing and cannot be made (a read-only store, an SQLite without FTS5)."""
    if fts_ready(conn):
        return True
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error:
        return False
    try:
        if not fts_ready(conn):  # another process may have made it meanwhile
            conn.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
            for statement in _CREATE:
                conn.execute(statement)
            conn.execute(f"INSERT INTO {FTS_TABLE}(rowid, body) "
                         f"SELECT c.rowid, {_body('c')} FROM chunks c")
        conn.execute("COMMIT")
    except sqlite3.Error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return False
    return True


def _match_expr(tokens: Iterable[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in sorted(set(tokens)) if t)


def match_chunks(conn: sqlite3.Connection, tokens: Sequence[str], columns: str,
                 ) -> list[Any]:
    """Rows (``columns`` of ``chunks c`` joined with ``documents d``) of every chunk whose
    passage holds one of ``tokens``."""
    expr = _match_expr(tokens)
    if not expr:
        return []
    return conn.execute(
        f"SELECT {columns} FROM {FTS_TABLE} f JOIN chunks c ON c.rowid = f.rowid "
        f"WHERE {FTS_TABLE} MATCH ?", (expr,)).fetchall()


def token_total(conn: sqlite3.Connection, stopwords: Iterable[str]) -> int:
    """Number of tokens of at least two characters, stop words left out, in all passages."""
    total = conn.execute(
        f"SELECT COALESCE(SUM(cnt), 0) FROM {_VOCAB} WHERE length(term) >= 2").fetchone()[0]
    stop = sorted({s for s in stopwords if len(s) >= 2})
    for i in range(0, len(stop), 500):
        part = stop[i : i + 500]
        marks = ",".join("?" * len(part))
        total -= conn.execute(
            f"SELECT COALESCE(SUM(cnt), 0) FROM {_VOCAB} WHERE term IN ({marks})",
            part).fetchone()[0]
    return int(total)
