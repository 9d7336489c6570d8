"""A lazy query the store changed under runs once more, inside the store's read snapshot,
instead of up to three more times and then on the whole store loaded.

A reviewer's 18,000-document store took p50 10.5 s a query (SQLite and PostgreSQL alike)
while another process added one small document a second: each attempt took longer than the
gap between commits, so every query restarted three times and then loaded the whole store
(13 s). Pinned to one snapshot, the second attempt has nothing to restart for.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve import retriever as retriever_module
from hyperviz_core.rag.store import open_store

DOCS = [Document(id=f"d{i}", text=f"Marie Curie met person {i} in Paris in {1890 + i}.")
        for i in range(12)]


def _writer(spec: str) -> tuple[Any, list[int]]:
    """A hook that commits a new document through a second store object (another
    connection, as another process would) whenever a ``rank`` stage starts."""
    other = open_store(spec)
    if "://" not in spec:  # a write the reader's lock blocks fails at once, not in 60 s
        other._conn.execute("PRAGMA busy_timeout = 200")
    ranks: list[int] = []

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if name == "rank" and phase == "start":
            ranks.append(1)
            n = len(ranks)
            VizRAG(other, show_progress=False).insert(
                [Document(id=f"new{n}", text=f"Pierre Curie wrote note {n} in Lyon.")])

    return (hook, other), ranks


@pytest.fixture(params=["sqlite", "postgres"])
def spec(request: pytest.FixtureRequest, tmp_path: Path,
         monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)  # read lazily
    where = (str(request.getfixturevalue("pg_url")) if request.param == "postgres"
             else str(tmp_path / "s"))
    with VizRAG(where, show_progress=False) as rag:
        rag.insert(DOCS)
    return where


def test_a_query_the_store_changed_under_runs_once_more_pinned(spec: str) -> None:
    (hook, other), ranks = _writer(spec)
    with VizRAG(spec, show_progress=False) as rag:
        rag.retrieve("warm up", render=False)
        res = rag.retrieve("Where did Marie Curie meet person 3?", render=False, hooks=[hook])
    written = other.has_document("new2")
    other.close()
    assert len(ranks) == 2  # before: 4 (three lazy attempts, then the loaded store)
    assert written  # the pinned attempt kept nothing it derived: it held no write lock
    assert res.chunks and {c.doc_id for c in res.chunks} <= {d.id for d in DOCS} | {"new1"}


def test_the_async_driver_runs_once_more_pinned_too(spec: str) -> None:
    """Since stop 49 the async driver runs the pinned attempt's steps in one thread of
    their own (tests/test_async_pinned49.py); before, it restarted three times and then
    loaded the store (4 ranks)."""
    (hook, other), ranks = _writer(spec)
    with VizRAG(spec, show_progress=False) as rag:
        res = asyncio.run(rag.aretrieve("Where did Marie Curie meet person 3?",
                                        render=False, hooks=[hook]))
    written = other.has_document("new2")
    other.close()
    assert len(ranks) == 2 and res.chunks
    assert written  # the pinned attempt held no write lock
