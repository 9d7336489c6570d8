"""LlamaIndex adapters with LlamaIndex's own mock models."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import numpy as np
import pytest
from llama_index.core.base.llms.types import ChatMessage, ChatResponse, CompletionResponse
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import ImageBlock, MessageRole, TextBlock
from llama_index.core.llms.mock import MockLLM, MockLLMWithChatMemoryOfLastCall
from pydantic import PrivateAttr

from hyperviz_core.rag.extract import LLMThemeExtractor
from hyperviz_core.rag.providers.middleware import TrackingChatModel, UsageTracker, build_chat_stack
from hyperviz_core.rag.providers.protocols import ChatModel, Embedder, ProviderError
from hyperviz_core.rag.types import Chunk, ChunkExtraction
from vizrag_llamaindex import LlamaIndexChatModel, LlamaIndexEmbedder, to_llamaindex_messages

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))


def _raw(block: ImageBlock) -> bytes:
    assert isinstance(block.image, bytes)
    return block.image


def test_messages_carry_text_and_png_blocks() -> None:
    msgs = to_llamaindex_messages("Which entity?", images=[PNG, PNG[:12]], system="sys")
    assert [m.role for m in msgs] == [MessageRole.SYSTEM, MessageRole.USER]
    blocks = msgs[1].blocks
    assert isinstance(blocks[0], TextBlock) and blocks[0].text == "Which entity?"
    imgs = [b for b in blocks if isinstance(b, ImageBlock)]
    assert len(imgs) == 2 and all(b.image_mimetype == "image/png" for b in imgs)
    # ImageBlock stores base64 of the bytes we gave it
    assert base64.b64decode(_raw(imgs[0])) == PNG


def test_chat_model_sends_image_block_to_the_llm() -> None:
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=None, is_chat_model=True)
    chat = LlamaIndexChatModel(llm)
    assert isinstance(chat, ChatModel) and chat.model_name.startswith("llamaindex:")
    out = chat.complete("Describe E1 and E2.", images=[PNG], system="Be brief.")
    assert "Describe E1 and E2." in out  # the mock echoes the prompt
    last = list(llm.last_chat_messages or [])
    assert last[0].role == MessageRole.SYSTEM and last[0].content == "Be brief."
    user = last[-1]
    image = next(b for b in user.blocks if isinstance(b, ImageBlock))
    assert image.image_mimetype == "image/png"
    assert base64.b64decode(_raw(image)) == PNG
    assert image.inline_url().startswith("data:image/png;base64,")


def test_async_and_plain_mock_llm() -> None:
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=None, is_chat_model=True)
    chat = LlamaIndexChatModel(llm)
    out = asyncio.run(chat.acomplete("async prompt", images=[PNG]))
    assert "async prompt" in out
    assert any(isinstance(b, ImageBlock) for b in (llm.last_chat_messages or [])[-1].blocks)
    plain = LlamaIndexChatModel(MockLLM(max_tokens=None), model_name="mock")
    assert "hello" in plain.complete("hello") and plain.model_name == "mock"


class ScriptedLLM(MockLLM):
    """A LlamaIndex LLM answering from a script, with OpenAI-like usage in ``raw``."""

    _answers: list[str] = PrivateAttr(default_factory=list)
    _seen: list[list[ChatMessage]] = PrivateAttr(default_factory=list)
    _fail_with: Any = PrivateAttr(default=None)

    @classmethod
    def make(cls, answers: list[str]) -> ScriptedLLM:
        llm = cls(max_tokens=None)
        llm._answers = list(answers)
        return llm

    @property
    def seen(self) -> list[list[ChatMessage]]:
        return self._seen

    def chat(self, messages: Any, **kwargs: Any) -> ChatResponse:
        if self._fail_with is not None:
            raise self._fail_with
        self._seen.append(list(messages))
        text = self._answers.pop(0)
        return ChatResponse(message=ChatMessage(role=MessageRole.ASSISTANT, content=text),
                            raw={"usage": {"prompt_tokens": 50, "completion_tokens": 5},
                                 "kwargs": kwargs})

    async def achat(self, messages: Any, **kwargs: Any) -> ChatResponse:
        return self.chat(messages, **kwargs)

    def complete(self, prompt: str, formatted: bool = False, **kw: Any) -> CompletionResponse:
        raise AssertionError("the adapter must use chat()")


def test_theme_extractor_through_llamaindex_gets_the_chunk_image() -> None:
    llm = ScriptedLLM.make([json.dumps({"theme": "Curies", "keywords": ["physics"],
                                        "key_entities": ["Marie Curie"]})])
    tracker = UsageTracker()
    chat = TrackingChatModel(LlamaIndexChatModel(llm), tracker)
    from hyperviz_core.model import Entity

    ext = ChunkExtraction(chunk_id="c1", entities=[Entity(name="Marie Curie")])
    theme = LLMThemeExtractor(chat).theme(
        Chunk(id="c1", doc_id="d", text="Marie Curie won."), ext, image=PNG)
    assert theme.key_entities == ["marie curie"]
    user = llm.seen[0][-1]
    assert any(isinstance(b, ImageBlock) and base64.b64decode(_raw(b)) == PNG
               for b in user.blocks)
    r = tracker.report()
    assert (r.calls, r.prompt_tokens, r.completion_tokens, r.images) == (1, 50, 5, 1)


def test_json_kwargs_and_error_mapping() -> None:
    llm = ScriptedLLM.make(["{}"])
    chat = LlamaIndexChatModel(llm, json_kwargs={"response_format": {"type": "json_object"}})
    chat.complete("x", json_mode=True)

    class RateLimitError(Exception):
        status_code = 429

    class BadRequest(Exception):
        status_code = 400

    llm._fail_with = RateLimitError("slow down")
    with pytest.raises(ProviderError) as info:
        chat.complete("x")
    assert info.value.retryable and info.value.status == 429
    llm._fail_with = BadRequest("nope")
    with pytest.raises(ProviderError) as info:
        asyncio.run(chat.acomplete("x"))
    assert not info.value.retryable
    llm._fail_with = KeyError("a bug")
    with pytest.raises(KeyError):
        chat.complete("x")
    # retries wrap the adapter like any ChatModel
    llm._fail_with = None
    llm._answers = ["ok"]
    assert build_chat_stack(chat, max_retries=2).complete("x") == "ok"


def test_embedder() -> None:
    emb = LlamaIndexEmbedder(MockEmbedding(embed_dim=8))
    assert isinstance(emb, Embedder) and emb.dim == 8
    m = emb.embed(["a", "b", "c"])
    assert m.shape == (3, 8) and m.dtype == np.float32
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0)
    assert np.array_equal(asyncio.run(emb.aembed(["a", "b", "c"])), m)
    assert emb.embed([]).shape == (0, 8) and emb.name.startswith("llamaindex:")
    # BaseEmbedding's default model_name "unknown" names no model: the class does, so two
    # unnamed kinds of embed model are told apart (a store logs the change of embedder)
    assert emb.name == "llamaindex:MockEmbedding"
    assert LlamaIndexEmbedder(MockEmbedding(embed_dim=8, model_name="m")).name == "llamaindex:m"
