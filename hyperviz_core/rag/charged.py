"""A block whose exception carries a retrieval's model usage: what a framework wrapper puts
around the steps after a VizRAG retrieval (a node postprocessor, the answer's LLM call, a
stream's tokens), so a failure there still says what the retrieval's model calls cost.

Example:
    >>> from hyperviz_core.rag import UsageReport, usage_of
    >>> try:
    ...     with charged(lambda: UsageReport(calls=2, prompt_tokens=40)):
    ...         raise RuntimeError("the synthesizer's LLM failed")
    ... except RuntimeError as exc:
    ...     print(exc, usage_of(exc).calls, usage_of(exc).prompt_tokens)
    the synthesizer's LLM failed 2 40
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from .providers.usage import UsageReport
from .query_usage import charge

__all__ = ["charged"]


@contextlib.contextmanager
def charged(usage: Callable[[], UsageReport | None]) -> Iterator[None]:
    """An exception raised in the block carries ``usage()`` — read when it is raised (a
    stream learns its retrieval's usage from a later chunk) — added to any usage it carried
    (:func:`~.query_usage.charge`). A stream closed early (``GeneratorExit``) is no failure.
    """
    try:
        yield
    except GeneratorExit:
        raise
    except BaseException as exc:
        charge(exc, usage())
        raise
