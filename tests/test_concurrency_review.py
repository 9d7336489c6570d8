"""Concurrency review fixes: one store state per result, a replaced store file, fork() while a
query runs, a cancelled group commit.

Every interleaving is forced with events or hooks (no sleeps): a write lands exactly where
the old code read the store twice, a lock is held by another thread at the fork, a batch is
cancelled while it waits for a worker thread.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Document, HypergraphStore, VizRAG
from hyperviz_core.rag.index.commit import GroupCommit
from hyperviz_core.rag.store import DocumentInput, StoreError
from hyperviz_core.rag.types import Chunk

DATA = Path(__file__).parent / "data"
QUESTION = "Who is the wife of Kim Jong-chul?"
#: about the 13th document (the one the writer toggles), and not
QUESTIONS = ["Which sumo wrestler was born as Kenji Imada?", "What stable did Akinoshu join?",
             QUESTION]
MODES = ("vizrag", "text", "hyper-lite")


def _docs(n: int) -> list[Document]:
    passages = json.loads((DATA / "musique_sample.json").read_text())[:n]
    return [Document(id=f"p{p['idx']:04d}", text=p["text"], title=p["title"])
            for p in passages]


@pytest.fixture(scope="module")
def docs() -> list[Document]:
    return _docs(13)


@pytest.fixture
def store_dir(tmp_path: Path, docs: list[Document]) -> Path:
    """A store of the first 12 documents (state S0; the 13th toggles in and out)."""
    path = tmp_path / "store"
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(docs[:12])
    return path


def _key(res: Any) -> Any:
    return ([(c.chunk_id, round(c.score, 6)) for c in res.chunks],
            sorted(e.key for e in res.entities), sorted(h.id for h in res.hyperedges))


# ---------------------------------------------------------------- one store state (defect 1)
def test_loaded_corpus_is_read_in_one_state(store_dir: Path, docs: list[Document]) -> None:
    """Another process commits a document between the reads of the loaded corpus (after
    the layers, before the chunks): the corpus is still one state's (the old code read the
    new document's chunks beside layers without its entities)."""
    rag = VizRAG(store_dir, show_progress=False, lazy=False)
    store = rag.store
    other = VizRAG(store_dir, show_progress=False)
    real_chunks = store.chunks

    def chunks(ids: Any = None) -> Any:
        if ids is None and not store.document_hash(docs[12].id):
            other.insert([docs[12]])  # commits through another connection, right now
        return real_chunks(ids)

    store.chunks = chunks  # type: ignore[method-assign]
    corpus = rag.retriever.corpus()
    chunk_docs = {c.doc_id for c in corpus.chunks.chunks}
    assert store.document_hash(docs[12].id), "the other process committed meanwhile"
    assert chunk_docs == {d.id for d in docs[:12]}, "chunks of a later state than the layers"
    other.close()
    rag.close()


@pytest.mark.parametrize("lazy", [True, False])
def test_result_is_one_state_under_a_busy_writer(store_dir: Path, docs: list[Document],
                                                 lazy: bool) -> None:
    """A writer commits between the stages of every attempt (a hook toggles the 13th
    document in or out at the start of ``themes`` and ``bottom_entities``): each lazy
    attempt sees the store move, the fallback (and the loaded path) must still give
    exactly one state's result (the old code searched vectors of a later state than the
    loaded corpus's layers)."""
    extra = docs[12]
    asks = [(q, m) for q in QUESTIONS for m in MODES]
    with VizRAG(store_dir, show_progress=False, lazy=lazy) as quiet:
        s0 = {a: _key(quiet.retrieve(a[0], mode=a[1], render=False)) for a in asks}
        quiet.insert([extra])
        s1 = {a: _key(quiet.retrieve(a[0], mode=a[1], render=False)) for a in asks}
        quiet.delete(extra.id)
    assert s0 != s1
    writer = VizRAG(store_dir, show_progress=False)
    toggles = 0

    def toggle(name: str, phase: str, payload: dict[str, Any]) -> None:
        nonlocal toggles
        if name in ("themes", "bottom_entities") and phase == "start":
            if writer.store.document_hash(extra.id):
                writer.delete(extra.id)
            else:
                writer.insert([extra])
            toggles += 1

    rag = VizRAG(store_dir, show_progress=False, lazy=lazy)
    rag.retrieve("warm up", render=False)
    mixed = [a for a in asks if _key(rag.retrieve(a[0], mode=a[1], render=False,
                                                   hooks=[toggle])) not in (s0[a], s1[a])]
    assert mixed == [], "results of two store states"
    assert toggles >= len(asks)
    writer.close()
    rag.close()


# ---------------------------------------------------------------- replaced file (defect 2)
def _doc_input(doc_id: str) -> DocumentInput:
    return DocumentInput(doc=Document(id=doc_id, text="Zed Alpha met Quux Beta in Oslo."),
                         chunks=[Chunk(id=f"c-{doc_id}", doc_id=doc_id,
                                       text="Zed Alpha met Quux Beta in Oslo.")])


def test_write_to_a_replaced_store_file_raises(tmp_path: Path) -> None:
    """The store file replaced by another store (``mv``, as another process would): the
    open store refuses to write (the old code wrote to the unlinked file: lost)."""
    store = HypergraphStore(tmp_path / "a")
    store.add_documents([_doc_input("d1")])
    other = HypergraphStore(tmp_path / "b")
    other.add_documents([_doc_input("b1")])
    other.close()
    os.replace(tmp_path / "b" / "vizrag.sqlite", store.path)
    with pytest.raises(StoreError, match="deleted or replaced by another process"):
        store.add_documents([_doc_input("d2")])
    with pytest.raises(StoreError, match=str(store.path)):
        store.bottom()
    with pytest.raises(StoreError, match="open it again"):
        store.query_generation()
    store.close()
    fresh = HypergraphStore(tmp_path / "a")
    assert [d.id for d in fresh.documents()] == ["b1"]
    fresh.close()


def test_deleted_store_file_raises(tmp_path: Path) -> None:
    store = HypergraphStore(tmp_path / "a")
    store.add_documents([_doc_input("d1")])
    for p in tmp_path.joinpath("a").iterdir():
        p.unlink()
    with pytest.raises(StoreError, match="deleted or replaced"):
        store.add_documents([_doc_input("d2")])
    with pytest.raises(StoreError, match="deleted or replaced"):
        store.stats()
    store.close()


# ---------------------------------------------------------------- fork (defect 3)
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")
def test_fork_while_another_thread_holds_the_locks(store_dir: Path) -> None:
    """Another thread holds the retriever's stage lock and the store's lock (a query in
    progress) when the process forks: the child's query is refused at once with a
    StoreError naming fork() (new locks; an SQLite connection cannot cross a fork) instead
    of waiting forever."""
    rag = VizRAG(store_dir, show_progress=False)
    rag.retrieve(QUESTION, render=False)
    parent_conn = rag.store._conn
    held, done = threading.Event(), threading.Event()

    def hold() -> None:
        with rag.retriever._stages_lock, rag.store._lock:
            held.set()
            done.wait(30)

    thread = threading.Thread(target=hold)
    thread.start()
    assert held.wait(10)
    pid = os.fork()
    if pid == 0:  # the child: exit 0 when the query is refused, naming fork()
        signal.alarm(8)
        code = 1
        try:
            rag.retrieve(QUESTION, render=False)
            code = 2  # it ran on the parent's connection
        except StoreError as exc:
            code = 0 if "before fork()" in str(exc) and rag.store._conn is not parent_conn else 3
        finally:
            os._exit(code)
    try:
        deadline = time.monotonic() + 15
        while True:
            got, status = os.waitpid(pid, os.WNOHANG)
            if got:
                break
            if time.monotonic() > deadline:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
                pytest.fail("the child hung in its first query")
            done.wait(0.05)
    finally:
        done.set()
        thread.join()
    assert os.waitstatus_to_exitcode(status) == 0
    assert len(rag.retrieve(QUESTION, render=False).chunks)  # the parent is unaffected
    rag.close()


# ---------------------------------------------------------------- cancelled commit (defect 4)
@pytest.fixture
def one_worker() -> Iterator[ThreadPoolExecutor]:
    pool = ThreadPoolExecutor(max_workers=1)
    yield pool
    pool.shutdown(wait=True)


def test_cancelled_batch_waiting_for_a_worker_writes_nothing(
        tmp_path: Path, one_worker: ThreadPoolExecutor) -> None:
    """The batch's worker thread has not started when the caller is cancelled (the thread
    pool is busy): nothing of it is committed afterwards (the old code committed it once a
    thread was free, after the caller's TimeoutError)."""
    store = HypergraphStore(tmp_path / "s")
    busy, release = threading.Event(), threading.Event()

    def occupy() -> None:
        busy.set()
        release.wait(30)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        loop.set_default_executor(one_worker)
        blocker = loop.run_in_executor(None, occupy)
        assert busy.wait(10)
        group = GroupCommit(store)
        task = asyncio.create_task(group.write(_doc_input("d1")))
        for _ in range(1000):  # until the batch is queued behind the busy worker
            if one_worker._work_queue.qsize():
                break
            await asyncio.sleep(0)
        assert one_worker._work_queue.qsize() == 1
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        release.set()
        await blocker

    asyncio.run(main())
    one_worker.shutdown(wait=True)  # the queued batch (if any) ran by now
    assert store.stats().documents == 0
    store.close()


class _PausingStore(HypergraphStore):
    """Pauses in its first ``add_documents`` call until released."""

    entered: threading.Event
    release: threading.Event
    finished: threading.Event

    def add_documents(self, items: Any, **kw: Any) -> Any:
        if self.entered.is_set():
            return super().add_documents(items, **kw)
        self.entered.set()
        self.release.wait(30)
        try:
            return super().add_documents(items, **kw)
        finally:
            self.finished.set()


def test_cancel_stops_a_batch_at_its_next_transaction(tmp_path: Path) -> None:
    """A batch of two transactions (a repeated id) is cancelled while the first is being
    written: the first commits whole, the second never (the old code wrote both)."""
    store = _PausingStore(tmp_path / "s")
    store.entered, store.release = threading.Event(), threading.Event()
    store.finished = threading.Event()
    first = _doc_input("d1")
    second = DocumentInput(doc=Document(id="d1", text="A second version."),
                           chunks=[Chunk(id="c-d1b", doc_id="d1", text="A second version.")])

    async def main() -> None:
        group = GroupCommit(store)
        group._pending = []
        loop = asyncio.get_running_loop()
        futures = [loop.create_future(), loop.create_future()]
        task = asyncio.create_task(group._commit(list(zip([first, second], futures,
                                                          strict=True))))
        assert await asyncio.to_thread(store.entered.wait, 10)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        store.release.set()
        assert all(f.cancelled() for f in futures)

    asyncio.run(main())  # (its default executor's shutdown waits for the worker thread)
    assert store.finished.is_set()
    assert store.document_hash("d1") == first.doc.hash  # the first version, whole
    assert [c.id for c in store.chunks()] == ["c-d1"]
    store.close()


def test_an_insert_into_a_deleted_store_file_stops_the_run(tmp_path: Path) -> None:
    """``VizRAG.insert`` after another process deleted the store file: the run stops with
    the store's one line (a store-wide condition), not one failure per document."""
    from hyperviz_core.rag import Document, StoreReplacedError, VizRAG

    with VizRAG(tmp_path / "a", show_progress=False) as rag:
        rag.insert([Document(id="d1", text="Ada Lovelace met Charles Babbage.")])
        for p in tmp_path.joinpath("a").iterdir():
            p.unlink()
        report = rag.insert([Document(id=f"n{i}", text=f"Grace Hopper wrote A-{i}.")
                             for i in range(5)])
        assert report.stopped is not None and "deleted or replaced" in report.stopped
        assert not report.documents_added  # (the documents in flight fail with it)
        with pytest.raises(StoreReplacedError):
            rag.stats()
