"""Query engines: the hypergraph image reaches a chat LLM; caption only for completion LLMs."""

from __future__ import annotations

import asyncio
import base64
import warnings
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document
from llama_index.core.base.llms.types import ImageBlock, TextBlock
from llama_index.core.llms.mock import MockLLM, MockLLMWithChatMemoryOfLastCall
from llama_index.core.query_engine import RetrieverQueryEngine

from vizrag_llamaindex import CaptionOnlyWarning, IndexingWarning, VizRAGImageNode, VizRAGIndex

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
QUERY = "Who worked with Marie Curie in Paris?"


@pytest.fixture(scope="module")
def index() -> VizRAGIndex:
    return VizRAGIndex.from_documents([
        Document(text="Marie Curie worked with Pierre Curie in Paris. Marie Curie won the "
                      "Nobel Prize in Physics.", id_="curie"),
        Document(text="Albert Einstein lived in Bern and worked at the Patent Office.",
                 id_="einstein"),
    ])


def user_blocks(llm: MockLLMWithChatMemoryOfLastCall) -> list[Any]:
    assert llm.last_chat_messages is not None
    return [b for m in llm.last_chat_messages if m.role == "user" for b in m.blocks]


def image_of(response: Any) -> VizRAGImageNode:
    found = [n.node for n in response.source_nodes if isinstance(n.node, VizRAGImageNode)]
    assert len(found) == 1
    return found[0]


def check_blocks(blocks: list[Any], node: VizRAGImageNode) -> None:
    images = [i for i, b in enumerate(blocks) if isinstance(b, ImageBlock)]
    assert len(images) == 1
    block = blocks[images[0]]
    assert block.url is not None and str(block.url).startswith("data:image/png;base64,")
    assert str(block.url).split(",", 1)[1] == node.image
    assert block.resolve_image().read() == base64.b64decode(node.image or "")
    assert block.resolve_image().read().startswith(PNG_MAGIC)
    assert block.detail == "high"
    assert isinstance(blocks[0], TextBlock) and "Marie Curie" in blocks[0].text
    after = blocks[images[0] + 1]
    assert isinstance(after, TextBlock)
    assert after.text.startswith(f"<<<CAPTION\n{node.text[:40]}")  # the caption, fenced


def test_as_query_engine_sends_the_image_to_a_chat_llm(index: VizRAGIndex) -> None:
    llm = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        response = index.as_query_engine(llm=llm, top_k=2).query(QUERY)
    assert llm.last_called_chat_function == ["chat"]
    check_blocks(user_blocks(llm), image_of(response))
    assert str(response)


def test_from_args_with_multimodal_true(index: VizRAGIndex) -> None:
    llm = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
    engine = RetrieverQueryEngine.from_args(index.as_retriever(top_k=2), llm=llm,
                                            multimodal=True)
    engine.query(QUERY)
    blocks = user_blocks(llm)
    assert sum(isinstance(b, ImageBlock) for b in blocks) == 1
    assert any(isinstance(b, TextBlock) and b.text.startswith("HyperViz rendering")
               for b in blocks)


def test_streaming_and_aquery(index: VizRAGIndex) -> None:
    llm = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
    streaming = index.as_query_engine(llm=llm, streaming=True, top_k=2).query(QUERY)
    text = "".join(streaming.response_gen)
    assert text and llm.last_called_chat_function == ["stream_chat"]
    check_blocks(user_blocks(llm), image_of(streaming))
    llm2 = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
    response = asyncio.run(index.as_query_engine(llm=llm2, top_k=2).aquery(QUERY))
    assert llm2.last_called_chat_function[-1] == "achat"  # MockLLM.achat delegates to chat
    check_blocks(user_blocks(llm2), image_of(response))


def test_completion_llm_gets_the_caption_and_one_warning(index: VizRAGIndex) -> None:
    with pytest.warns(CaptionOnlyWarning, match="only its caption") as record:
        engine = index.as_query_engine(llm=MockLLM(), top_k=2)
    assert len(record) == 1
    response = engine.query(QUERY)
    caption = image_of(response).text
    assert caption.splitlines()[0] in str(response)  # MockLLM echoes its prompt
    assert "base64" not in str(response)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        index.as_query_engine(llm=MockLLM(), include_image=False)


def test_no_llm_is_a_clear_error_and_the_index_llm_is_used() -> None:
    index = VizRAGIndex.from_documents([Document(text="Ada Lovelace met Charles Babbage.",
                                                 id_="ada")])
    with pytest.raises(ValueError, match="needs an LLM"):
        index.as_query_engine()
    with pytest.raises(TypeError, match="LlamaIndex LLM"):
        index.as_query_engine(llm="gpt-4o-mini")
    llm = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
    with pytest.warns(IndexingWarning):  # the mock's echoed prompt is no extraction
        with_llm = VizRAGIndex.from_documents(
            [Document(text="Ada Lovelace met Charles Babbage in London.", id_="ada")], llm=llm)
    calls = len(llm.last_called_chat_function)  # extraction/themes went through the adapter
    assert calls > 0
    with_llm.as_query_engine(top_k=1).query("Who met Charles Babbage?")
    assert llm.last_called_chat_function[-1] == "chat"
    assert len(llm.last_called_chat_function) > calls


def test_running_loop_query(index: VizRAGIndex) -> None:
    async def main() -> str:
        llm = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
        return str(index.as_query_engine(llm=llm, top_k=1).query(QUERY))

    assert asyncio.run(main())


@pytest.mark.parametrize("mode", ["best", "condense_plus_context", "context",
                                  "condense_question"])
def test_chat_engines_send_the_image_to_a_chat_llm(index: VizRAGIndex, mode: str) -> None:
    llm = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CaptionOnlyWarning)
        engine = index.as_chat_engine(chat_mode=mode, llm=llm, top_k=2)
        engine.chat(QUERY)
    assert llm.last_chat_messages is not None
    images = [b for m in llm.last_chat_messages for b in m.blocks if isinstance(b, ImageBlock)]
    assert len(images) == 1
    assert images[0].resolve_image().read().startswith(PNG_MAGIC)
    text = " ".join(b.text for m in llm.last_chat_messages for b in m.blocks
                    if isinstance(b, TextBlock))
    assert "Marie Curie" in text
    image = next(n.node for n in index.as_retriever(top_k=2).retrieve(QUERY)
                 if isinstance(n.node, VizRAGImageNode))
    assert "E1" in image.text and image.text in text  # the legend of the image's labels
    assert text.count(image.text) == 1


def test_a_completion_llm_chat_engine_warns_that_only_the_caption_is_sent(
        index: VizRAGIndex) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        engine = index.as_chat_engine(chat_mode="context", llm=MockLLM(), top_k=2)
    said = [w for w in caught if issubclass(w.category, CaptionOnlyWarning)]
    assert len(said) == 1 and "not a chat model" in str(said[0].message)  # said once
    assert "Marie Curie" in str(engine.chat(QUERY))


@pytest.mark.parametrize("mode", ["no_text", "context_only"])
def test_text_free_response_modes_use_the_given_llm(
        index: VizRAGIndex, mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """LlamaIndex builds these two synthesizers without the LLM, so they read Settings.llm
    (an OpenAI model without a key fails); VizRAG builds them with ``llm=``."""
    from llama_index.core import Settings

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setattr(Settings, "_llm", None)
    llm = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
    for extra in ({}, {"response_synthesizer": None}):  # None: build it, as when left out
        engine = index.as_query_engine(llm=llm, top_k=2, response_mode=mode, **extra)
        response = engine.query(QUERY)
        assert response.source_nodes and llm.last_chat_messages is None  # no model call
        assert engine._response_synthesizer._llm is llm
