"""LangChain parity with the LlamaIndex changes of a service review: documents carry the
retrieval's model usage (``usage``), and ``aclose()`` / ``async with`` close a store
the wrapper opened."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from langchain_core.documents import Document

from hyperviz_core.rag import EngineClosedError, RankedChunk, RetrievalResult
from hyperviz_core.rag.providers.usage import UsageReport
from vizrag_langchain import VizRAGRetriever
from vizrag_langchain.documents import result_documents


def _result(usage: UsageReport | None) -> RetrievalResult:
    res = RetrievalResult(query="q", mode="vizrag")
    res.chunks = [RankedChunk(chunk_id=f"c{i}", doc_id="d", score=1.0 - i, rank=i + 1,
                              text=f"text {i}") for i in range(2)]
    res.usage = usage
    return res


def test_every_chunk_document_carries_the_same_usage() -> None:
    usage = UsageReport(calls=2, prompt_tokens=40, completion_tokens=6)
    docs = result_documents(_result(usage))
    assert [d.metadata["usage"] for d in docs] == [usage.model_dump(mode="json")] * 2
    assert docs[0].metadata["usage"]["calls"] == 2


def test_offline_usage_is_none(tmp_path: Path) -> None:
    retriever = VizRAGRetriever.from_documents(
        [Document(page_content="Marie Curie discovered radium in Paris.")],
        tmp_path / "store", k=1)
    (doc,) = retriever.invoke("Who discovered radium?")
    assert doc.metadata["usage"] is None


def test_async_with_closes_the_store_after_the_queries_in_flight(tmp_path: Path) -> None:
    """As the LlamaIndex index: ``async with`` / ``await aclose()`` close a store the
    retriever opened, off the event loop; later calls raise ``EngineClosedError``."""
    async def main() -> None:
        async with VizRAGRetriever.from_documents(
                [Document(page_content="Marie Curie discovered radium in Paris.")],
                tmp_path / "store", k=1) as retriever:
            docs = await asyncio.gather(*(retriever.ainvoke("radium") for _ in range(4)))
            assert all(len(d) == 1 for d in docs)
        with pytest.raises(EngineClosedError):
            await retriever.ainvoke("radium")

    asyncio.run(main())
