"""The model usage of a chain's VizRAG retrieval, on what a later step of the chain raises.

VizRAG documents carry their retrieval's model usage in ``metadata["usage"]`` (the core
``UsageReport`` as a dict, None when no model was called: :mod:`~.documents`). When a step
after the retrieval fails — the rendering, the chat model's call (for ``stream``/``astream``:
while its tokens are read), the output parser — the exception the caller of
:func:`~.chain.create_vizrag_chain` gets carries that usage as the core's failed queries do:
``exc.usage``, read with :func:`hyperviz_core.rag.usage_of` (added to any usage the exception
carried already), its type and message unchanged. A retrieval that made no model call (or
documents of another retriever) adds nothing.

Example:
    >>> from langchain_core.documents import Document
    >>> from langchain_core.runnables import RunnableLambda
    >>> from hyperviz_core.rag import usage_of
    >>> def answer(inputs: dict) -> str:
    ...     raise RuntimeError("the chat model is down")
    >>> step = after_retrieval(RunnableLambda(answer))
    >>> doc = Document("Ada", metadata={"usage": {"calls": 2, "prompt_tokens": 40}})
    >>> try:
    ...     step.invoke({"documents": [doc], "question": "Who?"})
    ... except RuntimeError as exc:
    ...     print(exc, usage_of(exc).calls, usage_of(exc).prompt_tokens)
    the chat model is down 2 40
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator, Iterator, Mapping, Sequence
from typing import Any, cast

from langchain_core.documents import Document
from langchain_core.runnables import Runnable, RunnableConfig
from langchain_core.runnables.base import RunnableBindingBase
from pydantic import ValidationError

from hyperviz_core.rag import UsageReport
from hyperviz_core.rag.charged import charged

from .documents import vizrag_value

__all__ = ["RetrievalUsage", "after_retrieval", "documents_usage"]


def documents_usage(docs: Any) -> UsageReport | None:
    """The model usage a retrieval's documents carry (the first document whose ``usage``,
    :func:`~.documents.vizrag_value`, is a usage report as a dict); None when none does."""
    if not isinstance(docs, Sequence):
        return None
    for doc in docs:
        usage = vizrag_value(doc.metadata, "usage") if isinstance(doc, Document) else None
        if isinstance(usage, Mapping) and "calls" in usage:
            with contextlib.suppress(ValidationError):
                return UsageReport.model_validate(dict(usage))
    return None


def _input_usage(value: Any) -> UsageReport | None:
    """The usage of the ``documents`` of a step's input (a mapping), else None."""
    return documents_usage(value.get("documents")) if isinstance(value, Mapping) else None


class _Seen:
    """The usage of the input chunks passed on so far (a stream's ``documents`` chunk)."""

    def __init__(self, usage: UsageReport | None = None) -> None:
        self.usage = usage

    def take(self, chunk: Any) -> Any:
        self.usage = self.usage or _input_usage(chunk)
        return chunk

    def charging(self) -> contextlib.AbstractContextManager[None]:
        """An exception raised in the block carries :attr:`usage` as it is then
        (:func:`hyperviz_core.rag.charged.charged`)."""
        return charged(lambda: self.usage)


async def _one(value: Any) -> AsyncIterator[Any]:
    yield value


# (no-redef: the pydantic plugin's __init__ of a model with a field named ``kwargs``)
class RetrievalUsage(RunnableBindingBase[Any, Any]):  # type: ignore[no-redef]
    """``bound`` (the steps after a retrieval, their input a mapping with its
    ``documents``), whose exceptions carry the retrieval's usage (the module doc); no run
    of its own. ``batch``/``abatch`` run each input through ``invoke``/``ainvoke``, so an
    exception carries the usage of its own input's retrieval."""

    @classmethod
    def is_lc_serializable(cls) -> bool:
        return False

    def invoke(self, input: Any, config: RunnableConfig | None = None, **kwargs: Any) -> Any:
        with _Seen(_input_usage(input)).charging():
            return super().invoke(input, config, **kwargs)

    async def ainvoke(self, input: Any, config: RunnableConfig | None = None,
                      **kwargs: Any) -> Any:
        with _Seen(_input_usage(input)).charging():
            return await super().ainvoke(input, config, **kwargs)

    def batch(self, inputs: list[Any], config: RunnableConfig | list[RunnableConfig] | None
              = None, *, return_exceptions: bool = False, **kwargs: Any) -> list[Any]:
        return Runnable.batch(self, inputs, config, return_exceptions=return_exceptions,
                              **kwargs)

    async def abatch(self, inputs: list[Any], config: RunnableConfig | list[RunnableConfig]
                     | None = None, *, return_exceptions: bool = False,
                     **kwargs: Any) -> list[Any]:
        return await Runnable.abatch(self, inputs, config,
                                     return_exceptions=return_exceptions, **kwargs)

    def stream(self, input: Any, config: RunnableConfig | None = None,
               **kwargs: Any) -> Iterator[Any]:
        yield from self.transform(iter([input]), config, **kwargs)

    async def astream(self, input: Any, config: RunnableConfig | None = None,
                      **kwargs: Any) -> AsyncIterator[Any]:
        async for chunk in self.atransform(_one(input), config, **kwargs):
            yield chunk

    def transform(self, input: Iterator[Any], config: RunnableConfig | None = None,
                  **kwargs: Any) -> Iterator[Any]:
        seen = _Seen()
        with seen.charging():
            yield from super().transform(map(seen.take, input), config, **kwargs)

    async def atransform(self, input: AsyncIterator[Any], config: RunnableConfig | None
                         = None, **kwargs: Any) -> AsyncIterator[Any]:
        seen = _Seen()

        async def taken() -> AsyncIterator[Any]:
            async for chunk in input:
                yield seen.take(chunk)

        chunks = cast(AsyncGenerator[Any, None], super().atransform(taken(), config, **kwargs))
        async with contextlib.aclosing(chunks):  # (closed when the consumer stops early)
            with seen.charging():
                async for chunk in chunks:
                    yield chunk


def after_retrieval(steps: Runnable[Any, Any]) -> RetrievalUsage:
    """``steps`` (what runs on a retrieval's ``{"documents": ..., ...}``) with their
    exceptions carrying the retrieval's model usage (:class:`RetrievalUsage`)."""
    return RetrievalUsage(bound=steps)
