"""Connections of the PostgreSQL store: a pool, snapshot reads and retried write transactions.

Reads run in one ``REPEATABLE READ READ ONLY`` transaction (a consistent snapshot across
their SELECTs). Writes run in one transaction each and are retried, with jittered backoff,
when PostgreSQL reports a serialization failure or a deadlock. :class:`QmarkConnection` lets
the backend-neutral mention-merging code (written with ``?`` placeholders, as for SQLite) run
unchanged on a psycopg connection.
"""

from __future__ import annotations

import logging
import os
import random
import re
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any, TypeVar
from urllib.parse import unquote

from ....extras import install_hint
from ..base import StoreClosedError, StoreError
from .schema import FORMAT, OWN_SCHEMA, mask_url

__all__ = ["Pool", "QmarkConnection", "holds_store", "pg_sql"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")
_RETRYABLE = ("40001", "40P01")  # serialization_failure, deadlock_detected


def pg_sql(sql: str) -> str:
    """SQL written with ``?`` placeholders in psycopg's ``%s`` style."""
    return sql.replace("%", "%%").replace("?", "%s")


class QmarkConnection:
    """A psycopg connection that accepts ``?`` placeholders (DB-API ``qmark`` style)."""

    def __init__(self, conn: Any) -> None:
        self.conn = conn

    def execute(self, sql: str, params: Sequence[Any] = (), *, binary: bool = False) -> Any:
        """Run one statement; returns the cursor (``fetchall``/``fetchone``). ``binary``:
        results in PostgreSQL's binary format (a ``bytea`` as its bytes, not hex text)."""
        return self.conn.execute(pg_sql(sql), tuple(params), binary=binary)

    def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        """Run one statement for each row (pipelined by psycopg)."""
        rows = [tuple(r) for r in rows]
        if rows:
            with self.conn.cursor() as cur:
                cur.executemany(pg_sql(sql), rows)


#: seconds a connection attempt may take when neither the URL (``connect_timeout=``) nor
#: ``PGCONNECT_TIMEOUT`` says (libpq's own default is to wait forever: a host that accepts
#: TCP and never answers hung every command)
CONNECT_TIMEOUT_S = 10


#: seconds a query waits for a connection of the pool in all (behind busy ones)
POOL_WAIT_S = 30.0


def connect_wait(url: str) -> float:
    """How long one connection attempt to ``url`` may take: the URL's ``connect_timeout``,
    else ``PGCONNECT_TIMEOUT``, else :data:`CONNECT_TIMEOUT_S` (libpq: 0 means forever).

    >>> connect_wait("postgresql://h/db?connect_timeout=3"), connect_wait("postgresql://h/db")
    (3.0, 10.0)
    """
    m = re.search(r"[?&\s]connect_timeout\s*=\s*(\d+)", url)
    said = m.group(1) if m else os.environ.get("PGCONNECT_TIMEOUT", "")
    return float(said) if said.strip().isdigit() and int(said) > 0 else float(
        POOL_WAIT_S if said.strip() == "0" else CONNECT_TIMEOUT_S)


def connect_kwargs(url: str) -> dict[str, Any]:
    """The arguments of every connection to ``url``: autocommit, and
    :data:`CONNECT_TIMEOUT_S` unless the URL or the environment sets a timeout.

    >>> connect_kwargs("postgresql://h/db")["connect_timeout"]
    10
    >>> "connect_timeout" in connect_kwargs("postgresql://h/db?connect_timeout=3")
    False
    """
    kwargs: dict[str, Any] = {"autocommit": True}
    if "connect_timeout" not in url and not os.environ.get("PGCONNECT_TIMEOUT"):
        kwargs["connect_timeout"] = CONNECT_TIMEOUT_S
    return kwargs


def _still_open(conn: Any) -> None:
    """Raise when the server closed ``conn`` while it sat in the pool (a restart, a
    failover, an idle timeout): the pool then replaces it. Asked without a round trip (the
    check psycopg_pool ships sends an empty query each time a connection is taken): an
    idle connection the server has something to say on — the termination notice, or the
    end of the stream — is closed (this store never LISTENs)."""
    psycopg = _psycopg()
    if conn.closed:
        raise psycopg.OperationalError("the connection is closed")
    try:
        readable = _readable(conn.pgconn.socket)
    except OSError as exc:  # no socket any more
        conn.close()  # closed: the pool discards it (an open one it would take back)
        raise psycopg.OperationalError(f"the connection is gone: {exc}") from None
    if readable:
        conn.close()
        raise psycopg.OperationalError("the server closed the connection while it was idle")


def _readable(fd: int) -> bool:
    """Whether socket ``fd`` has data to read now (``poll``: any descriptor number;
    ``select`` refuses those of 1024 and above, which a busy process reaches)."""
    import select

    if hasattr(select, "poll"):
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return bool(poller.poll(0))
    return bool(select.select([fd], [], [], 0)[0])  # Windows: no poll, no such limit


class Pool:
    """A small psycopg connection pool bound to one database URL.

    Args:
        url: a libpq connection URI (credentials may also come from ``PG*`` variables).
        max_size: connections kept at most (threads of this process share them).
        retries: attempts of a write transaction before giving up.
    """

    def __init__(self, url: str, *, max_size: int = 4, retries: int = 8) -> None:
        psycopg = _psycopg()
        try:
            from psycopg_pool import ConnectionPool
        except ImportError as exc:  # pragma: no cover - the extra is missing
            raise _no_extra(exc) from None
        self.where = mask_url(url)
        self.retries = retries
        self._pin = threading.local()  # .conn: this thread's pinned connection
        self._errors = psycopg.Error
        kwargs = connect_kwargs(url)
        self._probe_args = (url, kwargs)
        #: how long a query waits for a pool connection before it asks the server directly
        self._wait = min(connect_wait(url), POOL_WAIT_S)
        try:  # one direct connection first: a wrong URL fails at once, not after a timeout
            psycopg.connect(url, **kwargs).close()
            # each connection is checked as it is taken: one the server closed (a restart,
            # a failover, an idle timeout) is replaced, not handed to a query that fails
            self._pool = ConnectionPool(url, min_size=1, max_size=max_size, open=False,
                                        kwargs=kwargs, timeout=30.0, check=_still_open)
            self._pool.open(wait=True, timeout=30.0)
        except Exception as exc:
            raise _cannot_connect(url, exc) from None

    def close(self) -> None:
        """Close every connection."""
        self._pool.close()

    @contextmanager
    def _take(self) -> Iterator[Any]:
        """A connection of the pool; :class:`StoreClosedError` once the pool is closed.

        Waiting longer than one connection attempt may take (the URL's ``connect_timeout``,
        10 s by default), it asks the server with a direct connection: one that fails is
        the :class:`StoreError` naming why (a server that went down failed every query
        after 30 s with "couldn't get a connection"); else the pool was only busy, and the
        wait goes on, :data:`POOL_WAIT_S` in all."""
        if self._pool.closed:
            raise StoreClosedError(self.where)
        from psycopg_pool import PoolTimeout

        with ExitStack() as stack:
            try:
                conn = stack.enter_context(self._pool.connection(timeout=self._wait))
            except PoolTimeout:
                url, kwargs = self._probe_args
                try:
                    _psycopg().connect(url, **kwargs).close()
                except Exception as exc:
                    raise _cannot_connect(url, exc) from None
                conn = stack.enter_context(self._pool.connection(
                    timeout=max(POOL_WAIT_S - self._wait, 1.0)))
            yield conn

    @contextmanager
    def connection(self) -> Iterator[Any]:
        """A raw autocommit connection from the pool."""
        with self._take() as conn:
            yield conn

    def _pinned(self) -> Any:
        """The connection of this thread's :meth:`pinned` block, if any."""
        return getattr(self._pin, "conn", None)

    def pinned_here(self) -> bool:
        """Whether this thread is inside a :meth:`pinned` block (its writes are refused)."""
        return self._pinned() is not None

    @contextmanager
    def read(self) -> Iterator[QmarkConnection]:
        """One consistent, read-only snapshot for the statements inside the block (in this
        thread's :meth:`pinned` block, the pinned transaction, behind a savepoint: a failed
        read leaves the snapshot usable)."""
        pinned = self._pinned()
        try:
            if pinned is not None:
                with pinned.transaction():
                    yield QmarkConnection(pinned)
                return
            with self._take() as conn, conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                yield QmarkConnection(conn)
        except self._errors as exc:
            raise StoreError(f"PostgreSQL store {self.where}: {_first_line(exc)}") from exc

    @contextmanager
    def pinned(self) -> Iterator[None]:
        """Every read this thread makes through the pool inside the block (:meth:`read`,
        :meth:`query`) runs in one ``REPEATABLE READ READ ONLY`` transaction held open for
        the block, so all of them see the state of the block's start; :meth:`write` from
        this thread raises :class:`StoreError` (its reads would see that old state). Other
        threads are not pinned. It keeps one connection of the pool: a pool of one
        connection reads unpinned (logged as a warning)."""
        if self._pinned() is not None:
            yield  # already pinned: the outer block's transaction
            return
        if self._pool.max_size < 2:
            log.warning("PostgreSQL store %s: a pool of one connection cannot hold a read "
                        "snapshot; reading statement by statement", self.where)
            yield
            return
        try:
            with self._take() as conn, conn.transaction():
                conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
                conn.execute("SET LOCAL idle_in_transaction_session_timeout = 0")
                conn.execute("SELECT 1")  # the snapshot is taken by the first statement: now
                self._pin.conn = conn
                try:
                    yield
                finally:
                    self._pin.conn = None
        except self._errors as exc:
            raise StoreError(f"PostgreSQL store {self.where}: {_first_line(exc)}") from exc

    def query(self, sql: str, params: Sequence[Any] = (), *, binary: bool = False
              ) -> list[Any]:
        """The rows of one statement (one snapshot by itself: no transaction block, so one
        round trip instead of the four of :meth:`read`; in a :meth:`pinned` block, on the
        pinned transaction); ``binary`` as in :meth:`QmarkConnection.execute`."""
        if self._pinned() is not None:
            with self.read() as c:
                return list(c.execute(sql, params, binary=binary).fetchall())
        try:
            with self._take() as conn:
                return list(QmarkConnection(conn).execute(sql, params, binary=binary)
                            .fetchall())
        except self._errors as exc:
            raise StoreError(f"PostgreSQL store {self.where}: {_first_line(exc)}") from exc

    def write(self, fn: Callable[[QmarkConnection], _T]) -> _T:
        """Run ``fn`` in one write transaction; retry on serialization failure/deadlock."""
        if self._pinned() is not None:
            raise StoreError(f"PostgreSQL store {self.where} holds a read snapshot "
                             "(read_snapshot()) in this thread; cannot write through it until "
                             "the snapshot ends")
        delay = 0.02
        for attempt in range(1, self.retries + 1):
            try:
                with self._take() as conn, conn.transaction():
                    return fn(QmarkConnection(conn))
            except self._errors as exc:
                code = getattr(exc, "sqlstate", None)
                if code not in _RETRYABLE or attempt == self.retries:
                    raise StoreError(
                        f"PostgreSQL store {self.where}: {_first_line(exc)}") from exc
                log.info("retrying a write on %s after %s (attempt %d)", self.where, code,
                         attempt)
                time.sleep(delay * (1 + random.random()))
                delay = min(delay * 2, 1.0)
        raise AssertionError("unreachable")  # pragma: no cover


def holds_store(url: str) -> bool:
    """Whether the database of ``url`` holds a VizRAG store (its ``meta`` table says so),
    read without writing anything (what a reader asks before opening it: a mistyped
    database name must not become an empty store); :class:`StoreError` when it cannot be
    reached."""
    psycopg = _psycopg()
    try:
        with psycopg.connect(url, **connect_kwargs(url)) as conn:
            if conn.execute(f"SELECT to_regclass({OWN_SCHEMA} || 'meta') IS NOT NULL"
                            ).fetchone() != (True,):
                return False
            row = conn.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
            return row is not None and row[0] == FORMAT
    except psycopg.Error as exc:
        raise _cannot_connect(url, exc) from None


def _psycopg() -> Any:
    """The ``psycopg`` module, or the :class:`StoreError` naming the extra to install."""
    try:
        import psycopg
    except ImportError as exc:  # pragma: no cover - the extra is missing
        raise _no_extra(exc) from None
    return psycopg


def _no_extra(exc: ImportError) -> StoreError:
    return StoreError(f"a postgresql:// store needs the postgres extra: "
                      f"{install_hint('postgres')} ({exc})")


def _cannot_connect(url: str, exc: BaseException) -> StoreError:
    """The one-line error of a connection that failed (the URL's password hidden)."""
    return StoreError(f"cannot connect to PostgreSQL store {mask_url(url)}: "
                      f"{_first_line(exc, url)}")


def _first_line(exc: BaseException, secret: str | None = None) -> str:
    """The first line of ``exc``'s message, with the URL ``secret`` masked and its password
    hidden however the driver quotes it (``invalid percent-encoded token: "hunter%2"``)."""
    text = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if secret:
        text = text.replace(secret, mask_url(secret))
        for word in sorted(_passwords(secret), key=len, reverse=True):
            text = text.replace(word, "***")
    return text


def _passwords(url: str) -> set[str]:
    """The password of ``url``'s ``user:password@`` as written and percent-decoded.

    >>> sorted(_passwords("postgresql://alice:hunter%2@db/rag"))
    ['hunter%2']
    >>> sorted(_passwords("postgresql://bob:p%40ss@db/rag"))
    ['p%40ss', 'p@ss']
    """
    m = re.match(r"[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)@", url)
    if m is None or ":" not in m.group(1):
        return set()
    raw = m.group(1).split(":", 1)[1]
    return {w for w in (raw, unquote(raw)) if w}
