"""Open a store from what a user typed: a directory, a ``.sqlite`` file or a database URL.

Every place that accepts a store (the CLI's ``--store``, ``VizRAG(...)``, the indexer, the
framework wrappers) goes through :func:`open_store`, so a new backend is one branch here.

Example:
    >>> import tempfile
    >>> store = open_store(tempfile.mkdtemp())
    >>> type(store).__name__
    'HypergraphStore'
    >>> store.close()
    >>> try:
    ...     open_store("mysql://db/rag")
    ... except StoreError as exc:
    ...     print(str(exc).split(";")[0])
    store 'mysql://db/rag': there is no 'mysql' store backend
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .base import STORE_URL, StoreError, StoreNotFoundError, redact_url
from .postgres.schema import is_keyword_dsn, is_postgres_url, mask_url
from .protocol import StoreProtocol, not_a_store

__all__ = ["is_store_url", "open_store", "refuse_keyword_dsn", "sqlite_store_exists",
           "store_exists"]


def is_store_url(spec: object) -> bool:
    """Whether ``spec`` is a URL (``scheme://...``) rather than a path."""
    return isinstance(spec, str) and bool(STORE_URL.match(spec.strip()))


def sqlite_store_exists(spec: str | Path) -> bool:
    """Whether the SQLite store ``spec`` (a directory with ``vizrag.sqlite`` inside, or a
    ``.sqlite`` file) exists: an empty or unrelated folder holds none. Readers that must
    not create a store ask this first.

    >>> import tempfile
    >>> sqlite_store_exists(tempfile.mkdtemp())
    False
    """
    from .sqlite.schema import resolve_path

    return resolve_path(spec).is_file()


def store_exists(spec: str | Path) -> bool:
    """Whether ``spec`` names an existing store: a SQLite one (:func:`sqlite_store_exists`)
    or a PostgreSQL database holding a VizRAG store (asked without writing; an unreachable
    database is a :class:`StoreError`). Readers that must not create a store ask this first:
    opening a store creates it.

    >>> import tempfile
    >>> store_exists(tempfile.mkdtemp())
    False
    """
    refuse_keyword_dsn(spec)
    if is_postgres_url(spec):
        from .postgres.connection import holds_store

        return holds_store(str(spec).strip())
    if is_store_url(spec):  # no such backend: the error open_store gives
        open_store(spec)
    return sqlite_store_exists(spec)


def refuse_keyword_dsn(spec: object) -> None:
    """Raise :class:`StoreError` for a libpq keyword connection string (``host=h
    dbname=rag``): it is not a store path (it became a directory of that name) and is not
    taken as a database either; the error shows its URI form, without the password."""
    if is_keyword_dsn(spec):
        raise StoreError(
            "the store looks like a PostgreSQL keyword connection string (host=... "
            f"dbname=...); give it as a URI instead, e.g. {mask_url(str(spec), as_uri=True)} "
            "(the password in the URI as postgresql://user:password@host/db, or in PGPASSWORD "
            "or ~/.pgpass)")


def open_store(spec: str | Path | StoreProtocol, *, read_only: bool | None = None,
               must_exist: bool = False, **options: Any) -> StoreProtocol:
    """A store object for ``spec``; an already open store is returned as it is.

    Args:
        spec: a store directory (``vizrag.sqlite`` inside) or ``.sqlite`` file (SQLite), a
            ``postgresql://`` / ``postgres://`` URL (PostgreSQL + pgvector), or a store; a
            libpq keyword string (``host=... dbname=...``) is refused
            (:func:`refuse_keyword_dsn`).
        read_only: SQLite only: open with ``mode=ro`` (None = when the file is read-only).
            A PostgreSQL store of an older schema is upgraded when a role that may change
            its tables opens it, else read as it is (option ``upgrade_on_open=False``: read
            as it is; its first write upgrades it).
        must_exist: open only an existing store, never create one (what readers ask):
            :class:`StoreNotFoundError` otherwise. A database is asked on the connection
            that opens the store.
        options: backend options (``summary_threshold``; SQLite: ``ann_threshold``, the
            vector count from which a space is searched through a persisted HNSW index,
            0/None = never; PostgreSQL: ``exact_limit``, ``max_connections``).
    """
    if not isinstance(spec, (str, Path)):
        if isinstance(spec, StoreProtocol):
            return spec
        raise StoreError(f"not a store: {not_a_store(spec)} (give a path, a URL or a store)")
    refuse_keyword_dsn(spec)
    if is_postgres_url(spec):
        from .postgres.store import PostgresStore

        return PostgresStore(str(spec).strip(), must_exist=must_exist, **options)
    url = STORE_URL.match(str(spec).strip())
    if url:
        raise StoreError(
            f"store {redact_url(str(spec))!r}: there is no {url.group(1)!r} store backend; give a "
            "directory, a .sqlite file or a postgresql:// URL")
    from .sqlite.store import HypergraphStore

    if must_exist and not sqlite_store_exists(spec):
        raise StoreNotFoundError(spec)
    return HypergraphStore(spec, read_only=read_only, **options)
