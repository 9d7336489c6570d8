"""The chunks' BM25 postings in PostgreSQL, as derived data: lazy retrieval's candidates.

Lazy retrieval (:mod:`hyperviz_core.rag.retrieve.lazy`) needs, without reading every chunk,
the chunks holding a query token, each token's count in them, every passage's BM25 length,
and an integer number per chunk. The SQLite store takes them from FTS5; here two tables
hold them, filled with the ranking's own tokenizer (so counts are exact for every token):

* ``vizrag_chunk_lex_v8(num, chunk_id, length)`` — one row per chunk: its number (an
  identity column) and the number of BM25 tokens of its passage (``title + newline +
  text``, the title once, as ranking reads it);
* ``vizrag_chunk_terms_v8(term, num, tf)`` — the postings: each distinct token of a passage
  (:func:`term_key`: a token over :data:`MAX_TERM` characters by its digest) with its count
  (primary key ``(term, num)`` holding ``tf`` too, so a token's postings are one range of
  one index, read without the table: an index-only scan once vacuumed).

They are *derived* data, kept by the writers: opening a store creates them when missing
(:func:`create_tables`), every write batch gives the chunks it writes their rows in its own
transaction (:func:`write_postings`, called by :class:`~.store.PostgresStore`), and a
replaced or deleted document's chunks lose theirs through ``ON DELETE CASCADE`` from
``chunks``. Chunks without rows — written by a version that wrote no postings, or before
the tables existed — get them from the next query that finds the store changed
(:func:`ensure_lexical`: in pages of :data:`PAGE` chunks, each page one transaction, then
``VACUUM (ANALYZE)`` of both tables so the planner knows them and the postings index
answers alone). Dropping the tables loses nothing (the next opening makes them, the next
query fills them). The version in their names changes with the tokenizer: a new version
has new tables (v8: Hebrew without its cantillation marks too; v7: Hebrew and the Arabic
script without points and harakat, Arabic's
``ي`` and ``ك`` read as Persian's ``ی`` and ``ک``, hamza'd alef as alef, ``ة`` as ``ه``;
v6: a word's combining marks kept in it, ``दिल्ली`` one token; v5: digits
of other scripts read as ASCII; v4: Thai, Lao, Myanmar and Khmer
runs as bigrams of their clusters; v3: Han, kana and Hangul runs as character bigrams,
full-width forms as usual ones, ``İ`` as ``i``; v2 an earlier tokenizer of that day; the
tables of an older version are left to the processes of that version, and dropping them
loses nothing).

A page is read and written in one ``REPEATABLE READ`` transaction, so its postings are those
of the chunk rows it read: a writer that deletes or replaces one of them meanwhile makes the
page fail to serialize, and the page is tried again (:meth:`~.connection.Pool.write`).
"""

from __future__ import annotations

import hashlib
import logging
from collections import Counter
from collections.abc import Callable, Mapping

from ...types import passage_text
from ..base import StoreError
from ..lookups import passage_title
from .connection import Pool, QmarkConnection
from .schema import OWN_SCHEMA

__all__ = [
    "LEX", "MAX_TERM", "PAGE", "TERMS", "create_tables", "ensure_lexical", "tables_exist",
    "term_key", "write_postings",
]

log = logging.getLogger(__name__)

_VERSION = 8
LEX = f"vizrag_chunk_lex_v{_VERSION}"
TERMS = f"vizrag_chunk_terms_v{_VERSION}"
#: chunks tokenized per transaction
PAGE = 2_000

_CREATE = f"""
SELECT pg_advisory_xact_lock(hashtextextended('vizrag-lexical', 0));
CREATE TABLE IF NOT EXISTS {LEX} (
    num BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    chunk_id TEXT COLLATE "C" NOT NULL UNIQUE REFERENCES chunks(id) ON DELETE CASCADE,
    length INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS {TERMS} (
    term TEXT COLLATE "C" NOT NULL,
    num BIGINT NOT NULL REFERENCES {LEX}(num) ON DELETE CASCADE,
    tf INTEGER NOT NULL,
    PRIMARY KEY (term, num) INCLUDE (tf));
CREATE INDEX IF NOT EXISTS {TERMS}_num ON {TERMS}(num);
"""

#: longest token stored as itself; longer ones (a run of letters and digits thousands of
#: characters long, as in a pasted hash or sequence) are stored by digest, since a B-tree
#: entry of PostgreSQL holds at most about 2.7 kB
MAX_TERM = 200


def term_key(term: str) -> str:
    """How ``term`` is stored in the postings: itself, or ``#`` + its SHA-256 when longer
    than :data:`MAX_TERM` characters (tokens are runs of word characters, never ``#``)."""
    if len(term) <= MAX_TERM:
        return term
    return "#" + hashlib.sha256(term.encode("utf-8")).hexdigest()


_HERE = f"{OWN_SCHEMA} || ?"  # a table of the store's own schema
_EXIST = (f"SELECT CASE WHEN to_regclass({_HERE}) IS NULL OR to_regclass({_HERE}) IS NULL "
          f"THEN false WHEN ? THEN has_table_privilege({_HERE}, 'INSERT') AND "
          f"has_table_privilege({_HERE}, 'INSERT') ELSE true END")

_MISSING = (f"SELECT c.id, c.text, c.metadata, d.title FROM chunks c JOIN documents d ON "
            f"d.id = c.doc_id WHERE NOT EXISTS (SELECT 1 FROM {LEX} l WHERE l.chunk_id = c.id)"
            " ORDER BY c.id LIMIT ?")


def _create(c: QmarkConnection) -> None:
    for statement in _CREATE.split(";"):
        if statement.strip():
            c.execute(statement)


def write_postings(c: QmarkConnection, passages: Mapping[str, str],
                   tokenize: Callable[[str], list[str]] | None = None) -> None:
    """Give the chunks of ``passages`` (chunk id → the passage BM25 reads) their length and
    postings, in ``c``'s transaction (chunks that have them already are left alone)."""
    tokenize = tokenize or _ranking_tokens()
    counts = {cid: Counter(tokenize(text)) for cid, text in passages.items()}
    ids = sorted(counts)
    if not ids:
        return
    nums = c.execute(
        f"INSERT INTO {LEX}(chunk_id, length) SELECT v.id, v.n FROM "
        "unnest(?::text[], ?::int[]) AS v(id, n) ON CONFLICT (chunk_id) DO NOTHING "
        "RETURNING chunk_id, num",
        (ids, [sum(counts[i].values()) for i in ids])).fetchall()
    terms: list[str] = []
    owners: list[int] = []
    tfs: list[int] = []
    for cid, num in sorted(nums):
        for term, tf in sorted(counts[cid].items()):
            terms.append(term_key(term))
            owners.append(int(num))
            tfs.append(tf)
    if terms:
        c.execute(f"INSERT INTO {TERMS}(term, num, tf) SELECT * FROM "
                  "unnest(?::text[], ?::bigint[], ?::int[])", (terms, owners, tfs))


def tables_exist(c: QmarkConnection, *, writable: bool = False) -> bool:
    """Whether the postings tables exist (seen from ``c``'s snapshot) — with ``writable``,
    and this role may insert into both (an application role granted its rights before the
    tables were made may not: its writes then go without postings, which a query of a role
    that may fills)."""
    return bool(c.execute(_EXIST, (LEX, TERMS, writable, LEX, TERMS)).fetchone()[0])


def _ranking_tokens() -> Callable[[str], list[str]]:
    from ...retrieve.lexical import tokens  # the index must be the ranking's BM25 tokens

    return tokens


def _fill_page(c: QmarkConnection, tokenize: Callable[[str], list[str]]) -> int:
    """Tokenize up to :data:`PAGE` chunks that have no postings yet; how many were read."""
    c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    rows = c.execute(_MISSING, (PAGE,)).fetchall()
    write_postings(c, {cid: passage_text(passage_title(title, meta), text)
                       for cid, text, meta, title in rows}, tokenize)
    return len(rows)


def create_tables(pool: Pool) -> str | None:
    """Create the tables when missing; None when they exist afterwards, else why not (a
    database that refuses, e.g. a role without the right to create tables)."""
    try:
        if pool.query(_EXIST, (LEX, TERMS, False, LEX, TERMS))[0][0]:
            return None  # one statement: no transaction block
        pool.write(_create)
    except StoreError as exc:
        return str(exc)
    return None


def _vacuum(pool: Pool) -> None:
    """``VACUUM (ANALYZE)`` of both tables (outside a transaction block, as it must be)."""
    try:
        with pool.connection() as conn:
            conn.execute(f"VACUUM (ANALYZE) {LEX}, {TERMS}")
    except Exception as exc:  # an optimisation only: the postings are complete without it
        log.info("VACUUM of the postings on %s failed: %s", pool.where, exc)


def ensure_lexical(pool: Pool, tokenize: Callable[[str], list[str]]) -> str | None:
    """Create the tables when missing and give every chunk its postings; None when done,
    else why not (lazy retrieval then falls back to the loaded corpus): the database
    refused, e.g. a role without the right to create or fill the tables."""
    reason = create_tables(pool)
    if reason is None:
        try:
            filled = 0
            while True:
                read = pool.write(lambda c: _fill_page(c, tokenize))
                filled += read
                if read < PAGE:
                    break
        except StoreError as exc:
            reason = str(exc)
        else:
            if filled:
                _vacuum(pool)
    return reason
