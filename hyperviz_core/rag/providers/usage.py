"""Usage accounting: calls, retries, tokens, latency and cost of chat-model calls.

:class:`UsageTracker` counts every provider call routed through it (directly, as a wrapper,
or via :class:`TrackingChatModel` at the bottom of :func:`~.middleware.build_chat_stack`);
:class:`~.retry.RetryingChatModel` reports its retries to it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from contextvars import ContextVar, Token
from typing import Any, TypeVar

from pydantic import BaseModel

from .protocols import _CALL_INFO, ChatModel, token_count

__all__ = ["MIRROR", "TrackingChatModel", "UsageReport", "UsageTracker", "estimate_tokens",
           "new_call_info"]

log = logging.getLogger(__name__)
T = TypeVar("T")


#: the tracker that also receives what every other tracker counts in this thread / asyncio
#: task (a query's own counters: :mod:`hyperviz_core.rag.query_usage`), or None
MIRROR: ContextVar[UsageTracker | None] = ContextVar("vizrag_usage_mirror", default=None)


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
    counts reported by adapters (:func:`~hyperviz_core.rag.report_usage`); tokens
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
    def _add(self, forward: bool = True, **delta: float) -> None:
        """Add ``delta`` to the counters (and to the :data:`MIRROR` tracker, if any)."""
        with self._lock:
            for name, value in delta.items():
                setattr(self._r, name, getattr(self._r, name) + value)
        mirror = MIRROR.get()
        if forward and mirror is not None and mirror is not self:
            mirror._add(False, **delta)

    def record_call(
        self,
        prompt: str,
        answer: str,
        *,
        images: int = 0,
        usage: tuple[int, int] | None = None,
        seconds: float = 0.0,
    ) -> None:
        """Count one successful provider call (tokens estimated when ``usage`` is None; a
        number in it that is not a token count, :func:`~.protocols.token_count`, counts 0,
        and with neither one the tokens are estimated)."""
        self._call(prompt, answer, images, usage, seconds)

    def _call(self, prompt: str, answer: str, images: int, usage: tuple[int, int] | None,
              seconds: float, forward: bool = True) -> None:
        counts = (None, None) if usage is None else (token_count(usage[0]),
                                                     token_count(usage[1]))
        estimated = counts == (None, None)
        p, c = ((estimate_tokens(prompt), estimate_tokens(answer)) if estimated
                else (counts[0] or 0, counts[1] or 0))
        self._add(forward, calls=1, prompt_tokens=p, completion_tokens=c,
                  estimated_calls=int(estimated), images=images, seconds=seconds)

    def record_failure(self, *, seconds: float = 0.0) -> None:
        self._add(failures=1, seconds=seconds)

    def record_cache_hit(self) -> None:
        self._add(cache_hits=1)

    def record_retry(self) -> None:
        self._add(retries=1)

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
        info = new_call_info()
        return info, _CALL_INFO.set(info), time.perf_counter()

    def _end(self, info: dict[str, Any], t0: float, prompt: str, out: str | None,
             images: int) -> None:
        """Count the call of :meth:`_begin` (``info``'s context already reset). Inside
        another tracked call (an outer tracker: a user's one around a query's, or
        ``UsageTracker(UsageTracker(chat))``) what this call learnt — reported tokens,
        retries, a cache hit — goes up to it too, and the outer one forwards it to the
        :data:`MIRROR` (not this one, so it counts once)."""
        dt = time.perf_counter() - t0
        parent = _CALL_INFO.get()
        if parent is not None:
            _pass_up(info, parent)
        forward = parent is None
        self._add(forward, retries=info["retries"], failures=info["retries"])
        if out is None:
            self._add(forward, failures=1, seconds=dt)
        elif info["cache_hit"]:
            self._add(forward, cache_hits=1)
        else:
            self._call(prompt, out, images, info["usage"], dt, forward)

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


def new_call_info() -> dict[str, Any]:
    """A fresh record of one tracked call, what adapters report into
    (:func:`~.protocols.report_usage`) and layers below note retries and a cache hit in."""
    return {"usage": None, "cache_hit": False, "retries": 0}


def _pass_up(info: dict[str, Any], parent: dict[str, Any]) -> None:
    """What a nested tracked call learnt, added to the enclosing call's record."""
    if info["usage"] is not None:
        p, c = parent.get("usage") or (0, 0)
        parent["usage"] = (p + info["usage"][0], c + info["usage"][1])
    parent["retries"] = parent.get("retries", 0) + info["retries"]
    parent["cache_hit"] = bool(parent.get("cache_hit")) or info["cache_hit"]


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
