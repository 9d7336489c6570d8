"""``copy_store`` from a PostgreSQL source that another writer changes while the copy runs
copies the source as it was when the copy began (every read of the source in one read
transaction held open for the copy, ``PostgresStore.read_snapshot``). The server is started
by the test suite (``tests/pg_server.py``)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from test_migrate_snapshot import CHANGES, DOCS, assert_copy_of, copy_while_written

from hyperviz_core.rag import Indexer
from hyperviz_core.rag.store import StoreError, open_store


def test_copy_of_a_postgres_source_is_one_state(pg_url: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    with open_store(pg_url) as s:
        Indexer(s, show_progress=False).index(DOCS)
        before = {d.id: d.hash for d in s.documents()}
        stats_before = s.stats()

    def write() -> None:
        with open_store(pg_url) as other:
            other.delete_document("c")
            Indexer(other, show_progress=False).index(CHANGES)

    with open_store(pg_url) as src, open_store(tmp_path / "dst") as dst:
        report = copy_while_written(src, dst, monkeypatch, write)
        assert_copy_of(report, dst, before, stats_before)
        assert dst.check() == []
    with open_store(pg_url) as s:  # the writer's changes did land
        assert sorted(d.id for d in s.documents()) == ["a", "b", "d"]


def test_a_failed_read_leaves_the_snapshot_usable(pg_url: str) -> None:
    """A read whose error the store handles (the kept-arrays table is missing on a fresh
    store) runs behind a savepoint: the pinned transaction is not aborted by it."""
    with open_store(pg_url) as s:
        Indexer(s, show_progress=False).index(DOCS)
    with open_store(pg_url) as src, src.read_snapshot():
        src.layer_structure("relation")
        assert sorted(d.id for d in src.documents()) == ["a", "b", "c"]


def test_writing_through_the_pinned_object_is_refused(pg_url: str) -> None:
    """Inside the block this thread's reads see the old state, so a write would compare
    against it (an identical-hash skip could drop a newer version): refused instead."""
    with open_store(pg_url) as s:
        Indexer(s, show_progress=False).index(DOCS)
        hashes = {d.id: d.hash for d in s.documents()}
    with open_store(pg_url) as src:
        with src.read_snapshot():
            src.documents()
            with pytest.raises(StoreError, match=r"holds a read snapshot"):
                src.delete_document("a")
        assert {d.id: d.hash for d in src.documents()} == hashes
        src.delete_document("a")  # after the block: writes again
        assert sorted(d.id for d in src.documents()) == ["b", "c"]


def test_other_threads_read_unpinned_while_one_thread_holds_the_snapshot(pg_url: str) -> None:
    with open_store(pg_url) as s:
        Indexer(s, show_progress=False).index(DOCS)
    errors: list[str] = []
    stop = threading.Event()
    with open_store(pg_url) as src:
        def reader() -> None:
            while not stop.is_set():
                try:
                    assert len(src.documents()) >= 3
                    with src._pool.read() as c:  # a read that spans a pin's start or end
                        c.execute("SELECT pg_sleep(0.001)")
                except Exception as exc:  # collected, asserted below
                    errors.append(repr(exc))

        threads = [threading.Thread(target=reader) for _ in range(3)]
        for t in threads:
            t.start()
        try:
            for _ in range(300):
                with src.read_snapshot():
                    assert src.embedder_info() is not None
                    assert len(src.documents()) == 3
        finally:
            stop.set()
            for t in threads:
                t.join()
    assert errors == []


def test_a_one_chunk_document_keeps_its_hash_in_a_postgres_copy(pg_url: str,
                                                                 tmp_path: Path) -> None:
    from test_migrate_snapshot import assert_one_chunk_survives_a_copy

    assert_one_chunk_survives_a_copy(tmp_path / "src", pg_url)
