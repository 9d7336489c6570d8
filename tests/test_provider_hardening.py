"""The OpenAI-compatible adapter against servers that misbehave (httpx mock transports, no
network): malformed embeddings, empty answers, non-JSON bodies, trickled bodies (the total
deadline), Retry-After forms, credentials in the base URL, and the embedder's retries."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from typing import Any

import httpx
import numpy as np
import openai
import pytest

from hyperviz_core.rag.providers.middleware import (
    RetryingChatModel,
    RetryingEmbedder,
    build_chat_stack,
    with_retries,
)
from hyperviz_core.rag.providers.offline import HashingEmbedder
from hyperviz_core.rag.providers.openai_compat import (
    OpenAIChatModel,
    OpenAIEmbedder,
    map_openai_error,
)
from hyperviz_core.rag.providers.openai_wire import (
    await_with_deadline,
    call_with_deadline,
    parse_retry_after,
)
from hyperviz_core.rag.providers.protocols import ProviderError
from hyperviz_core.rag.store.base import StoreError
from hyperviz_core.rag.store.vector_plan import plan_space

URL = "http://fake.test/v1"
Handler = Callable[[httpx.Request], httpx.Response]


def clients(handler: Handler) -> dict[str, Any]:
    """Sync and async SDK clients whose requests ``handler`` answers."""
    return {
        "client": openai.OpenAI(api_key="k", base_url=URL, max_retries=0, http_client=httpx.Client(
            transport=httpx.MockTransport(handler))),
        "async_client": openai.AsyncOpenAI(
            api_key="k", base_url=URL, max_retries=0,
            http_client=httpx.AsyncClient(transport=httpx.MockTransport(handler))),
    }


def embeddings(*rows: tuple[int, list[float]]) -> httpx.Response:
    data = [{"object": "embedding", "index": i, "embedding": v} for i, v in rows]
    return httpx.Response(200, json={"object": "list", "data": data, "model": "m",
                                     "usage": {"prompt_tokens": 1, "total_tokens": 1}})


def completion(content: str | None, *, choices: bool = True,
               finish: str = "stop") -> httpx.Response:
    return httpx.Response(200, json={
        "id": "x", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": finish,
                     "message": {"role": "assistant", "content": content}}] if choices else [],
        "usage": {"prompt_tokens": 3, "completion_tokens": 0, "total_tokens": 3}})


def embedder(handler: Handler, model: str = "emb-x", **kw: Any) -> OpenAIEmbedder:
    return OpenAIEmbedder(model, base_url=URL, **clients(handler), **kw)


def chat(handler: Handler, **kw: Any) -> OpenAIChatModel:
    return OpenAIChatModel("gpt-x", base_url=URL, **clients(handler), **kw)


# ------------------------------------------------------------------ embedding shapes
@pytest.mark.parametrize(("rows", "message"), [
    ([], "got 0 embeddings for 2 inputs"),
    ([(0, [1.0, 0.0, 0.0, 0.0])], "got 1 embeddings for 2 inputs"),
    ([(0, [1.0, 0, 0, 0]), (0, [0, 1.0, 0, 0])], "indices"),
    ([(0, [1.0, 0, 0, 0]), (1, [0, 1.0, 0])], "not lists of one length"),
    ([(0, [1.0, 0, 0, 0, 0]), (1, [0, 1.0, 0, 0, 0])], "dimension 5, expected 4"),
    ([(0, [1.0, 0, 0, 1e40]), (1, [0, 1.0, 0, 0])], "NaN or infinite"),
])
def test_embeddings_that_do_not_fit_the_request_are_refused(
        rows: list[tuple[int, list[float]]], message: str) -> None:
    emb = embedder(lambda r: embeddings(*rows), dimensions=4)
    with pytest.raises(ProviderError, match=message) as info:
        emb.embed(["a", "b"])
    assert not info.value.retryable
    with pytest.raises(ProviderError, match=message):
        asyncio.run(emb.aembed(["a", "b"]))


def test_a_later_batch_of_another_dimension_is_refused() -> None:
    sizes = iter([3, 5])  # the server changes its width between two batches
    emb = embedder(lambda r: embeddings((0, [1.0] * next(sizes))), batch_size=1)
    with pytest.raises(ProviderError, match="dimension 5, expected 3"):
        emb.embed(["a", "b"])
    assert emb.dim == 3  # learned from the first (valid) batch


def test_unknown_dimension_is_probed_and_then_enforced() -> None:
    emb = embedder(lambda r: embeddings((0, [3.0, 4.0])))
    assert emb.dim == 2
    assert np.allclose(emb.embed(["x"]), [[0.6, 0.8]])


def test_empty_probe_response_is_an_error_not_a_zero_dimension() -> None:
    emb = embedder(lambda r: embeddings())
    with pytest.raises(ProviderError, match="got 0 embeddings for 1 inputs"):
        _ = emb.dim


# ------------------------------------------------------------------ chat answers
def test_no_choices_is_a_retryable_error_and_is_retried() -> None:
    answers = iter([completion(None, choices=False), completion("pong")])
    model = chat(lambda r: next(answers))
    sleeps: list[float] = []
    assert RetryingChatModel(model, sleep=sleeps.append).complete("ping") == "pong"
    assert len(sleeps) == 1
    with pytest.raises(ProviderError, match="no choices") as info:
        chat(lambda r: completion(None, choices=False)).complete("ping")
    assert info.value.retryable


@pytest.mark.parametrize(("finish", "retryable"), [("stop", True), ("length", False),
                                                   ("content_filter", False)])
def test_empty_answer_is_an_error(finish: str, retryable: bool) -> None:
    model = chat(lambda r: completion("  ", finish=finish))
    with pytest.raises(ProviderError, match=f"empty answer .*{finish}") as info:
        asyncio.run(model.acomplete("ping"))
    assert info.value.retryable is retryable


def test_non_json_body_is_a_retryable_provider_error() -> None:
    def html(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=b"this is <html> not json",
                              headers={"content-type": "application/json"})

    for call in (lambda: chat(html).complete("x"), lambda: embedder(html).embed(["a"]),
                 lambda: asyncio.run(chat(html).acomplete("x")),
                 lambda: asyncio.run(embedder(html).aembed(["a"]))):
        with pytest.raises(ProviderError, match=f"invalid JSON response from {URL}") as info:
            call()
        assert info.value.retryable
    text = chat(lambda r: httpx.Response(200, text="busy", headers={"content-type": "text/html"}))
    with pytest.raises(ProviderError, match="not a chat completion"):
        text.complete("x")


# ------------------------------------------------------------------ total deadline
BODY = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "m",
                   "choices": [{"index": 0, "finish_reason": "stop",
                                "message": {"role": "assistant", "content": "hello"}}]}).encode()


class Trickle(httpx.SyncByteStream):
    """A body sent a few bytes at a time, ``pause`` seconds apart (about 4 s in all)."""

    def __init__(self, pause: float = 0.1) -> None:
        self.pause = pause

    def __iter__(self) -> Iterator[bytes]:
        for i in range(0, len(BODY), 8):
            time.sleep(self.pause)
            yield BODY[i : i + 8]


class ATrickle(httpx.AsyncByteStream):
    async def __aiter__(self) -> AsyncIterator[bytes]:
        for i in range(0, len(BODY), 8):
            await asyncio.sleep(0.1)
            yield BODY[i : i + 8]


def test_timeout_bounds_the_whole_request_not_each_read() -> None:
    def trickle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=Trickle(), headers={"content-type": "application/json"})

    def atrickle(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, stream=ATrickle(),
                              headers={"content-type": "application/json"})

    assert chat(lambda r: httpx.Response(200, content=BODY), timeout=0.5).complete("x") == "hello"
    for model, call in ((chat(trickle, timeout=0.5), "sync"),
                        (chat(atrickle, timeout=0.5), "async")):
        t0 = time.monotonic()
        with pytest.raises(ProviderError, match=r"within 0\.5 s") as info:
            if call == "sync":
                model.complete("x")
            else:
                asyncio.run(model.acomplete("x"))
        assert info.value.retryable and time.monotonic() - t0 < 3.0, call


# ------------------------------------------------------------------ Retry-After
def rate_limited(value: str) -> ProviderError:
    req = httpx.Request("POST", f"{URL}/chat/completions")
    resp = httpx.Response(429, headers={"retry-after": value}, request=req,
                          json={"error": {"message": "slow down"}})
    return map_openai_error(openai.RateLimitError("rate", response=resp, body=None))


class Refusing:
    model_name = "m"

    def __init__(self, errors: Sequence[BaseException]) -> None:
        self.errors = list(errors)

    def complete(self, prompt: str, **kw: Any) -> str:
        if self.errors:
            raise self.errors.pop(0)
        return "ok"

    async def acomplete(self, prompt: str, **kw: Any) -> str:
        return self.complete(prompt)


def test_retry_after_http_date_is_parsed() -> None:
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now=1445412480.0) == 30.0
    err = rate_limited(time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 90)))
    assert err.retry_after is not None and 80 < err.retry_after <= 90
    assert rate_limited("Wed, 21 Oct 2015 07:28:30 GMT").retry_after == 0.0  # past: no wait


def test_a_hint_above_max_delay_is_waited_in_full() -> None:
    sleeps: list[float] = []
    model = RetryingChatModel(Refusing([rate_limited("60")]), max_delay=20, sleep=sleeps.append)
    assert model.complete("p") == "ok" and sleeps == [60.0]


def test_a_hint_above_the_limit_fails_at_once() -> None:
    sleeps: list[float] = []
    model = RetryingChatModel(Refusing([rate_limited("Wed, 21 Oct 2037 07:28:00 GMT")]),
                              sleep=sleeps.append)
    with pytest.raises(ProviderError, match=r"asks to wait \d+ s before retrying, more than "
                                            r"the 300 s limit") as info:
        model.complete("p")
    assert sleeps == [] and not info.value.retryable and info.value.status == 429
    emb_sleeps: list[float] = []

    class Busy(HashingEmbedder):
        def embed(self, texts: Sequence[str]) -> Any:
            raise rate_limited("3600")

    with pytest.raises(ProviderError, match="more than the 300 s limit"):
        RetryingEmbedder(Busy(), sleep=emb_sleeps.append).embed(["a"])
    assert emb_sleeps == []


# ------------------------------------------------------------------ credentials
def test_credentials_of_the_base_url_stay_out_of_names_logs_and_cache_keys(
        caplog: pytest.LogCaptureFixture) -> None:
    url = "http://bob:s3cretTOKEN@fake.test/v1"
    model = OpenAIChatModel("gpt-x", base_url=url, api_key="k")
    assert model.model_name == "gpt-x@http://fake.test/v1"
    failing = OpenAIChatModel("gpt-x", base_url=url, timeout=5, **clients(
        lambda r: httpx.Response(500, json={"error": {"message": "boom"}})))
    cache: dict[str, str] = {}

    class Cache:
        def get(self, key: str) -> str | None:
            return cache.get(key)

        def put(self, key: str, value: str, model: str) -> None:
            cache[key] = model

    stack = build_chat_stack(failing, cache=Cache(), max_retries=1)
    stack.inner.inner.sleep = lambda d: None  # type: ignore[attr-defined]
    with caplog.at_level(logging.WARNING), pytest.raises(ProviderError):
        stack.complete("x")
    assert "retry 1/1" in caplog.text and "s3cret" not in caplog.text
    assert "bob" not in caplog.text


# ------------------------------------------------------------------ embedder retries
class FlakyProvider:
    """A provider-like embedder: ``fails`` retryable errors first (the dim probe too)."""

    name = "flaky-provider"

    def __init__(self, fails: int) -> None:
        self.fails = fails
        self.inner = HashingEmbedder(dim=16)

    def _step(self) -> None:
        if self.fails:
            self.fails -= 1
            raise ProviderError("busy", retryable=True, status=503)

    @property
    def dim(self) -> int:
        self._step()
        return 16

    def embed(self, texts: Sequence[str]) -> Any:
        self._step()
        return self.inner.embed(texts)

    async def aembed(self, texts: Sequence[str]) -> Any:
        return self.embed(texts)


def test_the_dimension_probe_is_retried() -> None:
    sleeps: list[float] = []
    assert RetryingEmbedder(FlakyProvider(2), sleep=sleeps.append).dim == 16
    assert len(sleeps) == 2


def test_with_retries_wraps_provider_embedders_only() -> None:
    hashed = HashingEmbedder()
    assert with_retries(hashed) is hashed
    wrapped = with_retries(FlakyProvider(0), 3)
    assert isinstance(wrapped, RetryingEmbedder) and wrapped.max_retries == 3
    assert with_retries(wrapped) is wrapped
    assert with_retries(FlakyProvider(0), 0).__class__ is FlakyProvider


def test_indexer_retries_the_embedder(tmp_path: Any) -> None:
    from hyperviz_core.rag.index.indexer import Indexer
    from hyperviz_core.rag.types import Document

    ix = Indexer(tmp_path / "s", embedder=FlakyProvider(1), show_progress=False)
    assert isinstance(ix.embedder, RetryingEmbedder)
    rep = ix.index([Document(id="d1", text="Marie Curie worked with Pierre Curie in Paris.")])
    assert rep.documents_added == 1 and rep.documents_failed == 0


def test_vizrag_insert_counts_the_embedders_retries(tmp_path: Any) -> None:
    """Through :class:`VizRAG` too, the indexer retries the embedder with its own usage
    tracker, so the report counts the retries (the engine's wrapper, without a tracker,
    hid them)."""
    from rag_fakes import ParrotChat

    from hyperviz_core.rag.engine import VizRAG
    from hyperviz_core.rag.types import Document

    flaky = FlakyProvider(0)
    with VizRAG(tmp_path / "s", chat=ParrotChat(), embedder=flaky, show_progress=False) as rag:
        flaky.fails = 1  # the next call, an embed of the run, fails once
        rep = rag.insert(Document(id="d1", text="Marie Curie worked with Pierre Curie."))
    assert rep.documents_added == 1 and rep.retries == 1


# ------------------------------------------------------------------ store side
class Misfit:
    """An embedder whose vectors break its own contract."""

    name = "misfit"
    dim = 2

    def __init__(self, rows: int, width: int) -> None:
        self.rows, self.width = rows, width

    def embed(self, texts: Sequence[str]) -> Any:
        return np.ones((self.rows, self.width), dtype=np.float32)


@pytest.mark.parametrize(("rows", "width", "message"), [
    (2, 3, "dimension 3, but misfit has dimension 2"),
    (1, 2, "misfit returned 1 vectors for 2 texts"),
])
def test_vectors_that_do_not_fit_the_embedder_are_not_written(rows: int, width: int,
                                                              message: str) -> None:
    recorded: list[int] = []
    with pytest.raises(StoreError, match=message):
        plan_space("entity", {"a": "alpha", "b": "beta"}, None, Misfit(rows, width),
                   stored_hashes=lambda ids: {}, record_dim=lambda d, n: recorded.append(d))
    assert recorded == []


def test_the_sdks_own_timeout_and_the_deadline_are_one_error() -> None:
    """The SDK's read timeout (set to the same seconds) can end a call just before the
    total deadline does: the caller sees the same retryable error either way."""
    def sdk_timeout() -> None:
        raise openai.APITimeoutError(request=httpx.Request("POST", "http://h/v1/embeddings"))

    with pytest.raises(ProviderError, match=r"no complete response from h within 0\.3 s") as e:
        call_with_deadline(sdk_timeout, 0.3, "h")
    assert e.value.retryable

    def slow() -> None:
        time.sleep(1.0)

    with pytest.raises(ProviderError, match=r"within 0\.05 s"):
        call_with_deadline(slow, 0.05, "h")

    async def async_sdk_timeout() -> None:
        sdk_timeout()

    with pytest.raises(ProviderError, match=r"no complete response from h within 0\.3 s"):
        asyncio.run(await_with_deadline(async_sdk_timeout(), 0.3, "h"))
