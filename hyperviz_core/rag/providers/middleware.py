"""Chat-model middleware: retries, a persistent answer cache, usage accounting, rate limits.

Each wrapper is itself a :class:`~hyperviz_core.rag.ChatModel`, so they compose.
:func:`build_chat_stack` assembles them in the intended order::

    Caching → RateLimited → Retrying → Tracking → TextReply → provider

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
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..store.base import StoreClosedError
from .protocols import ChatModel, CutOffReply, PassThrough, current_call_info, reply_text
from .retry import (
    RateLimitedChatModel,
    RetryingChatModel,
    RetryingEmbedder,
    is_retryable,
    with_retries,
)
from .usage import TrackingChatModel, UsageReport, UsageTracker, estimate_tokens

__all__ = [
    "CacheBackend",
    "CachingChatModel",
    "DictCache",
    "RateLimitedChatModel",
    "RetryingChatModel",
    "RetryingEmbedder",
    "StoreCacheBackend",
    "TextReplyChatModel",
    "TrackingChatModel",
    "UsageReport",
    "UsageTracker",
    "build_chat_stack",
    "cache_key",
    "estimate_tokens",
    "is_retryable",
    "query_chat",
    "with_retries",
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


class TextReplyChatModel(PassThrough):
    """``inner`` with its replies checked to be text (:func:`~.protocols.reply_text`): a
    ``None`` answer raises a (non-retryable) :class:`~.protocols.ProviderError` saying "the
    chat model returned NoneType, not text" instead of an ``AttributeError`` in a layer or
    parser above it. Every other attribute is ``inner``'s."""

    @property
    def model_name(self) -> str:
        return str(self.inner.model_name)

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        return reply_text(self.inner.complete(prompt, images=images, system=system,
                                              json_mode=json_mode))

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        return reply_text(await self.inner.acomplete(prompt, images=images, system=system,
                                                     json_mode=json_mode))


class CachingChatModel:
    """Answers repeated requests from ``cache``; only non-empty answers are stored, and
    none the model cut off at its token limit (:class:`~.protocols.CutOffReply`). A cache
    that fails is logged and bypassed, except a closed store
    (:class:`~..store.StoreClosedError`: its engine was closed), which stops the call before
    the model is asked: a query still running on a closed engine makes no more paid calls."""

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
        except StoreClosedError:
            raise
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
        if not reply_text(value).strip():  # a reply that is not text: a ProviderError
            return
        if isinstance(value, CutOffReply):  # cut at the token limit: ask again next time
            return
        try:
            self.cache.put(key, value, self.model_name)
        except StoreClosedError:
            return  # closed after the call: the answer still goes back, uncached
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
    """Wrap a provider: Caching → RateLimited → Retrying → Tracking → TextReply → ``chat``.

    Layers whose option is None/0 are left out (``max_retries=0`` drops retries); the
    innermost always checks that a reply is text.
    """
    model: ChatModel = TextReplyChatModel(chat)
    if tracker is not None:
        model = TrackingChatModel(model, tracker)
    if max_retries > 0:
        model = RetryingChatModel(model, max_retries=max_retries, seed=seed, tracker=tracker)
    if max_concurrency is not None or min_interval > 0:
        model = RateLimitedChatModel(model, max_concurrency or 8, min_interval=min_interval)
    if cache is not None:
        model = CachingChatModel(model, cache, tracker=tracker)
    return model


def query_chat(chat: ChatModel | None, max_retries: int = 5) -> ChatModel | None:
    """``chat`` as queries call it: retried (429, 5xx, timeouts, ``Retry-After`` honoured)
    and its replies checked to be text, as indexing calls it; a model already wrapped by
    :func:`build_chat_stack` (e.g. by the CLI) is used as it is, not retried twice.

    >>> class Echo:
    ...     model_name = "echo"
    ...     def complete(self, prompt: str, **kw: object) -> str:
    ...         return prompt
    >>> wrapped = query_chat(Echo())
    >>> isinstance(wrapped, RetryingChatModel), query_chat(wrapped) is wrapped, query_chat(None)
    (True, True, None)
    """
    stacked = (RetryingChatModel, RateLimitedChatModel, CachingChatModel, TrackingChatModel,
               TextReplyChatModel)  # what build_chat_stack may return (max_retries=0 too)
    if chat is None or max_retries <= 0 or isinstance(chat, stacked):
        return chat
    return _QueryChatModel(TextReplyChatModel(chat), max_retries=max_retries)


class _QueryChatModel(RetryingChatModel, PassThrough):
    """Retried calls (a stream until its first piece); every other attribute
    (``model_name`` ...) is the model's own (:class:`PassThrough`)."""
