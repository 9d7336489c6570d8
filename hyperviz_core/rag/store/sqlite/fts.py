"""A full-text index of the chunks (SQLite FTS5) as derived data, for BM25 candidates.

The table ``vizrag_chunk_fts`` holds one row per chunk (``rowid`` = the chunk's rowid) with
the passage text ranking reads — ``title + newline + text`` (the document title, else the
chunk's ``metadata["title"]``; the title only once when the text already starts with it),
with the letters BM25 reads as others written as those
(:func:`~hyperviz_core.rag.scripts.letters_swapped`: Arabic's ``ي`` and ``ك`` as Persian's
``ی`` and ``ک``, ``أ``, ``إ``, ``آ``, ``ٱ`` as ``ا``, ``ة`` as ``ه``); Hebrew's points and
cantillation marks and Arabic's harakat stay, and the BM25 tokens of a pointed word (which
drop them) are kept
beside the index, as ``istanbul`` of ``İstanbul`` is.
It is *derived*: created on first use when missing and filled from ``chunks`` in one
statement, then kept in sync by triggers on ``chunks`` and ``documents`` (so every writer
process, of any version, keeps it current). Nothing else depends on it: dropping it loses
nothing, the next query rebuilds it. No schema version change is involved: the derived
objects carry their own version in their names (``_v10``); a store whose objects are of an
older version (v2, whose tokens kept underscores; v3, a Han run one token; v4, an earlier
tokenizer of 2026-12-05; v5, a Thai, Lao, Myanmar or Khmer run cut at its combining marks;
v6, digits of other scripts not read as ASCII; v7, words cut at their combining marks:
Devanagari ``दिल्ली`` gave no token; v8, Arabic's ``ي`` and Persian's ``ی`` two letters;
v9, Hebrew's cantillation marks kept in its words)
gets them
dropped and rebuilt by the next query that can write (a read-only one falls back to the
full in-memory path).

Tokens: ``unicode61`` without diacritic folding and with combining marks as token
characters (``categories 'L* N* Co M*'``), i.e. maximal runs of letters, digits and marks,
case-folded (an underscore separates tokens) — the tokens of the ranking's BM25
(:func:`~hyperviz_core.rag.retrieve.lexical.tokens`: ``\\b\\w\\w+\\b`` on the lower-cased
text with underscores turned into spaces, a word's combining marks kept in it; English stop
words removed) are those of at
least two characters that are not stop words, in a passage without kana, Han, Hangul, Thai,
Lao, Myanmar or Khmer characters, full-width forms or a dotted ``İ``. A passage with them
(:func:`~hyperviz_core.rag.retrieve.lexical.segmented`) is not exact: BM25 reads a run of
Han characters as its bigrams, ``unicode61`` as one token, so such a piece selects its
passages by substring (``instr``, a scan of the passages, only for a query that has one);
and its few BM25 tokens that neither finds (``istanbul`` of ``İstanbul``, ``2021`` of
``２０２１``: :func:`~hyperviz_core.rag.retrieve.lexical.plain_missed`) are kept in the table
``vizrag_chunk_terms_v10(term, chunk, tf)``, written by the reader that measures its BM25
length (:func:`store_lengths`, one transaction with the length row; the triggers delete
both). The index only *selects* the candidates (chunks holding a query token) and gives
the corpus token total; the scores are computed from the candidates' own text
(:mod:`hyperviz_core.rag.retrieve.lexical`).

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
    >>> [a.tolist() for a in postings(conn, "singer")]
    [[1], [1]]
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ...scripts import ALIKE
from .state_arrays import brief_wait

IntArray = npt.NDArray[np.int64]

__all__ = [
    "FTS_TABLE", "LENGTHS", "TERMS", "ensure_chunk_fts", "fts_ready", "lengths",
    "match_chunks", "missing_lengths", "postings", "store_lengths", "term_postings",
]

#: version of the derived objects: a new version has new names (so processes of another
#: version never write into its tables) and drops those of the older ones
_VERSION = 10
FTS_TABLE = f"vizrag_chunk_fts_v{_VERSION}"

# the title a chunk's passage starts with (as ChunkIndex: document title, else metadata title)
_TITLE = ("COALESCE(NULLIF((SELECT d.title FROM documents d WHERE d.id = {c}.doc_id), ''), "
          "CASE WHEN json_valid({c}.metadata) AND json_type({c}.metadata, '$.title') = 'text' "
          "THEN json_extract({c}.metadata, '$.title') END, '')")
_WS = "' ' || char(9, 10, 11, 12, 13)"


def _body(c: str) -> str:
    t = _TITLE.format(c=c)
    return (f"(SELECT CASE WHEN t = '' OR substr(ltrim({c}.text, {_WS}), 1, length(t)) = t "
            f"THEN {c}.text ELSE t || char(10) || {c}.text END FROM (SELECT {t} AS t))")


def _indexed(c: str) -> str:
    """The body the index holds: :func:`_body` with the letters of
    :data:`~hyperviz_core.rag.scripts.ALIKE` written as the ones BM25 reads them as
    (:func:`~hyperviz_core.rag.scripts.letters_swapped`; seven nested ``replace`` calls:
    SQLite's parser takes about twenty)."""
    out = _body(c)
    for typed, read in zip(ALIKE[0::2], ALIKE[1::2], strict=True):
        out = f"replace({out}, '{typed}', '{read}')"
    return out


_INST = f"{FTS_TABLE}_inst"
LENGTHS = f"vizrag_chunk_bm25_v{_VERSION}"
#: the BM25 tokens unicode61 and substrings cannot find a passage by (see the module text)
TERMS = f"vizrag_chunk_terms_v{_VERSION}"
_T = FTS_TABLE  # trigger name prefix
_OLD = range(3, _VERSION)  # the versions with a number in their names
# objects of older versions (triggers, then tables: fts5vocab tables before their FTS table)
_OLD_TRIGGERS = (*(f"vizrag_chunk_fts_{s}" for s in ("ai", "ad", "au", "du")),  # v1
                 *(f"vizrag_chunk_fts_v{v}_{s}" for v in (2, *_OLD)
                   for s in ("ai", "ad", "au", "du")))
_OLD_TABLES = ("vizrag_chunk_fts_vocab", "vizrag_chunk_fts_inst", "vizrag_chunk_fts",
               "vizrag_chunk_bm25",  # v1, v2 (v2: tokens kept underscores)
               *(n for v in _OLD for n in (f"vizrag_chunk_fts_v{v}_inst", f"vizrag_chunk_fts_v{v}",
                                           f"vizrag_chunk_bm25_v{v}", f"vizrag_chunk_terms_v{v}")))
_GONE = (f"DELETE FROM {LENGTHS} WHERE rowid = old.rowid; "
         f"DELETE FROM {TERMS} WHERE chunk = old.rowid; ")
_DOC = "IN (SELECT rowid FROM chunks WHERE doc_id = new.id)"

_CREATE = (
    f"CREATE VIRTUAL TABLE {FTS_TABLE} USING fts5("
    "body, tokenize = \"unicode61 remove_diacritics 0 categories 'L* N* Co M*'\")",
    f"CREATE VIRTUAL TABLE {_INST} USING fts5vocab({FTS_TABLE}, 'instance')",
    # per chunk: BM25 length of its passage, and whether the passage is ASCII and equal to
    # the indexed body (then the FTS tokens are exactly the BM25 tokens); filled by readers
    f"CREATE TABLE {LENGTHS} (rowid INTEGER PRIMARY KEY, dl INTEGER NOT NULL, "
    "exact INTEGER NOT NULL)",
    f"CREATE TABLE {TERMS} (term TEXT NOT NULL, chunk INTEGER NOT NULL, tf INTEGER NOT NULL, "
    "PRIMARY KEY (term, chunk)) WITHOUT ROWID",
    f"CREATE INDEX {TERMS}_chunk ON {TERMS}(chunk)",
    f"CREATE TRIGGER {_T}_ai AFTER INSERT ON chunks BEGIN "
    f"INSERT INTO {FTS_TABLE}(rowid, body) VALUES (new.rowid, {_indexed('new')}); END",
    f"CREATE TRIGGER {_T}_ad AFTER DELETE ON chunks BEGIN "
    f"DELETE FROM {FTS_TABLE} WHERE rowid = old.rowid; {_GONE}END",
    f"CREATE TRIGGER {_T}_au AFTER UPDATE ON chunks BEGIN "
    f"DELETE FROM {FTS_TABLE} WHERE rowid = old.rowid; {_GONE}"
    f"INSERT INTO {FTS_TABLE}(rowid, body) VALUES (new.rowid, {_indexed('new')}); END",
    f"CREATE TRIGGER {_T}_du AFTER UPDATE OF title ON documents BEGIN "
    f"DELETE FROM {FTS_TABLE} WHERE rowid {_DOC}; DELETE FROM {LENGTHS} WHERE rowid {_DOC}; "
    f"DELETE FROM {TERMS} WHERE chunk {_DOC}; "
    f"INSERT INTO {FTS_TABLE}(rowid, body) SELECT c.rowid, {_indexed('c')} FROM chunks c "
    "WHERE c.doc_id = new.id; END",
)
_NAMES = (FTS_TABLE, _INST, LENGTHS, TERMS, f"{TERMS}_chunk",
          f"{_T}_ai", f"{_T}_ad", f"{_T}_au", f"{_T}_du")


def fts_ready(conn: sqlite3.Connection) -> bool:
    """Whether the index, its tables and triggers exist in this store file."""
    marks = ",".join("?" * len(_NAMES))
    found = conn.execute(f"SELECT COUNT(*) FROM sqlite_master WHERE name IN ({marks})",
                         _NAMES).fetchone()[0]
    return int(found) == len(_NAMES)


def ensure_chunk_fts(conn: sqlite3.Connection, *, brief: bool = False) -> bool:
    """Create and fill the index when missing (one write transaction); False when it is
    missing and cannot be made (a read-only store, an SQLite without FTS5, or with
    ``brief`` — a query's call — another process's write lock still held after 0.2 s:
    the query then reads the store another way instead of waiting up to a minute)."""
    if fts_ready(conn):
        return True
    try:
        with brief_wait(conn) if brief else contextlib.nullcontext():
            conn.execute("BEGIN IMMEDIATE")
    except sqlite3.Error:
        return False
    try:
        if not fts_ready(conn):  # another process may have made it meanwhile
            for name in (*_OLD_TRIGGERS, *_NAMES[5:]):
                conn.execute(f"DROP TRIGGER IF EXISTS {name}")
            for name in (*_OLD_TABLES, _INST, FTS_TABLE, LENGTHS, TERMS):
                conn.execute(f"DROP TABLE IF EXISTS {name}")
            for statement in _CREATE:
                conn.execute(statement)
            conn.execute(f"INSERT INTO {FTS_TABLE}(rowid, body) "
                         f"SELECT c.rowid, {_indexed('c')} FROM chunks c")
        conn.execute("COMMIT")
    except sqlite3.Error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return False
    return True


def postings(conn: sqlite3.Connection, term: str) -> tuple[IntArray, IntArray]:
    """(chunk rowids, occurrences) of the passages holding the FTS token ``term``, by
    rowid. The occurrences come back as one comma-separated text (no Python object per
    occurrence) and are counted by numpy: a quarter of the time of SQL's ``GROUP BY``."""
    text = conn.execute(f"SELECT group_concat(doc) FROM {_INST} WHERE term = ?",
                        (term,)).fetchone()[0]
    docs = np.zeros(0, dtype=np.int64)
    if text:
        docs = np.fromstring(text, dtype=np.int64, sep=",")
        if docs.size != text.count(",") + 1:  # not a list of integers: the row by row way
            docs = np.fromiter(itertools.chain.from_iterable(conn.execute(
                f"SELECT doc FROM {_INST} WHERE term = ?", (term,))), dtype=np.int64)
    if docs.size and int(docs.max()) <= 4 * docs.size + 1_000_000:  # dense: one pass
        counts = np.bincount(docs)
        rowids = np.flatnonzero(counts)
        return rowids.astype(np.int64), counts[rowids].astype(np.int64)
    rowids, found = np.unique(docs, return_counts=True)
    return rowids, found.astype(np.int64)


def missing_lengths(conn: sqlite3.Connection) -> list[Any]:
    """(rowid, text, metadata, document title, indexed body) of the chunks without a
    length row."""
    return conn.execute(
        f"SELECT c.rowid, c.text, c.metadata, d.title, f.body FROM chunks c "
        f"JOIN documents d ON d.id = c.doc_id LEFT JOIN {FTS_TABLE} f ON f.rowid = c.rowid "
        f"WHERE c.rowid NOT IN (SELECT rowid FROM {LENGTHS})").fetchall()


def store_lengths(conn: sqlite3.Connection, rows: Sequence[tuple[int, int, int]],
                  terms: Sequence[tuple[str, int, int]] = ()) -> bool:
    """Write (rowid, length, exact) rows and, in the same transaction, (term, rowid, count)
    postings of these chunks (:data:`TERMS`); whether written (not when the store is
    read-only or busy: a writer's lock is waited for briefly,
    :func:`~.state_arrays.brief_wait`; nor inside a transaction the caller holds, e.g. a
    read snapshot, which this must not end)."""
    if not rows or conn.in_transaction:
        return False
    try:
        with brief_wait(conn):
            conn.execute("BEGIN IMMEDIATE")
            conn.executemany(
                f"INSERT OR REPLACE INTO {LENGTHS}(rowid, dl, exact) "
                "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE rowid = ?)",
                [(r, d, e, r) for r, d, e in rows])
            conn.executemany(f"DELETE FROM {TERMS} WHERE chunk = ?", [(r,) for r, _, _ in rows])
            conn.executemany(
                f"INSERT OR REPLACE INTO {TERMS}(term, chunk, tf) "
                "SELECT ?, ?, ? WHERE EXISTS (SELECT 1 FROM chunks WHERE rowid = ?)",
                [(t, r, n, r) for t, r, n in terms])
            conn.execute("COMMIT")
    except sqlite3.Error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        return False
    return True


def term_postings(conn: sqlite3.Connection, terms: Sequence[str]
                  ) -> dict[str, dict[int, int]]:
    """Term → {chunk rowid: count} of the :data:`TERMS` postings of ``terms``."""
    out: dict[str, dict[int, int]] = {}
    for term in sorted(set(terms)):
        rows = conn.execute(f"SELECT chunk, tf FROM {TERMS} WHERE term = ?", (term,))
        found = {int(r): int(n) for r, n in rows}
        if found:
            out[term] = found
    return out


def lengths(conn: sqlite3.Connection) -> list[tuple[int, int, int]]:
    """Every (rowid, length, exact) row."""
    return [(int(a), int(b), int(c)) for a, b, c in
            conn.execute(f"SELECT rowid, dl, exact FROM {LENGTHS}")]


def _match_expr(tokens: Iterable[str]) -> str:
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in sorted(set(tokens)) if t)


def _shortest(substrings: Iterable[str]) -> list[str]:
    """The distinct ``substrings`` that hold none of the others, sorted: a passage holds one
    of ``substrings`` exactly when it holds one of these (``小猫`` holds ``猫``: a query
    ``猫`` read as its pairs scans the passages for ``猫`` alone, not once per pair).

    >>> _shortest(["小猫", "猫", "猫是", "狗", ""])
    ['狗', '猫']
    """
    found = sorted({t for t in substrings if t}, key=lambda t: (len(t), t))
    kept: list[str] = []
    for text in found:
        if not any(short in text for short in kept):
            kept.append(text)
    return sorted(kept)


def match_chunks(conn: sqlite3.Connection, tokens: Sequence[str], columns: str,
                 extra: Iterable[int] = (), *, substrings: Sequence[str] = (),
                 within: tuple[Sequence[str], Sequence[int]] = ((), ()),
                 cursor: bool = False) -> Any:
    """Rows (``columns`` of ``chunks c``), by rowid, of every chunk whose passage holds one
    of ``tokens`` (an FTS5 token, or a :data:`TERMS` posting) or one of ``substrings`` (the
    pieces of a Han run, which FTS5 holds whole: a scan of the passages), and of the chunks
    ``extra``. ``within`` (substrings, rowids): substrings looked for in those chunks only
    (the passages holding a piece of each, which an earlier scan found: ``小猫`` among the
    passages holding ``猫``). A list, or with ``cursor`` the open cursor, read as far as
    wanted (the rows come as the table is scanned)."""
    expr = _match_expr(tokens)
    if not expr:
        return iter(()) if cursor else []
    terms = sorted({t for t in tokens if t})
    marks = ",".join("?" * len(terms))
    scan, params = "", []
    has = (f"EXISTS (SELECT 1 FROM (SELECT {_body('c')} AS b), json_each(?) "
           "WHERE instr(b, value) > 0)")
    if pieces := _shortest(substrings):
        scan, params = f" OR {has}", [json.dumps(pieces)]
    if (near := _shortest(within[0])) and within[1]:
        scan += f" OR (c.rowid IN (SELECT value FROM json_each(?)) AND {has})"
        params += [json.dumps(sorted(set(within[1]))), json.dumps(near)]
    found = conn.execute(
        f"SELECT {columns} FROM chunks c WHERE c.rowid IN (SELECT rowid FROM {FTS_TABLE} "
        f"WHERE {FTS_TABLE} MATCH ?) OR c.rowid IN (SELECT chunk FROM {TERMS} "
        f"WHERE term IN ({marks})) OR c.rowid IN (SELECT value FROM json_each(?)){scan} "
        "ORDER BY c.rowid", (expr, *terms, json.dumps(sorted(set(extra))), *params))
    return found if cursor else found.fetchall()
