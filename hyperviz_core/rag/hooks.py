"""Stage hooks: observe the retrieval stages, model calls and renderings without reaching in.

A hook is any callable ``hook(name, phase, payload)`` returning ``None`` (or an awaitable, for
the async paths). The engine calls it

* for each retrieval stage it runs, in this order (stages a mode skips are not fired)::

      load → keywords → themes → top_view → locate → bottom_entities → rank → bottom_view
      → answer

  (``load`` reads the store's current state: its ``end`` payload has ``lazy`` and ``chunks``,
  its ``error`` a store that failed to load; ``hyper-lite`` skips themes/top_view/locate;
  ``naive`` runs only load, rank and answer; answer is fired by ``query``/``aquery`` and
  ``stream``/``astream`` — its ``end`` once the stream is consumed — not by ``retrieve``);
* ``model_call`` around each chat/vision model call (payload: ``stage``, ``images`` count);
* ``render`` around each rendering (payload: ``view`` ``"top"``/``"bottom"``, ``entities``,
  ``hyperedges``; at the end also ``width``, ``height``, ``sha256``).

``phase`` is ``"start"``, ``"end"`` (payload also has ``elapsed_ms``) or ``"error"`` (payload
has ``error`` and ``elapsed_ms``; the exception then propagates, unless it is a model failure
the stage falls back from). Payloads are JSON-serialisable dicts of IDs, sizes and timings,
never PNG bytes; each hook gets its own copy.

Registration: ``VizRAG(..., hooks=[h])``, ``VizRAG.add_hook(h)`` / ``remove_hook(h)`` and per
call ``retrieve/aretrieve/query/aquery(q, hooks=[h])`` (per-call hooks run after the engine's);
:class:`~hyperviz_core.rag.Retriever` has the same. In async paths an awaitable result is
awaited; in sync paths a hook that returns an awaitable raises :class:`TypeError` naming it. An
exception raised *by* a hook is logged and does not fail the retrieval.

Example:
    >>> events = []
    >>> def hook(name, phase, payload):
    ...     events.append((name, phase, sorted(payload)))
    >>> fire([hook], HookEvent("keywords", "end", {"keywords": ["curie"], "elapsed_ms": 0.1}))
    >>> events
    [('keywords', 'end', ['elapsed_ms', 'keywords'])]
"""

from __future__ import annotations

import copy
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

__all__ = [
    "EVENTS",
    "STAGES",
    "Hook",
    "HookEvent",
    "HookList",
    "Phase",
    "afire",
    "fire",
    "hook_name",
]

log = logging.getLogger(__name__)

#: the retrieval stages, in the order they run
STAGES: tuple[str, ...] = (
    "load", "keywords", "themes", "top_view", "locate", "bottom_entities", "rank", "bottom_view",
    "answer",
)
#: every event name a hook can receive
EVENTS: tuple[str, ...] = (*STAGES, "model_call", "render")

Phase = Literal["start", "end", "error"]
Hook = Callable[[str, str, dict[str, Any]], Awaitable[None] | None]


@dataclass
class HookEvent:
    """One hook call: event ``name``, ``phase`` and its ``payload``."""

    name: str
    phase: Phase
    payload: dict[str, Any] = field(default_factory=dict)


def hook_name(hook: Any) -> str:
    """A readable name of a hook (for errors and logs)."""
    return str(getattr(hook, "__qualname__", None) or type(hook).__qualname__)


def _call(hook: Hook, event: HookEvent, failed: set[int] | None = None) -> Any:
    """Call one hook with a copy of the payload; log (do not raise) what it raises: with
    its traceback the first time in a call (``failed``: the ids of the call's hooks that
    failed), later at debug level (a broken hook logged a traceback for every event)."""
    try:
        return hook(event.name, event.phase, copy.deepcopy(event.payload))
    except Exception:
        _log_failure(hook, event, failed)
        return None


def _log_failure(hook: Hook, event: HookEvent, failed: set[int] | None) -> None:
    """Log the exception being handled, raised by ``hook`` on ``event`` (see :func:`_call`)."""
    if failed is not None and id(hook) in failed:
        log.debug("stage hook %s failed again on %s/%s", hook_name(hook), event.name,
                  event.phase, exc_info=True)
        return
    if failed is not None:
        failed.add(id(hook))
    log.exception("stage hook %s failed on %s/%s (ignored; its later failures in this call "
                  "are logged at debug level)", hook_name(hook), event.name, event.phase)


class CallHooks(list[Hook]):
    """The hooks of one call (:meth:`HookList.with_extra`), remembering the events that
    began (``start``) and have not ended: when the call is cancelled (an ``asyncio``
    timeout, a task cancelled), :func:`abandoned` ends each with an ``error`` event,
    innermost first, so that a tracer's spans close.

    >>> hooks = CallHooks([lambda *a: None])
    >>> fire(hooks, HookEvent("rank", "start")); fire(hooks, HookEvent("model_call", "start"))
    >>> [(e.name, e.payload["error"]) for e in abandoned(hooks, TimeoutError())]
    [('model_call', 'TimeoutError'), ('rank', 'TimeoutError')]
    """

    def __init__(self, hooks: Iterable[Hook] = ()) -> None:
        super().__init__(hooks)
        self.failed: set[int] = set()  # ids of the hooks that raised in this call
        #: what began and has not ended: the event name, and what its error event repeats
        #: of the start payload (:data:`KEPT_FIELDS`)
        self.begun: list[tuple[str, dict[str, Any]]] = []

    def note(self, event: HookEvent) -> None:
        """Record that ``event`` was fired."""
        if event.phase == "start":
            kept = {k: event.payload[k] for k in KEPT_FIELDS if k in event.payload}
            self.begun.append((event.name, kept))
            return
        names = [name for name, _ in self.begun]
        if event.name in names:
            del self.begun[len(names) - 1 - names[::-1].index(event.name)]


#: what an ``error`` event that ends an abandoned one repeats of its ``start`` payload (a
#: ``model_call`` keeps the stage that called the model)
KEPT_FIELDS = ("stage", "images", "view")


def abandoned(hooks: Iterable[Hook], exc: BaseException) -> list[HookEvent]:
    """The ``error`` events that end what ``hooks`` (a :class:`CallHooks`) saw begin and not
    end, innermost first (none for other hooks); they count as ended."""
    begun = getattr(hooks, "begun", [])
    events = [HookEvent(name, "error", {**kept, "error": error_text(exc)})
              for name, kept in begun[::-1]]
    begun.clear()
    return events


def fire(hooks: Iterable[Hook], event: HookEvent) -> None:
    """Call ``hooks`` in order (sync path): an awaitable result is a :class:`TypeError`."""
    failed = None
    if isinstance(hooks, CallHooks):
        hooks.note(event)
        failed = hooks.failed
    for hook in hooks:
        out = _call(hook, event, failed)
        if inspect.isawaitable(out):
            if inspect.iscoroutine(out):
                out.close()  # never awaited: close it to avoid a RuntimeWarning
            raise TypeError(f"stage hook {hook_name(hook)} returned an awaitable on the sync "
                            "path; use aretrieve/aquery or a plain function")


async def afire(hooks: Iterable[Hook], event: HookEvent) -> None:
    """Call ``hooks`` in order (async path), awaiting awaitable results."""
    failed = None
    if isinstance(hooks, CallHooks):
        hooks.note(event)
        failed = hooks.failed
    for hook in hooks:
        out = _call(hook, event, failed)
        if inspect.isawaitable(out):
            try:
                await out
            except Exception:
                _log_failure(hook, event, failed)


def elapsed_ms(t0: float) -> float:
    """Milliseconds since ``t0`` (a :func:`time.perf_counter` value), rounded to µs."""
    return round((time.perf_counter() - t0) * 1000, 3)


def call_event(req: Any, phase: Phase, t0: float | None = None, **extra: Any) -> HookEvent:
    """The ``model_call`` event of a request ``req`` (its ``stage``, ``images`` and
    ``prompt``; ``elapsed_ms`` since ``t0`` when given, and ``extra`` fields)."""
    payload: dict[str, Any] = {"stage": req.stage, "images": len(req.images),
                               "prompt_chars": len(req.prompt), **extra}
    if t0 is not None:
        payload["elapsed_ms"] = elapsed_ms(t0)
    return HookEvent("model_call", phase, payload)


def error_text(exc: BaseException) -> str:
    """``"Type: message"`` of an exception (the ``error`` payload field; ``"Type"`` when
    it has no message, as a ``CancelledError``)."""
    text = str(exc)
    return (f"{type(exc).__name__}: {text}" if text else type(exc).__name__)[:500]


class HookList:
    """The hooks registered on an engine or retriever (:meth:`add` / :meth:`remove`)."""

    def __init__(self, hooks: Iterable[Hook] = ()) -> None:
        self._hooks: list[Hook] = []
        for h in hooks:
            self.add(h)

    def add(self, hook: Hook) -> None:
        """Register ``hook`` (a callable ``hook(name, phase, payload)``)."""
        if not callable(hook):
            raise TypeError(f"a stage hook must be callable, got {type(hook).__name__}")
        self._hooks.append(hook)

    def remove(self, hook: Hook) -> None:
        """Unregister ``hook``; :class:`ValueError` if it was not registered."""
        try:
            self._hooks.remove(hook)
        except ValueError:
            raise ValueError(f"stage hook {hook_name(hook)} is not registered") from None

    def with_extra(self, extra: Iterable[Hook] | None) -> CallHooks:
        """The registered hooks followed by per-call ``extra`` hooks."""
        out = CallHooks(self._hooks)
        for h in extra or ():
            if not callable(h):
                raise TypeError(f"a stage hook must be callable, got {type(h).__name__}")
            out.append(h)
        return out

    def __len__(self) -> int:
        return len(self._hooks)

    def __iter__(self) -> Any:
        return iter(list(self._hooks))
