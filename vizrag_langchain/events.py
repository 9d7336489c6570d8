"""Engine stage hooks → LangChain custom callback events.

The engine calls ``hook(name, phase, payload)`` at the start/end/error of each retrieval stage,
each model call and each rendering (see :mod:`hyperviz_core.rag.hooks`). These factories turn
such calls into ``on_custom_event`` callbacks attributed to the current LangChain run (the
same thing ``dispatch_custom_event`` does inside a ``RunnableLambda``), so they appear as
``on_custom_event`` in ``astream_events`` and reach every callback handler.

Event name: ``"vizrag.<name>.<phase>"`` (e.g. ``"vizrag.bottom_view.end"``); data: the payload
plus ``event`` (the hook name) and ``phase`` — IDs, sizes and timings only (byte values are
dropped). A ``model_call`` payload keeps its own ``stage`` (the stage that called the model).

Example::

    >>> from vizrag_langchain.events import event_name
    >>> event_name("render", "end")
    'vizrag.render.end'
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from langchain_core.callbacks import AsyncParentRunManager, ParentRunManager

__all__ = ["EVENT_PREFIX", "async_event_hook", "event_data", "event_hook", "event_name"]

EVENT_PREFIX = "vizrag"

SyncHook = Callable[[str, str, dict[str, Any]], None]
AsyncHook = Callable[[str, str, dict[str, Any]], Awaitable[None]]


def event_name(name: str, phase: str) -> str:
    """The LangChain custom-event name of a hook call."""
    return f"{EVENT_PREFIX}.{name}.{phase}"


def event_data(name: str, phase: str, payload: Mapping[str, Any]) -> dict[str, Any]:
    """The event data: the payload without byte values, plus ``event`` and ``phase``.

    >>> event_data("model_call", "start", {"stage": "locate", "images": 1})
    {'stage': 'locate', 'images': 1, 'event': 'model_call', 'phase': 'start'}
    """
    data = {k: v for k, v in payload.items() if not isinstance(v, (bytes, bytearray))}
    return {**data, "event": name, "phase": phase}


def event_hook(run_manager: ParentRunManager | None) -> SyncHook | None:
    """A sync engine hook dispatching to ``run_manager``'s handlers (None without any)."""
    if run_manager is None or not run_manager.handlers:
        return None
    child = run_manager.get_child()
    run_id = run_manager.run_id

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        child.on_custom_event(event_name(name, phase), event_data(name, phase, payload),
                              run_id=run_id)

    return hook


def async_event_hook(run_manager: AsyncParentRunManager | None) -> AsyncHook | None:
    """An async engine hook dispatching to ``run_manager``'s handlers (None without any)."""
    if run_manager is None or not run_manager.handlers:
        return None
    child = run_manager.get_child()
    run_id = run_manager.run_id

    async def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        await child.on_custom_event(event_name(name, phase), event_data(name, phase, payload),
                                    run_id=run_id)

    return hook
