"""Model protocols: every LLM, vision-LLM and embedding call goes through these.

Implementations: offline defaults in :mod:`hyperviz_core.rag.providers.offline` (hashed embeddings,
no network), an OpenAI-compatible client in :mod:`hyperviz_core.rag.providers.openai_compat`, and
LlamaIndex / LangChain adapters in ``vizrag_llamaindex`` / ``vizrag_langchain``.
"""

from __future__ import annotations

import asyncio
import logging
import math
import numbers
import threading
import weakref
from collections.abc import Sequence
from contextvars import ContextVar
from typing import Any, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ...textsafe import one_line, server_text
from .sync_models import SyncChatModel, SyncEmbedder, class_name

__all__ = [
    "ChatModel",
    "CutOffReply",
    "Embedder",
    "PassThrough",
    "ProviderError",
    "Usage",
    "as_provider_error",
    "current_call_info",
    "embed_query",
    "reply_text",
    "report_usage",
    "token_count",
    "with_async",
]

log = logging.getLogger(__name__)

#: the sync method of each kind of model VizRAG calls, and its async twin
ASYNC_TWINS: dict[str, str] = {"complete": "acomplete", "embed": "aembed",
                               "extract": "aextract", "theme": "atheme"}


MAX_MESSAGE = 1000  #: characters of a ProviderError's message, cut beyond


class ProviderError(RuntimeError):
    """A provider call failed. ``retryable`` marks 429 / 5xx / timeouts.

    ``retry_after`` (seconds) carries a provider's ``Retry-After`` hint when it sent one.
    The message is made one line (:func:`~hyperviz_core.textsafe.one_line`: escape sequences
    a server's error body may hold are shown as escapes wherever it is printed) of at most
    about :data:`MAX_MESSAGE` characters (a 5 MB error page is cut, saying so).
    """

    def __init__(
        self,
        message: str,
        *,
        retryable: bool = False,
        status: int | None = None,
        retry_after: float | None = None,
    ):
        text = one_line(message)
        if len(text) > MAX_MESSAGE + 64:  # (a cut one is not cut again)
            text = f"{text[:MAX_MESSAGE]}... (cut; {len(text):,} characters in all)"
        super().__init__(text)
        self.retryable = retryable
        self.status = status
        self.retry_after = retry_after


_RETRYABLE_NAMES = ("ratelimit", "timeout", "connection", "serviceunavailable",
                    "internalserver", "overloaded", "apiconnection")


def as_provider_error(exc: BaseException) -> ProviderError | None:
    """Duck-typed mapping of a framework/SDK exception to :class:`ProviderError`.

    Uses an HTTP status (``status_code`` / ``status`` / ``response.status_code``) when the
    exception carries one (408/409/429/5xx retryable, other 4xx not), else the class name
    (``RateLimitError``, ``APITimeoutError``, ``APIConnectionError``, ... retryable) and
    :class:`TimeoutError`. Returns None for anything else (a bug should surface as itself).
    """
    if isinstance(exc, ProviderError):
        return exc
    status = None
    for holder in (exc, getattr(exc, "response", None)):
        for attr in ("status_code", "status", "http_status"):
            value = getattr(holder, attr, None)
            if isinstance(value, int) and 100 <= value <= 599:
                status = value
                break
        if status is not None:
            break
    if status is not None and status >= 400:
        retryable = status in (408, 409, 429) or status >= 500
        return ProviderError(f"HTTP {status}: {server_text(exc)}", retryable=retryable,
                             status=status)
    name = type(exc).__name__.casefold()
    if isinstance(exc, TimeoutError) or any(n in name for n in _RETRYABLE_NAMES):
        return ProviderError(f"{type(exc).__name__}: {server_text(exc)}", retryable=True)
    return None


_CALL_INFO: ContextVar[dict[str, Any] | None] = ContextVar("vizrag_call_info", default=None)


MAX_CALL_TOKENS = 10**9  #: the most tokens one call may report (more: a server's error)


def token_count(value: object) -> int | None:
    """``value`` as a call's token count, or None when it is not one: not a whole number
    (or its decimal digits), a bool, negative, NaN or infinite, above
    :data:`MAX_CALL_TOKENS`. A float is rounded down.

    >>> [token_count(v) for v in (12, 3.9, "7", -5, 1e308, float("nan"), "x", True, None)]
    [12, 3, 7, None, None, None, None, None, None]
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, str):
        digits = value.isascii() and value.strip().isdigit() and len(value) < 20
        value = int(value) if digits else None
    elif isinstance(value, float):  # numpy's float64 too
        value = int(value) if math.isfinite(value) and value >= 0 else None
    elif isinstance(value, numbers.Integral):  # numpy's integers too
        value = int(value)
    return value if isinstance(value, int) and 0 <= value <= MAX_CALL_TOKENS else None


def report_usage(prompt_tokens: object, completion_tokens: object) -> None:
    """Adapters call this after a provider call that returned token counts.

    The numbers reach the enclosing :class:`~hyperviz_core.rag.UsageTracker`
    through a context variable (same thread / asyncio task), so concurrent calls never mix
    their counts. Without a tracker around the call it does nothing. A number that is not a
    token count (:func:`token_count`: a string, NaN, ``1e308``, negative) counts as 0 (a
    debug log says so); with neither usable the call counts as not reported (estimated).
    """
    info = _CALL_INFO.get()
    if info is None:
        return
    p_new, c_new = token_count(prompt_tokens), token_count(completion_tokens)
    if p_new is None or c_new is None:
        log.debug("ignored token counts that are not counts: prompt %.60s, completion %.60s",
                  ascii(prompt_tokens), ascii(completion_tokens))
        if p_new is None and c_new is None:
            return
    p, c = info.get("usage") or (0, 0)
    info["usage"] = (p + (p_new or 0), c + (c_new or 0))


def current_call_info() -> dict[str, Any] | None:
    """The mutable record of the tracked call in progress (middleware use), or None."""
    return _CALL_INFO.get()


class Usage:
    """Mutable token counters an adapter may update after each call."""

    def __init__(self) -> None:
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.images = 0


@runtime_checkable
class ChatModel(SyncChatModel, Protocol):
    """A chat / vision model (``complete``, its async twin and a name). ``images`` are PNG
    bytes sent with the prompt."""

    @property
    def model_name(self) -> str:
        """Identifies the model in cache keys and usage reports (a plain attribute is fine)."""
        ...

    async def acomplete(
        self,
        prompt: str,
        *,
        images: Sequence[bytes] = (),
        system: str | None = None,
        json_mode: bool = False,
    ) -> str: ...


@runtime_checkable
class Embedder(SyncEmbedder, Protocol):
    """Text embedder returning an L2-normalised float32 matrix of shape (n, dim).

    An embedder may also have ``embed_query(text) -> (dim,) vector`` for models that embed
    a search query differently from a passage (query prefixes, a query task type): the
    question's chunk-vector search uses it (:func:`embed_query`); everything else, including
    keywords matched against entity names, goes through ``embed``.
    """

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...


def embed_query(embedder: Embedder, text: str) -> npt.NDArray[np.float32]:
    """The unit vector of search query ``text``: ``embedder.embed_query`` when the embedder
    has one (normalised here), else the ``embed`` row of the text.

    >>> from hyperviz_core.rag.providers.offline import HashingEmbedder
    >>> e = HashingEmbedder()
    >>> bool((embed_query(e, "Who is Ada?") == e.embed(["Who is Ada?"])[0]).all())
    True
    """
    method = getattr(embedder, "embed_query", None)
    if not callable(method):
        return embedder.embed([text])[0]
    vec = np.asarray(method(text), dtype=np.float32).reshape(-1)
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec


class CutOffReply(str):
    """A reply the model stopped before its end (its token limit: OpenAI's ``finish_reason
    "length"``): text the caller may use, never cached (a larger ``max_tokens`` must ask
    again, not read the cut answer back).

    >>> CutOffReply("the answ") == "the answ", isinstance(CutOffReply("x"), str)
    (True, True)
    """

    __slots__ = ()


def reply_text(answer: object) -> str:
    """A chat model's reply, refused with a :class:`ProviderError` when it is not text (a
    retrieval stage then falls back to its offline step).

    >>> reply_text("ok")
    'ok'
    >>> reply_text(None)
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.providers.protocols.ProviderError: the chat model returned NoneType, not text
    """
    if not isinstance(answer, str):
        raise ProviderError(f"the chat model returned {type(answer).__name__}, not text")
    return answer


class PassThrough:
    """Base of a wrapper around one model (``inner``): every attribute it does not define
    is ``inner``'s.

    >>> class Loud(PassThrough):
    ...     def complete(self, prompt: str) -> str:
    ...         return self.inner.complete(prompt).upper()
    >>> class Echo:
    ...     model_name = "echo"
    ...     def complete(self, prompt: str) -> str:
    ...         return prompt
    >>> Loud(Echo()).complete("hi"), Loud(Echo()).model_name
    ('HI', 'echo')
    """

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (a copy being made): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)


#: the model's other sync methods the engine calls from worker threads
_ALSO_LOCKED = ("embed_query",)
_LOCKS: dict[int, list[Any]] = {}  # id(model) -> [its RLock, the wrappers alive]
_LOCKS_GUARD = threading.Lock()


def _model_lock(model: Any) -> threading.RLock | None:
    """The re-entrant lock of ``model``, one per model object (an object given as both
    extractors, or as chat model and embedder, is called one call at a time), counted per
    wrapper alive (:func:`_release`): the registry holds no reference to the model, and
    never asks its ``__eq__``/``__hash__``. None for a model that says ``thread_safe``."""
    if getattr(model, "thread_safe", False) is True:
        return None
    with _LOCKS_GUARD:
        entry = _LOCKS.setdefault(id(model), [threading.RLock(), 0])
        entry[1] += 1
        lock: threading.RLock = entry[0]
        return lock


def _release(key: int) -> None:
    """A wrapper of model ``id`` ``key`` is gone: its lock too once none is left (while a
    wrapper lives it holds the model, so the id cannot be another object's)."""
    with _LOCKS_GUARD:
        entry = _LOCKS.get(key)
        if entry is not None:
            entry[1] -= 1
            if entry[1] <= 0:
                del _LOCKS[key]


class _SyncOnly(PassThrough):
    """A model written with sync methods only: each missing async twin runs the sync
    method in a worker thread (:func:`with_async`)."""

    def __init__(self, inner: Any, twins: dict[str, str]) -> None:
        super().__init__(inner)
        self._twins = twins
        self._register()

    def _register(self) -> None:
        self._lock = _model_lock(self.inner)
        if self._lock is not None:
            weakref.finalize(self, _release, id(self.inner))

    def __getstate__(self) -> dict[str, Any]:  # no lock in it: a copy gets the model's own
        return {k: v for k, v in self.__dict__.items() if k != "_lock"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._register()

    def __getattr__(self, name: str) -> Any:
        twins: dict[str, str] = self.__dict__.get("_twins", {})
        sync = twins.get(name, name if name in (*twins.values(), *_ALSO_LOCKED) else None)
        if sync is None:
            return super().__getattr__(name)
        method, lock = getattr(self.inner, sync), self.__dict__.get("_lock")
        if not callable(method):  # ``embed_query = None``: the caller's fallback decides
            return method

        def call(*args: Any, **kwargs: Any) -> Any:  # the sync method, under the lock
            if lock is None:
                return method(*args, **kwargs)
            with lock:
                return method(*args, **kwargs)

        async def in_a_thread(*args: Any, **kwargs: Any) -> Any:
            return await asyncio.to_thread(call, *args, **kwargs)

        return call if name == sync else in_a_thread

    def __repr__(self) -> str:
        return repr(self.inner)


def with_async(model: Any) -> Any:
    """``model`` as the engine calls it: a chat model, embedder or extractor that has a
    sync method (``complete``, ``embed``, ``extract``, ``theme``) but not its async twin
    (``acomplete`` ...) gets one that runs the sync method in a worker thread (indexing and
    ``aquery`` call the async ones), one call at a time unless the model has
    ``thread_safe = True`` (then up to the indexer's ``concurrency`` at once); any other
    ``model`` (``None`` too) as it is. A chat model without ``model_name`` is named by its
    class (cache keys, usage; :func:`~.sync_models.class_name` warns once per class).

    >>> import asyncio
    >>> class Upper:
    ...     def complete(self, prompt: str, **kw: object) -> str:
    ...         return prompt.upper()
    >>> chat = with_async(Upper())
    >>> asyncio.run(chat.acomplete("hi")), chat.model_name, with_async(chat) is chat
    ('HI', 'Upper', True)
    """
    if model is None or isinstance(model, _SyncOnly):
        return model
    twins = {a: s for s, a in ASYNC_TWINS.items()
             if callable(getattr(model, s, None)) and not callable(getattr(model, a, None))}
    named = not callable(getattr(model, "complete", None)) or hasattr(model, "model_name")
    if not twins and named:
        return model
    out = _SyncOnly(model, twins)
    if not named:
        out.__dict__["model_name"] = class_name(model)
    return out
