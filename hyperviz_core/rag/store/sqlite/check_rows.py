"""The values ``vizrag check`` reads row by row: what the readers would stop on.

Every stored JSON column (metadata, keywords, members, member attributes, type counts) must
be JSON that Python's decoder reads, of the column's type (:data:`~.damage.JSON_KINDS`);
every hyperedge weight (merged and per mention) a finite number; every entity's name must
give its row's key. A reader meeting such a row raises :class:`~.damage.DamagedRowError`;
here each is one problem naming the table, column and row.

The cost stays one pass over each table in SQLite's C code: a value is decoded in Python
only where SQLite flags it (not text, not valid JSON or not of the column's JSON type,
holding a NUL, long or rich in brackets: deep nesting needs many), and an entity's name
only where it is not plain ASCII whose lower case is its key.

Example:
    >>> import sqlite3
    >>> conn = sqlite3.connect(":memory:")
    >>> _ = conn.execute("CREATE TABLE themes (chunk_id TEXT, keywords TEXT)")
    >>> _ = conn.execute("INSERT INTO themes VALUES ('c1', '[\\"a\\"]'), ('c2', '{')")
    >>> value_problems(conn)  # doctest: +ELLIPSIS
    ["table themes column keywords row 'c2': not JSON (Expecting ...)"]
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

from ....model import normalize_key
from .damage import JSON_KINDS, ROW_KEYS, DamagedRowError, json_problem, real, row_text, shown

__all__ = ["name_problems", "value_problems"]

_MAX_PER_KIND = 20
#: per table: its JSON columns, then its weight column ("" = none)
VALUE_COLUMNS: dict[str, tuple[tuple[str, ...], str]] = {
    "documents": (("metadata",), ""),
    "chunks": (("metadata",), ""),
    "themes": (("keywords",), ""),
    "entities": (("metadata", "types"), ""),
    "hyperedges": (("keywords", "member_attrs", "metadata"), "weight"),
    "entity_mentions": (("metadata",), ""),
    "hyperedge_mentions": (("members", "keywords", "member_attrs", "metadata"), "weight"),
}
#: a JSON value with this many ``[``/``{`` (or this long) is decoded in Python: one nested
#: too deeply for its decoder (about 1,000 levels) has far more
_BRACKETS = 256
_LONG = 4000
_BLOCK = 1000


def _json_flag(col: str, kind: type, json1: bool) -> str:
    """SQL: 1 where the value of ``col`` may not read as JSON of ``kind`` (a superset);
    without SQLite's JSON functions (``json1`` false), 1 for every value but the empty one."""
    empty = "{}" if kind is dict else "[]"  # what the writers store: no space before it
    if not json1:
        return f"CASE WHEN {col} = '{empty}' THEN 0 ELSE 1 END"
    return (f"CASE WHEN {col} = '{empty}' THEN 0 WHEN typeof({col}) != 'text' THEN 1 "
            f"WHEN substr({col}, 1, 1) != '{empty[0]}' THEN 1 "
            f"WHEN instr({col}, char(0)) THEN 1 WHEN length({col}) >= {_LONG} THEN 1 "
            f"WHEN NOT json_valid({col}) THEN 1 "
            f"WHEN length({col}) >= {_BRACKETS} AND length({col}) - length(replace(replace("
            f"{col}, '[', ''), '{{', '')) >= {_BRACKETS} THEN 1 ELSE 0 END")


def _weight_flag(col: str) -> str:
    """SQL: 1 where ``col`` is not a finite number."""
    return (f"CASE WHEN typeof({col}) NOT IN ('real', 'integer') THEN 1 "
            f"WHEN {col} IN (9e999, -9e999) THEN 1 ELSE 0 END")


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {str(r[1]) for r in conn.execute(f"PRAGMA table_info({table})")}


def _rows(cur: sqlite3.Cursor) -> Iterator[Any]:
    while block := cur.fetchmany(_BLOCK):
        yield from block


class _Found:
    """Problems per (table, column): the first 20 listed, then how many more."""

    def __init__(self) -> None:
        self.listed: list[str] = []
        self.counts: dict[tuple[str, str], int] = {}

    def add(self, table: str, column: str, row: Any, reason: str) -> None:
        n = self.counts[table, column] = self.counts.get((table, column), 0) + 1
        if n <= _MAX_PER_KIND:
            self.listed.append(f"table {table} column {column} row {row_text(table, row)}: "
                               f"{reason}")

    def lines(self) -> list[str]:
        return self.listed + [f"... and {n - _MAX_PER_KIND} more damaged values in table {t} "
                              f"column {c}" for (t, c), n in self.counts.items()
                              if n > _MAX_PER_KIND]


def value_problems(conn: sqlite3.Connection) -> list[str]:
    """A problem per stored JSON value the readers cannot use and per weight that is not
    a finite number (at most 20 per table and column, then how many more); a table that
    cannot be read is a problem too (``SQLite error: ...``)."""
    found = _Found()
    errors: list[str] = []
    json1 = _has_json1(conn)
    for table, (json_cols, weight) in VALUE_COLUMNS.items():
        try:
            present = _columns(conn, table)
            keys = ROW_KEYS[table]
            cols = [c for c in json_cols if c in present]
            flags = [_json_flag(c, JSON_KINDS[c], json1) for c in cols]
            if weight in present:
                cols.append(weight)
                flags.append(_weight_flag(weight))
            if not flags or not set(keys) <= present:
                continue
            sql = (f"SELECT {', '.join(keys + tuple(cols))} FROM {table} "
                   f"WHERE {' OR '.join(flags)}")
            for r in _rows(conn.execute(sql)):
                row = r[0] if len(keys) == 1 else tuple(r[:len(keys)])
                for col, value in zip(cols, r[len(keys):], strict=True):
                    reason = _weight_problem(value) if col == weight else json_problem(value,
                                                                                       col)
                    if reason is not None:
                        found.add(table, col, row, reason)
        except sqlite3.DatabaseError as exc:
            errors.append(f"SQLite error: {exc}")
    return found.lines() + errors


def _has_json1(conn: sqlite3.Connection) -> bool:
    """Whether this SQLite has its JSON functions (built in since 3.38)."""
    try:
        conn.execute("SELECT json_valid('{}')").fetchone()
    except sqlite3.OperationalError:
        return False
    return True


def _weight_problem(value: Any) -> str | None:
    try:
        real(value, "", None)
    except DamagedRowError as exc:
        return exc.reason
    return None


def name_problems(conn: sqlite3.Connection) -> list[str]:
    """A problem per entity whose stored name does not give its key (readers stop on it:
    the key is the name's normalised form); at most 20, then how many more."""
    found = _Found()
    try:
        cur = conn.execute(  # plain ASCII, one space between words: its key is lower(name)
            "SELECT key, name FROM entities WHERE NOT (typeof(name) = 'text' AND name != '' "
            "AND name NOT GLOB '*[^ -~]*' AND name NOT GLOB ' *' AND name NOT GLOB '* ' "
            "AND instr(name, '  ') = 0 AND lower(name) = key)")
        for key, name in _rows(cur):
            try:
                got = normalize_key(name) if isinstance(name, str) else None
            except ValueError:  # empty after normalisation
                got = None
            if got != key:
                gives = "no key" if got is None else f"the key {got!r}"
                found.add("entities", "name", key, f"the name {shown(name)} gives {gives}, "
                                                   "not the row's key")
    except sqlite3.DatabaseError as exc:
        return [f"SQLite error: {exc}"]
    return found.lines()
