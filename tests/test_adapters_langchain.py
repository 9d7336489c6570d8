"""LangChain adapters with langchain-core's fake chat models and embeddings."""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any, ClassVar
from uuid import UUID

import numpy as np
import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import (
    GenericFakeChatModel,
    ParrotFakeChatModel,
)
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from hyperviz_core.rag.extract import LLMExtractor, LLMKeywordExtractor
from hyperviz_core.rag.providers.middleware import UsageTracker
from hyperviz_core.rag.providers.protocols import ChatModel, Embedder, ProviderError
from hyperviz_core.rag.types import Chunk
from vizrag_langchain import (
    LangChainChatModel,
    LangChainEmbedder,
    message_text,
    to_langchain_messages,
)

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(40))


class Recorder(BaseCallbackHandler):
    """Records the messages every chat model call received."""

    def __init__(self) -> None:
        self.calls: list[list[BaseMessage]] = []

    def on_chat_model_start(self, serialized: dict[str, Any], messages: list[list[BaseMessage]],
                            *, run_id: UUID, **kwargs: Any) -> None:
        self.calls.extend(messages)


def test_messages_use_image_url_data_urls() -> None:
    msgs = to_langchain_messages("Which entity?", images=[PNG], system="sys")
    assert isinstance(msgs[0], SystemMessage) and isinstance(msgs[1], HumanMessage)
    content = msgs[1].content
    assert isinstance(content, list)
    text, image = content
    assert text == {"type": "text", "text": "Which entity?"}
    assert isinstance(image, dict) and image["type"] == "image_url"
    url = image["image_url"]["url"]
    assert url.startswith("data:image/png;base64,") and base64.b64decode(url[22:]) == PNG
    # LangChain's own normalisation sees a standard image block with our bytes
    block = next(b for b in msgs[1].content_blocks if b["type"] == "image")
    assert block.get("mime_type") == "image/png" and base64.b64decode(block["base64"]) == PNG
    assert isinstance(to_langchain_messages("plain")[0].content, str)


def test_parrot_receives_text_and_image() -> None:
    rec = Recorder()
    chat = LangChainChatModel(ParrotFakeChatModel(), config={"callbacks": [rec]})
    assert isinstance(chat, ChatModel) and chat.model_name == "langchain:parrot-fake-chat-model"
    out = chat.complete("Locate E3", images=[PNG], system="Answer with IDs.")
    assert out == "Locate E3"  # the parrot echoes the last message; text parts only
    (call,) = rec.calls
    assert isinstance(call[0], SystemMessage) and call[0].content == "Answer with IDs."
    parts = call[-1].content
    assert isinstance(parts, list) and isinstance(parts[1], dict)
    assert parts[1]["image_url"]["url"].endswith(base64.b64encode(PNG).decode())
    out2 = asyncio.run(chat.acomplete("async", images=[PNG, PNG]))
    assert out2 == "async" and len(rec.calls[-1][-1].content) == 3


def test_generic_fake_drives_extraction_and_reports_usage() -> None:
    answer = json.dumps({
        "entities": [{"name": "Ada Lovelace", "type": "person"},
                     {"name": "Analytical Engine", "type": "work"}],
        "hyperedges": [{"members": ["Ada Lovelace", "Analytical Engine"],
                        "description": "notes"}]})
    fake = GenericFakeChatModel(messages=iter([AIMessage(
        content=answer, usage_metadata={"input_tokens": 120, "output_tokens": 30,
                                        "total_tokens": 150})]))
    tracker = UsageTracker(LangChainChatModel(fake))
    ext = LLMExtractor(tracker).extract(Chunk(id="c1", doc_id="d", text="Ada ..."))
    assert len(ext.entities) == 2 and len(ext.hyperedges) == 1
    r = tracker.report()
    assert (r.calls, r.prompt_tokens, r.completion_tokens, r.estimated_calls) == (1, 120, 30, 0)


def test_keywords_and_json_kwargs_binding() -> None:
    class BindRecorder(GenericFakeChatModel):
        bound: ClassVar[list[dict[str, Any]]] = []

        def bind(self, **kwargs: Any) -> Any:
            self.bound.append(kwargs)
            return self

    fake = BindRecorder(messages=iter([AIMessage(content='["CERN"]'),
                                       AIMessage(content='{"entities": []}')]))
    chat = LangChainChatModel(fake, json_kwargs={"format": "json"})
    assert LLMKeywordExtractor(chat).keywords("Who founded CERN?") == ["CERN"]
    assert fake.bound == []  # keyword prompt does not use JSON mode
    chat.complete("x", json_mode=True)
    assert fake.bound == [{"format": "json"}]


def test_error_mapping() -> None:
    class Boom(GenericFakeChatModel):
        exc: Any = None

        def _generate(self, *args: Any, **kwargs: Any) -> Any:
            raise self.exc

    class RateLimitError(Exception):
        pass

    class NotFound(Exception):
        def __init__(self) -> None:
            super().__init__("no such model")
            self.response = type("R", (), {"status_code": 404})()

    chat = LangChainChatModel(Boom(messages=iter([]), exc=RateLimitError("429")))
    with pytest.raises(ProviderError) as info:
        chat.complete("x")
    assert info.value.retryable
    chat = LangChainChatModel(Boom(messages=iter([]), exc=NotFound()))
    with pytest.raises(ProviderError) as info:
        asyncio.run(chat.acomplete("x"))
    assert info.value.status == 404 and not info.value.retryable


def test_message_text() -> None:
    assert message_text(AIMessage(content=[{"type": "text", "text": "a"}, "b",
                                           {"type": "image_url", "image_url": {}}])) == "ab"
    assert message_text(AIMessage(content="plain")) == "plain"


def test_embedder() -> None:
    emb = LangChainEmbedder(DeterministicFakeEmbedding(size=16))
    assert isinstance(emb, Embedder) and emb.dim == 16
    m = emb.embed(["alpha", "beta"])
    assert m.shape == (2, 16) and m.dtype == np.float32
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-6)
    assert np.allclose(emb.embed(["alpha"])[0], m[0])  # deterministic per text
    assert np.allclose(asyncio.run(emb.aembed(["alpha", "beta"])), m)
    assert emb.embed([]).shape == (0, 16)
