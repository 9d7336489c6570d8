"""What :func:`~.chain.create_vizrag_chain` reads (a question, or a question with chat
history) and, with ``return_sources=True``, what it returns beside the answer.

The input is a question string, or the LangChain convention
``{"question": str, "chat_history": [...]}`` (``"input"`` is accepted for ``"question"``, as
``create_retrieval_chain`` names it); the history is ``BaseMessage`` objects or
``(role, text)`` tuples:

>>> from langchain_core.messages import AIMessage
>>> chain_input({"input": "When?", "chat_history": [("human", "Who?"), AIMessage("Ada")]})
{'question': 'When?',
 'chat_history': [HumanMessage(content='Who?', ...), AIMessage(content='Ada', ...)]}
>>> chain_input({"query": "Who?"})
Traceback (most recent call last):
...
ValueError: create_vizrag_chain input has unknown key 'query'; it takes 'question' ...

The answer's ``[n]`` citations are read by the core
(:func:`hyperviz_core.rag.citations.visual_citations`), against the passages the prompt
numbered, and so are the ``E#``/``H#`` it names, against what the rendering it was sent
labels (``cited_items``; without a rendering they are not read).
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from typing import Any

from langchain_core.documents import Document
from langchain_core.messages import BaseMessage, convert_to_messages
from langchain_core.runnables import RunnableGenerator
from langchain_core.runnables.utils import AddableDict

from hyperviz_core.rag import visual_ids
from hyperviz_core.rag.citations import (
    LabelledItem,
    export_legend,
    labelled_items,
    visual_citations,
)

__all__ = ["ChainInput", "chain_input", "chat_history", "sources_step"]

log = logging.getLogger(__name__)

ChainInput = str | Mapping[str, Any]
"""What the chain takes: a question, or ``{"question"|"input": str, "chat_history": [...]}``."""

_KEYS = ("question", "input", "chat_history")


def chat_history(value: Any) -> list[BaseMessage]:
    """``value`` (a list of ``BaseMessage`` or ``(role, text)`` tuples; None: none) as
    messages; anything else raises a ``TypeError`` naming it."""
    if value is None:
        return []
    if isinstance(value, str | bytes | Mapping) or not isinstance(value, Sequence):
        raise TypeError("chat_history must be a list of messages or (role, text) tuples, "
                        f"not {type(value).__name__}")
    out: list[BaseMessage] = []
    for i, item in enumerate(value):
        if isinstance(item, BaseMessage):
            out.append(item)
        elif isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item):
            out.extend(convert_to_messages([item]))  # ValueError for an unknown role
        else:
            raise TypeError(f"chat_history[{i}] must be a BaseMessage or a (role, text) tuple, "
                            f"not {type(item).__name__}")
    return out


def chain_input(value: Any) -> dict[str, Any]:
    """The chain's input as ``{"question", "chat_history"}``: a string (or anything not a
    mapping) is the question, as it was before chat history was taken; a mapping is read
    by its keys (an unknown key, both ``question`` and ``input``, or neither, is an error
    naming it)."""
    if not isinstance(value, Mapping):
        return {"question": value, "chat_history": []}
    unknown = [str(k) for k in value if k not in _KEYS]
    if unknown:
        shown = ", ".join(repr(k) for k in sorted(unknown))
        plural = "s" if len(unknown) > 1 else ""
        raise ValueError(f"create_vizrag_chain input has unknown key{plural} {shown}; it "
                         "takes 'question' (or 'input') and 'chat_history'")
    if "question" in value and "input" in value:
        raise ValueError("create_vizrag_chain input has both 'question' and 'input' "
                         "(the same thing): give one")
    if "question" not in value and "input" not in value:
        raise ValueError("create_vizrag_chain input needs a 'question' (or 'input') key")
    question = value["question"] if "question" in value else value["input"]
    if not isinstance(question, str):
        raise TypeError(f"the question must be a string, not {type(question).__name__}")
    return {"question": question, "chat_history": chat_history(value.get("chat_history"))}


class _Sources:
    """Passes the chain's chunks on (without the rendering), keeping the documents and the
    answer; at the end, one chunk with what the answer cites."""

    def __init__(self, numbered: bool) -> None:
        self.numbered = numbered
        self.documents: list[Document] = []
        self.drawn: list[LabelledItem] = []
        self.answer: list[str] = []

    def take(self, chunk: Mapping[str, Any]) -> AddableDict | None:
        """The chunk to pass on: the retriever's documents are replaced by those the prompt
        numbered (the rendering's: text documents only, with its E#/H#)."""
        out = AddableDict({k: v for k, v in chunk.items() if k not in ("visual", "documents")})
        visual = chunk.get("visual")
        if isinstance(visual, Mapping) and "documents" in visual:
            self.documents = list(visual["documents"])
            out["documents"] = self.documents
            if visual.get("image") is not None:
                export = visual.get("export") or {}
                self.drawn = labelled_items(str(visual.get("view") or ""), *visual_ids(export),
                                            legend=export_legend(export))
        if isinstance(out.get("answer"), str):
            self.answer.append(out["answer"])
        return out or None

    def cited(self) -> AddableDict:
        docs = self.documents
        citations, items = visual_citations("".join(self.answer),
                                            carried=len(docs) if self.numbered else 0,
                                            drawn=self.drawn)
        warning = citations.warning()
        if warning:
            log.warning("%s", warning)
        return AddableDict(cited=[docs[n - 1] for n in citations.passages],
                           cited_items=items, citations=citations, warning=warning)


def sources_step(numbered: bool) -> RunnableGenerator:
    """The last step of a ``return_sources=True`` chain: streams ``question``,
    ``chat_history``, ``documents`` and the ``answer`` pieces as they come, then one chunk
    with ``cited``, ``cited_items``, ``citations`` and ``warning`` (``numbered``: the prompt
    numbered the documents ``[1]`` … ``[n]``; without ``{passages}`` it carried none, and
    every ``[n]`` is made up)."""

    def transform(chunks: Iterator[Mapping[str, Any]]) -> Iterator[AddableDict]:
        state = _Sources(numbered)
        for chunk in chunks:
            if (out := state.take(chunk)) is not None:
                yield out
        yield state.cited()

    async def atransform(chunks: AsyncIterator[Mapping[str, Any]]
                         ) -> AsyncIterator[AddableDict]:
        state = _Sources(numbered)
        async for chunk in chunks:
            if (out := state.take(chunk)) is not None:
                yield out
        yield state.cited()

    return RunnableGenerator(transform, atransform, name="vizrag_sources")
