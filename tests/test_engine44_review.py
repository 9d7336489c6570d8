"""Review 44 (extending the engine): the indexer keeps a store's own ``summary_threshold``
(it set every store it indexed into to 4,000), and a query stops calling a provider that
failed with a retryable error once its retries are spent."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.index.indexer import Indexer
from hyperviz_core.rag.providers.protocols import ProviderError
from hyperviz_core.rag.providers.retry import RetryingChatModel
from hyperviz_core.rag.store import HypergraphStore

DOC = Document(id="a", text="Marie Curie discovered radium in Paris.")


def test_the_indexer_keeps_the_stores_summary_threshold(tmp_path: Path) -> None:
    """It set every store it indexed into to 4,000 (a read-only property: AttributeError)."""
    with HypergraphStore(tmp_path / "s", summary_threshold=50) as store:
        VizRAG(store, show_progress=False).insert([DOC])
        assert store.summary_threshold == 50
        Indexer(store, summary_threshold=120, show_progress=False)
        assert store.summary_threshold == 120


def test_a_store_with_a_read_only_threshold_indexes(tmp_path: Path) -> None:
    class Fixed(HypergraphStore):
        @property  # type: ignore[override]
        def summary_threshold(self) -> int:
            return 77

        @summary_threshold.setter
        def summary_threshold(self, value: int) -> None:
            if value != 77:
                raise AttributeError("summary_threshold is fixed")

    with Fixed(tmp_path / "s", summary_threshold=77) as store:
        report = VizRAG(store, show_progress=False).insert([DOC])
        assert report.documents_added == 1 and store.summary_threshold == 77


class _Down:
    """A provider that fails every call (HTTP 500 when ``retryable``, else 400)."""

    model_name = "down"

    def __init__(self, retryable: bool) -> None:
        self.calls, self.retryable = 0, retryable

    def complete(self, prompt: str, **kw: object) -> str:
        self.calls += 1
        raise ProviderError("HTTP 500 from the server" if self.retryable else "HTTP 400",
                            retryable=self.retryable, status=500 if self.retryable else 400,
                            retry_after=0.01 if self.retryable else None)

    async def acomplete(self, prompt: str, **kw: object) -> str:
        return self.complete(prompt)


def _down_engine(tmp_path: Path, retryable: bool) -> tuple[VizRAG, _Down]:
    VizRAG(tmp_path / "s", show_progress=False).insert([DOC])
    model = _Down(retryable)
    chat = RetryingChatModel(model, max_retries=1, base_delay=0.0)
    return VizRAG(tmp_path / "s", chat=chat, show_progress=False), model


@pytest.mark.parametrize("run", ["sync", "async"])
def test_a_dead_provider_is_called_once_per_query(tmp_path: Path, run: str) -> None:
    """Keywords, locate and the answer each spent a full round of retries (38 s, 17 retry
    warnings for one question against a server answering 500)."""
    rag, model = _down_engine(tmp_path, retryable=True)
    query = rag.query if run == "sync" else (lambda q: asyncio.run(rag.aquery(q)))
    # the cause first (it led with "not called: the chat model failed earlier ...")
    with pytest.raises(ProviderError, match=r"^HTTP 500.* \(in an earlier call of this query: "
                                            r"the chat model is not called again in it\)$"
                       ) as raised:
        query("Who discovered radium?")
    assert model.calls == 2  # the keywords call and its one retry
    # still a rate limit / server error to the caller (it came back retryable=False, no
    # status, no Retry-After, no cause: a service answered 4xx instead of 503)
    err = raised.value
    assert (err.retryable, err.status, err.retry_after) == (True, 500, 0.01)
    assert isinstance(err.__cause__, ProviderError) and err.__cause__.status == 500


def test_a_failure_that_is_not_retryable_does_not_stop_the_other_calls(tmp_path: Path) -> None:
    """A guard: a refused prompt (400) says nothing of the next one."""
    rag, model = _down_engine(tmp_path, retryable=False)
    with pytest.raises(ProviderError, match="HTTP 400"):
        rag.query("Who discovered radium?")
    assert model.calls == 3  # keywords, locate, answer


def test_a_retrieval_reports_the_skipped_calls_as_warnings(tmp_path: Path) -> None:
    rag, model = _down_engine(tmp_path, retryable=True)
    res = rag.retrieve("Who discovered radium?")
    assert model.calls == 2 and res.chunks
    assert any("in an earlier call of this query" in w for w in res.warnings)
