"""A streamed chat completion's text, piece by piece (the OpenAI-compatible client's
``stream``/``astream``): each chunk's text and token counts, the reasoning of a model whose
template opens ``<think>`` in its prompt held back and dropped, an empty stream refused."""

from __future__ import annotations

import logging
from typing import Any

from ..reasoning import ReasoningCut
from .protocols import ProviderError, report_usage

__all__ = ["StreamText", "stream_piece"]

log = logging.getLogger(__name__)


class StreamText:
    """The text of one streamed completion, piece by piece: each chunk's text
    (:func:`stream_piece`) through a :class:`ReasoningCut` (active for a model that opens
    ``<think>`` in its prompt), and at the end what the cut held back; a stream that gave no
    text at all is an empty answer (a retryable :class:`ProviderError`)."""

    def __init__(self, where: str, think_in_prompt: bool) -> None:
        self.where, self.got, self.cut = where, False, ReasoningCut(think_in_prompt)
        self.finish: str | None = None  # the finish_reason the stream ended with, if any

    def piece(self, chunk: Any) -> str:
        """The text of ``chunk`` that can be shown now."""
        choices = getattr(chunk, "choices", None) or []
        if choices and getattr(choices[0], "finish_reason", None):
            self.finish = str(choices[0].finish_reason)
        text = self.cut.feed(stream_piece(chunk))
        self.got = self.got or bool(text)
        return text

    def end(self) -> str:
        """What the cut held back, once the stream is over; a stream that ended without a
        ``finish_reason`` (the connection closed early) or at the token limit is logged
        (its pieces were shown already)."""
        tail = self.cut.flush()
        if not (self.got or tail):
            raise ProviderError(f"empty answer from {self.where} (an empty stream)",
                                retryable=True)
        if self.finish in (None, "length"):
            why = ("ended without a finish_reason (the connection may have closed early)"
                   if self.finish is None else "was cut off at the token limit")
            log.warning("the streamed answer from %s %s: it may be incomplete", self.where,
                        why)
        return tail


def stream_piece(chunk: Any) -> str:
    """The text of one streamed chat-completion chunk (``""`` for none); the token counts a
    chunk may carry go to :func:`~.protocols.report_usage`."""
    usage = getattr(chunk, "usage", None)
    if usage is not None:
        report_usage(getattr(usage, "prompt_tokens", 0) or 0,
                     getattr(usage, "completion_tokens", 0) or 0)
    choices = getattr(chunk, "choices", None) or []
    delta = getattr(choices[0], "delta", None) if choices else None
    content = getattr(delta, "content", None)
    return content if isinstance(content, str) else ""
