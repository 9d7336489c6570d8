"""Retry, cache, usage accounting and rate limiting middleware."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest

from hyperviz_core.rag.providers.middleware import (
    CacheBackend,
    CachingChatModel,
    DictCache,
    RateLimitedChatModel,
    RetryingChatModel,
    RetryingEmbedder,
    StoreCacheBackend,
    TrackingChatModel,
    UsageTracker,
    build_chat_stack,
    cache_key,
    estimate_tokens,
)
from hyperviz_core.rag.providers.offline import HashingEmbedder
from hyperviz_core.rag.providers.protocols import ChatModel, ProviderError, report_usage

PNG_A = b"\x89PNG\r\n\x1a\nAAAA"
PNG_B = b"\x89PNG\r\n\x1a\nBBBB"


class FlakyChat:
    """Fails with the scripted errors first, then answers; records calls."""

    model_name = "flaky"

    def __init__(self, errors: Sequence[BaseException] = (), answer: str = "ok",
                 usage: tuple[int, int] | None = None, delay: float = 0.0) -> None:
        self.errors = list(errors)
        self.answer = answer
        self.usage = usage
        self.delay = delay
        self.calls = 0

    def _step(self, prompt: str) -> str:
        self.calls += 1
        if self.errors:
            raise self.errors.pop(0)
        if self.usage:
            report_usage(*self.usage)
        return f"{self.answer}:{prompt}"

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        if self.delay:
            time.sleep(self.delay)
        return self._step(prompt)

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        if self.delay:
            await asyncio.sleep(self.delay)
        return self._step(prompt)


class FakeClock:
    def __init__(self) -> None:
        self.sleeps: list[float] = []

    def sleep(self, d: float) -> None:
        self.sleeps.append(d)

    async def asleep(self, d: float) -> None:
        self.sleeps.append(d)


def e429() -> ProviderError:
    return ProviderError("rate limited", retryable=True, status=429)


def e503() -> ProviderError:
    return ProviderError("unavailable", retryable=True, status=503)


# ------------------------------------------------------------------------------ retries
def test_retries_429_and_5xx_with_exponential_backoff() -> None:
    inner = FlakyChat([e429(), e503(), TimeoutError("slow")])
    clock = FakeClock()
    chat = RetryingChatModel(inner, max_retries=5, base_delay=0.5, max_delay=20,
                             sleep=clock.sleep, seed=1)
    assert isinstance(chat, ChatModel)
    assert chat.complete("p") == "ok:p"
    assert inner.calls == 4 and len(clock.sleeps) == 3
    for n, d in enumerate(clock.sleeps):  # equal jitter: [cap/2, cap]
        cap = min(20.0, 0.5 * 2**n)
        assert cap / 2 <= d <= cap


def test_backoff_is_reproducible_and_capped() -> None:
    def run(seed: int) -> list[float]:
        clock = FakeClock()
        chat = RetryingChatModel(FlakyChat([e429()] * 8), max_retries=8, base_delay=1,
                                 max_delay=5, sleep=clock.sleep, seed=seed)
        chat.complete("p")
        return clock.sleeps

    assert run(7) == run(7) and run(7) != run(8)
    assert max(run(7)) <= 5 and min(run(7)[4:]) >= 2.5


def test_no_retry_on_400_and_gives_up_after_max() -> None:
    inner = FlakyChat([ProviderError("bad request", retryable=False, status=400)])
    clock = FakeClock()
    with pytest.raises(ProviderError, match="bad request"):
        RetryingChatModel(inner, sleep=clock.sleep).complete("p")
    assert inner.calls == 1 and clock.sleeps == []

    inner = FlakyChat([e429()] * 10)
    with pytest.raises(ProviderError) as info:
        RetryingChatModel(inner, max_retries=3, sleep=clock.sleep).complete("p")
    assert info.value.status == 429 and inner.calls == 4 and len(clock.sleeps) == 3

    inner = FlakyChat([ValueError("a bug")])
    with pytest.raises(ValueError):
        RetryingChatModel(inner, sleep=clock.sleep).complete("p")
    assert inner.calls == 1


def test_retry_after_hint_is_respected() -> None:
    clock = FakeClock()
    err = ProviderError("slow down", retryable=True, status=429, retry_after=7.0)
    RetryingChatModel(FlakyChat([err]), base_delay=0.1, max_delay=20,
                      sleep=clock.sleep).complete("p")
    assert clock.sleeps == [7.0]


def test_async_retries_use_async_sleep() -> None:
    inner = FlakyChat([e503(), e503()])
    clock = FakeClock()
    chat = RetryingChatModel(inner, sleep=lambda d: pytest.fail("sync sleep in async path"),
                             async_sleep=clock.asleep)
    assert asyncio.run(chat.acomplete("p")) == "ok:p"
    assert inner.calls == 3 and len(clock.sleeps) == 2


def test_retrying_embedder() -> None:
    class FlakyEmbedder(HashingEmbedder):
        def __init__(self) -> None:
            super().__init__(dim=32)
            self.fails = 2

        def embed(self, texts: Sequence[str]) -> np.ndarray:
            if self.fails:
                self.fails -= 1
                raise ProviderError("busy", retryable=True, status=503)
            return super().embed(texts)

    clock = FakeClock()
    emb = RetryingEmbedder(FlakyEmbedder(), sleep=clock.sleep)
    assert emb.embed(["a"]).shape == (1, 32) and emb.dim == 32 and len(clock.sleeps) == 2

    class FlakyQueries(HashingEmbedder):  # an embedder with its own query embedding
        def __init__(self) -> None:
            super().__init__(dim=32)
            self.fails = 1

        def embed_query(self, text: str) -> np.ndarray:
            if self.fails:
                self.fails -= 1
                raise ProviderError("busy", retryable=True, status=503)
            return 2 * self.embed([f"query: {text}"])[0]

    clock = FakeClock()
    inner = FlakyQueries()
    vec = RetryingEmbedder(inner, sleep=clock.sleep).embed_query("a")
    assert len(clock.sleeps) == 1  # retried once, then normalised to a unit vector:
    assert np.allclose(vec, inner.embed(["query: a"])[0])


def test_retry_warnings_name_the_wrapped_model_and_count_on_the_tracker(
        caplog: pytest.LogCaptureFixture) -> None:
    """Both wrappers share one retry loop: sync and async calls retry, the warning names a
    chat model by its model name and an embedder as ``embedder NAME``, and a tracker given
    to the wrapper counts each retry."""
    class FlakyEmbedder(HashingEmbedder):
        def __init__(self) -> None:
            super().__init__(dim=16)
            self.fails = 0

        async def aembed(self, texts: Sequence[str]) -> np.ndarray:
            if self.fails:
                self.fails -= 1
                raise ProviderError("busy", retryable=True, status=503)
            return self.embed(texts)

    clock, tracker = FakeClock(), UsageTracker()
    inner = FlakyEmbedder()
    inner.fails = 2
    emb = RetryingEmbedder(inner, async_sleep=clock.asleep, tracker=tracker)
    with caplog.at_level("WARNING"):
        assert asyncio.run(emb.aembed(["a"])).shape == (1, 16)
    assert len(clock.sleeps) == 2 and tracker.report().retries == 2
    assert f"embedder {inner.name} failed (busy)" in caplog.text and "retry 2/5" in caplog.text
    caplog.clear()
    chat = RetryingChatModel(FlakyChat([e503()]), sleep=clock.sleep, tracker=tracker)
    with caplog.at_level("WARNING"):
        assert chat.complete("q") == "ok:q"
    assert "flaky failed (" in caplog.text and "embedder" not in caplog.text
    assert len(clock.sleeps) == 3 and tracker.report().retries == 3


# ------------------------------------------------------------------------------ cache
def test_cache_key_covers_model_system_prompt_json_and_images() -> None:
    base = cache_key("m", "p", system="s", json_mode=True, images=[PNG_A])
    assert base == cache_key("m", "p", system="s", json_mode=True, images=[PNG_A])
    variants = [
        cache_key("m2", "p", system="s", json_mode=True, images=[PNG_A]),
        cache_key("m", "p2", system="s", json_mode=True, images=[PNG_A]),
        cache_key("m", "p", system="s2", json_mode=True, images=[PNG_A]),
        cache_key("m", "p", system="s", json_mode=False, images=[PNG_A]),
        cache_key("m", "p", system="s", json_mode=True, images=[PNG_B]),
        cache_key("m", "p", system="s", json_mode=True, images=[PNG_A, PNG_A]),
        cache_key("m", "p", system="s", json_mode=True),
    ]
    assert len({base, *variants}) == len(variants) + 1
    assert len(base) == 64


def test_cache_hit_makes_zero_inner_calls() -> None:
    inner = FlakyChat()
    cache = DictCache()
    assert isinstance(cache, CacheBackend)
    chat = CachingChatModel(inner, cache)
    assert chat.complete("p", images=[PNG_A]) == "ok:p"
    assert inner.calls == 1 and len(cache) == 1 and cache.models[next(iter(cache.data))] == "flaky"
    # a second "run" with a fresh wrapper over the same cache: 0 calls
    inner2 = FlakyChat(answer="different")
    again = CachingChatModel(inner2, cache)
    assert again.complete("p", images=[PNG_A]) == "ok:p"
    assert asyncio.run(again.acomplete("p", images=[PNG_A])) == "ok:p"
    assert inner2.calls == 0
    # a different image is a different request
    assert again.complete("p", images=[PNG_B]) == "different:p" and inner2.calls == 1


def test_empty_answers_are_not_cached_and_broken_cache_is_survived() -> None:
    inner = FlakyChat(answer="")
    inner.answer = ""
    cache = DictCache()

    class Blank(FlakyChat):
        def _step(self, prompt: str) -> str:
            self.calls += 1
            return "  "

    CachingChatModel(Blank(), cache).complete("p")
    assert len(cache) == 0

    class Broken:
        def get(self, key: str) -> str | None:
            raise OSError("disk gone")

        def put(self, key: str, value: str, model: str) -> None:
            raise OSError("disk gone")

    assert CachingChatModel(FlakyChat(), Broken()).complete("p") == "ok:p"


def test_store_like_objects_are_adapted() -> None:
    class FakeStore:
        def __init__(self) -> None:
            self.rows: dict[str, tuple[str, str]] = {}

        def cache_get(self, key: str) -> str | None:
            row = self.rows.get(key)
            return row[0] if row else None

        def cache_put(self, key: str, value: str, model: str = "") -> None:
            self.rows[key] = (value, model)

    store = FakeStore()
    chat = CachingChatModel(FlakyChat(), store)  # the store itself, adapted
    chat.complete("p")
    assert [v for v in store.rows.values()] == [("ok:p", "flaky")]
    backend = StoreCacheBackend(store)
    assert backend.get(next(iter(store.rows))) == "ok:p" and backend.get("missing") is None


# ------------------------------------------------------------------------------ usage
def test_usage_tracker_counts_tokens_images_and_estimates() -> None:
    tracker = UsageTracker(prompt_price=1.0, completion_price=2.0)
    reported = TrackingChatModel(FlakyChat(usage=(100, 20)), tracker)
    reported.complete("p", images=[PNG_A, PNG_B])
    estimated = TrackingChatModel(FlakyChat(), tracker)
    asyncio.run(estimated.acomplete("x" * 40, system="y" * 8))
    r = tracker.report()
    assert r.calls == 2 and r.images == 2 and r.estimated_calls == 1
    assert r.prompt_tokens == 100 + estimate_tokens("y" * 8 + "x" * 40)
    assert r.completion_tokens == 20 + estimate_tokens("ok:" + "x" * 40)
    assert r.cost == pytest.approx(r.prompt_tokens / 1000 + 2 * r.completion_tokens / 1000)
    tracker.reset()
    assert tracker.report().calls == 0


def test_build_chat_stack_second_run_costs_zero_calls() -> None:
    cache = DictCache()
    clock = FakeClock()
    inner = FlakyChat([e429()], usage=(10, 5))
    tracker = UsageTracker()
    chat = build_chat_stack(inner, cache=cache, tracker=tracker, max_concurrency=4)
    # retries inside the stack use the real sleep by default; swap the fake clock in
    retry = chat.inner.inner  # type: ignore[attr-defined]
    assert isinstance(retry, RetryingChatModel)
    retry.sleep = clock.sleep
    for i in range(3):
        chat.complete(f"q{i}")
    r1 = tracker.report()
    assert (r1.calls, r1.retries, r1.failures, r1.cache_hits) == (3, 1, 1, 0)
    assert r1.prompt_tokens == 30 and r1.estimated_calls == 0
    for i in range(3):
        chat.complete(f"q{i}")
    r2 = tracker.report()
    assert r2.calls == 3 and r2.cache_hits == 3 and inner.calls == 4


def test_tracker_as_outer_wrapper_sees_hits_retries_and_tokens() -> None:
    """The wrapping order the indexer uses: UsageTracker(Caching(Retrying(provider)))."""
    clock = FakeClock()
    inner = FlakyChat([e503(), e503()], usage=(7, 3))
    tracked = UsageTracker(CachingChatModel(
        RetryingChatModel(inner, async_sleep=clock.asleep), DictCache()))
    assert isinstance(tracked, ChatModel) and tracked.model_name == "flaky"

    async def main() -> list[str]:
        first = await tracked.acomplete("a")
        return [first, *await asyncio.gather(*(tracked.acomplete("a") for _ in range(3)))]

    assert asyncio.run(main()) == ["ok:a"] * 4
    r = tracked.report()
    assert (r.calls, r.cache_hits, r.retries, r.prompt_tokens, r.completion_tokens) == (
        1, 3, 2, 7, 3)
    with pytest.raises(TypeError):
        UsageTracker().complete("p")


def test_usage_reports_do_not_mix_under_concurrency() -> None:
    tracker = UsageTracker()

    class Sized(FlakyChat):
        async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                            system: str | None = None, json_mode: bool = False) -> str:
            await asyncio.sleep(0.001 * (len(prompt) % 3))
            report_usage(len(prompt), 1)
            await asyncio.sleep(0.001)
            return "x"

    chat = TrackingChatModel(Sized(), tracker)

    async def main() -> None:
        await asyncio.gather(*(chat.acomplete("p" * n) for n in range(1, 21)))

    asyncio.run(main())
    r = tracker.report()
    assert r.calls == 20 and r.prompt_tokens == sum(range(1, 21)) and r.completion_tokens == 20


# ------------------------------------------------------------------------------ limits
def test_rate_limit_bounds_async_concurrency_across_loops() -> None:
    chat = RateLimitedChatModel(FlakyChat(delay=0.01), max_concurrency=3)

    async def main() -> None:
        await asyncio.gather(*(chat.acomplete(str(i)) for i in range(12)))

    asyncio.run(main())
    asyncio.run(main())  # a second event loop works
    assert chat.peak == 3


def test_rate_limit_bounds_threads_and_spaces_starts() -> None:
    chat = RateLimitedChatModel(FlakyChat(delay=0.01), max_concurrency=2)
    threads = [threading.Thread(target=chat.complete, args=(str(i),)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert chat.peak == 2
    spaced = RateLimitedChatModel(FlakyChat(), max_concurrency=4, min_interval=0.02)
    t0 = time.monotonic()
    for i in range(4):
        spaced.complete(str(i))
    assert time.monotonic() - t0 >= 0.055
    with pytest.raises(ValueError):
        RateLimitedChatModel(FlakyChat(), max_concurrency=0)


def test_concurrency_with_slow_model() -> None:
    """16-way concurrency over a slow model: 16 calls are in flight at once, never more
    (counted, not timed: tests assert behaviour, not wall-clock speed)."""

    class SlowChat(FlakyChat):
        def __init__(self) -> None:
            super().__init__(delay=0.05)
            self.in_flight = 0
            self.peak = 0

        async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                            system: str | None = None, json_mode: bool = False) -> str:
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            try:
                return await super().acomplete(prompt)
            finally:
                self.in_flight -= 1

    slow = SlowChat()
    chat = build_chat_stack(slow, max_retries=0, max_concurrency=16)

    async def run(n: int) -> list[str]:
        return list(await asyncio.gather(*(chat.acomplete(f"p{i}") for i in range(n))))

    answers = asyncio.run(run(32))
    assert answers == [f"ok:p{i}" for i in range(32)]
    assert slow.peak == 16 and slow.calls == 32 and slow.in_flight == 0
