"""Chat-model middleware: retries, a persistent answer cache, usage accounting, rate limits.

Each wrapper is itself a :class:`~hyperviz_core.rag.models.ChatModel`, so they compose.
:func:`build_chat_stack` assembles them in the intended order::

    Caching → RateLimited → Retrying → Tracking → provider

so a cache hit costs nothing (not even a concurrency slot), every retry attempt is one real
provider call in the usage numbers, and the concurrency limit covers the retries' waits.

The cache key is the SHA-256 of (model name, system prompt, prompt, JSON mode, SHA-256 of
each image), so re-running or resuming an indexing run with the same model and prompts
costs zero calls. :class:`CacheBackend` is two methods; :class:`DictCache` keeps answers in
memory and :class:`StoreCacheBackend` adapts any object with ``cache_get(key)`` /
``cache_put(key, value, model=...)`` (the SQLite ``HypergraphStore``).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Sequence
from contextvars import Token
from typing import Any, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from .models import _CALL_INFO, ChatModel, current_call_info
from .retry import RateLimitedChatModel, RetryingChatModel, RetryingEmbedder, is_retryable

__all__ = [
    "CacheBackend",
    "CachingChatModel",
    "DictCache",
    "RateLimitedChatModel",
    "RetryingChatModel",
    "RetryingEmbedder",
    "StoreCacheBackend",
    "TrackingChatModel",
    "UsageReport",
    "UsageTracker",
    "build_chat_stack",
    "cache_key",
    "estimate_tokens",
    "is_retryable",
]

log = logging.getLogger(__name__)
T = TypeVar("T")
_KEY_VERSION = "vizrag-chat-v1"


# ---------------------------------------------------------------------------- cache
@runtime_checkable
class CacheBackend(Protocol):
    """Where cached answers live. ``get`` returns None on a miss."""

    def get(self, key: str) -> str | None: ...

    def put(self, key: str, value: str, model: str) -> None: ...


class DictCache:
    """In-memory :class:`CacheBackend` (thread-safe); ``models`` records who answered."""

    def __init__(self) -> None:
        self.data: dict[str, str] = {}
        self.models: dict[str, str] = {}
        self._lock = threading.Lock()

    def get(self, key: str) -> str | None:
        with self._lock:
            return self.data.get(key)

    def put(self, key: str, value: str, model: str) -> None:
        with self._lock:
            self.data[key] = value
            self.models[key] = model

    def __len__(self) -> int:
        return len(self.data)


class StoreCacheBackend:
    """Adapts an object with ``cache_get(key)`` / ``cache_put(key, value, model=)``."""

    def __init__(self, store: Any) -> None:
        self.store = store

    def get(self, key: str) -> str | None:
        value = self.store.cache_get(key)
        return None if value is None else str(value)

    def put(self, key: str, value: str, model: str) -> None:
        self.store.cache_put(key, value, model=model)


def cache_key(
    model: str,
    prompt: str,
    *,
    system: str | None = None,
    json_mode: bool = False,
    images: Sequence[bytes] = (),
) -> str:
    """SHA-256 hex key of one chat request (images enter by their own SHA-256)."""
    payload = json.dumps(
        [_KEY_VERSION, model, system or "", prompt, bool(json_mode),
         [hashlib.sha256(bytes(img)).hexdigest() for img in images]],
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8", "surrogatepass")).hexdigest()


# ---------------------------------------------------------------------------- usage
def estimate_tokens(text: str) -> int:
    """Rough token count when the provider reports none: ``ceil(len / 4)``."""
    return (len(text) + 3) // 4


class UsageReport(BaseModel):
    """A snapshot of :class:`UsageTracker`'s counters."""

    calls: int = 0
    cache_hits: int = 0
    retries: int = 0
    failures: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated_calls: int = 0  # calls whose tokens were estimated (len/4), not reported
    images: int = 0
    seconds: float = 0.0
    cost: float | None = None

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class UsageTracker:
    """Thread-safe counters of provider calls, tokens, images, cache hits and retries.

    Use it standalone (pass it to :class:`TrackingChatModel`, :class:`CachingChatModel`,
    :class:`RetryingChatModel` or :func:`build_chat_stack`) or as a wrapper itself:
    ``tracked = UsageTracker(chat)`` is a :class:`ChatModel` counting the calls through it.
    Wherever it sits, it learns what happened below it through a per-call context record:
    cache hits (counted as ``cache_hits``, not ``calls``), retries and failures, and token
    counts reported by adapters (:func:`~hyperviz_core.rag.models.report_usage`); tokens
    are estimated as ``len/4`` when no adapter reported any.

    Args:
        inner: the model to wrap (optional).
        prompt_price: optional price per 1,000 prompt tokens (for :attr:`UsageReport.cost`).
        completion_price: optional price per 1,000 completion tokens.
    """

    def __init__(
        self,
        inner: ChatModel | None = None,
        *,
        prompt_price: float | None = None,
        completion_price: float | None = None,
    ) -> None:
        self.inner = inner
        self.prompt_price = prompt_price
        self.completion_price = completion_price
        self._r = UsageReport()
        self._lock = threading.Lock()

    # -------------------------------------------------------------- counters
    def record_call(
        self,
        prompt: str,
        answer: str,
        *,
        images: int = 0,
        usage: tuple[int, int] | None = None,
        seconds: float = 0.0,
    ) -> None:
        """Count one successful provider call (tokens estimated when ``usage`` is None)."""
        p, c = usage if usage is not None else (estimate_tokens(prompt), estimate_tokens(answer))
        with self._lock:
            self._r.calls += 1
            self._r.prompt_tokens += p
            self._r.completion_tokens += c
            self._r.estimated_calls += usage is None
            self._r.images += images
            self._r.seconds += seconds

    def record_failure(self, *, seconds: float = 0.0) -> None:
        with self._lock:
            self._r.failures += 1
            self._r.seconds += seconds

    def record_cache_hit(self) -> None:
        with self._lock:
            self._r.cache_hits += 1

    def record_retry(self) -> None:
        with self._lock:
            self._r.retries += 1

    def report(self) -> UsageReport:
        """A copy of the counters, with ``cost`` when prices were given."""
        with self._lock:
            r = self._r.model_copy()
        if self.prompt_price is not None or self.completion_price is not None:
            r.cost = round(
                r.prompt_tokens / 1000 * (self.prompt_price or 0.0)
                + r.completion_tokens / 1000 * (self.completion_price or 0.0), 6,
            )
        return r

    def reset(self) -> None:
        with self._lock:
            self._r = UsageReport()

    # -------------------------------------------------------------- tracked calls
    def _begin(self) -> tuple[dict[str, Any], Token[dict[str, Any] | None], float]:
        info: dict[str, Any] = {"usage": None, "cache_hit": False, "retries": 0}
        return info, _CALL_INFO.set(info), time.perf_counter()

    def _end(self, info: dict[str, Any], t0: float, prompt: str, out: str | None,
             images: int) -> None:
        dt = time.perf_counter() - t0
        with self._lock:
            self._r.retries += info["retries"]
            self._r.failures += info["retries"]
        if out is None:
            self.record_failure(seconds=dt)
        elif info["cache_hit"]:
            self.record_cache_hit()
        else:
            self.record_call(prompt, out, images=images, usage=info["usage"], seconds=dt)

    def tracked_complete(self, inner: ChatModel, prompt: str, *, images: Sequence[bytes] = (),
                         system: str | None = None, json_mode: bool = False) -> str:
        """Call ``inner.complete`` and count it."""
        info, token, t0 = self._begin()
        out: str | None = None
        try:
            out = inner.complete(prompt, images=images, system=system, json_mode=json_mode)
            return out
        finally:
            _CALL_INFO.reset(token)
            self._end(info, t0, (system or "") + prompt, out, len(images))

    async def tracked_acomplete(self, inner: ChatModel, prompt: str, *,
                                images: Sequence[bytes] = (), system: str | None = None,
                                json_mode: bool = False) -> str:
        """Await ``inner.acomplete`` and count it."""
        info, token, t0 = self._begin()
        out: str | None = None
        try:
            out = await inner.acomplete(prompt, images=images, system=system,
                                        json_mode=json_mode)
            return out
        finally:
            _CALL_INFO.reset(token)
            self._end(info, t0, (system or "") + prompt, out, len(images))

    # -------------------------------------------------------------- ChatModel (wrapper)
    def _need_inner(self) -> ChatModel:
        if self.inner is None:
            raise TypeError("UsageTracker() wraps no model; use UsageTracker(chat)")
        return self.inner

    @property
    def model_name(self) -> str:
        return self._need_inner().model_name

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        return self.tracked_complete(self._need_inner(), prompt, images=images, system=system,
                                     json_mode=json_mode)

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        return await self.tracked_acomplete(self._need_inner(), prompt, images=images,
                                            system=system, json_mode=json_mode)


class TrackingChatModel:
    """Counts every call of ``inner`` in a (possibly shared) ``tracker``."""

    def __init__(self, inner: ChatModel, tracker: UsageTracker) -> None:
        self.inner = inner
        self.tracker = tracker

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        return self.tracker.tracked_complete(self.inner, prompt, images=images, system=system,
                                             json_mode=json_mode)

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        return await self.tracker.tracked_acomplete(self.inner, prompt, images=images,
                                                    system=system, json_mode=json_mode)


class CachingChatModel:
    """Answers repeated requests from ``cache``; only non-empty answers are stored."""

    def __init__(
        self, inner: ChatModel, cache: CacheBackend | Any, *, tracker: UsageTracker | None = None
    ) -> None:
        self.inner = inner
        # a HypergraphStore (cache_get/cache_put) is adapted automatically
        self.cache: CacheBackend = (
            StoreCacheBackend(cache) if hasattr(cache, "cache_get") else cache
        )
        self.tracker = tracker

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    def _lookup(self, key: str) -> str | None:
        try:
            hit = self.cache.get(key)
        except Exception:  # a broken cache must not stop the run
            log.exception("cache get failed; calling the model")
            return None
        if hit is not None:
            info = current_call_info()
            if info is not None:  # a tracker outside this cache counts it
                info["cache_hit"] = True
            elif self.tracker is not None:
                self.tracker.record_cache_hit()
        return hit

    def _store(self, key: str, value: str) -> None:
        if not value.strip():
            return
        try:
            self.cache.put(key, value, self.model_name)
        except Exception:
            log.exception("cache put failed; answer not cached")

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        key = cache_key(self.model_name, prompt, system=system, json_mode=json_mode,
                        images=images)
        hit = self._lookup(key)
        if hit is not None:
            return hit
        out = self.inner.complete(prompt, images=images, system=system, json_mode=json_mode)
        self._store(key, out)
        return out

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        key = cache_key(self.model_name, prompt, system=system, json_mode=json_mode,
                        images=images)
        hit = self._lookup(key)
        if hit is not None:
            return hit
        out = await self.inner.acomplete(prompt, images=images, system=system,
                                         json_mode=json_mode)
        self._store(key, out)
        return out


def build_chat_stack(
    chat: ChatModel,
    *,
    cache: CacheBackend | None = None,
    tracker: UsageTracker | None = None,
    max_retries: int = 5,
    max_concurrency: int | None = None,
    min_interval: float = 0.0,
    seed: int = 0,
) -> ChatModel:
    """Wrap a provider: Caching → RateLimited → Retrying → Tracking → ``chat``.

    Layers whose option is None/0 are left out (``max_retries=0`` drops retries).
    """
    model: ChatModel = chat
    if tracker is not None:
        model = TrackingChatModel(model, tracker)
    if max_retries > 0:
        model = RetryingChatModel(model, max_retries=max_retries, seed=seed, tracker=tracker)
    if max_concurrency is not None or min_interval > 0:
        model = RateLimitedChatModel(model, max_concurrency or 8, min_interval=min_interval)
    if cache is not None:
        model = CachingChatModel(model, cache, tracker=tracker)
    return model
