"""A second thread's query while a query holds the store's read snapshot (stop 49).

A lazy query the store changed under runs once more inside SQLite's read snapshot, which
holds the store's one connection: other threads' reads through it wait. A second thread's
query entered its next step (taking the engine's stages lock) and then waited inside it for
the connection; the pinned query then waited for the stages lock before its own next
step: both waited forever (and so did ``close()``). The pinned attempt now holds the stages
lock with the snapshot, so the second query waits before its step. PostgreSQL's snapshot
holds one pooled connection of several, so there the second query is not held up.
"""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from pinned_stores import DOCS, committing_writer

from hyperviz_core.rag import VizRAG


def test_another_thread_queries_while_a_query_is_pinned(changing_store: str) -> None:
    (writer, other), ranks = committing_writer(changing_store)
    out: dict[str, Any] = {}
    rag = VizRAG(changing_store, show_progress=False)
    rag.retrieve("warm up", render=False)

    def second() -> None:
        out["second"] = rag.retrieve("Where did Marie Curie meet person 5?", render=False)

    def start_second(name: str, phase: str, payload: dict[str, Any]) -> None:
        # the end of the second attempt's bottom_entities: that attempt is the pinned one
        # (the first attempt's rank committed the write it restarts for)
        if (name, phase) == ("bottom_entities", "end") and ranks and "thread" not in out:
            out["thread"] = threading.Thread(target=second, daemon=True)
            out["thread"].start()
            time.sleep(0.3)  # the second query reaches its first step meanwhile

    def first() -> None:
        out["first"] = rag.retrieve("Where did Marie Curie meet person 3?", render=False,
                                    hooks=[writer, start_second])

    pinned = threading.Thread(target=first, daemon=True)
    pinned.start()
    pinned.join(20)
    if "thread" in out:
        out["thread"].join(1 if pinned.is_alive() else 20)
    stuck = [name for name, t in (("pinned", pinned), ("second", out.get("thread")))
             if t is not None and t.is_alive()]
    if stuck:  # closing would wait for them too: leave both (daemon threads) behind
        pytest.fail(f"queries waited forever: {stuck}")
    rag.close()
    other.close()
    assert len(ranks) == 2  # one restart, pinned: as in tests/test_pinned_retry44.py
    assert out["first"].chunks and out["second"].chunks
    assert {c.doc_id for c in out["first"].chunks} <= {d.id for d in DOCS} | {"new1"}
