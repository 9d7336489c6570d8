"""Per-query usage: the chat-model calls of one query, counted into ``RetrievalResult.usage``.

Every call a query makes — keywords, locate (:class:`~.retrieve.Retriever`'s drivers) and
the answer, streamed or not (:class:`~.answer.Answerer`, given a :func:`counted` model by
:class:`~.engine.VizRAG`) — goes through a :class:`CountedChat` of its own, so concurrent
queries on one engine (threads or asyncio tasks) never mix their counts. The counts are a
:class:`~.providers.usage.UsageReport`: tokens as the adapter reported them
(:func:`~.providers.protocols.report_usage`; a streamed answer's from its final chunk when
the provider sends one), else estimated (``len/4``, counted in ``estimated_calls``).

Once a call of the query fails with a retryable error (429, 5xx, a timeout: the model's
retries, if any, spent), the query's later calls — keywords, locate, the answer — are not
made: each raises at once a :class:`~.providers.protocols.ProviderError` led by that
failure's message, retryable, with its status and ``Retry-After`` hint, raised from it; the
stages fall back as they do on a failure. A dead provider cost a query a full round
of retries per stage (38 s, 17 retry warnings, then the answer's error). Likewise once a
``close(timeout=...)`` of the query's engine gave up waiting for it
(:attr:`QuerySpend.halt`): each later call raises ``EngineClosedError`` before the model is
asked, and so does each later call of the query's embedder or keyword extractor
(:func:`check_halt`).

A model that carries a :class:`~.providers.usage.UsageTracker` of its own (one built with
``build_chat_stack(tracker=...)``, ``UsageTracker(chat)``, a ``TrackingChatModel``) keeps
counting exactly as before; the query's report then mirrors what that tracker counts during
the query's calls (:data:`~.providers.usage.MIRROR`).

A query that raises still says what it cost: :class:`~.engine.VizRAG`'s ``query``,
``aquery``, ``retrieve``, ``aretrieve``, ``stream`` and ``astream`` run inside
:func:`spending`, and the exception they raise (a model's error, a cancellation, a closed
store ...) carries the report of the query's calls made until then as its ``usage``
attribute (:func:`usage_of`; None: no model call), its type and message unchanged.

>>> class Echo:
...     model_name = "echo"
...     def complete(self, prompt: str, **kw: object) -> str:
...         return prompt
>>> chat = counted(Echo())
>>> chat.complete("12345678"), chat.report().calls, chat.report().prompt_tokens
('12345678', 1, 2)
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextvars import ContextVar, Token
from typing import TYPE_CHECKING, Any, TypeVar

from .hooks import error_text
from .providers.protocols import _CALL_INFO, ProviderError, as_provider_error
from .providers.retry import is_retryable
from .providers.usage import MIRROR, UsageReport, UsageTracker, new_call_info

if TYPE_CHECKING:
    from .result import RetrievalResult

__all__ = ["CountedChat", "QuerySpend", "add_reports", "carries_tracker", "charge", "check_halt",
           "counted", "spending", "usage_of", "usage_summary"]

R = TypeVar("R", bound="RetrievalResult")
T = TypeVar("T")
_FIELDS = ("calls", "cache_hits", "retries", "failures", "prompt_tokens", "completion_tokens",
           "estimated_calls", "images", "seconds")


def carries_tracker(chat: Any) -> bool:
    """Whether ``chat`` or a model it wraps (``.inner``, any depth) counts its own usage:
    a :class:`UsageTracker` or a layer holding one (``.tracker``)."""
    from .providers.usage import TrackingChatModel

    model, depth = chat, 0
    while model is not None and depth < 64:
        if isinstance(model, (UsageTracker, TrackingChatModel)):
            return True
        if isinstance(getattr(model, "tracker", None), UsageTracker):
            return True
        model, depth = getattr(model, "inner", None), depth + 1
    return False


def add_reports(a: UsageReport | None, b: UsageReport | None) -> UsageReport | None:
    """The sum of two reports (None: no model call; ``cost`` is left out).

    >>> add_reports(UsageReport(calls=1, prompt_tokens=5), UsageReport(calls=2)).calls
    3
    >>> add_reports(None, None) is None
    True
    """
    if a is None or b is None:
        return a or b
    return UsageReport(**{f: getattr(a, f) + getattr(b, f) for f in _FIELDS})


def usage_summary(r: UsageReport) -> str:
    """One line of ``r`` (what ``vizrag query`` prints).

    >>> usage_summary(UsageReport(calls=3, prompt_tokens=1200, completion_tokens=80,
    ...                           estimated_calls=1, images=1, seconds=2.345))
    '3 model calls, 0 failed, 0 retries, 1200+80 tokens (1 call estimated), 1 image, 2.3 s'
    """
    est = (f" ({r.estimated_calls} call{'s' * (r.estimated_calls != 1)} estimated)"
           if r.estimated_calls else "")
    hits = f", {r.cache_hits} cache hits" if r.cache_hits else ""
    return (f"{r.calls} model calls{hits}, {r.failures} failed, {r.retries} retries, "
            f"{r.prompt_tokens}+{r.completion_tokens} tokens{est}, {r.images} "
            f"image{'s' * (r.images != 1)}, {r.seconds:.1f} s")


class QuerySpend:
    """What one query's :class:`CountedChat` objects counted, wherever it went (still in a
    counter, or moved into a result's ``usage``): the report its exception carries."""

    def __init__(self) -> None:
        self.chats: list[CountedChat] = []
        self.results: dict[int, RetrievalResult] = {}
        #: set when the query's engine closed without waiting for it any longer: makes the
        #: error each later model call of the query raises instead of calling the model
        self.halt: Callable[[], BaseException] | None = None

    def report(self) -> UsageReport | None:
        total: UsageReport | None = None
        for result in self.results.values():
            total = add_reports(total, result.usage)
        for chat in self.chats:
            total = add_reports(total, chat.report())
        return total


#: the spend of the query running in this context (:func:`spending`)
_SPEND: ContextVar[QuerySpend | None] = ContextVar("vizrag_query_spend", default=None)


@contextlib.contextmanager
def spending(spend: QuerySpend | None = None) -> Iterator[QuerySpend]:
    """Count the :class:`CountedChat` objects made in the block into ``spend`` (a new one
    when None; the running query's, inside one, so a query's own ``retrieve`` joins it),
    and give an exception raised out of it the usage of those calls (:func:`usage_of`).

    >>> class Echo:
    ...     model_name = "echo"
    ...     def complete(self, prompt: str, **kw: object) -> str:
    ...         return prompt
    >>> try:
    ...     with spending():
    ...         _ = counted(Echo()).complete("12345678")
    ...         raise KeyError("k")
    ... except KeyError as exc:
    ...     print(repr(exc), usage_of(exc).calls, usage_of(exc).prompt_tokens)
    KeyError('k') 1 2
    """
    outer = _SPEND.get()
    if outer is not None and spend is None:  # a query's nested call: the query's spend
        yield outer
        return
    spend = spend if spend is not None else QuerySpend()
    token = _SPEND.set(spend)
    try:
        yield spend
    except BaseException as exc:
        _attach(exc, spend.report())
        raise
    finally:
        _SPEND.reset(token)


def check_halt(spend: QuerySpend | None = None) -> None:
    """Raise the :attr:`QuerySpend.halt` error of ``spend`` (default: the running query's), if
    its engine's close gave up waiting for the query: the gate of each of its model calls —
    a :class:`CountedChat`'s, the embedder's, a keyword extractor's."""
    spend = spend if spend is not None else _SPEND.get()
    if spend is not None and spend.halt is not None:
        raise spend.halt()


def _attach(exc: BaseException, report: UsageReport | None) -> None:
    """Set ``exc.usage`` (left alone when it holds something else than a usage report)."""
    if not isinstance(getattr(exc, "usage", None), UsageReport | None):
        return
    with contextlib.suppress(AttributeError, TypeError):  # (an exception with __slots__)
        exc.usage = report  # type: ignore[attr-defined]


def usage_of(exc: BaseException) -> UsageReport | None:
    """The usage report a failed query's exception carries (its ``usage`` attribute; None
    when it has none or the query made no model call)."""
    got = getattr(exc, "usage", None)
    return got if isinstance(got, UsageReport) else None


def charge(exc: BaseException, usage: UsageReport | None) -> None:
    """Add ``usage`` to the report ``exc`` carries (:func:`usage_of`): what a framework
    wrapper does when a step after the retrieval fails. Left alone when ``usage`` is None
    or ``exc.usage`` holds something else than a report.

    >>> err = RuntimeError("the answer's model is down")
    >>> charge(err, UsageReport(calls=2)); charge(err, UsageReport(calls=1))
    >>> usage_of(err).calls
    3
    """
    if usage is not None:
        _attach(exc, add_reports(usage_of(exc), usage))


class CountedChat:
    """``chat`` with each call counted for one query (:func:`counted`); calls through it
    add up until :meth:`add_to` moves them into a result's ``usage``. ``result`` given, each
    call's counts go into ``result.usage`` as soon as it ends (a stream: when it ends)."""

    def __init__(self, chat: Any, result: RetrievalResult | None = None) -> None:
        self.inner = chat
        self.result = result
        self._tracker = UsageTracker()
        self._mirror = carries_tracker(chat)
        #: why the model is not called again (see the module doc); the retrieval's, when
        #: ``result`` is the retrieval the answer follows
        self.down: BaseException | None = result._chat_down if result is not None else None
        self._spend = _SPEND.get()  # the running query's (:func:`spending`)
        if self._spend is not None:
            self._spend.chats.append(self)

    @property
    def model_name(self) -> str:
        return str(self._model().model_name)

    def _model(self) -> Any:
        if self.inner is None:
            raise TypeError("no chat model to call (an offline query makes no model call)")
        return self.inner

    def report(self) -> UsageReport | None:
        """The counts so far, or None when no call reached the model's layers."""
        r = self._tracker.report()
        return r if (r.calls or r.failures or r.cache_hits or r.retries) else None

    def add_to(self, result: R) -> R:
        """Add the counts so far to ``result.usage`` (and start again from zero); a failure
        that stops the query's calls goes with them."""
        result.usage = add_reports(result.usage, self.report())
        if self._spend is not None:
            self._spend.results[id(result)] = result
        result._chat_down = result._chat_down or self.down
        self._tracker.reset()
        return result

    def _done(self) -> None:
        if self.result is not None:
            self.add_to(self.result)

    def _gate(self) -> None:
        """Refuse a call once the query's engine closed without waiting for it (its
        :attr:`QuerySpend.halt` error), or after a retryable failure of the query (see the
        module doc): a :class:`ProviderError` led by that failure's message (no
        "ProviderError: ProviderError:"), retryable, with its status and ``Retry-After``
        hint, caused by it."""
        if self._spend is not None:
            check_halt(self._spend)
        down = self.down
        if down is None:
            return
        first = as_provider_error(down)
        text = str(down) if isinstance(down, ProviderError) else error_text(down)
        raise ProviderError(
            f"{text} (in an earlier call of this query: the chat model is not called again "
            "in it)", retryable=True, status=getattr(first, "status", None),
            retry_after=getattr(first, "retry_after", None)) from down

    def _failed(self, exc: BaseException) -> None:
        if is_retryable(exc) and self.down is None:
            self.down = exc

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        model = self._model()
        self._gate()
        try:
            if not self._mirror:
                return self._tracker.tracked_complete(model, prompt, images=images,
                                                      system=system, json_mode=json_mode)
            token = MIRROR.set(self._tracker)
            try:
                out: str = model.complete(prompt, images=images, system=system,
                                          json_mode=json_mode)
                return out  # as it is (a CutOffReply stays one)
            finally:
                MIRROR.reset(token)
        except Exception as exc:
            self._failed(exc)
            raise
        finally:
            self._done()

    async def acomplete(self, prompt: str, *, images: Sequence[bytes] = (),
                        system: str | None = None, json_mode: bool = False) -> str:
        model = self._model()
        self._gate()
        try:
            if not self._mirror:
                return await self._tracker.tracked_acomplete(
                    model, prompt, images=images, system=system, json_mode=json_mode)
            token = MIRROR.set(self._tracker)
            try:
                out: str = await model.acomplete(prompt, images=images, system=system,
                                                 json_mode=json_mode)
                return out
            finally:
                MIRROR.reset(token)
        except Exception as exc:
            self._failed(exc)
            raise
        finally:
            self._done()

    def _enter(self, info: dict[str, Any]) -> Token[Any]:
        """Open a stream's call record for one step of it: set only while the model's code
        runs, never while the consumer holds a piece."""
        return MIRROR.set(self._tracker) if self._mirror else _CALL_INFO.set(info)

    def _leave(self, token: Token[Any]) -> None:
        (MIRROR if self._mirror else _CALL_INFO).reset(token)

    def _step(self, info: dict[str, Any], step: Callable[[], T]) -> T:
        token = self._enter(info)
        try:
            return step()
        finally:
            self._leave(token)

    def _finish(self, info: dict[str, Any], t0: float, prompt: str, answer: str | None,
                images: int) -> None:
        """Count a stream (a failure when it did not end: ``answer`` None)."""
        if not self._mirror:
            self._tracker._end(info, t0, prompt, answer, images)
        self._done()

    @property
    def stream(self) -> Callable[..., Iterator[str]]:
        """The model's ``stream``, counted as one call (AttributeError: it has none)."""
        inner = getattr(self._model(), "stream", None)
        if not callable(inner):
            raise AttributeError("stream")

        def stream(prompt: str, *, images: Sequence[bytes] = (),
                   system: str | None = None) -> Iterator[str]:
            self._gate()
            info, t0 = new_call_info(), time.perf_counter()
            out: list[str] = []
            answer: str | None = None
            try:
                it = self._step(info, lambda: iter(inner(prompt, images=images, system=system)))
                while True:
                    try:
                        piece = self._step(info, lambda: next(it))
                    except StopIteration:
                        break
                    out.append(str(piece))
                    yield piece
                answer = "".join(out)
            finally:
                self._finish(info, t0, (system or "") + prompt, answer, len(images))

        return stream

    @property
    def astream(self) -> Callable[..., AsyncIterator[str]]:
        """Async :attr:`stream`."""
        inner = getattr(self._model(), "astream", None)
        if not callable(inner):
            raise AttributeError("astream")

        async def astream(prompt: str, *, images: Sequence[bytes] = (),
                          system: str | None = None) -> AsyncIterator[str]:
            self._gate()
            info, t0 = new_call_info(), time.perf_counter()
            out: list[str] = []
            answer: str | None = None
            try:
                it = self._step(info, lambda: aiter(inner(prompt, images=images, system=system)))
                while True:
                    token = self._enter(info)
                    try:
                        piece = await anext(it)
                    except StopAsyncIteration:
                        break
                    finally:
                        self._leave(token)
                    out.append(str(piece))
                    yield piece
                answer = "".join(out)
            finally:
                self._finish(info, t0, (system or "") + prompt, answer, len(images))

        return astream


def counted(chat: Any, result: RetrievalResult | None = None) -> CountedChat:
    """``chat`` counted for one query (:class:`CountedChat`; ``result``: where each call's
    counts go as it ends)."""
    return CountedChat(chat, result)
