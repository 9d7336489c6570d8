"""Wire test: the chain through langchain-openai's ChatOpenAI over an httpx.MockTransport.

No network: the transport answers every request with a canned Chat Completions response and
records the request JSON, so the test sees exactly what OpenAI would receive.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_langchain_retriever import QUERY, build_store

from vizrag_langchain import VizRAGRetriever, create_vizrag_chain

langchain_openai = pytest.importorskip("langchain_openai")

ANSWER = "Steve Harris founded Iron Maiden [1]."


def completion(model: str) -> dict[str, Any]:
    """A minimal Chat Completions response body."""
    return {
        "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": model,
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": ANSWER}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 7, "total_tokens": 17},
    }


class Wire:
    """Records request bodies; answers with :func:`completion`."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.url.path.endswith("/chat/completions")
        body = json.loads(request.content)
        self.requests.append(body)
        if body.get("stream"):
            return httpx.Response(200, content=sse(body["model"]),
                                  headers={"content-type": "text/event-stream"})
        return httpx.Response(200, json=completion(body["model"]))


def sse(model: str) -> bytes:
    """The answer as Chat Completions stream chunks (server-sent events), word by word."""
    lines = []
    for i, word in enumerate(ANSWER.split(" ")):
        delta = {"content": word if i == 0 else " " + word}
        chunk = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": 0,
                 "model": model, "choices": [{"index": 0, "delta": delta,
                                              "finish_reason": None}]}
        lines.append(f"data: {json.dumps(chunk)}\n\n")
    lines.append("data: [DONE]\n\n")
    return "".join(lines).encode()


def chat_openai(wire: Wire) -> Any:
    transport = httpx.MockTransport(wire)
    return langchain_openai.ChatOpenAI(
        model="gpt-4o-mini", api_key="sk-test-not-used", max_retries=0,
        http_client=httpx.Client(transport=transport),
        http_async_client=httpx.AsyncClient(transport=transport))


def image_parts(body: dict[str, Any]) -> list[dict[str, Any]]:
    content = body["messages"][-1]["content"]
    return [p for p in content if isinstance(p, dict) and p.get("type") == "image_url"]


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("lc-wire"))


@pytest.fixture(scope="module")
def retriever(store_dir: Path) -> VizRAGRetriever:
    return VizRAGRetriever(store=str(store_dir), k=3)


def test_image_url_with_detail_high_on_the_wire(retriever: VizRAGRetriever) -> None:
    wire = Wire()
    chain = create_vizrag_chain(retriever, chat_openai(wire), image_format="image_url")
    assert chain.invoke(QUERY) == ANSWER
    (body,) = wire.requests
    assert body["model"] == "gpt-4o-mini"
    (part,) = image_parts(body)
    assert part["image_url"]["detail"] == "high"
    assert part["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")
    text = body["messages"][-1]["content"][0]
    assert text["type"] == "text" and QUERY in text["text"]


async def test_v1_image_block_on_the_wire(retriever: VizRAGRetriever) -> None:
    wire = Wire()
    chain = create_vizrag_chain(retriever, chat_openai(wire))  # default: v1 image block
    assert await chain.ainvoke(QUERY) == ANSWER
    (part,) = image_parts(wire.requests[0])
    assert part["image_url"]["url"].startswith("data:image/png;base64,iVBORw0KGgo")


def test_sqlite_path_store(store_dir: Path) -> None:
    """The chain from a ``.sqlite`` path string, k=2 → two numbered passages on the wire."""
    wire = Wire()
    retriever = VizRAGRetriever(store=str(store_dir / "vizrag.sqlite"), k=2)
    chain = create_vizrag_chain(retriever, chat_openai(wire), image_format="image_url")
    assert chain.invoke(QUERY) == ANSWER and len(image_parts(wire.requests[0])) == 1
    text = wire.requests[0]["messages"][-1]["content"][0]["text"]
    assert "[2] " in text and "[3] " not in text


def test_stream_through_chat_openai(retriever: VizRAGRetriever) -> None:
    wire = Wire()
    chain = create_vizrag_chain(retriever, chat_openai(wire), image_format="image_url")
    pieces = list(chain.stream(QUERY))
    assert len(pieces) > 3 and "".join(pieces) == ANSWER
    assert wire.requests[0]["stream"] is True and len(image_parts(wire.requests[0])) == 1
