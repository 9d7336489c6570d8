"""A write that waited for another connection's lock still learns of that connection's commit.

Connection B holds the write lock while A starts a write: A's ``BEGIN IMMEDIATE`` waits, B
commits, A commits. A's in-memory vector indexes (the loaded exact one, or an index set with
``set_vector_index``) must then hold B's vectors too: a long-lived engine used to mark B's
commit as seen without reloading, and its searches never found B's document.
"""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Document, HypergraphStore, VizRAG
from hyperviz_core.rag.ann import AnnVectorIndex
from hyperviz_core.rag.index.indexer import Indexer

DOC_A = Document(id="docA", title="Pemba Lighthouse",
                 text="The Pemba Lighthouse was built in 1904 by engineers from Mombasa.")
DOC_B = Document(id="docB", title="Zanzibar Quokka Festival",
                 text="The Zanzibar Quokka Festival is held every March in Stone Town by the "
                      "Quokka Society.")
BASE = [Document(id=f"base{i}", title=f"Harbour {i}",
                 text=f"Harbour {i} of the island has a quay and a market on Fridays.")
        for i in range(5)]


def _slow_writer(path: Path, locked: threading.Event) -> threading.Thread:
    """Another connection writing DOC_B, holding the write lock 1.5 s after ``locked``."""
    store = HypergraphStore(path)
    real = store._insert_documents

    def slow(items: Any, writer: Any) -> Any:  # inside BEGIN IMMEDIATE: the lock is held
        locked.set()
        time.sleep(1.5)
        return real(items, writer)

    store._insert_documents = slow  # type: ignore[method-assign]

    def run() -> None:
        Indexer(store, show_progress=False).index([DOC_B])
        store.close()

    return threading.Thread(target=run)


@pytest.mark.parametrize("index", ["exact", "replaced"])
def test_a_write_that_waited_sees_the_other_commit(tmp_path: Path, index: str) -> None:
    path = tmp_path / "s"
    VizRAG(path, show_progress=False).insert(BASE)
    a = VizRAG(path, show_progress=False, lazy=False)
    if index == "replaced":
        a.store.set_vector_index("chunk", AnnVectorIndex())  # type: ignore[attr-defined]
    a.retrieve("quay", mode="naive", render=False)
    a.store.vector_index("chunk")  # type: ignore[attr-defined]  # loaded before the race
    locked = threading.Event()
    writer = _slow_writer(path, locked)
    writer.start()
    assert locked.wait(30)
    a.insert([DOC_A])  # its BEGIN IMMEDIATE waits for B's lock, then commits after B
    writer.join(60)
    question = "When is the Zanzibar Quokka Festival held?"
    fresh = VizRAG(path, show_progress=False, lazy=False)
    if index == "replaced":
        fresh.store.set_vector_index("chunk", AnnVectorIndex())  # type: ignore[attr-defined]
    got = [c.chunk_id for c in a.retrieve(question, mode="naive", render=False).chunks]
    want = [c.chunk_id for c in fresh.retrieve(question, mode="naive", render=False).chunks]
    assert got == want
    b_chunks = [c.id for c in a.store.chunks() if c.doc_id == "docB"]
    assert b_chunks and b_chunks[0] == got[0]
    held = a.store.vector_index("chunk").ids  # type: ignore[attr-defined]
    assert set(b_chunks) <= set(held)  # the in-memory index holds B's vectors
