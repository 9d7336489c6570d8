"""A query that runs once more asks its providers each request once (stop 52).

A lazy query the store changed under runs again, pinned to the store's read snapshot
(stops 44 and 49). Its second attempt asked the model the same keyword prompt again: a
second provider call, paid for and waited for while the pinned attempt holds the engine's
stages lock (every other query on the engine waits before its next stage meanwhile). An
identical request now gets the answer the first attempt received; a request that differs
(a locate prompt over a view the new state changed) is still asked. The embedder's vectors
of the keywords and of the query likewise.
"""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pinned_stores import DOCS, committing_writer
from rag_fakes import ParrotChat

from hyperviz_core.rag import HashingEmbedder, VizRAG

Q = "Where did Marie Curie meet person 3?"


def _stages(chat: ParrotChat) -> list[str]:
    return [c["stage"] for c in chat.calls]


@pytest.mark.parametrize("drive", ["sync", "async"])
def test_a_pinned_attempt_asks_the_keyword_prompt_once(changing_store: str, drive: str
                                                       ) -> None:
    (hook, other), ranks = committing_writer(changing_store)
    chat = ParrotChat()
    with VizRAG(changing_store, chat=chat, show_progress=False) as rag:
        if drive == "sync":
            res = rag.retrieve(Q, render=False, hooks=[hook])
        else:
            res = asyncio.run(rag.aretrieve(Q, render=False, hooks=[hook]))
    other.close()
    assert len(ranks) == 2  # two attempts: the store changed under the first
    assert _stages(chat).count("keywords") == 1  # before: 2
    assert res.keywords and res.chunks
    assert {c.doc_id for c in res.chunks} <= {d.id for d in DOCS} | {"new1", "new2"}


def test_each_query_still_asks_its_own(changing_store: str) -> None:
    chat = ParrotChat()
    with VizRAG(changing_store, chat=chat, show_progress=False) as rag:
        first = rag.retrieve(Q, render=False)
        again = rag.retrieve(Q, render=False)
    assert _stages(chat).count("keywords") == 2  # no answer kept between queries
    assert first.keywords == again.keywords


class Counting(HashingEmbedder):
    """The offline embedder (the store's own), recording the texts of each call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[list[str]] = []

    def embed(self, texts: Any) -> Any:
        self.calls.append(list(texts))
        return super().embed(texts)


def test_a_pinned_attempt_embeds_the_query_once(changing_store: str) -> None:
    quiet, changed = Counting(), Counting()
    with VizRAG(changing_store, embedder=quiet, show_progress=False) as rag:
        plain = rag.retrieve(Q, render=False)
    (hook, other), ranks = committing_writer(changing_store)
    with VizRAG(changing_store, embedder=changed, show_progress=False) as rag:
        res = rag.retrieve(Q, render=False, hooks=[hook])
    other.close()
    assert len(ranks) == 2  # the second attempt ran
    assert res.keywords == plain.keywords and plain.keywords in quiet.calls
    for texts in quiet.calls:  # the keywords' (and the names') texts: before, twice each
        assert changed.calls.count(texts) == quiet.calls.count(texts) == 1
    # what the new state holds (the entities the first attempt did not see) is embedded
    assert len(changed.calls) > len(quiet.calls)
