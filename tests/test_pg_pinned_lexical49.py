"""A PostgreSQL query pinned to the store's read snapshot keeps lazy retrieval (stop 49).

Each lazy query asks the store whether its postings are ready, which fills the postings of
chunks written without them: a write. Inside the pinned retry of a query the store changed
under (its read snapshot) that write was refused, and the refusal was taken for the
database's: "lazy retrieval unavailable ... queries load the whole store (asked again in
600 s)" — every query on that engine loaded the whole store for ten minutes after one
retry. A pinned query now asks nothing it cannot do: the postings made before count.
"""

from __future__ import annotations

import asyncio
import logging

import pytest
from pinned_stores import DOCS, committing_writer

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.retrieve import retriever as retriever_module

Q = "Where did Marie Curie meet person 3?"


@pytest.fixture
def url(pg_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)  # read lazily
    with VizRAG(pg_url, show_progress=False) as rag:
        rag.insert(DOCS)
    return pg_url


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_a_pinned_retry_leaves_lazy_retrieval_on(url: str, driver: str,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    (writer, other), ranks = committing_writer(url)
    lazy: list[bool] = []

    def load(name: str, phase: str, payload: dict[str, object]) -> None:
        if (name, phase) == ("load", "end"):
            lazy.append(bool(payload["lazy"]))

    with caplog.at_level(logging.INFO), VizRAG(url, show_progress=False) as rag:
        rag.retrieve("warm up", render=False)
        if driver == "sync":
            res = rag.retrieve(Q, render=False, hooks=[writer])
        else:
            res = asyncio.run(rag.aretrieve(Q, render=False, hooks=[writer]))
        assert len(ranks) == 2 and res.chunks  # one retry, pinned
        rag.retrieve(Q, render=False, hooks=[load])  # the next query: still lazy
        refused = rag.retriever.store._lexical_refused
    other.close()
    assert "lazy retrieval unavailable" not in caplog.text
    assert refused is None and lazy == [True]
