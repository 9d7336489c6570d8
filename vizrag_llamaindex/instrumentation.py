"""VizRAG stage hooks → LlamaIndex instrumentation (spans and custom events).

The engine fires ``hook(name, phase, payload)`` at the start and end of every retrieval stage,
model call and rendering (see ``hyperviz_core.rag.hooks``). :class:`StageSpans` turns each
start/end pair into a LlamaIndex span (``VizRAG.<stage>-<uuid>``, nested under the
retriever's span, visible to ``dispatcher.add_span_handler``) and dispatches
:class:`VizRAGRenderEvent` for each rendering and :class:`VizRAGLocateEvent` after the locate
stage (visible to ``dispatcher.add_event_handler``). Payloads hold IDs, sizes and timings,
never image bytes.

Example:
    >>> spans = StageSpans()
    >>> spans("keywords", "start", {})
    >>> spans("keywords", "end", {"elapsed_ms": 0.1, "keywords": ["curie"]})
    >>> spans.finished
    ['keywords']
"""

from __future__ import annotations

import inspect
import threading
import uuid
from typing import Any

import llama_index.core.instrumentation as instrument
from llama_index.core.instrumentation.events import BaseEvent
from llama_index.core.instrumentation.span import active_span_id
from pydantic import Field

__all__ = ["StageSpans", "VizRAGLocateEvent", "VizRAGRenderEvent", "dispatcher"]

dispatcher = instrument.get_dispatcher(__name__)


class VizRAGRenderEvent(BaseEvent):
    """A HyperViz rendering made during retrieval (sizes and hash, no PNG bytes)."""

    view: str = ""
    entities: int = 0
    hyperedges: int = 0
    width: int = 0
    height: int = 0
    sha256: str = ""
    elapsed_ms: float | None = None

    @classmethod
    def class_name(cls) -> str:
        return "VizRAGRenderEvent"


class VizRAGLocateEvent(BaseEvent):
    """The locate stage finished: which entities the model (or offline locator) named."""

    payload: dict[str, Any] = Field(default_factory=dict)
    elapsed_ms: float | None = None

    @classmethod
    def class_name(cls) -> str:
        return "VizRAGLocateEvent"


def _stage(name: str, payload: dict[str, Any]) -> None:
    """Signature the stage spans' ``bound_args`` describe."""


_SIG = inspect.signature(_stage)


def _int(payload: dict[str, Any], key: str) -> int:
    value = payload.get(key, 0)
    return int(value) if isinstance(value, (int, float)) else 0


class StageSpans:
    """A stage hook that opens/closes one LlamaIndex span per stage (use one per query).

    Args:
        parent_id: the span the stage spans nest under (default: the active span when the
            first stage starts, e.g. the retriever's ``_aretrieve`` span).
    """

    def __init__(self, parent_id: str | None = None) -> None:
        self._parent = parent_id
        self._open: list[tuple[str, str, inspect.BoundArguments]] = []
        self._lock = threading.Lock()
        self.finished: list[str] = []

    def __call__(self, name: str, phase: str, payload: dict[str, Any]) -> None:
        if phase == "start":
            self._start(name, payload)
            return
        entry = self._pop(name)
        if entry is None:
            return
        span_id, bound = entry
        if phase == "error":
            err = RuntimeError(f"VizRAG stage {name!r} failed: {payload.get('error', '')}")
            dispatcher.span_drop(id_=span_id, bound_args=bound, instance=self, err=err)
            return
        self.finished.append(name)
        self._events(name, payload, span_id)
        dispatcher.span_exit(id_=span_id, bound_args=bound, instance=self, result=payload)

    def _start(self, name: str, payload: dict[str, Any]) -> None:
        span_id = f"VizRAG.{name}-{uuid.uuid4()}"
        bound = _SIG.bind(name, dict(payload))
        with self._lock:
            if self._parent is None and not self._open:
                self._parent = active_span_id.get()
            parent = self._open[-1][1] if self._open else self._parent
            self._open.append((name, span_id, bound))
        dispatcher.span_enter(id_=span_id, bound_args=bound, instance=self, parent_id=parent,
                              tags={"vizrag.stage": name})

    def _pop(self, name: str) -> tuple[str, inspect.BoundArguments] | None:
        with self._lock:
            for i in range(len(self._open) - 1, -1, -1):
                if self._open[i][0] == name:
                    _, span_id, bound = self._open.pop(i)
                    return span_id, bound
        return None

    @staticmethod
    def _events(name: str, payload: dict[str, Any], span_id: str) -> None:
        elapsed = payload.get("elapsed_ms")
        ms = float(elapsed) if isinstance(elapsed, (int, float)) else None
        if name == "render":
            dispatcher.event(VizRAGRenderEvent(
                span_id=span_id, view=str(payload.get("view", "")),
                entities=_int(payload, "entities"), hyperedges=_int(payload, "hyperedges"),
                width=_int(payload, "width"), height=_int(payload, "height"),
                sha256=str(payload.get("sha256", "")), elapsed_ms=ms))
        elif name == "locate":
            dispatcher.event(VizRAGLocateEvent(span_id=span_id, payload=dict(payload),
                                               elapsed_ms=ms))
