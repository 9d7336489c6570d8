"""A document's own failure, or the store's: what a failed document means for the run.

Most failures are a document's own (its extraction, a bad input, a model answer): the
document is reported (:attr:`~.report.IndexReport.errors`) and the run goes on. A failure of
the *store* is everyone's: a full disk, a read-only file, a lock another process holds past
the wait, a disk I/O error or a damaged file fails every document that follows the same
way. :func:`store_wide_error` tells them apart (the SQLite store's classification,
:func:`~hyperviz_core.rag.store.sqlite.schema.classify_error`, says what to do);
:class:`RunFailures` then stops the run once, with that one message as
:attr:`~.report.IndexReport.stopped`, and lists no per-document error for it. Documents
committed before stay committed.

Example:
    >>> import sqlite3
    >>> full = sqlite3.OperationalError("database or disk is full")
    >>> print(store_wide_error(full, "s.sqlite"))  # doctest: +ELLIPSIS
    store s.sqlite: the disk is full (database or disk is full); free some space and re-run...
    >>> store_wide_error(sqlite3.IntegrityError("UNIQUE constraint failed: chunks.id"), "s")
    >>> store_wide_error(ValueError("a document's own problem"), "s") is None
    True
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ..store import StoreClosedError, StoreError, StoreReplacedError
from ..store.sqlite.check import is_store_failure
from ..store.sqlite.conditions import file_condition
from ..store.sqlite.schema import classify_error
from ..types import Document
from .breaker import StartBreaker
from .guards import printable
from .replace import SourceLedger
from .report import IndexReport

__all__ = ["RunFailures", "is_lock_error", "refuse_read_only", "store_wide_error"]

log = logging.getLogger(__name__)

#: SQLite's words for a damaged or closed store file, besides the conditions
#: :func:`~hyperviz_core.rag.store.sqlite.conditions.file_condition` names (read-only, busy,
#: full disk, I/O error, cannot open); a constraint or a too-big value is a document's
_SQLITE_DAMAGED = ("malformed", "not a database", "closed database")
#: PostgreSQL error classes of the whole database (SQLSTATE): connection, insufficient
#: resources (disk full), operator intervention, system (I/O) and internal errors
_PG_STORE_WIDE_CLASSES = ("08", "53", "57", "58", "XX")
#: ... and single conditions: a read-only transaction, a lock not obtained in time, a role
#: without the privilege to write (every document would fail alike, after its extraction)
_PG_STORE_WIDE_STATES = ("25006", "55P03", "42501")


def store_wide_error(exc: BaseException, path: str | Path) -> StoreError | None:
    """The one-line :class:`StoreError` when ``exc`` is a condition of the whole store at
    ``path`` (see the module doc), else None (the document's own failure)."""
    if isinstance(exc, StoreReplacedError | StoreClosedError):  # every later write would
        # fail the same way
        return exc
    cause = exc.__cause__ if isinstance(exc, StoreError) and exc.__cause__ else exc
    if is_store_failure(cause) and not isinstance(cause, StoreError):  # an SQLite error
        if file_condition(cause) is None and not any(
                word in str(cause).lower() for word in _SQLITE_DAMAGED):
            return None
        if isinstance(exc, StoreError):
            return exc
        raw: Any = cause  # a sqlite3.DatabaseError (only the store package imports sqlite3)
        return classify_error(Path(str(path)), raw)
    if isinstance(exc, StoreError) and _postgres_store_wide(cause):
        return exc
    return None


def _postgres_store_wide(exc: BaseException) -> bool:
    """Whether a psycopg error (its SQLSTATE) concerns the whole database."""
    if not hasattr(exc, "sqlstate"):
        return False
    state = getattr(exc, "sqlstate", None)
    if state is None:  # raised by the client: a lost or refused connection
        return type(exc).__name__ in ("OperationalError", "InterfaceError")
    state = str(state)
    return state[:2] in _PG_STORE_WIDE_CLASSES or state in _PG_STORE_WIDE_STATES


def refuse_read_only(store: Any) -> None:
    """Raise :class:`StoreError` when ``store`` was opened read-only, or this thread holds
    its read snapshot (the indexer's workers would each wait for it in vain): a run into
    it would fail every document the same way, so it is refused before any is read."""
    held = getattr(store, "snapshot_held_here", None)
    if callable(held) and held():
        raise StoreError(f"store {store.path} holds a read snapshot (read_snapshot()) in this "
                         "thread; cannot index documents through it until the snapshot ends")
    if getattr(store, "read_only", False):
        why = getattr(store, "unwritable", None)  # a read-only file system: not "reopen"
        raise StoreError(f"store {store.path} is open read-only; cannot index documents "
                         f"({why or 'open it writable'})")


def is_lock_error(exc: BaseException | str) -> bool:
    """Whether ``exc`` (a store's error, or a run's :attr:`~.report.IndexReport.stopped`)
    says another process holds the store's lock: that process may be the one that created
    the store a moment ago, so nobody else may remove it."""
    if not isinstance(exc, str) and not is_store_failure(exc):
        return False
    text = str(exc).lower()
    return "database is locked" in text or "another process holds a lock" in text


class RunFailures:
    """The failed documents of one run: per document, or one stop for the store's failure
    (after :class:`~.breaker.StartBreaker`'s provider stop, the other way a run stops)."""

    def __init__(self, report: IndexReport, ledger: SourceLedger, store_path: str | Path
                 ) -> None:
        self.report = report
        self.ledger = ledger
        self.store_path = store_path
        self.breaker = StartBreaker()
        #: the store's failure (one line), once a document failed with one
        self.store_error: str | None = None
        #: the run was cancelled (Ctrl-C, SIGTERM, a timeout): what its documents in flight
        #: raise then (a killed worker's BrokenProcessPool) is no failure of theirs
        self.halted = False

    @property
    def reason(self) -> str | None:
        """Why the run stops reading documents (None: it goes on)."""
        return self.store_error or self.breaker.reason

    def success(self) -> None:
        """A document was stored or found unchanged."""
        self.breaker.success()

    def failure(self, doc: Document, exc: Exception) -> None:
        """``doc`` failed with ``exc``: a per-document error, or the store's stop (nothing
        once the run was :attr:`halted`: the document was cut off, not failed)."""
        if self.halted:
            return
        self.ledger.failed(doc)
        self.report.documents_failed += 1
        wide = store_wide_error(exc, self.store_path)
        if wide is not None:
            if self.store_error is None:  # said once, not once per document
                self.store_error = str(wide)
                log.info("indexing stops: %s", wide)
            return
        self.report.errors.append(f"{printable(doc.id)}: {type(exc).__name__}: {exc}")
        if self.report._first_error is None:  # raise_for_failures chains it: the traceback
            self.report._first_error = exc
        log.warning("indexing %s failed: %s: %s", printable(doc.id), type(exc).__name__, exc)
        log.debug("indexing %s failed", printable(doc.id), exc_info=exc)  # where, for a
        # custom extractor's or model's bug (the report keeps one line)
        self.breaker.failure(exc)  # ... unless the provider failed every one so far
