"""Checking a store file (what ``vizrag check`` runs) and turning SQLite errors into one line.

:func:`check_store` opens the file read-only (it never writes, even a ``-wal`` file) and runs
SQLite's ``integrity_check`` and ``foreign_key_check``, the opening checks (format, schema
version, tables), the store's own invariants (:func:`invariant_problems`) and the values
its readers would stop on (:mod:`.check_rows`). It works on files that
:class:`~.store.HypergraphStore` refuses to open.

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag.store import HypergraphStore
    >>> path = tempfile.mkdtemp()
    >>> HypergraphStore(path).close()
    >>> report = check_store(path)
    >>> report.ok, report.problems, report.documents
    (True, [], 0)
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from ..base import StoreError
from .check_rows import name_problems, value_problems
from .damage import DamagedRowError
from .schema import classify_error, connect_read_only, resolve_path, validate

__all__ = ["INVARIANTS", "PG_VECTOR_OK", "SQLITE_VECTOR_OK", "CheckReport", "check_store",
           "first_damage", "integrity_problems", "invariant_problems", "is_store_failure",
           "refuse_damaged", "store_errors", "vector_row_problems", "vectorless_rows"]

_SQLITE_HEADER = b"SQLite format 3\x00"
_MAX_PER_KIND = 20
#: problems of SQLite's integrity check listed at most
_MAX_INTEGRITY = 100

#: how the vector-length invariant reads a vector's length on SQLite (a blob of float16 or
#: float32 values) and on PostgreSQL (pgvector's ``vector_dims``); ``d`` is the dimension
SQLITE_VECTOR_OK = "length(vector) IN (2 * d, 4 * d)"
PG_VECTOR_OK = "vector_dims(vector) = d"

_NO_CHUNKS = "document {!r} has no chunks"
_WRONG_LENGTH = "vector {!r} has the wrong length"

#: per vector space: the rows it holds a vector of (their id column)
_SPACE_ROWS: dict[str, str] = {
    "chunk": "SELECT id FROM chunks",
    "entity": "SELECT key FROM entities",
    "theme": "SELECT id FROM hyperedges WHERE kind = 'theme'",
    "hyperedge": "SELECT id FROM hyperedges WHERE kind = 'relation'",
}
#: how to get a missing vector back: no command re-embeds a stored row
_REEMBED = ("vector search never finds it; no command re-embeds one: delete {} (`vizrag "
            "delete`) and index it again")

#: (description of a bad row, SQL selecting one text column per bad row); portable SQL that
#: both backends run (``{vector_ok}``: one of the two conditions above)
INVARIANTS: tuple[tuple[str, str], ...] = (
    ("entity {!r} has no mention",
     "SELECT key FROM entities e WHERE NOT EXISTS (SELECT 1 FROM entity_mentions m "
     "WHERE m.key = e.key) ORDER BY 1"),
    ("hyperedge {!r} has no mention",
     "SELECT id FROM hyperedges h WHERE NOT EXISTS (SELECT 1 FROM hyperedge_mentions m "
     "WHERE m.hid = h.id) ORDER BY 1"),
    ("hyperedge {!r} has no member",
     "SELECT id FROM hyperedges h WHERE NOT EXISTS (SELECT 1 FROM incidences i "
     "WHERE i.hid = h.id) ORDER BY 1"),
    ("incidence names unknown entity {!r}",
     "SELECT DISTINCT entity_key FROM incidences i WHERE NOT EXISTS (SELECT 1 FROM "
     "entities e WHERE e.key = i.entity_key) ORDER BY 1"),
    ("incidence names unknown hyperedge {!r}",
     "SELECT DISTINCT hid FROM incidences i WHERE NOT EXISTS (SELECT 1 FROM hyperedges h "
     "WHERE h.id = i.hid) ORDER BY 1"),
    ("theme of chunk {!r} names an unknown hyperedge",
     "SELECT chunk_id FROM themes t WHERE t.hid IS NOT NULL AND NOT EXISTS (SELECT 1 FROM "
     "hyperedges h WHERE h.id = t.hid) ORDER BY 1"),
    (_NO_CHUNKS,  # with its text: one of whitespace only (not just spaces) has no chunk
     "SELECT id, text FROM documents d WHERE trim(d.text) != '' AND NOT EXISTS (SELECT 1 "
     "FROM chunks c WHERE c.doc_id = d.id) ORDER BY 1"),
    (_WRONG_LENGTH,
     "SELECT space || '/' || id FROM embeddings, (SELECT CAST(value AS INTEGER) AS d FROM "
     "meta WHERE key = 'embedder_dim') AS dim WHERE NOT ({vector_ok}) ORDER BY 1"),
)


class CheckReport(BaseModel):
    """Outcome of :func:`check_store` (``ok`` = no problem found)."""

    path: str
    ok: bool
    problems: list[str] = Field(default_factory=list)
    documents: int | None = None
    chunks: int | None = None
    entities: int | None = None
    hyperedges: int | None = None
    #: the store was written by a newer VizRAG (its one problem says so): not damaged, but
    #: this version cannot check it
    newer: bool = False
    #: what is worth knowing but not damage (rows vector search cannot find: a write
    #: without an embedder leaves them); ``ok`` does not depend on them
    notes: list[str] = Field(default_factory=list)


def invariant_problems(q: Callable[[str], list[Any]], *,
                       vector_ok: str = SQLITE_VECTOR_OK) -> list[str]:
    """The store's own invariants, checked with the query function ``q`` (empty = healthy).

    Each kind of problem lists at most 20 rows, then how many more there are; a query that
    SQLite cannot run (a dropped table, a damaged page) is a problem too. SQLite's foreign
    keys are checked as well (``vector_ok`` is :data:`SQLITE_VECTOR_OK`); PostgreSQL
    (:data:`PG_VECTOR_OK`) enforces its own.
    """
    problems: list[str] = []
    sqlite = vector_ok == SQLITE_VECTOR_OK
    fks = _rows(q, "PRAGMA foreign_key_check", problems) if sqlite else []
    for fk in fks[:_MAX_PER_KIND]:
        problems.append(f"foreign key violation in {fk[0]}")
    if sqlite:
        problems.extend(vector_row_problems(q, problems))
    for text, sql in INVARIANTS:
        rows = _rows(q, sql.format(vector_ok=vector_ok), problems)
        if text == _NO_CHUNKS:  # chunking drops a text of whitespace only (str.isspace)
            rows = [r for r in rows if str(r[1]).strip()]
        if sqlite and text == _WRONG_LENGTH:  # name the table and column, as value checks do
            text += " (table embeddings column vector)"
        problems.extend(text.format(r[0]) for r in rows[:_MAX_PER_KIND])
        if len(rows) > _MAX_PER_KIND:
            problems.append(f"... and {len(rows) - _MAX_PER_KIND} more: " + text.format("…"))
    return list(dict.fromkeys(problems))


def vector_row_problems(q: Callable[[str], list[Any]], problems: list[str]) -> list[str]:
    """Vectors without their row (in every space): vector search may return them. At most
    20 per space, then how many more; an unreadable table is a problem in ``problems``.
    Rows without their vector are :func:`vectorless_rows` (a note: a write without an
    embedder, which the store API allows, leaves them too)."""
    out: list[str] = []
    for space, rows_sql in _SPACE_ROWS.items():
        vectors = f"SELECT id FROM embeddings WHERE space = '{space}'"
        orphans = [str(r[0]) for r in _rows(q, f"{vectors} EXCEPT {rows_sql} ORDER BY 1",
                                            problems)]
        out.extend(_listed(orphans, f"vector '{space}/{{}}' has no {space} row (vector search "
                                    "may return it; index the store again into a new one to "
                                    "drop it)"))
    return out


def vectorless_rows(q: Callable[[str], list[Any]], problems: list[str]) -> list[str]:
    """Rows without their vector, in the spaces the store embeds (its ``vector_spaces``,
    all when unrecorded; none when it records no embedder): vector search never finds them.
    Not damage by itself — ``add_document`` without an embedder writes such rows — so
    ``vizrag check`` lists them as notes. At most 20 per space, then how many more."""
    from ..compact import parse_spaces

    meta = dict(_rows(q, "SELECT key, value FROM meta WHERE key IN ('embedder_dim', "
                         "'vector_spaces')", problems))
    embedded = parse_spaces(meta.get("vector_spaces")) if "embedder_dim" in meta else ()
    out: list[str] = []
    for space, rows_sql in _SPACE_ROWS.items():
        if space not in embedded:
            continue
        vectors = f"SELECT id FROM embeddings WHERE space = '{space}'"
        missing = [str(r[0]) for r in _rows(q, f"{rows_sql} EXCEPT {vectors} ORDER BY 1",
                                            problems)]
        named = (_of_documents(q, missing, problems) if space == "chunk"
                 else [repr(m) for m in missing])
        out.extend(_listed(named, f"{space} {{}} has no vector ({_repair(space)})"))
    return out


def _repair(space: str) -> str:
    return _REEMBED.format("its document" if space == "chunk"
                           else "the documents that mention it")


def _of_documents(q: Callable[[str], list[Any]], chunks: list[str], problems: list[str]
                  ) -> list[str]:
    """``'chunk-…' of document 'doc-…'`` for the first 20 of ``chunks`` (then the rest as
    they are: only their count is said)."""
    shown = chunks[:_MAX_PER_KIND]
    listed = ", ".join("'" + c.replace("'", "''") + "'" for c in shown)
    docs = dict(_rows(q, f"SELECT id, doc_id FROM chunks WHERE id IN ({listed})", problems)
                ) if shown else {}
    return [f"{c!r} of document {docs.get(c, '?')!r}" for c in shown] + chunks[len(shown):]


def _listed(ids: list[str], text: str) -> list[str]:
    out = [text.format(i) for i in ids[:_MAX_PER_KIND]]
    if len(ids) > _MAX_PER_KIND:
        out.append(f"... and {len(ids) - _MAX_PER_KIND} more: " + text.format("…"))
    return out


def first_damage(q: Callable[[str], list[Any]]) -> str | None:
    """The first problem SQLite's ``quick_check`` finds (None: none): it reads every page
    of every table and index — the pages a count through an index never touches — but
    skips comparing indexes with their tables (its cost grows with the store's size). What
    writing commands run before they change a store."""
    try:
        lines = integrity_problems(q("PRAGMA quick_check(1)"))
    except sqlite3.DatabaseError as exc:
        return str(exc)
    return lines[0].removeprefix("SQLite integrity check: ") if lines else None


def refuse_damaged(store: Any) -> None:
    """Raise a one-line :class:`StoreError` when :func:`first_damage` finds damage in the
    open SQLite store ``store`` (another backend guards its own pages: nothing to do). What
    ``vizrag index`` and ``vizrag delete`` run before they write: a count of every table
    goes through indexes and never reads damaged table pages."""
    conn = getattr(store, "_conn", None)
    if not isinstance(conn, sqlite3.Connection):
        return
    with store._lock:
        problem = first_damage(lambda sql: conn.execute(sql).fetchall())
    if problem is not None:
        path = store.path
        raise StoreError(f"store {path} is damaged (SQLite's quick check: {problem}); nothing "
                         f"was written: run `vizrag check --store {path}` for details, then "
                         "restore a backup or index again into a new store")


def integrity_problems(rows: list[Any]) -> list[str]:
    """The problems in the rows of ``PRAGMA integrity_check`` (none for its one ``ok``): a
    row may hold several newline-separated problems, each counted on its own; at most
    100 are listed, then how many more there are."""
    lines = [line.strip() for r in rows for line in str(r[0]).splitlines()
             if line.strip() and not line.startswith("*** in database")]  # a heading
    if lines == ["ok"]:
        return []
    out = [f"SQLite integrity check: {line}" for line in lines[:_MAX_INTEGRITY]]
    if len(lines) > _MAX_INTEGRITY:
        out.append(f"... and {len(lines) - _MAX_INTEGRITY} more SQLite integrity problems")
    return out


def _rows(q: Callable[[str], list[Any]], sql: str, problems: list[str]) -> list[Any]:
    try:
        return q(sql)
    except sqlite3.DatabaseError as exc:
        problems.append(f"SQLite error: {exc}")
        return []


def check_store(path: str | Path) -> CheckReport:
    """Check the store at ``path`` (directory or file) without writing anything.

    Raises :class:`StoreError` only when there is no file to check; everything wrong with
    the file itself is reported in :attr:`CheckReport.problems`.
    """
    file = resolve_path(path)
    if not file.is_file():
        raise StoreError(f"no VizRAG store at {path}")
    report = CheckReport(path=str(file), ok=False)
    with file.open("rb") as fh:
        head = fh.read(len(_SQLITE_HEADER))
    if not head:
        report.problems.append("empty file, not a VizRAG store")
        return report
    if head != _SQLITE_HEADER:
        report.problems.append("not an SQLite database, so not a VizRAG store")
        return report
    try:
        conn = connect_read_only(file)
    except StoreError as exc:
        report.problems.append(str(exc))
        return report
    try:
        _check_open(conn, file, report)
    finally:
        conn.close()
    report.problems = list(dict.fromkeys(report.problems))  # one error met by two checks
    report.ok = not report.problems
    return report


def _check_open(conn: sqlite3.Connection, file: Path, report: CheckReport) -> None:
    def q(sql: str) -> list[Any]:
        return conn.execute(sql).fetchall()

    problems = report.problems
    try:
        problems.extend(integrity_problems(q(f"PRAGMA integrity_check({_MAX_INTEGRITY})")))
    except sqlite3.DatabaseError as exc:  # SQLite gave up: where its quick check stops
        first = first_damage(q)
        problems.append(f"SQLite error: {exc}" + (f" ({first})" if first != str(exc) else ""))
    try:
        validate(conn, file)
    except StoreError as exc:
        if "newer VizRAG" in str(exc):  # not damage: only this (older) version's limit
            problems.insert(0, str(exc).replace("to open it", "to check or open it"))
            report.newer = True
            return
        problems.append(str(exc).split("; run `vizrag check", 1)[0])
        if "not a VizRAG store" in str(exc):
            return
    except sqlite3.DatabaseError as exc:
        problems.append(f"SQLite error: {exc}")
        return
    problems.extend(invariant_problems(q))
    problems.extend(_nonfinite(conn, problems))
    problems.extend(value_problems(conn))  # what the readers would stop on, row by row
    problems.extend(name_problems(conn))
    report.notes.extend(vectorless_rows(q, problems))
    for name in ("documents", "chunks", "entities", "hyperedges"):
        with suppress(sqlite3.DatabaseError):
            setattr(report, name, int(conn.execute(f"SELECT COUNT(*) FROM {name}").fetchone()[0]))


def _nonfinite(conn: sqlite3.Connection, problems: list[str]) -> list[str]:
    """A problem per stored vector holding NaN or an infinity (at most 20, then a count)."""
    from ..compact import nonfinite_vectors

    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'embedder_dim'").fetchone()
        if row is None:
            return []
        rows = conn.execute("SELECT space, id, vector FROM embeddings ORDER BY space, id")
        bad = nonfinite_vectors(rows, int(row[0]))
    except (sqlite3.DatabaseError, ValueError) as exc:
        problems.append(f"vectors cannot be read: {exc}")
        return []
    out = [f"vector {b!r} holds NaN or an infinity" for b in bad[:_MAX_PER_KIND]]
    if len(bad) > _MAX_PER_KIND:
        out.append(f"... and {len(bad) - _MAX_PER_KIND} more vectors holding NaN or an infinity")
    return out


def is_store_failure(exc: BaseException) -> bool:
    """Whether ``exc`` comes from the store itself (damaged, read-only, locked, refused)."""
    return isinstance(exc, sqlite3.DatabaseError | StoreError)


@contextmanager
def store_errors(path: str | Path) -> Iterator[None]:
    """Turn an SQLite error escaping a store operation into a one-line :class:`StoreError`.

    The message names the store file and says what to do: a damaged store points to
    ``vizrag check``, a read-only one says write access is needed, a locked one is busy, a
    full disk asks for space; a :class:`~.damage.DamagedRowError` gets the file's name. The
    file named is that of the store whose method raised the
    error (a copy reads one store and writes another), else ``path``'s.
    """
    try:
        yield
    except (sqlite3.DatabaseError, DamagedRowError) as exc:
        if isinstance(exc, DamagedRowError) and exc.path is not None:
            raise
        try:
            file = resolve_path(path)
        except StoreError:
            file = Path(str(path))
        if isinstance(exc, DamagedRowError):  # a damaged row: name the file
            raise exc.at(_raised_by(exc, file)) from exc.__cause__
        raise classify_error(_raised_by(exc, file), exc) from exc


def _raised_by(exc: BaseException, default: Path) -> Path:
    """The file of the innermost SQLite store method (``self`` holding a connection and a
    file path; the store may be closed by now) in the traceback of ``exc``, else
    ``default``."""
    found = default
    tb = exc.__traceback__
    while tb is not None:
        attrs = getattr(tb.tb_frame.f_locals.get("self"), "__dict__", None)
        if isinstance(attrs, dict) and "_conn" in attrs and isinstance(attrs.get("path"), Path):
            found = attrs["path"]
        tb = tb.tb_next
    return found
