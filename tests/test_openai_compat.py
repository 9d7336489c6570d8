"""OpenAI-compatible adapter, replayed from hand-written cassettes through the real SDK.

The cassettes under ``tests/cassettes/test_openai_compat/`` are in the provider's wire
format; vcrpy patches the SDK's HTTP transport (httpx2), so these tests exercise request
building, the SDK's response parsing and our error mapping without any network.
``--record-mode=none`` (pytest addopts) makes any request missing from a cassette fail.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import numpy as np
import pytest

from hyperviz_core.rag.providers.middleware import (
    RetryingChatModel,
    TrackingChatModel,
    UsageTracker,
)
from hyperviz_core.rag.providers.offline import HashingEmbedder
from hyperviz_core.rag.providers.openai_compat import OpenAIChatModel, OpenAIEmbedder
from hyperviz_core.rag.providers.protocols import ChatModel, Embedder, ProviderError
from hyperviz_core.rag.providers.spec import (
    chat_model_from_spec,
    embedder_from_spec,
    parse_model_spec,
)

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR"
SEEN: list[Any] = []


def _capture(request: Any) -> Any:
    SEEN.append(request)
    return request


@pytest.fixture(scope="module")
def vcr_config() -> dict[str, Any]:
    return {
        "filter_headers": ["authorization", "openai-organization", "openai-project",
                           "x-stainless-arch", "x-stainless-os", "user-agent"],
        "match_on": ["method", "scheme", "host", "port", "path"],
        "before_record_request": _capture,
    }


@pytest.fixture(autouse=True)
def _clear_seen() -> None:
    SEEN.clear()


def sent_bodies() -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for r in SEEN:
        body = json.loads(r.body)
        if not out or out[-1] != body:
            out.append(body)
    return out


def chat(model: str = "gpt-4o-mini", **kw: Any) -> OpenAIChatModel:
    return OpenAIChatModel(model, api_key="sk-test-not-a-real-key", **kw)


@pytest.mark.vcr
def test_chat_completion_with_image() -> None:
    tracker = UsageTracker()
    model = TrackingChatModel(chat(), tracker)
    assert isinstance(model, ChatModel)
    out = model.complete("Describe the theme of the text and image as JSON.", images=[PNG],
                         system="You are a precise knowledge-extraction assistant.",
                         json_mode=True)
    assert json.loads(out)["key_entities"] == ["Marie Curie", "Pierre Curie"]
    (body,) = sent_bodies()
    assert body["model"] == "gpt-4o-mini" and body["temperature"] == 0.0
    assert body["response_format"] == {"type": "json_object"}
    system, user = body["messages"]
    assert system == {"role": "system",
                      "content": "You are a precise knowledge-extraction assistant."}
    text, image = user["content"]
    assert text["type"] == "text" and image["type"] == "image_url"
    url = image["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    assert base64.b64decode(url.split(",", 1)[1]) == PNG
    headers = {k.lower() for k in SEEN[0].headers}
    assert "authorization" not in headers  # filtered from what vcr sees/records
    r = tracker.report()
    assert (r.calls, r.prompt_tokens, r.completion_tokens, r.images, r.estimated_calls) == (
        1, 1187, 42, 1, 0)


@pytest.mark.vcr
def test_async_chat_completion() -> None:
    model = chat()
    out = asyncio.run(model.acomplete("Give search keywords as a JSON list: Who founded CERN?"))
    assert json.loads(out) == ["CERN", "founders", "1954"]
    (body,) = sent_bodies()
    assert body["messages"] == [{"role": "user", "content":
                                 "Give search keywords as a JSON list: Who founded CERN?"}]
    assert "response_format" not in body


@pytest.mark.vcr
def test_rate_limit_is_retried() -> None:
    sleeps: list[float] = []
    model = RetryingChatModel(chat(), base_delay=0.01, max_delay=30, sleep=sleeps.append)
    assert model.complete("ping") == "pong"
    assert sleeps == [2.0]  # the Retry-After header of the 429
    assert len(sent_bodies()) == 1 and len({id(r) for r in SEEN}) >= 2


@pytest.mark.vcr("test_rate_limit_is_retried.yaml")
def test_rate_limit_maps_to_retryable_error() -> None:
    with pytest.raises(ProviderError) as info:
        chat().complete("ping")
    assert info.value.retryable and info.value.status == 429
    assert info.value.retry_after == 2.0


@pytest.mark.vcr
def test_bad_request_is_not_retried() -> None:
    sleeps: list[float] = []
    model = RetryingChatModel(chat(), sleep=sleeps.append)
    with pytest.raises(ProviderError) as info:
        model.complete("ping")
    assert info.value.status == 400 and not info.value.retryable and sleeps == []
    assert "image_url" in str(info.value)


@pytest.mark.vcr
def test_embeddings() -> None:
    emb = OpenAIEmbedder("text-embedding-3-small", api_key="sk-test", dimensions=4)
    assert isinstance(emb, Embedder) and emb.dim == 4 and emb.name.startswith("openai:")
    m = emb.embed(["Marie Curie", "Nobel Prize in Physics"])
    assert m.dtype == np.float32 and m.shape == (2, 4)
    assert np.allclose(np.linalg.norm(m, axis=1), 1.0, atol=1e-6)
    # rows come back in input order even though the server sent index 1 first
    assert np.allclose(m[0], np.array([0.5, 0.5, -0.5, 0.5], dtype=np.float32))
    (body,) = sent_bodies()
    assert body["input"] == ["Marie Curie", "Nobel Prize in Physics"] and body["dimensions"] == 4


@pytest.mark.vcr
def test_ollama_base_url() -> None:
    spec = parse_model_spec("ollama:llava", env={})
    model = chat_model_from_spec(spec)
    assert isinstance(model, OpenAIChatModel)
    assert model.complete("ping") == "pong"
    assert SEEN[0].uri == "http://localhost:11434/v1/chat/completions"


def test_unmatched_request_fails_instead_of_hitting_the_network(tmp_path: Any) -> None:
    import vcr  # type: ignore[import-untyped]
    from vcr.errors import CannotOverwriteExistingCassetteException  # type: ignore[import-untyped]

    cassette = tmp_path / "empty.yaml"
    cassette.write_text("interactions: []\nversion: 1\n")
    with vcr.use_cassette(str(cassette), record_mode="none"), pytest.raises(
        (CannotOverwriteExistingCassetteException, ProviderError)
    ):
        chat().complete("this request is in no cassette")


# ------------------------------------------------------------------------------ specs
@pytest.mark.parametrize(
    ("spec", "env", "provider", "model", "base_url", "api_key"),
    [
        ("openai:gpt-4o-mini", {"OPENAI_API_KEY": "k"}, "openai", "gpt-4o-mini", None, "k"),
        ("openai:gpt-4o-mini", {"OPENAI_BASE_URL": "http://proxy/v1"}, "openai", "gpt-4o-mini",
         "http://proxy/v1", None),
        ("ollama:llava", {}, "ollama", "llava", "http://localhost:11434/v1", "ollama"),
        ("ollama:llama3.2:3b", {"OLLAMA_BASE_URL": "http://gpu:11434/v1"}, "ollama",
         "llama3.2:3b", "http://gpu:11434/v1", "ollama"),
        ("gemini:gemini-2.0-flash", {"GEMINI_API_KEY": "g"}, "gemini", "gemini-2.0-flash",
         "https://generativelanguage.googleapis.com/v1beta/openai/", "g"),
        ("openai:qwen2-vl@http://10.0.0.5:8000/v1", {}, "openai", "qwen2-vl",
         "http://10.0.0.5:8000/v1", None),
        ("vllm:Qwen/Qwen2-VL-7B-Instruct", {}, "vllm", "Qwen/Qwen2-VL-7B-Instruct",
         "http://localhost:8000/v1", "EMPTY"),
    ],
)
def test_parse_model_spec(spec: str, env: dict[str, str], provider: str, model: str,
                          base_url: str | None, api_key: str | None) -> None:
    s = parse_model_spec(spec, env=env)
    assert (s.provider, s.model, s.base_url, s.api_key) == (provider, model, base_url, api_key)


def test_offline_and_bad_specs() -> None:
    for spec in (None, "", "offline", "OFFLINE"):
        assert parse_model_spec(spec).offline
        assert chat_model_from_spec(spec) is None
    assert isinstance(embedder_from_spec("offline", dim=64), HashingEmbedder)
    assert isinstance(embedder_from_spec("openai:text-embedding-3-small", api_key="k"),
                      OpenAIEmbedder)
    with pytest.raises(ValueError, match="unknown provider"):
        parse_model_spec("anthropic:claude")
    with pytest.raises(ValueError, match="bad model spec"):
        parse_model_spec("gpt-4o-mini")
