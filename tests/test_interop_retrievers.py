"""``HyperRAGVisualRetriever`` for LlamaIndex and LangChain over a fake replaying Hyper-RAG."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from interop_fakes import ReplayHyperRAG, queries, small_renderer

from hyperviz_core.interop import QueryParamLike

pytest.importorskip("llama_index.core")
pytest.importorskip("langchain_core")

from langchain_core.documents import Document
from llama_index.core.retrievers import BaseRetriever as LIBaseRetriever
from llama_index.core.schema import ImageNode, TextNode

from vizrag_langchain.documents import is_image_document
from vizrag_langchain.hyperrag import HyperRAGVisualRetriever as LCRetriever
from vizrag_llamaindex.hyperrag import HyperRAGVisualRetriever as LIRetriever

SMALL = 2  # queries()[2]: the smallest recorded result, quick to render


def _texts(q: dict[str, Any]) -> list[str]:
    return [t["content"] for t in q["result"]["text_units"]]


# ---------------------------------------------------------------------------- LlamaIndex
def test_llamaindex_text_nodes_and_image_node() -> None:
    rag = ReplayHyperRAG()
    q = queries()[SMALL]
    retriever = LIRetriever(rag, renderer=small_renderer())
    assert isinstance(retriever, LIBaseRetriever)
    nodes = retriever.retrieve(q["query"])
    texts = [n for n in nodes if not isinstance(n.node, ImageNode)]
    images = [n for n in nodes if isinstance(n.node, ImageNode)]
    assert [n.node.get_content() for n in texts] == _texts(q)
    assert all(n.node.node_id.startswith("chunk-") for n in texts)
    assert [n.score for n in texts] == sorted((n.score for n in texts), reverse=True)
    assert len(images) == 1
    img = images[0].node
    assert img.image and img.image_mimetype == "image/png" and "E1" in img.text
    assert rag.calls[0][1].mode == "hyper" and rag.calls[0][1].return_type == "json"


async def test_llamaindex_async_top_k_response_no_image() -> None:
    rag = ReplayHyperRAG()
    q = queries()[3]
    retriever = LIRetriever(rag, top_k=3, include_image=False, include_response=True)
    nodes = await retriever.aretrieve(q["query"])
    assert [n.node.get_content() for n in nodes[:3]] == _texts(q)[:3]
    assert nodes[3].node.get_content() == q["result"]["response"]
    assert len(nodes) == 4 and not any(isinstance(n.node, ImageNode) for n in nodes)
    assert all(isinstance(n.node, TextNode) for n in nodes)


def test_llamaindex_inside_a_running_loop_and_bad_input() -> None:
    rag = ReplayHyperRAG()
    q = queries()[0]
    retriever = LIRetriever(rag, include_image=False)

    async def call_sync_api() -> int:
        return len(retriever.retrieve(q["query"]))  # sync API from inside an event loop

    assert asyncio.run(call_sync_api()) == len(_texts(q))
    with pytest.raises(TypeError, match="aquery"):
        LIRetriever(object())
    with pytest.raises(ValueError, match="top_k"):
        LIRetriever(rag, top_k=0)
    with pytest.raises(ValueError, match="top_k"):
        LIRetriever(rag, top_k=True)
    with pytest.raises(TypeError, match="include_image must be True or False, got 'no'"):
        LIRetriever(rag, include_image="no")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="include_response"):
        LIRetriever(rag, include_response=1)  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- LangChain
def test_langchain_documents_and_image_document() -> None:
    rag = ReplayHyperRAG()
    q = queries()[SMALL]
    retriever = LCRetriever(rag=rag, include_image=True, renderer=small_renderer())
    docs = retriever.invoke(q["query"])
    assert all(isinstance(d, Document) for d in docs)
    assert [d.page_content for d in docs[:-1]] == _texts(q)
    assert all(d.id and d.id.startswith("chunk-") for d in docs[:-1])
    image = docs[-1]
    assert is_image_document(image)
    assert image.metadata["mime_type"] == "image/png" and "E1" in image.page_content


async def test_langchain_k_and_per_call_overrides() -> None:
    rag = ReplayHyperRAG()
    q = queries()[1]
    retriever = LCRetriever(rag=rag, k=3)
    docs = await retriever.ainvoke(q["query"])
    assert len(docs) == 3 and not any(is_image_document(d) for d in docs)
    docs = retriever.invoke(q["query"], k=1)
    assert [d.page_content for d in docs] == _texts(q)[:1]
    resp = LCRetriever(rag=rag, include_response=True).invoke(q["query"])
    assert resp[-1].metadata["type"] == "hyperrag_response"
    assert resp[-1].page_content == q["result"]["response"]
    param = QueryParamLike(mode="hyper", top_k=10)
    LCRetriever(rag=rag, param=param).invoke(q["query"])
    assert rag.calls[-1][1] is param


def test_langchain_rejects_objects_without_aquery() -> None:
    with pytest.raises(TypeError, match="aquery"):
        LCRetriever(rag=object())


@pytest.mark.parametrize(("option", "value", "error"), [
    ("k", True, TypeError), ("k", 2.0, TypeError), ("k", "3", TypeError), ("k", 0, ValueError),
    ("include_image", "yes", TypeError), ("include_image", 1, TypeError)])
def test_langchain_options_are_as_strict_in_the_constructor_as_per_call(
        option: str, value: Any, error: type[Exception]) -> None:
    """No lax coercion in either place (``k=True`` was 1, ``include_image="yes"`` True),
    and a bad per-call value fails before Hyper-RAG is asked."""
    rag = ReplayHyperRAG()
    with pytest.raises(error, match=option):
        LCRetriever(rag=rag, **{option: value})
    with pytest.raises(error, match=option):
        LCRetriever(rag=rag).invoke(queries()[1]["query"], **{option: value})
    assert rag.calls == []


# ---------------------------------------------------------------------------- standard suite
from langchain_tests.integration_tests import RetrieversIntegrationTests  # noqa: E402


class TestHyperRAGRetrieverStandard(RetrieversIntegrationTests):
    """LangChain's own retriever conformance tests (k semantics, invoke/ainvoke)."""

    @property
    def retriever_constructor(self) -> type[LCRetriever]:
        return LCRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"rag": ReplayHyperRAG()}

    @property
    def retriever_query_example(self) -> str:
        return str(queries()[0]["query"])
