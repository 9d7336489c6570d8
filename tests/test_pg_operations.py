"""A PostgreSQL store over a long life: the change token costs the same however many writes
the store has seen (``data_changes`` is trimmed), and still moves with every write."""

from __future__ import annotations

import psycopg
import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.store.postgres.schema import CHANGE_WINDOW


def _rows(url: str) -> int:
    with psycopg.connect(url) as conn:
        return int(conn.execute("SELECT COUNT(*) FROM data_changes").fetchone()[0])


def test_the_change_token_moves_and_the_history_is_trimmed(pg_url: str) -> None:
    with VizRAG(pg_url, show_progress=False) as rag:
        rag.insert([Document(id="a", title="Ada", text="Ada Lovelace met Charles Babbage.")])
        with psycopg.connect(pg_url, autocommit=True) as conn:  # a long history of writes
            conn.execute("INSERT INTO data_changes SELECT FROM generate_series(1, %s)",
                         (20 * CHANGE_WINDOW,))
        before = rag.store.query_generation()
        rag.insert([Document(id="b", title="Grace", text="Grace Hopper wrote A-0.")])
        after = rag.store.query_generation()
        assert after != before
        assert _rows(pg_url) <= 10 * CHANGE_WINDOW + 1  # the write trimmed the old rows
        assert rag.store.query_generation() == after  # no write: no move
        rag.delete("a")
        assert rag.store.query_generation() != after
        assert [c.doc_id for c in rag.query("Grace Hopper").chunks] == ["b"]


def test_connections_the_server_closed_are_replaced(pg_url: str) -> None:
    """A restart (here: every other backend of the database terminated) closes the pooled
    connections; the next query and insert of a long-lived engine take fresh ones."""
    with VizRAG(pg_url, show_progress=False) as rag:
        rag.insert([Document(id="a", title="Ada", text="Ada Lovelace met Charles Babbage.")])
        assert rag.query("Ada Lovelace").chunks
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute("SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity "
                         "WHERE datname = current_database() AND pid <> pg_backend_pid()")
        assert [c.doc_id for c in rag.query("Ada Lovelace", mode="text").chunks] == ["a"]
        rag.insert([Document(id="b", title="Grace", text="Grace Hopper wrote A-0.")])
        assert rag.store.stats().documents == 2


def test_a_server_that_never_answers_is_an_error_not_a_hang(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A host that accepts TCP and never answers: a clear StoreError after the connect
    timeout (libpq's default waits forever)."""
    import socket
    import time

    from hyperviz_core.rag.store import StoreError
    from hyperviz_core.rag.store.postgres import connection

    monkeypatch.setattr(connection, "CONNECT_TIMEOUT_S", 1)
    monkeypatch.delenv("PGCONNECT_TIMEOUT", raising=False)
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        t0 = time.monotonic()
        with pytest.raises(StoreError):
            VizRAG(f"postgresql://u:secret@127.0.0.1:{port}/db", show_progress=False)
        assert time.monotonic() - t0 < 15


def test_a_keyword_string_never_shows_its_password_without_psycopg(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the ``postgres`` extra (no psycopg), the refusal of a keyword connection
    string still leaves its password out (it echoed the whole string)."""
    import sys

    from hyperviz_core.rag.store import StoreError, open_store

    monkeypatch.setitem(sys.modules, "psycopg.conninfo", None)  # import fails
    with pytest.raises(StoreError, match="keyword connection string") as info:
        open_store("host=db.example user=alice password=s3cret dbname=rag")
    assert "s3cret" not in str(info.value) and "db.example" in str(info.value)


def test_a_store_opens_with_many_files_open(pg_url: str) -> None:
    """Descriptor numbers of 1024 and above (a busy process): the pool's check of a
    connection works on them (``select`` refused them, and every connection was closed)."""
    import os
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1200:
        pytest.skip("the process may not open 1,200 files")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        with VizRAG(pg_url, show_progress=False) as rag:
            rag.insert([Document(id="a", title="Ada", text="Ada Lovelace met Babbage.")])
            assert [c.doc_id for c in rag.query("Ada Lovelace", mode="text").chunks] == ["a"]
    finally:
        for fd in held:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_closed_store_says_so(pg_url: str) -> None:
    """A PostgreSQL store used after ``close()`` raises ``StoreClosedError``, as the SQLite
    store does (an indexing run into it stops at once)."""
    from hyperviz_core.rag import StoreClosedError

    rag = VizRAG(pg_url, show_progress=False)
    rag.insert([Document(id="closed-1", text="Ada Lovelace wrote the first program.")])
    rag.close()
    with pytest.raises(StoreClosedError, match="is closed"):
        rag.store.stats()
    with pytest.raises(StoreClosedError):
        rag.retrieve("Ada")
