"""Damaged rows: a stored value no write makes, read as one :class:`DamagedRowError`.

A store edited by hand (or by a broken tool) may hold a value that the readers cannot use:
JSON that does not parse or nests too deeply for Python's decoder, JSON of the wrong type, a
hyperedge weight stored as text (``'abc'``, ``'NaN'``), a vector blob of the wrong length.
The readers raise one :class:`DamagedRowError` (a
:class:`~hyperviz_core.rag.store.base.StoreError`) naming the table, column and row, never
Python's ``RecursionError``/``TypeError``/``ValueError`` of the value; ``vizrag check``
lists every such row (:mod:`.check_rows`).

Example:
    >>> loads('{"a":1}', "documents", "metadata", "d1")
    {'a': 1}
    >>> loads("[" * 100000, "hyperedges", "keywords", "h1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.store.sqlite.damage.DamagedRowError: damaged store: table hyperedges \
column keywords row 'h1': JSON nested too deeply to read; ...
    >>> real("abc", "hyperedges", "h1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.store.sqlite.damage.DamagedRowError: damaged store: table hyperedges \
column weight row 'h1': 'abc' is not a finite number; ...
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ..base import StoreError

__all__ = ["JSON_KINDS", "ROW_KEYS", "DamagedRowError", "check_blobs", "json_problem", "loads",
           "real", "row_text", "shown"]

#: the columns naming a row of each table (what a damaged row is named by)
ROW_KEYS: dict[str, tuple[str, ...]] = {
    "documents": ("id",), "chunks": ("id",), "themes": ("chunk_id",), "entities": ("key",),
    "hyperedges": ("id",), "entity_mentions": ("key", "chunk_id"),
    "hyperedge_mentions": ("hid", "chunk_id"), "embeddings": ("space", "id"),
}
#: the JSON type each JSON column holds (by its name: the same in every table)
JSON_KINDS: dict[str, type] = {"metadata": dict, "member_attrs": dict, "types": dict,
                               "keywords": list, "members": list}
_JSON_NAMES = {dict: "an object", list: "an array", str: "a string", int: "a number",
               float: "a number", bool: "a boolean", type(None): "null"}
_DECODER = json.JSONDecoder()
_SHOWN = 60  # characters of a bad value shown


def row_text(table: str, row: Any) -> str:
    """``'d1'`` for a row of a one-column key; ``(key 'a', chunk_id 'c1')`` for a row of a
    table keyed by several columns (``row`` their values, in :data:`ROW_KEYS` order)."""
    names = ROW_KEYS.get(table, ())
    if isinstance(row, tuple) and len(row) == len(names) > 1:
        return "(" + ", ".join(f"{n} {shown(v)}" for n, v in zip(names, row, strict=True)) + ")"
    return shown(row)


def shown(value: Any) -> str:
    """``repr(value)``, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= _SHOWN else text[:_SHOWN] + "…"


class DamagedRowError(StoreError):
    """A stored value that no write makes (the store was edited): its table, column, row
    (None: unknown) and what is wrong; ``path``: the store file, where known."""

    def __init__(self, table: str, column: str, row: Any, reason: str,
                 path: Path | str | None = None) -> None:
        self.table, self.column, self.row, self.reason = table, column, row, reason
        self.path = path
        where = f"table {table} column {column}" if table else "a stored value"
        if table and row is not None:
            where += f" row {row_text(table, row)}"
        store = f"store {path}" if path else "store"
        check = f"vizrag check --store {path}" if path else "vizrag check --store STORE"
        super().__init__(f"damaged {store}: {where}: {reason}; `{check}` lists every damaged "
                         "row: restore a backup or index again into a new store")

    def at(self, path: Path | str) -> DamagedRowError:
        """The same damage, naming the store file ``path``."""
        return DamagedRowError(self.table, self.column, self.row, self.reason, path)


def loads(text: str, table: str = "", column: str = "", row: Any = None) -> Any:
    """Inverse of :func:`~.schema.dumps`: a stored JSON column's value.

    Text that is not JSON, nests too deeply for Python's decoder or is not text at all raises
    :class:`DamagedRowError` naming ``table``, ``column`` and ``row`` (where given); so does
    JSON of another type than the column holds (:data:`JSON_KINDS`, when ``column`` is
    given)."""
    if text == "{}":
        value: Any = {}
    elif text == "[]":
        value = []
    else:
        try:
            value = _DECODER.decode(text)
        except RecursionError as exc:
            raise DamagedRowError(table, column, row, "JSON nested too deeply to read") from exc
        except TypeError as exc:  # not text: SQLite keeps what an edit stores
            raise DamagedRowError(table, column, row, f"{shown(text)} is not JSON text"
                                  ) from exc
        except ValueError as exc:
            raise DamagedRowError(table, column, row, f"not JSON ({exc})") from exc
    if column:
        kind = JSON_KINDS.get(column)
        if kind is not None and type(value) is not kind:
            raise DamagedRowError(table, column, row, f"JSON {_JSON_NAMES.get(type(value))} "
                                  f"where {_JSON_NAMES[kind]} belongs")
    return value


def json_problem(text: Any, column: str) -> str | None:
    """What :func:`loads` finds wrong with ``text`` of ``column`` (None: nothing)."""
    try:
        loads(text, "", column)
    except DamagedRowError as exc:
        return exc.reason
    return None


def real(value: Any, table: str, row: Any, column: str = "weight") -> float:
    """A stored weight as it is, when it is a finite number (what every write stores);
    else :class:`DamagedRowError` (text such as ``'abc'`` or ``'NaN'``, a blob, infinity)."""
    if (type(value) is float or type(value) is int) and math.isfinite(value):
        return value
    raise DamagedRowError(table, column, row, f"{shown(value)} is not a finite number")


def check_blobs(space: str, ids: Sequence[str], blobs: Sequence[bytes], dim: int) -> None:
    """Raise :class:`DamagedRowError` naming the first of the vectors ``blobs`` (of ``ids``
    in ``space``) whose length is not that of ``dim`` float16 or float32 values (``dim``
    <= 0: not recorded, nothing to compare with)."""
    if dim <= 0 or not blobs:
        return
    lengths = np.fromiter(map(len, blobs), dtype=np.int64, count=len(blobs))
    bad = np.flatnonzero((lengths != 2 * dim) & (lengths != 4 * dim))
    if bad.size:
        n = int(bad[0])
        more = f" ({bad.size - 1} more such vectors in this read)" if bad.size > 1 else ""
        raise DamagedRowError(
            "embeddings", "vector", (space, ids[n]),
            f"a blob of {int(lengths[n])} bytes, not a vector of the store's dimension {dim} "
            f"({2 * dim} bytes as float16, {4 * dim} as float32){more}")
