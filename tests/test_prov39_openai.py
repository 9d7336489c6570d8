"""The OpenAI-compatible chat model against misbehaving local servers: an answer cut off
at the token limit is used but never cached, and the cache-key name carries the settings
that change answers; a stream cut mid-answer is a ProviderError naming the server, one that
ends without a finish is logged; an HTTP error names the server. Local fake servers only."""

from __future__ import annotations

import json
import logging
import socket
import threading
from typing import Any

import pytest

from hyperviz_core.rag import ProviderError
from hyperviz_core.rag.providers.middleware import CachingChatModel, DictCache
from hyperviz_core.rag.providers.openai_compat import OpenAIChatModel
from hyperviz_core.rag.providers.protocols import CutOffReply
from tests.provider_fakes import LocalServer, completion

pytest.importorskip("openai")
JS = {"Content-Type": "application/json"}


def _chunk(content: str | None, finish: str | None = None) -> bytes:
    delta = {} if content is None else {"content": content}
    body = {"id": "c", "object": "chat.completion.chunk", "created": 0, "model": "m",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}
    return f"data: {json.dumps(body)}\n\n".encode()


def test_a_cut_off_answer_is_used_not_cached(caplog: pytest.LogCaptureFixture) -> None:
    bodies: list[dict[str, Any]] = []

    def respond(path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, Any]:
        bodies.append(json.loads(raw))
        return 200, json.dumps(completion('{"entities": [', finish="length")).encode(), JS

    with LocalServer(respond) as srv, caplog.at_level(logging.WARNING):
        chat = CachingChatModel(OpenAIChatModel("m", base_url=srv.url, api_key="k",
                                                max_tokens=20), DictCache())
        first = chat.complete("extract")
        assert first == '{"entities": [' and isinstance(first, CutOffReply)
        chat.complete("extract")
    assert len(bodies) == 2  # asked again: the cut answer was not cached
    assert "cut off at the token limit (finish_reason length)" in caplog.text


def test_settings_that_change_answers_key_the_cache_apart() -> None:
    def name(**kw: Any) -> str:
        return OpenAIChatModel("gpt", client=object(), async_client=object(), **kw).model_name

    assert name() == "gpt" and name(temperature=0.0, max_tokens=None) == "gpt"  # defaults
    assert len({name(), name(max_tokens=20), name(max_tokens=4000), name(temperature=0.7),
                name(temperature=None)}) == 5
    assert name(max_tokens=20) == name(max_tokens=20)  # the same in every process


def _raw_server(payload: bytes) -> tuple[str, threading.Thread]:
    """A server answering one request with ``payload`` (raw HTTP), then closing."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(1)

    def serve() -> None:
        conn, _ = sock.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(payload)
        sock.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    return f"http://127.0.0.1:{sock.getsockname()[1]}/v1", thread


def test_a_stream_cut_mid_answer_is_a_provider_error_naming_the_server() -> None:
    piece = _chunk("Ada ")
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
            b"Transfer-Encoding: chunked\r\n\r\n")
    url, thread = _raw_server(head + f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
    chat = OpenAIChatModel("m", base_url=url, api_key="k", timeout=10)
    got: list[str] = []
    with pytest.raises(ProviderError, match=r"connection error \(http://127\.0\.0\.1:\d+/v1\)"
                       ) as info:
        got.extend(chat.stream("q"))
    assert got == ["Ada "] and info.value.retryable
    thread.join(5)


def test_a_stream_ending_without_a_finish_is_logged(caplog: pytest.LogCaptureFixture) -> None:
    def respond(path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, Any]:
        return 200, _chunk("Alice ") + _chunk("worked in Pa"), {
            "Content-Type": "text/event-stream"}

    with LocalServer(respond) as srv, caplog.at_level(logging.WARNING):
        pieces = list(OpenAIChatModel("m", base_url=srv.url, api_key="k").stream("q"))
    assert "".join(pieces) == "Alice worked in Pa"
    assert "ended without a finish_reason" in caplog.text


def test_an_http_error_names_the_server() -> None:
    def respond(path: str, headers: dict[str, str], raw: bytes) -> tuple[int, bytes, Any]:
        return 400, json.dumps({"error": {"message": "bad model"}}).encode(), JS

    with LocalServer(respond) as srv:
        chat = OpenAIChatModel("m", base_url=srv.url, api_key="k")
        with pytest.raises(ProviderError, match=rf"HTTP 400 \({srv.url}\): .*bad model"):
            chat.complete("q")


class SlowEmbedder:
    """The offline hashed embedder behind an async call that takes a while, counting the
    calls in flight at once."""

    def __init__(self) -> None:
        from hyperviz_core.rag.providers.offline import HashingEmbedder

        self.inner = HashingEmbedder()
        self.name, self.dim = self.inner.name, self.inner.dim
        self.now = self.most = 0

    def embed(self, texts: Any) -> Any:
        return self.inner.embed(texts)

    async def aembed(self, texts: Any) -> Any:
        import asyncio

        self.now += 1
        self.most = max(self.most, self.now)
        await asyncio.sleep(0.02)
        self.now -= 1
        return self.inner.embed(texts)


def test_concurrency_bounds_embedding_calls_too(tmp_path: Any) -> None:
    """``concurrency`` is the most model calls at once: the chunk embeddings of the
    documents in flight (up to twice as many as ``concurrency``) were not bounded."""
    from hyperviz_core.rag import Document
    from hyperviz_core.rag.index import Indexer

    emb = SlowEmbedder()
    ix = Indexer(tmp_path / "s", embedder=emb, concurrency=2, show_progress=False)
    report = ix.index([Document(id=f"d{i}", text=f"Person {i} lived in Town {i}.")
                       for i in range(12)])
    assert report.documents_added == 12
    assert emb.most <= 2


class FlakyStreamer:
    """A chat model whose stream fails ``fails`` times before its first piece (a 429), and,
    when ``late``, once more after it."""

    model_name = "flaky"

    def __init__(self, fails: int, late: bool = False) -> None:
        self.fails, self.late, self.calls = fails, late, 0

    def complete(self, prompt: str, **kw: Any) -> str:
        return "Ada wrote notes."

    def stream(self, prompt: str, **kw: Any) -> Any:
        self.calls += 1
        if self.calls <= self.fails:
            raise ProviderError("HTTP 429: slow down", retryable=True, status=429)
        yield "Ada "
        if self.late:
            raise ProviderError("connection error: gone", retryable=True)
        yield "wrote notes."

    async def astream(self, prompt: str, **kw: Any) -> Any:
        for piece in self.stream(prompt, **kw):
            yield piece


def test_a_stream_is_retried_until_its_first_piece() -> None:
    import asyncio

    from hyperviz_core.rag.providers.middleware import query_chat
    from hyperviz_core.rag.providers.retry import RetryingChatModel

    chat = query_chat(FlakyStreamer(fails=2))
    chat.sleep = lambda s: None  # type: ignore[union-attr]
    assert "".join(chat.stream("q")) == "Ada wrote notes."  # type: ignore[union-attr]
    late = RetryingChatModel(FlakyStreamer(fails=0, late=True), sleep=lambda s: None)
    got: list[str] = []
    with pytest.raises(ProviderError, match="gone"):
        got.extend(late.stream("q"))
    assert got == ["Ada "] and late.inner.calls == 1  # shown text is never asked again

    async def run() -> str:
        flaky = RetryingChatModel(FlakyStreamer(fails=1), sleep=lambda s: None)

        async def no_wait(s: float) -> None:
            return None

        flaky.async_sleep = no_wait
        return "".join([p async for p in flaky.astream("q")])

    assert asyncio.run(run()) == "Ada wrote notes."
    assert not hasattr(RetryingChatModel(object()), "stream")  # type: ignore[arg-type]
