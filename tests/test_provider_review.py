"""The provider layer's review fixes, against a local recording fake server (127.0.0.1, no
other network): spec URLs that are not http(s) refused, a base URL's ``user:password@`` kept
out of logs and out of ``Authorization``, an unusable URL as a provider failure, a non-JSON
embeddings reply retried, image ``detail`` "high" from specs, and servers refusing
``response_format`` (LM Studio)."""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import one_line_error, run_cli
from provider_fakes import LocalServer, completion

from hyperviz_core.rag.providers.openai_compat import OpenAIChatModel, OpenAIEmbedder
from hyperviz_core.rag.providers.openai_wire import embedding_rows, map_call_error
from hyperviz_core.rag.providers.protocols import ProviderError
from hyperviz_core.rag.providers.retry import RetryingEmbedder
from hyperviz_core.rag.providers.spec import (
    chat_model_from_spec,
    embedder_from_spec,
    parse_model_spec,
)

#: (path, request body, n-th request of that path) -> (status, body, content type) | None
Script = Callable[[str, dict[str, Any], int], "tuple[int, bytes, str] | None"]
_LMSTUDIO_400 = json.dumps({"error": "'response_format.type' must be 'json_schema' or "
                                     "'text'"}).encode()


class Recorder(LocalServer):
    """A fake OpenAI-compatible server that records every request (path, headers, body)."""

    def __init__(self, script: Script | None = None) -> None:
        self.script = script
        self.requests: list[tuple[str, dict[str, str], dict[str, Any]]] = []
        self._lock = threading.Lock()
        super().__init__(self._respond)

    def __enter__(self) -> Recorder:
        super().__enter__()
        return self

    def bodies(self, suffix: str) -> list[dict[str, Any]]:
        return [b for p, _, b in self.requests if p.endswith(suffix)]

    def _respond(self, path: str, headers: dict[str, str], raw: bytes
                 ) -> tuple[int, bytes, dict[str, str]]:
        body = json.loads(raw)
        with self._lock:
            self.requests.append((path, headers, body))
            n = sum(1 for p, _, _ in self.requests if p == path)
        status, data, ctype = self.reply(path, body, n)
        return status, data, {"Content-Type": ctype}

    def reply(self, path: str, body: dict[str, Any], n: int) -> tuple[int, bytes, str]:
        scripted = self.script(path, body, n) if self.script else None
        if scripted is not None:
            return scripted
        if path.endswith("/embeddings"):
            data = [{"object": "embedding", "index": i, "embedding": [1.0, 0.0, 0.0, 0.0]}
                    for i, _ in enumerate(body["input"])]
            return 200, json.dumps({"object": "list", "data": data}).encode(), "application/json"
        return 200, json.dumps(completion('{"ok": true}')).encode(), "application/json"


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)


@pytest.fixture
def server() -> Iterator[Recorder]:
    with Recorder() as fake:
        yield fake


# ------------------------------------------------------------------ 1: spec URLs
@pytest.mark.parametrize("spec", [
    "openai:llava@htp://127.0.0.1:18080/v1",
    "openai:llava@127.0.0.1:18080/v1",
    "ollama:llava@myhost:11434/v1",
    "openai:llava@localhost",
    "openai:m@http://127.0.0.1:notaport/v1",
    "openai:m@http://127.0.0.1:99999/v1",
    "openai:m@http:///v1",
    "openai:m@",
])
def test_an_at_part_that_is_not_an_http_url_is_refused(spec: str) -> None:
    with pytest.raises(ValueError, match=r"bad model spec .*the part after @ must be an "
                                          r"http:// or https:// URL"):
        parse_model_spec(spec, env={"OPENAI_API_KEY": "k"})


def test_spec_urls_any_case_and_model_names_with_at() -> None:
    s = parse_model_spec("openai:llava@HTTP://127.0.0.1:18080/v1", env={})
    assert (s.model, s.base_url) == ("llava", "http://127.0.0.1:18080/v1")
    s = parse_model_spec("openai:claude-3-5-sonnet@20240620", env={})
    assert (s.model, s.base_url) == ("claude-3-5-sonnet@20240620", None)
    s = parse_model_spec("vllm:m@20240620@Https://bob:pw@h:8000/v1", env={})
    assert (s.model, s.base_url) == ("m@20240620", "https://bob:pw@h:8000/v1")
    with pytest.raises(ValueError) as err:
        parse_model_spec("openai:m@http://bob:hunter2@h:notaport/v1", env={})
    assert "hunter2" not in str(err.value)
    for name in ("@cf/meta/llama-3.1-8b-instruct", "@hf/thebloke/x", "org/model@v1.0",
                 "m@v1.0/x", "model@[beta]", "meta/llama@v1.2.3/final"):
        assert parse_model_spec(f"openai:{name}", env={}).model == name  # names, as before
    for typo in ("https:/host/v1", "http//host:8000/v1", "api.example.com/v1",
                 "[::1]:8000/v1"):  # mistyped URLs went, with the key, to the default server
        with pytest.raises(ValueError, match="must be an http:// or https:// URL"):
            parse_model_spec(f"openai:m@{typo}", env={})


def test_an_at_in_the_password_and_an_environment_url_are_stripped_too(
        server: Recorder, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """The user info runs to the last ``@`` of the authority (as urlsplit reads it), and a
    URL from ``OPENAI_BASE_URL`` is cleaned as an explicit one (the SDK read it raw: the
    password was logged and the key not sent)."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-REALKEY")
    with caplog.at_level(logging.DEBUG):
        chat = chat_model_from_spec(f"openai:m@http://bob:p@ss@127.0.0.1:{server.port}/v1")
        assert chat is not None and "ss" not in chat.model_name.split("127.0.0.1")[0][2:]
        assert chat.complete("hi") == '{"ok": true}'
        monkeypatch.setenv("OPENAI_BASE_URL", f"http://eve:s3cret@127.0.0.1:{server.port}/v1")
        assert OpenAIChatModel("m").complete("hi") == '{"ok": true}'
        assert OpenAIEmbedder("e").embed(["x"]).shape == (1, 4)
    assert "p@ss" not in caplog.text and "s3cret" not in caplog.text
    auths = [(h["Authorization"], h["Proxy-Authorization"]) for _, h, _ in server.requests]
    assert auths == [("Bearer sk-REALKEY", "Basic " + base64.b64encode(pair).decode())
                     for pair in (b"bob:p@ss", b"eve:s3cret", b"eve:s3cret")]


def test_cli_refuses_a_bad_spec_url_in_one_line(tmp_path: Path) -> None:
    doc = tmp_path / "d.txt"
    doc.write_text("Ada Lovelace met Charles Babbage.", encoding="utf-8")
    store = tmp_path / "st"
    res = run_cli(["index", str(doc), "--store", str(store), "--no-progress",
                   "--llm", "openai:llava@htp://127.0.0.1:18080/v1"])
    one_line_error(res, "bad model spec", "http:// or https:// URL")
    assert not store.exists()


# ------------------------------------------------------------------ 2: user:password@
def test_url_credentials_never_logged_and_the_key_still_sent(
        server: Recorder, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-REALKEY")
    url = f"http://bob:hunter2@127.0.0.1:{server.port}/v1"
    with caplog.at_level(logging.DEBUG):
        chat = chat_model_from_spec(f"openai:m@{url}")
        assert chat is not None and chat.complete("hi") == '{"ok": true}'
        emb = embedder_from_spec(f"openai:e@{url}")
        assert emb.embed(["x"]).shape == (1, 4)
    assert "hunter2" not in caplog.text and "bob" not in caplog.text
    assert "HTTP Request: POST http://127.0.0.1" in caplog.text  # httpx logged, without them
    basic = "Basic " + base64.b64encode(b"bob:hunter2").decode()
    assert len(server.requests) == 2
    for _, headers, _ in server.requests:
        assert headers["Authorization"] == "Bearer sk-REALKEY"
        assert headers["Proxy-Authorization"] == basic


# ------------------------------------------------------------------ 3: unusable URL
def test_an_unusable_base_url_is_a_non_retryable_provider_failure() -> None:
    import httpx

    bad = "http://127.0.0.1:notaport/v1"
    with pytest.raises(ProviderError, match="unusable base URL") as err:
        OpenAIChatModel("m", base_url=bad, api_key="k").complete("hi")
    assert not err.value.retryable
    with pytest.raises(ProviderError, match="unusable base URL"):
        OpenAIEmbedder("e", base_url=bad, api_key="k").embed(["x"])
    mapped = map_call_error(httpx.InvalidURL("Invalid port: 'x'"), "w")
    assert isinstance(mapped, ProviderError) and not mapped.retryable


# ------------------------------------------------------------------ 4: non-JSON embeddings
def test_a_non_json_embeddings_reply_is_retried_like_chat() -> None:
    html = b"<html><body>502 Bad Gateway (nginx)</body></html>"

    def script(path: str, body: dict[str, Any], n: int) -> tuple[int, bytes, str] | None:
        return (200, html, "text/html") if n == 1 else None

    with pytest.raises(ProviderError) as err:
        embedding_rows("<html>proxy error</html>", 1, "w")
    assert err.value.retryable
    sleeps: list[float] = []
    with Recorder(script) as fake:
        emb = RetryingEmbedder(OpenAIEmbedder("e", base_url=fake.url, api_key="k"),
                               max_retries=2, sleep=sleeps.append)
        assert emb.embed(["hello"]).shape == (1, 4)
    assert len(sleeps) == 1 and len(fake.bodies("/embeddings")) == 2


# ------------------------------------------------------------------ 5: image detail
def test_spec_chat_models_send_images_with_detail_high(server: Recorder) -> None:
    chat = chat_model_from_spec(f"openai:vlm@{server.url}")
    assert chat is not None
    chat.complete("look", images=[b"\x89PNG fake"])
    parts = server.bodies("/chat/completions")[0]["messages"][-1]["content"]
    images = [p["image_url"] for p in parts if p["type"] == "image_url"]
    assert images and all(i["detail"] == "high" for i in images)
    low = chat_model_from_spec(f"openai:vlm@{server.url}", image_detail="low")
    assert isinstance(low, OpenAIChatModel) and low.image_detail == "low"


# ------------------------------------------------------------------ 6: response_format
def _rejects_json_object(path: str, body: dict[str, Any],
                         n: int) -> tuple[int, bytes, str] | None:
    if (body.get("response_format") or {}).get("type") == "json_object":
        return 400, _LMSTUDIO_400, "application/json"
    return None


def test_lmstudio_specs_send_no_json_object() -> None:
    with Recorder(_rejects_json_object) as fake:
        chat = chat_model_from_spec(f"lmstudio:qwen2-vl@{fake.url}")
        assert chat is not None
        assert chat.complete("Answer with JSON only", json_mode=True) == '{"ok": true}'
    assert ["response_format" in b for b in fake.bodies("/chat/completions")] == [False]


def test_a_400_naming_response_format_falls_back_once_and_is_remembered(
        caplog: pytest.LogCaptureFixture) -> None:
    with Recorder(_rejects_json_object) as fake:
        chat = OpenAIChatModel("m", base_url=fake.url, api_key="k")
        with caplog.at_level(logging.WARNING):
            assert chat.complete("JSON please", json_mode=True) == '{"ok": true}'
        assert chat.complete("again", json_mode=True) == '{"ok": true}'
        achat = OpenAIChatModel("m", base_url=fake.url, api_key="k")
        assert asyncio.run(achat.acomplete("JSON please", json_mode=True)) == '{"ok": true}'
    sent = ["response_format" in b for b in fake.bodies("/chat/completions")]
    assert sent == [True, False, False, True, False]
    assert not chat.json_mode_supported and not achat.json_mode_supported
    assert "refuses response_format" in caplog.text


def test_other_400s_are_not_retried_without_response_format() -> None:
    def script(path: str, body: dict[str, Any], n: int) -> tuple[int, bytes, str] | None:
        return 400, json.dumps({"error": {"message": "bad model"}}).encode(), "application/json"

    with Recorder(script) as fake:
        chat = OpenAIChatModel("m", base_url=fake.url, api_key="k")
        with pytest.raises(ProviderError, match="HTTP 400"):
            chat.complete("x", json_mode=True)
    assert len(fake.requests) == 1 and chat.json_mode_supported
