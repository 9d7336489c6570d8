"""A store indexed through a framework's embeddings cannot rebuild them from the name it
keeps: reopening it without them says to pass them again (the error named only an offline
embedder the user never chose)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("langchain_core")

from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding

from hyperviz_core.rag.store.base import StoreError, check_embedder
from vizrag_langchain import VizRAGRetriever, VizRAGVectorStore


def test_reopening_without_the_langchain_embeddings_says_to_pass_them(tmp_path: Path) -> None:
    emb = DeterministicFakeEmbedding(size=64)
    VizRAGVectorStore.from_documents([Document(page_content="Marie Curie in Paris.")],
                                     embedding=emb, store=tmp_path / "s")
    for reopen in (lambda: VizRAGVectorStore(tmp_path / "s", None),
                   lambda: VizRAGRetriever(store=str(tmp_path / "s"))):
        with pytest.raises(StoreError, match=r"a LangChain embedder cannot be made again .*"
                                             r"pass it when opening the store"):
            reopen()
    assert VizRAGVectorStore(tmp_path / "s", emb).similarity_search("Curie", k=1)


def test_the_hint_is_for_framework_embedders_only() -> None:
    with pytest.raises(StoreError, match=r"new store$"):
        check_embedder("s", ("hashing", 512), "minilm", 384)
    with pytest.raises(StoreError, match=r"LlamaIndex embedder .* embed_model="):
        check_embedder("s", ("llamaindex:m", 8), "hashing", 512)
    with pytest.raises(StoreError, match=r"new store$"):  # another framework model: no hint
        check_embedder("s", ("llamaindex:m", 8), "llamaindex:n", 16)
