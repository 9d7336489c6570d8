"""A copy of a SQLite store that another writer changes while the copy runs is one state of
the source: the state when the copy began (``HypergraphStore.read_snapshot``)."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.store import StoreStats, open_store, transfer
from hyperviz_core.rag.store.transfer import TransferReport, copy_store

DOCS = [Document(id="a", title="Ada", text="Ada Lovelace met Charles Babbage in London."),
        Document(id="b", title="Grace", text="Grace Hopper worked on the Harvard Mark I."),
        Document(id="c", title="Alan", text="Alan Turing studied at King's College.")]


#: what the other writer stores mid-copy (beside deleting "c")
CHANGES = [Document(id="b", title="Grace", text="Grace Hopper wrote the first compiler, A-0."),
           Document(id="d", title="Edsger", text="Edsger Dijkstra lived in Austin.")]


def _source(tmp_path: Path) -> Path:
    with VizRAG(tmp_path / "src", show_progress=False) as rag:
        rag.insert(DOCS)
    return tmp_path / "src"


def copy_while_written(src: Any, dst: Any, monkeypatch: pytest.MonkeyPatch,
                       write: Callable[[], None]) -> TransferReport:
    """``copy_store(src, dst)`` one document per batch, with ``write()`` (another writer
    changing the source) run after the first batch."""
    monkeypatch.setattr(transfer, "BATCH_DOCUMENTS", 1)
    real = dst.add_documents
    written: list[bool] = []

    def add_then_write(items: Any, **kw: Any) -> Any:
        out = real(items, **kw)
        if not written:
            written.append(True)
            write()
        return out

    monkeypatch.setattr(dst, "add_documents", add_then_write)
    return copy_store(src, dst, show_progress=False)


def assert_copy_of(report: TransferReport, dst: Any, hashes: dict[str, str],
                   stats: StoreStats) -> None:
    """``dst`` holds exactly the documents ``hashes`` names, the counts checked equal."""
    assert report.verified, report.mismatches
    assert report.documents_copied == len(hashes)
    assert {d.id: d.hash for d in dst.documents()} == hashes
    assert report.source.model_dump(exclude={"path"}) == stats.model_dump(exclude={"path"})


@pytest.mark.parametrize("read_only", [True, False])
def test_copy_is_the_source_as_it_was_when_the_copy_began(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read_only: bool) -> None:
    path = _source(tmp_path)
    with open_store(path, read_only=True) as s:
        before = {d.id: d.hash for d in s.documents()}
        stats_before = s.stats()

    def write() -> None:
        with VizRAG(path, show_progress=False) as other:
            other.delete("c")
            other.insert(CHANGES)

    with open_store(path, read_only=read_only) as src, open_store(tmp_path / "dst") as dst:
        report = copy_while_written(src, dst, monkeypatch, write)
        assert_copy_of(report, dst, before, stats_before)
    with open_store(path, read_only=True) as s:  # the writer's changes did land
        assert sorted(d.id for d in s.documents()) == ["a", "b", "d"]


def test_closing_a_writer_does_not_wait_for_a_reader_holding_an_older_snapshot(
        tmp_path: Path) -> None:
    """The write-ahead log checkpoint at ``close`` gives up at once when a reader (another
    process's copy or query) still reads an older state: before, the close sat in SQLite's
    busy handler for the whole busy timeout (60 s) and then gave up anyway."""
    import sqlite3
    import time

    from hyperviz_core.rag.store.sqlite import schema

    path = _source(tmp_path)
    reader = sqlite3.connect(str(path / "vizrag.sqlite"), isolation_level=None)
    try:
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM documents").fetchone()[0] == 3
        rag = VizRAG(path, show_progress=False)
        rag.insert([Document(id="d", title="Edsger", text="Edsger Dijkstra lived in Austin.")])
        t0 = time.monotonic()
        rag.close()
        assert time.monotonic() - t0 < schema._RETRY_S / 2
        # the reader still sees its state; the commit is kept (in the log until a checkpoint)
        assert reader.execute("SELECT count(*) FROM documents").fetchone()[0] == 3
        reader.execute("COMMIT")
    finally:
        reader.close()
    with open_store(path, read_only=True) as s:
        assert sorted(d.id for d in s.documents()) == ["a", "b", "c", "d"]


def test_writing_through_a_store_holding_its_snapshot_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write inside ``read_snapshot()`` would end the read transaction (or, from the
    engine's writer thread, wait for the lock the block holds, forever): refused — at once
    from the block's thread, after ``SNAPSHOT_WAIT_S`` from a worker writing for it — and
    the store written afterwards."""
    from hyperviz_core.rag.store import StoreError
    from hyperviz_core.rag.store.sqlite import store as sqlite_store

    monkeypatch.setattr(sqlite_store, "SNAPSHOT_WAIT_S", 0.5)

    path = _source(tmp_path)
    with VizRAG(path, show_progress=False) as rag:
        with rag.store.read_snapshot():
            with pytest.raises(StoreError, match="holds a read snapshot"):
                rag.store.delete_document("a")
            t0 = time.monotonic()
            with pytest.raises(StoreError, match=r"holds a read snapshot.*in this thread"):
                rag.insert([Document(id="d", title="Edsger", text="Edsger Dijkstra "
                                     "lived in Austin.")])
            assert time.monotonic() - t0 < 0.4  # refused at once, no worker waits for it
        assert sorted(d.id for d in rag.store.documents()) == ["a", "b", "c"]
        rag.insert([Document(id="d", title="Edsger", text="Edsger Dijkstra lived in Austin.")])
        assert sorted(d.id for d in rag.store.documents()) == ["a", "b", "c", "d"]


def test_a_query_measuring_passages_does_not_end_the_snapshot(tmp_path: Path) -> None:
    """The BM25 lengths a query measures are not written inside the caller's snapshot (their
    write transaction's failure used to roll the snapshot back, showing later commits)."""
    path = _source(tmp_path)
    with VizRAG(path, show_progress=False) as rag:
        store = rag.store
        assert store.lexical_ready()  # the full-text index the lengths are read beside
        with store.read_snapshot():
            store.lexical_lengths(len)
            with VizRAG(path, show_progress=False) as other:
                other.insert([Document(id="z", title="Zed", text="Zed Zork met Quux.")])
            assert len(store.documents()) == 3
        assert len(store.documents()) == 4


def test_a_nested_snapshot_leaves_the_outer_one_held(tmp_path: Path) -> None:
    from hyperviz_core.rag.store import StoreError

    path = _source(tmp_path)
    with open_store(path) as store, store.read_snapshot():
        with store.read_snapshot():
            pass
        with pytest.raises(StoreError, match="holds a read snapshot"):
            store.delete_document("a")
    with open_store(path, read_only=True) as store:
        assert sorted(d.id for d in store.documents()) == ["a", "b", "c"]


def test_another_threads_write_waits_for_the_snapshot(tmp_path: Path) -> None:
    """Only the snapshot's own thread is refused a write: another thread's (a query's
    snapshot beside an insert on one engine) waits for the snapshot to end, then runs."""
    import threading
    import time

    path = _source(tmp_path)
    with open_store(path) as store:
        inside, errors = threading.Event(), []

        def reader() -> None:
            with store.read_snapshot():
                inside.set()
                time.sleep(0.5)
                assert len(store.documents()) == 3  # the other thread's delete unseen

        t = threading.Thread(target=reader)
        t.start()
        inside.wait()
        try:
            store.delete_document("a")
        except Exception as exc:
            errors.append(exc)
        t.join()
        assert errors == [] and sorted(d.id for d in store.documents()) == ["b", "c"]


def assert_one_chunk_survives_a_copy(src: Any, dst: Any) -> None:
    """A ``one_chunk`` document (a framework's node) copied into ``dst`` keeps its hash, so
    re-inserting the same node there is a no-op, not a re-index; ``documents()`` says
    ``one_chunk`` again."""
    node = Document(id="node-1", title="Ada", text="Ada Lovelace met Charles Babbage. " * 90,
                    one_chunk=True)
    with VizRAG(src, show_progress=False) as rag:
        rag.insert([node, DOCS[1]])
        assert [d.one_chunk for d in rag.store.documents()] == [False, True]  # b, node-1
    with open_store(src) as a, open_store(dst) as b:
        assert copy_store(a, b, show_progress=False).verified
        assert b.document_hash("node-1") == a.document_hash("node-1") == node.hash
        assert b.documents(["node-1"])[0] == node
    with VizRAG(dst, show_progress=False) as rag:
        report = rag.insert([node])
        assert (report.documents_skipped, report.documents_replaced) == (1, 0)


def test_a_one_chunk_document_keeps_its_hash_in_a_copy(tmp_path: Path) -> None:
    assert_one_chunk_survives_a_copy(tmp_path / "src", tmp_path / "dst")
