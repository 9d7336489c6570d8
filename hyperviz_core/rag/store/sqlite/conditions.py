"""What an SQLite error says about the whole store file, rather than one statement.

A read-only file, a lock another process holds, a full disk, an I/O failure or a file that
cannot be opened fails every write alike; a constraint or a too-big value is one
statement's own. :func:`~.schema.classify_error` turns the first kind into a one-line
message saying what to do; an indexing run stops once on it
(:mod:`hyperviz_core.rag.index.failures`).

Example:
    >>> import sqlite3
    >>> file_condition(sqlite3.OperationalError("database or disk is full"))
    'full'
    >>> file_condition(sqlite3.IntegrityError("UNIQUE constraint failed: chunks.id")) is None
    True
"""

from __future__ import annotations

__all__ = ["file_condition"]


def file_condition(exc: BaseException) -> str | None:
    """The condition of the whole store file an SQLite error reports — ``"read-only"``,
    ``"busy"``, ``"full"``, ``"io"`` or ``"open"`` (cannot open) — or None (a damaged file,
    or a statement's own failure such as a constraint)."""
    text = str(exc).lower()
    if "readonly" in text or "read-only" in text:
        return "read-only"
    if "locked" in text or "busy" in text:
        return "busy"
    if "is full" in text:
        return "full"
    if "disk i/o error" in text:
        return "io"
    if "unable to open" in text:
        return "open"
    return None
