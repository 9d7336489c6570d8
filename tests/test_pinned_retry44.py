"""A lazy query the store changed under runs once more, inside the store's read snapshot,
instead of up to three more times and then on the whole store loaded.

A reviewer's 18,000-document store took p50 10.5 s a query (SQLite and PostgreSQL alike)
while another process added one small document a second: each attempt took longer than the
gap between commits, so every query restarted three times and then loaded the whole store
(13 s). Pinned to one snapshot, the second attempt has nothing to restart for.
"""

from __future__ import annotations

import asyncio

from pinned_stores import DOCS, committing_writer

from hyperviz_core.rag import VizRAG


def test_a_query_the_store_changed_under_runs_once_more_pinned(changing_store: str) -> None:
    (hook, other), ranks = committing_writer(changing_store)
    with VizRAG(changing_store, show_progress=False) as rag:
        rag.retrieve("warm up", render=False)
        res = rag.retrieve("Where did Marie Curie meet person 3?", render=False, hooks=[hook])
    written = other.has_document("new2")
    other.close()
    assert len(ranks) == 2  # before: 4 (three lazy attempts, then the loaded store)
    assert written  # the pinned attempt kept nothing it derived: it held no write lock
    assert res.chunks and {c.doc_id for c in res.chunks} <= {d.id for d in DOCS} | {"new1"}


def test_the_async_driver_runs_once_more_pinned_too(changing_store: str) -> None:
    """Since stop 49 the async driver runs the pinned attempt's steps in one thread of
    their own (tests/test_async_pinned49.py); before, it restarted three times and then
    loaded the store (4 ranks)."""
    (hook, other), ranks = committing_writer(changing_store)
    with VizRAG(changing_store, show_progress=False) as rag:
        res = asyncio.run(rag.aretrieve("Where did Marie Curie meet person 3?",
                                        render=False, hooks=[hook]))
    written = other.has_document("new2")
    other.close()
    assert len(ranks) == 2 and res.chunks
    assert written  # the pinned attempt held no write lock
