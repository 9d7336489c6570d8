"""Checks and bookkeeping of ``VizRAGIndex``'s arguments, done before anything is written.

* :func:`check_documents` — a list of documents, not one document.
* :func:`check_models` — ``llm`` / ``embed_model`` must be LlamaIndex model instances (a
  model name such as ``"gpt-4o-mini"`` or ``"default"`` is refused: VizRAG resolves nothing).
* :func:`check_engine_options` — the engine options given to ``VizRAGIndex`` are ``VizRAG``'s
  (a misspelt ``topk=3`` is a ``TypeError`` naming it), and ``top_k`` / ``hops`` are checked
  as ``as_retriever`` checks them (``top_k="3"`` is an ``OptionTypeError``); the engine
  checks the rest (``top_k=0``, ``chunk_size=-5`` ...) before it opens a store.
* :func:`recorded_options` — the engine options a persisted index records in its struct
  (JSON values) and those it cannot (objects: extractors, renderers, prompts ...).
* :func:`engine_option_names` — the keyword arguments of LlamaIndex's query and chat engine
  builders (what ``as_query_engine`` / ``as_chat_engine`` pass on to ``as_retriever``
  beside the retriever's own options).
* :func:`warn_skipped` — one :class:`IndexingWarning` when the engine's ``IndexReport``
  says extraction records were skipped (answers the extraction LLM gave that could not be
  parsed): without it an index with no entities would look like a good one.
* :func:`warn_embedded` — nodes that carry embeddings (an ``IngestionPipeline`` with an
  embed model made them): VizRAG embeds with its own embedder, so they go unused.

Example:
    >>> from hyperviz_core.rag import Prompts
    >>> recorded_options({"top_k": 2, "mode": "naive", "prompts": Prompts()})
    ({'top_k': 2, 'mode': 'naive'}, ['prompts'])
"""

from __future__ import annotations

import functools
import inspect
import math
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.llms import LLM
from llama_index.core.schema import BaseNode

from hyperviz_core.rag import IndexReport, VizRAG, check_hops
from hyperviz_core.rag.engine_args import refuse_unknown_options
from hyperviz_core.rag.index.stream import caller_level

from .retriever import check_top_k

__all__ = ["NOT_RECORDED", "IndexingWarning", "check_documents", "check_engine_options",
           "check_models", "engine_option_names", "recorded_options", "warn_embedded",
           "warn_skipped"]

NOT_RECORDED: tuple[str, ...] = ("must_exist",)
"""Engine options that belong to one opening of the store, never recorded (a loaded index
always opens a store that exists)."""


class IndexingWarning(UserWarning):
    """An indexing run stored less than it was given (extraction records skipped)."""


def check_models(llm: Any, embed_model: Any) -> None:
    """A ``TypeError`` naming the argument when ``llm`` / ``embed_model`` is given and is not a
    LlamaIndex ``LLM`` / ``BaseEmbedding`` instance (e.g. a model name string)."""
    for name, value, kind, example in (
            ("llm", llm, LLM, "llama_index.llms.openai.OpenAI(model='gpt-4o-mini')"),
            ("embed_model", embed_model, BaseEmbedding,
             "llama_index.embeddings.openai.OpenAIEmbedding()")):
        if value is not None and not isinstance(value, kind):
            raise TypeError(
                f"VizRAGIndex {name}= must be a LlamaIndex {kind.__name__} instance (e.g. "
                f"{example}), got {type(value).__name__} {value!r:.60}: model names are not "
                "resolved (leave it out for the offline default)")


@functools.cache
def vizrag_option_names() -> tuple[str, ...]:
    """The ``VizRAG`` keyword arguments ``VizRAGIndex`` passes on as engine options (all
    but the store and the models, which the index makes itself, and ``show_progress``)."""
    own = {"self", "store_dir", "chat", "embedder", "show_progress"}
    return tuple(p.name for p in inspect.signature(VizRAG.__init__).parameters.values()
                 if p.name not in own and p.kind is not p.VAR_KEYWORD)


def check_engine_options(options: Mapping[str, Any]) -> None:
    """Before any store is made: a ``TypeError`` naming an option ``VizRAG`` does not take
    (with the closest name), an ``OptionTypeError`` for a ``top_k`` that is no integer and
    a ``ValueError`` for a ``top_k`` below 1 or ``hops`` out of range, as ``as_retriever``."""
    refuse_unknown_options(options, vizrag_option_names(), "VizRAGIndex")
    if "top_k" in options:
        check_top_k(options["top_k"], "top_k")
    if "hops" in options:
        check_hops(options["hops"])


def check_documents(documents: Any, who: str) -> None:
    """A ``TypeError`` when ``documents`` is one document/node or a string, not a list."""
    if isinstance(documents, (BaseNode, str, bytes)):
        raise TypeError(f"{who} takes a list of documents, got one "
                        f"{type(documents).__name__}: pass [document]")


def _is_json(value: Any) -> bool:
    """A value JSON keeps as it is (``None``, bool, int, finite float, str, and lists /
    string-keyed dicts of them)."""
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, list):
        return all(_is_json(v) for v in value)
    if isinstance(value, Mapping):
        return all(isinstance(k, str) and _is_json(v) for k, v in value.items())
    return False


def recorded_options(options: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """(the options a persisted index records: JSON values, names of those it cannot)."""
    kept = {k: v for k, v in options.items() if k not in NOT_RECORDED}
    return ({k: v for k, v in kept.items() if _is_json(v)},
            sorted(k for k, v in kept.items() if not _is_json(v)))


@functools.cache
def engine_option_names() -> frozenset[str]:
    """The keyword arguments of LlamaIndex's query and chat engine builders
    (``RetrieverQueryEngine.from_args``, ``get_response_synthesizer``, the chat engines'
    ``from_defaults``) and VizRAG's ``multimodal``: ``BaseIndex.as_chat_engine`` passes them
    to ``as_retriever`` with the retriever's own options, so they are not errors there."""
    from llama_index.core.chat_engine import (
        CondensePlusContextChatEngine,
        CondenseQuestionChatEngine,
        ContextChatEngine,
        MultiModalCondensePlusContextChatEngine,
        MultiModalContextChatEngine,
        SimpleChatEngine,
    )
    from llama_index.core.query_engine import RetrieverQueryEngine
    from llama_index.core.response_synthesizers import get_response_synthesizer

    builders = (RetrieverQueryEngine.from_args, get_response_synthesizer,
                CondenseQuestionChatEngine.from_defaults, ContextChatEngine.from_defaults,
                CondensePlusContextChatEngine.from_defaults, SimpleChatEngine.from_defaults,
                MultiModalContextChatEngine.from_defaults,
                MultiModalCondensePlusContextChatEngine.from_defaults)
    names = {"multimodal"}
    for build in builders:
        names |= {p.name for p in inspect.signature(build).parameters.values()
                  if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    return frozenset(names - {"self", "cls", "retriever", "query_engine"})


def warn_skipped(report: IndexReport, stacklevel: int = 2) -> IndexReport:
    """Warn once when ``report`` counts skipped extraction records; return it."""
    if report.skipped_records:
        warnings.warn(
            f"{report.skipped_records} extraction record(s) could not be parsed and were "
            f"skipped ({report.chunks} chunk(s) indexed, {report.entities} entities, "
            f"{report.hyperedges} hyperedges stored): the extraction LLM's answers do not "
            "follow VizRAG's extraction prompt, so the hypergraph misses what they held",
            IndexingWarning, stacklevel=stacklevel + 1)
    return report


def warn_embedded(nodes: Sequence[BaseNode], stacklevel: int | None = None) -> None:
    """A ``UserWarning`` when a node of ``nodes`` carries an embedding: the store embeds
    chunks, entities and hyperedges with the index's own embedder (``embed_model=``, else
    the offline hashed one), one vector space for all of them, so a vector made elsewhere
    is not used. It names the caller's line: the first frame outside this package (and
    the core and event-loop machinery), unless ``stacklevel`` is given."""
    given = [n.node_id for n in nodes if n.embedding is not None]
    if given:
        warnings.warn(
            f"{len(given)} node(s) carry an embedding ({given[0]!r}, ...): VizRAGIndex does "
            "not use it; it embeds every chunk, entity and hyperedge with its own embedder "
            "(pass embed_model= to choose it), so the pipeline's embedding step can be "
            "dropped", UserWarning,
            stacklevel=caller_level() if stacklevel is None else stacklevel + 1)
