"""Fixes of the live Hyper-RAG retrievers: fail response, scores, ranks, unknown options."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from interop_fakes import ReplayHyperRAG, queries, small_renderer
from llama_index.core.postprocessor import SimilarityPostprocessor
from llama_index.core.schema import ImageNode

from hyperviz_core.interop import HyperRAGFormatError, from_hyperrag_result
from hyperviz_core.interop.hyperrag_live import FAIL_RESPONSE
from vizrag_langchain.documents import is_image_document
from vizrag_langchain.hyperrag import HyperRAGVisualRetriever as LCRetriever
from vizrag_llamaindex.hyperrag import HyperRAGVisualRetriever as LIRetriever
from vizrag_llamaindex.nodes import VizRAGTextNode

SMALL = 2  # the smallest recorded result: quick to render


class FailingHyperRAG:
    """Hyper-RAG when the query gives it no keywords or context: its plain-text fail
    response, even with ``return_type="json"``."""

    async def aquery(self, query: str, param: Any) -> str:
        return FAIL_RESPONSE


# ---------------------------------------------------------------------------- 1: fail response
@pytest.mark.parametrize("raw", [FAIL_RESPONSE, FAIL_RESPONSE + "\n", FAIL_RESPONSE.encode()])
def test_fail_response_is_an_empty_result(raw: str | bytes,
                                          caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="hyperviz_core.interop.hyperrag_live"):
        live = from_hyperrag_result(raw, query="What is the capital of Mars?")
    assert live.passages == [] and live.response == "" and not live.hypergraph.entities
    assert "fail response" in caplog.text


def test_other_plain_text_stays_an_error() -> None:
    with pytest.raises(HyperRAGFormatError, match=r"plain text.*return_type='json'"):
        from_hyperrag_result("The answer is 42.")
    with pytest.raises(HyperRAGFormatError, match="plain text"):
        from_hyperrag_result("Sorry, I'm not able to provide an answer. Also: 42")


def test_wrappers_return_nothing_on_the_fail_response() -> None:
    assert LIRetriever(FailingHyperRAG(), include_response=True).retrieve("Mars?") == []
    lc = LCRetriever(rag=FailingHyperRAG(), include_image=True, include_response=True)
    assert lc.invoke("Mars?") == []


async def test_wrappers_return_nothing_on_the_fail_response_async() -> None:
    assert await LIRetriever(FailingHyperRAG()).aretrieve("Mars?") == []
    assert await LCRetriever(rag=FailingHyperRAG()).ainvoke("Mars?") == []


# ---------------------------------------------------------------------------- 2: scores
def test_llamaindex_image_and_response_nodes_score_like_the_weakest_passage() -> None:
    q = queries()[SMALL]
    retriever = LIRetriever(ReplayHyperRAG(), include_response=True, renderer=small_renderer())
    nodes = retriever.retrieve(q["query"])
    passages = [n for n in nodes if n.node.metadata.get("chunk_id")]
    image = [n for n in nodes if isinstance(n.node, ImageNode)]
    response = [n for n in nodes if n.node.metadata.get("type") == "hyperrag_response"]
    weakest = min(n.score for n in passages if n.score is not None)
    assert len(image) == 1 and len(response) == 1
    assert image[0].score == weakest and response[0].score == weakest
    kept = SimilarityPostprocessor(similarity_cutoff=weakest).postprocess_nodes(nodes)
    assert len(kept) == len(nodes)  # the cut-off that keeps the passages keeps the image


# ---------------------------------------------------------------------------- 3: ranks, nodes
def test_ranks_count_from_one_in_both_wrappers() -> None:
    q = queries()[1]
    nodes = LIRetriever(ReplayHyperRAG(), include_image=False).retrieve(q["query"])
    assert [n.node.metadata["rank"] for n in nodes] == list(range(1, len(nodes) + 1))
    assert [n.score for n in nodes] == [1.0 / r for r in range(1, len(nodes) + 1)]
    docs = LCRetriever(rag=ReplayHyperRAG()).invoke(q["query"])
    assert [d.metadata["rank"] for d in docs] == list(range(1, len(docs) + 1))
    assert [d.metadata["score"] for d in docs] == [1.0 / r for r in range(1, len(docs) + 1)]


def test_langchain_image_document_ranks_and_scores_after_the_passages() -> None:
    q = queries()[SMALL]
    docs = LCRetriever(rag=ReplayHyperRAG(), include_image=True, k=2,
                       renderer=small_renderer()).invoke(q["query"])
    assert is_image_document(docs[-1])
    assert docs[-1].metadata["rank"] == 3 and docs[-1].metadata["score"] == 0.5


def test_llamaindex_passages_are_vizrag_text_nodes_with_a_query_independent_hash() -> None:
    q = queries()[1]
    first = LIRetriever(ReplayHyperRAG(), include_image=False).retrieve(q["query"])
    assert all(isinstance(n.node, VizRAGTextNode) for n in first)
    second = first[1].node.model_copy(update={"metadata": {**first[1].node.metadata,
                                                           "rank": 1}})
    assert second.hash == first[1].node.hash  # the same chunk at another rank: one hash


# ---------------------------------------------------------------------------- 11: options
def test_langchain_unknown_option_names_the_known_one() -> None:
    rag = ReplayHyperRAG()
    q = queries()[1]["query"]
    with pytest.raises(TypeError, match=r"unknown option 'top_k' \(did you mean 'k'\?\)"):
        LCRetriever(rag=rag).invoke(q, top_k=3)
    with pytest.raises(TypeError, match=r"unknown option 'top_k' \(did you mean 'k'\?\)"):
        LCRetriever(rag=rag, top_k=3)
    assert rag.calls == []


async def test_langchain_unknown_option_per_async_call() -> None:
    with pytest.raises(TypeError, match=r"ainvoke\(\) got an unknown option 'top_k'"):
        await LCRetriever(rag=ReplayHyperRAG()).ainvoke("q", top_k=3)


def test_llamaindex_unknown_option_names_the_known_one() -> None:
    with pytest.raises(TypeError, match=r"'similarity_top_k' \(did you mean 'top_k'\?\)"):
        LIRetriever(ReplayHyperRAG(), similarity_top_k=3)
    with pytest.raises(TypeError, match=r"'topk' \(did you mean 'top_k'\?\)"):
        LIRetriever(ReplayHyperRAG(), topk=3)
