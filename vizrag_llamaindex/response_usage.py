"""The model usage of a query engine's VizRAG retrieval, on what the query returns or raises.

A response carries it in ``response.metadata["usage"]`` (:data:`RESPONSE_USAGE_KEY`: the
core ``UsageReport`` as a JSON-safe dict, None when no model was called). When a later step
fails — a node postprocessor, or the answer's LLM call in LlamaIndex's synthesizer (for a
streaming response: while its tokens are read) — the exception the user gets carries it as
the core's failed queries do: ``exc.usage``, read with :func:`hyperviz_core.rag.usage_of`
(added to any usage the exception carried already), its type and message unchanged.

Example:
    >>> from hyperviz_core.rag import usage_of
    >>> try:
    ...     with charging({"calls": 2, "prompt_tokens": 40}):
    ...         raise RuntimeError("the synthesizer's LLM failed")
    ... except RuntimeError as exc:
    ...     print(exc, usage_of(exc).calls, usage_of(exc).prompt_tokens)
    the synthesizer's LLM failed 2 40
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, Generator, Mapping
from typing import Any

from llama_index.core.base.response.schema import (
    AsyncStreamingResponse,
    Response,
    StreamingResponse,
)

from hyperviz_core.rag import UsageReport
from hyperviz_core.rag.charged import charged

__all__ = ["RESPONSE_USAGE_KEY", "charging", "with_usage"]

RESPONSE_USAGE_KEY = "usage"
"""The ``response.metadata`` key of the retrieval's model usage
(:class:`~.query.UsageQueryEngine`)."""


def _report(usage: Mapping[str, Any] | None) -> UsageReport | None:
    return None if usage is None else UsageReport.model_validate(dict(usage))


def charging(usage: Mapping[str, Any] | None) -> contextlib.AbstractContextManager[None]:
    """An exception raised in the block carries ``usage`` (a usage report as a dict;
    :func:`hyperviz_core.rag.charged.charged`)."""
    return charged(lambda: _report(usage))


def _charged(tokens: Generator[str, None, None], usage: Mapping[str, Any] | None
             ) -> Generator[str, None, None]:
    with charging(usage):
        yield from tokens


async def _acharged(tokens: AsyncGenerator[str, None], usage: Mapping[str, Any] | None
                    ) -> AsyncGenerator[str, None]:
    async with contextlib.aclosing(tokens):
        with charging(usage):
            async for token in tokens:
                yield token


def with_usage(response: Any, usage: dict[str, Any] | None) -> Any:
    """``response`` with ``usage`` in its metadata (a structured response has none); a
    streaming response's tokens raise their exceptions :func:`charging` it."""
    if isinstance(response, Response | StreamingResponse | AsyncStreamingResponse):
        if response.metadata is None:
            response.metadata = {}
        response.metadata[RESPONSE_USAGE_KEY] = usage
    if isinstance(response, StreamingResponse) and response.response_gen is not None:
        response.response_gen = _charged(response.response_gen, usage)
    elif isinstance(response, AsyncStreamingResponse) and response.response_gen is not None:
        response.response_gen = _acharged(response.response_gen, usage)
    return response
