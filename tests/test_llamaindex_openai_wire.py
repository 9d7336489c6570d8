"""Wire test: with llama-index-llms-openai the PNG travels as an image part, detail "high".

No network: an ``httpx.MockTransport`` answers the chat-completions call and records the
request body exactly as the OpenAI SDK would send it.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import pytest

pytest.importorskip("llama_index.llms.openai")

import httpx
from llama_index.core import Document
from llama_index.llms.openai import OpenAI

from vizrag_llamaindex import VizRAGImageNode, VizRAGIndex

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
COMPLETION = {
    "id": "chatcmpl-test", "object": "chat.completion", "created": 0, "model": "gpt-4o-mini",
    "choices": [{"index": 0, "finish_reason": "stop",
                 "message": {"role": "assistant", "content": "Pierre Curie."}}],
    "usage": {"prompt_tokens": 900, "completion_tokens": 3, "total_tokens": 903},
}


def recorder() -> tuple[list[dict[str, Any]], Any]:
    bodies: list[dict[str, Any]] = []

    def handler(request: Any) -> Any:
        assert request.url.path.endswith("/chat/completions")
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json=COMPLETION)

    return bodies, httpx.MockTransport(handler)


@pytest.fixture(scope="module")
def index() -> VizRAGIndex:
    return VizRAGIndex.from_documents([Document(
        text="Marie Curie worked with Pierre Curie in Paris. Marie Curie won the Nobel Prize.",
        id_="curie")])


def check_body(body: dict[str, Any], response: Any) -> None:
    image = next(n.node for n in response.source_nodes if isinstance(n.node, VizRAGImageNode))
    assert body["model"] == "gpt-4o-mini"
    user = [m for m in body["messages"] if m["role"] == "user"][-1]
    parts = user["content"]
    kinds = [p["type"] for p in parts]
    assert kinds.count("image_url") == 1
    i = kinds.index("image_url")
    part = parts[i]["image_url"]
    assert part["detail"] == "high"
    assert part["url"] == f"data:image/png;base64,{image.image}"
    assert base64.b64decode(part["url"].split(",", 1)[1]).startswith(PNG_MAGIC)
    assert parts[i + 1]["type"] == "text"
    assert parts[i + 1]["text"].startswith("<<<CAPTION\nHyperViz rendering")
    assert "Marie Curie" in parts[0]["text"]
    assert str(response) == "Pierre Curie."


def test_sync_query_sends_the_png_as_a_high_detail_image_part(index: VizRAGIndex) -> None:
    bodies, transport = recorder()
    llm = OpenAI(model="gpt-4o-mini", api_key="sk-test", max_retries=0,
                 http_client=httpx.Client(transport=transport))
    response = index.as_query_engine(llm=llm, top_k=1).query("Who worked with Marie Curie?")
    assert len(bodies) == 1
    check_body(bodies[0], response)


def test_async_query_sends_the_same_request(index: VizRAGIndex) -> None:
    bodies, transport = recorder()
    llm = OpenAI(model="gpt-4o-mini", api_key="sk-test", max_retries=0,
                 async_http_client=httpx.AsyncClient(transport=transport))
    engine = index.as_query_engine(llm=llm, top_k=1)
    response = asyncio.run(engine.aquery("Who worked with Marie Curie?"))
    assert len(bodies) == 1
    check_body(bodies[0], response)
