"""Retries with exponential backoff + jitter, and concurrency / rate limits.

Part of the chat middleware; import from :mod:`hyperviz_core.rag.providers.middleware`.
"""

from __future__ import annotations

import asyncio
import email.utils
import itertools
import logging
import random
import threading
import time
import weakref
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from ...textsafe import one_line
from .protocols import (
    ChatModel,
    Embedder,
    ProviderError,
    current_call_info,
    embed_query,
)
from .usage import MIRROR, UsageTracker

__all__ = [
    "RateLimitedChatModel",
    "RetryingChatModel",
    "RetryingEmbedder",
    "is_retryable",
    "parse_retry_after",
    "with_retries",
]

log = logging.getLogger("hyperviz_core.rag.providers.middleware")
T = TypeVar("T")
Inner = TypeVar("Inner")
#: the longest ``Retry-After`` hint waited for; a longer one fails the call at once
MAX_RETRY_AFTER = 300.0


def parse_retry_after(value: str, now: float | None = None) -> float | None:
    """Seconds of a ``Retry-After`` value: a number, or an HTTP date (``now``: epoch seconds).

    >>> parse_retry_after("2.5")
    2.5
    >>> parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now=1445412480.0)
    30.0
    >>> parse_retry_after("soon") is None
    True
    """
    try:
        return max(float(value), 0.0)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:  # an HTTP date is GMT
        return None
    return max(when.timestamp() - (time.time() if now is None else now), 0.0)


def is_retryable(exc: BaseException) -> bool:
    """Retry on ``ProviderError(retryable=True)`` and timeouts."""
    if isinstance(exc, ProviderError):
        return exc.retryable
    return isinstance(exc, (TimeoutError, asyncio.TimeoutError))


class _Backoff:
    def __init__(self, max_retries: int, base_delay: float, max_delay: float, seed: int,
                 max_retry_after: float = MAX_RETRY_AFTER) -> None:
        if min(max_retries, base_delay, max_delay, max_retry_after) < 0:
            raise ValueError("max_retries, base_delay, max_delay and max_retry_after must be "
                             ">= 0")
        self.max_retries = max_retries
        self.base_delay = base_delay
        self.max_delay = max_delay
        self.max_retry_after = max_retry_after
        self._rng = random.Random(seed)
        self._lock = threading.Lock()

    def delay(self, attempt: int, exc: BaseException) -> float | None:
        """The wait before retry ``attempt`` (0-based) after ``exc``, or None to give up:
        equal-jitter exponential, at least the provider's Retry-After hint. A hint above
        ``max_retry_after`` raises a non-retryable ProviderError at once (retrying earlier
        than the provider asks only collects more refusals)."""
        if not is_retryable(exc) or attempt >= self.max_retries:
            return None
        cap = min(self.max_delay, self.base_delay * (2.0**attempt))
        with self._lock:
            d = cap / 2 + self._rng.random() * cap / 2
        hint = getattr(exc, "retry_after", None)
        if isinstance(hint, (int, float)) and hint > 0:
            if hint > self.max_retry_after:
                raise ProviderError(
                    f"{exc} (the provider asks to wait {hint:.0f} s before retrying, more than "
                    f"the {self.max_retry_after:.0f} s limit; try again later)",
                    status=getattr(exc, "status", None)) from exc
            d = max(d, float(hint))
        return d


class _Retrying(Generic[Inner]):
    """The retry loop both wrappers share: ``_retried`` / ``_aretried`` call ``inner`` again
    after a retryable failure, waiting :class:`_Backoff`'s delay, and give up otherwise."""

    def __init__(
        self,
        inner: Inner,
        max_retries: int = 5,
        base_delay: float = 0.5,
        max_delay: float = 20.0,
        *,
        sleep: Callable[[float], None] = time.sleep,
        async_sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        seed: int = 0,
        tracker: UsageTracker | None = None,
        max_retry_after: float = MAX_RETRY_AFTER,
    ) -> None:
        self.inner: Inner = inner
        self._backoff = _Backoff(max_retries, base_delay, max_delay, seed, max_retry_after)
        self.sleep = sleep
        self.async_sleep = async_sleep
        self.tracker = tracker

    @property
    def max_retries(self) -> int:
        return self._backoff.max_retries

    def _label(self) -> str:
        """What the retry warning names."""
        raise NotImplementedError

    def _count_retry(self) -> None:
        if self.tracker is not None:
            self.tracker.record_retry()

    def _delay(self, attempt: int, exc: BaseException) -> float | None:
        """The wait before retry ``attempt`` after ``exc`` (counted and logged), or None."""
        d = self._backoff.delay(attempt, exc)
        if d is None:
            return None
        self._count_retry()
        log.warning("%s failed (%s); retry %d/%d in %.2fs", one_line(self._label()),
                    one_line(exc), attempt + 1, self._backoff.max_retries, d)
        return d

    def _retried(self, call: Callable[[], T]) -> T:
        attempt = 0
        while True:
            try:
                return call()
            except Exception as exc:
                d = self._delay(attempt, exc)
                if d is None:
                    raise
            self.sleep(d)
            attempt += 1

    async def _aretried(self, call: Callable[[], Awaitable[T]]) -> T:
        attempt = 0
        while True:
            try:
                return await call()
            except Exception as exc:
                d = self._delay(attempt, exc)
                if d is None:
                    raise
            await self.async_sleep(d)
            attempt += 1


class RetryingChatModel(_Retrying[ChatModel]):
    """Retries retryable failures (429, 5xx, timeouts) with exponential backoff + jitter.

    Delay before retry ``n`` (0-based) is uniform in ``[c/2, c]`` with
    ``c = min(max_delay, base_delay·2ⁿ)``, drawn from ``random.Random(seed)`` (reproducible),
    and never less than a ``ProviderError.retry_after`` hint; a hint longer than
    ``max_retry_after`` (default 300 s) fails the call at once with a ProviderError saying
    so. Non-retryable errors (400, 401, bad requests) raise at once. ``sleep``/``async_sleep``
    are injectable for tests (a fake clock).
    """

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    def _label(self) -> str:
        return self.model_name

    def _count_retry(self) -> None:
        info = current_call_info()
        if info is not None:  # a tracker outside the retries counts them
            info["retries"] += 1
        elif self.tracker is None and (mirror := MIRROR.get()) is not None:
            mirror.record_retry()  # a query's own counts (a user's tracker sits below)
        else:
            super()._count_retry()

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        return self._retried(lambda: self.inner.complete(prompt, images=images, system=system,
                                                         json_mode=json_mode))

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        return await self._aretried(lambda: self.inner.acomplete(
            prompt, images=images, system=system, json_mode=json_mode))

    @property
    def stream(self) -> Callable[..., Iterator[str]]:
        """The inner model's ``stream``, retried as :meth:`complete` until its first piece
        (nothing was shown yet: a 429 before the answer starts); a failure after it
        propagates. No ``stream`` when the inner model has none."""
        inner = getattr(self.inner, "stream", None)
        if not callable(inner):
            raise AttributeError("stream")

        def stream(prompt: str, *, images: Sequence[bytes] = (),
                   system: str | None = None) -> Iterator[str]:
            def first() -> tuple[Iterator[str], list[str]]:
                pieces = iter(inner(prompt, images=images, system=system))
                return pieces, list(itertools.islice(pieces, 1))

            pieces, head = self._retried(first)
            yield from head
            yield from pieces

        return stream

    @property
    def astream(self) -> Callable[..., AsyncIterator[str]]:
        """Async :attr:`stream`."""
        inner = getattr(self.inner, "astream", None)
        if not callable(inner):
            raise AttributeError("astream")

        async def astream(prompt: str, *, images: Sequence[bytes] = (),
                          system: str | None = None) -> AsyncIterator[str]:
            async def first() -> tuple[AsyncIterator[str], list[str]]:
                pieces = aiter(inner(prompt, images=images, system=system))
                try:
                    return pieces, [await anext(pieces)]
                except StopAsyncIteration:
                    return pieces, []

            pieces, head = await self._aretried(first)
            for piece in head:
                yield piece
            async for piece in pieces:
                yield piece

        return astream


class RetryingEmbedder(_Retrying[Embedder]):
    """:class:`RetryingChatModel`'s policy for an :class:`Embedder`, its ``dim`` probe
    included (``semantic`` and ``embed_query`` are the inner embedder's)."""

    @property
    def name(self) -> str:
        return self.inner.name

    def _label(self) -> str:
        return f"embedder {self.name}"

    @property
    def dim(self) -> int:
        return self._retried(lambda: self.inner.dim)

    @property
    def semantic(self) -> bool | None:
        flag = getattr(self.inner, "semantic", None)
        return None if flag is None else bool(flag)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self._retried(lambda: self.inner.embed(texts))

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return await self._aretried(lambda: self.inner.aembed(texts))

    def embed_query(self, text: str) -> npt.NDArray[np.float32]:
        """The inner embedder's query vector (:func:`~.protocols.embed_query`), retried."""
        return self._retried(lambda: embed_query(self.inner, text))


def with_retries(embedder: Embedder, max_retries: int = 5, *,
                 tracker: UsageTracker | None = None) -> Embedder:
    """``embedder`` in a :class:`RetryingEmbedder` unless it needs none: the offline hashed
    embedder (no provider to fail), one already wrapped, or ``max_retries=0``.

    >>> from hyperviz_core.rag.providers.offline import HashingEmbedder
    >>> e = HashingEmbedder()
    >>> with_retries(e) is e
    True
    """
    from .offline import HashingEmbedder

    if max_retries <= 0 or isinstance(embedder, (HashingEmbedder, RetryingEmbedder)):
        return embedder
    return RetryingEmbedder(embedder, max_retries=max_retries, tracker=tracker)


# ---------------------------------------------------------------------------- limits
class RateLimitedChatModel:
    """Bounds concurrent calls (``max_concurrency``) and spaces call starts (``min_interval``).

    Sync calls share a thread semaphore; async calls an ``asyncio.Semaphore`` per event loop
    (so the wrapper survives several ``asyncio.run`` calls).
    """

    def __init__(
        self, inner: ChatModel, max_concurrency: int = 8, *, min_interval: float = 0.0
    ) -> None:
        if max_concurrency < 1:
            raise ValueError("max_concurrency must be >= 1")
        self.inner = inner
        self.max_concurrency = max_concurrency
        self.min_interval = max(float(min_interval), 0.0)
        self._tsem = threading.BoundedSemaphore(max_concurrency)
        self._tlock = threading.Lock()
        self._asems: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = (
            weakref.WeakKeyDictionary()
        )
        self._alocks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._next_start = 0.0
        self.peak = 0
        self._active = 0

    @property
    def model_name(self) -> str:
        return self.inner.model_name

    def _reserve(self) -> float:
        with self._tlock:
            now = time.monotonic()
            start = max(now, self._next_start)
            self._next_start = start + self.min_interval
            return start - now

    def _enter(self) -> None:
        with self._tlock:
            self._active += 1
            self.peak = max(self.peak, self._active)

    def _exit(self) -> None:
        with self._tlock:
            self._active -= 1

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        with self._tsem:
            wait = self._reserve() if self.min_interval else 0.0
            if wait > 0:
                time.sleep(wait)
            self._enter()
            try:
                return self.inner.complete(prompt, images=images, system=system,
                                           json_mode=json_mode)
            finally:
                self._exit()

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        loop = asyncio.get_running_loop()
        sem = self._asems.get(loop)
        if sem is None:
            sem = self._asems[loop] = asyncio.Semaphore(self.max_concurrency)
        async with sem:
            wait = self._reserve() if self.min_interval else 0.0
            if wait > 0:
                await asyncio.sleep(wait)
            self._enter()
            try:
                return await self.inner.acomplete(prompt, images=images, system=system,
                                                  json_mode=json_mode)
            finally:
                self._exit()
