"""The walk's dense two-step matrix kept in a PostgreSQL store, as in a SQLite one
(``test_walk_kept.py``): computed once, read back by another store object (a new process)
with the same answers, stale after a write. A real server (``pg_url``, see ``pg_server.py``).
"""

from __future__ import annotations

import pytest
from test_state_arrays_pg import _answers, _kept
from test_walk_kept import KEPT_ROW, _computed, dense_docs

from hyperviz_core.rag import VizRAG


@pytest.fixture(autouse=True)
def _always_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)


def test_pg_kept_two_steps_read_back_and_stale_after_a_write(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    docs = dense_docs(40)
    VizRAG(pg_url, show_progress=False).insert(docs[:30])
    full = _answers(pg_url, lazy=False)
    computed = _computed(monkeypatch)
    assert _answers(pg_url) == full  # computes and keeps it
    assert computed == [9] and KEPT_ROW in _kept(pg_url)
    assert _answers(pg_url) == full  # a new store object: read back
    assert computed == [9]
    before = _kept(pg_url)[KEPT_ROW]
    VizRAG(pg_url, show_progress=False).insert(docs[30:])
    want = _answers(pg_url, lazy=False)
    computed.clear()
    assert _answers(pg_url) == want
    assert computed == [9] and _kept(pg_url)[KEPT_ROW] != before
