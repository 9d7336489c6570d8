"""VizRAGQueryEngine reads the ``[n]`` citations of its answers back into
``response.metadata`` (query, aquery, streaming on completion), numbered as the prompt
numbered the passages (the image node not counted)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document
from llama_index.core.base.llms.types import (
    ChatMessage,
    CompletionResponse,
    CompletionResponseGen,
    TextBlock,
)
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall
from llama_index.core.schema import NodeWithScore

from hyperviz_core.rag.result import Citations
from vizrag_llamaindex import VizRAGImageNode, VizRAGIndex
from vizrag_llamaindex.prompt_views import format_passage, prompt_views

QUERY = "Who worked with Marie Curie in Paris?"
ANSWER = "Pierre Curie [2], in Paris [1]; see also [2] and [7]."
WARNING = "the answer cites [7], which its prompt did not give (passages [1]-[2])"


class Answering(MockLLMWithChatMemoryOfLastCall):
    """A chat mock that answers ``ANSWER`` (streamed a few characters at a time) and keeps
    the messages of its last call."""

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any
                 ) -> CompletionResponse:
        return CompletionResponse(text=ANSWER)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any
                        ) -> CompletionResponseGen:
        def gen() -> CompletionResponseGen:
            for i in range(0, len(ANSWER), 5):
                yield CompletionResponse(text=ANSWER[:i + 5], delta=ANSWER[i:i + 5])
        return gen()


def answering() -> Answering:
    return Answering(is_chat_model=True)  # type: ignore[call-arg]  # (pydantic plugin)


def curie_index() -> VizRAGIndex:
    """Two short documents about Marie Curie (offline)."""
    return VizRAGIndex.from_documents([
        Document(text="Marie Curie worked with Pierre Curie in Paris. Marie Curie won the "
                      "Nobel Prize.", id_="curie", metadata={"title": "Curie"}),
        Document(text="Albert Einstein lived in Bern and worked with Marie Curie at the "
                      "Solvay council.", id_="einstein", metadata={"title": "Einstein"}),
    ])


@pytest.fixture(scope="module")
def index() -> VizRAGIndex:
    return curie_index()


def user_text(messages: Sequence[ChatMessage] | None) -> str:
    return "\n".join(b.text for m in messages or [] if m.role == "user" for b in m.blocks
                     if isinstance(b, TextBlock))


def check(response: Any, llm: Answering) -> None:
    """The citations are in the metadata, the cited nodes are the passages the prompt
    numbered so, and the image node is not one of them."""
    meta = response.metadata
    assert meta["citations"] == Citations(passages=[2, 1], unknown=["[7]"], carried=2)
    assert meta["citation_warning"] == WARNING
    passages = [n for n in response.source_nodes if not isinstance(n.node, VizRAGImageNode)]
    assert len(passages) == 2 and len(response.source_nodes) == 3  # the image is a node
    assert meta["cited_nodes"] == [passages[1], passages[0]]
    text = user_text(llm.last_chat_messages)
    for number, cited in zip([2, 1], meta["cited_nodes"], strict=True):
        assert format_passage(number, cited.node) in text
    for node in passages:  # the node metadata LlamaIndex puts there is kept
        assert node.node.node_id in meta


def test_query_reads_the_citations(index: VizRAGIndex,
                                   caplog: pytest.LogCaptureFixture) -> None:
    llm = answering()
    with caplog.at_level(logging.WARNING, logger="vizrag_llamaindex.query"):
        response = index.as_query_engine(llm=llm, top_k=2).query(QUERY)
    assert str(response) == ANSWER
    check(response, llm)
    assert WARNING in caplog.text


def test_aquery_reads_the_citations(index: VizRAGIndex) -> None:
    llm = answering()
    response = asyncio.run(index.as_query_engine(llm=llm, top_k=2).aquery(QUERY))
    check(response, llm)


def test_refine_reads_the_final_answer(index: VizRAGIndex) -> None:
    llm = answering()
    engine = index.as_query_engine(llm=llm, top_k=2, response_mode="refine")
    response: Any = engine.query(QUERY)
    assert response.metadata["citations"].passages == [2, 1]


def test_streaming_reads_the_citations_once_the_tokens_are_read(index: VizRAGIndex) -> None:
    llm = answering()
    streaming: Any = index.as_query_engine(llm=llm, streaming=True, top_k=2).query(QUERY)
    assert "citations" not in streaming.metadata  # not read yet
    assert "".join(streaming.response_gen) == ANSWER
    check(streaming, llm)
    llm2 = answering()
    again: Any = index.as_query_engine(llm=llm2, streaming=True, top_k=2).query(QUERY)
    assert again.get_response().metadata["citations"].passages == [2, 1]


def test_async_streaming_reads_the_citations(index: VizRAGIndex) -> None:
    llm = answering()

    async def main() -> Any:
        engine = index.as_query_engine(llm=llm, streaming=True, top_k=2)
        streaming: Any = await engine.aquery(QUERY)
        assert "".join([t async for t in streaming.async_response_gen()]) == ANSWER
        return streaming

    check(asyncio.run(main()), llm)


def test_text_free_modes_read_no_citations(index: VizRAGIndex) -> None:
    llm = answering()
    response: Any = index.as_query_engine(llm=llm, top_k=2, response_mode="context_only").query(
        QUERY)
    assert "citations" not in (response.metadata or {})


def test_numbered_passages_skip_the_image_wherever_it_is(index: VizRAGIndex) -> None:
    from vizrag_llamaindex.query import numbered_passages

    nodes = index.as_retriever(top_k=2).retrieve(QUERY)
    image = [n for n in nodes if isinstance(n.node, VizRAGImageNode)]
    text = [n for n in nodes if not isinstance(n.node, VizRAGImageNode)]
    assert len(image) == 1 and len(text) == 2
    reordered: list[NodeWithScore] = [text[0], *image, text[1]]
    assert numbered_passages(reordered) == text
    views = prompt_views(reordered)  # what the LLM reads: the same numbers
    for number, node in enumerate(text, start=1):
        (view,) = [v for v in views if v.node.node_id == node.node.node_id]
        assert view.node.get_content() == format_passage(number, node.node)
