"""LangChain review of 2026-12-05: the chain draws from the store of the retriever that ran
(``configurable_alternatives``, ``with_fallbacks``); ``HyperVizRunnable`` takes per-call
options (``.bind(filter=...)``) and refuses misspelt ones; a store of LangChain vectors is
never queried by the offline embedder; path-built objects pickle; a ``None`` filter value is
a plain error naming the key."""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding

from hyperviz_core.rag import StoreError
from vizrag_langchain import VizRAGRetriever, VizRAGVectorStore

DOCS = [Document("Ada Lovelace wrote notes on the Analytical Engine.", id="a"),
        Document("Iron Maiden formed in Leyton in 1975.", id="b")]


def test_a_store_of_langchain_vectors_is_not_opened_without_its_embeddings(
        tmp_path: Path) -> None:
    """Of the same dimension (512) the offline embedder used to open it with a warning,
    and searches compared its hashed query vectors with the stored model's."""
    VizRAGVectorStore.from_documents(DOCS, DeterministicFakeEmbedding(size=512),
                                     store=str(tmp_path / "s")).close()
    for make in (lambda: VizRAGVectorStore(str(tmp_path / "s")),
                 lambda: VizRAGRetriever(store=str(tmp_path / "s"))):
        with pytest.raises(StoreError, match="a LangChain embedder cannot be made again"):
            make()
    again = VizRAGVectorStore(str(tmp_path / "s"), DeterministicFakeEmbedding(size=512))
    assert again.similarity_search("Iron Maiden", k=1)[0].id == "b"
    again.close()
