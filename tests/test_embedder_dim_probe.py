"""A framework embedder that cannot be reached fails ``VizRAG(...)`` with one clear error.

The adapters learn a framework embedder's vector size from one call; offline, an OpenAI
embedder could not even fetch its tokenizer, and the user got the framework's own exception
(a 60-line ``requests.ConnectionError``) with nothing naming the step.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from langchain_core.embeddings import Embeddings
from llama_index.core.base.embeddings.base import BaseEmbedding

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.providers.protocols import ProviderError
from vizrag_langchain import LangChainEmbedder
from vizrag_llamaindex import LlamaIndexEmbedder


class _Unreachable(Embeddings):
    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        raise OSError("could not download cl100k_base: no network")

    def embed_query(self, text: str) -> list[float]:
        raise OSError("could not download cl100k_base: no network")


class _UnreachableLI(BaseEmbedding):
    def _get_text_embedding(self, text: str) -> list[float]:
        raise OSError("could not download cl100k_base: no network")

    def _get_query_embedding(self, query: str) -> list[float]:
        raise OSError("could not download cl100k_base: no network")

    async def _aget_query_embedding(self, query: str) -> list[float]:
        raise OSError("could not download cl100k_base: no network")


@pytest.mark.parametrize("embedder", [LangChainEmbedder(_Unreachable()),
                                      LlamaIndexEmbedder(_UnreachableLI())],
                         ids=["langchain", "llamaindex"])
def test_an_unreachable_embedder_names_the_probe(tmp_path: Path, embedder: object) -> None:
    with pytest.raises(ProviderError, match=r"embedder (langchain|llamaindex):_Unreachable\w* "
                       r"learns its vector size from one call, and that call failed "
                       r"\(OSError: could not download cl100k_base: no network\).*dim=N"
                       ) as caught:
        VizRAG(tmp_path / "s", embedder=embedder, show_progress=False)  # type: ignore[arg-type]
    assert isinstance(caught.value.__cause__, OSError)  # the original, chained
