"""Resolve what a user passes as ``store=`` into a VizRAG engine.

A store may be a store directory or ``.sqlite`` path (any string is passed through to
:class:`~hyperviz_core.rag.VizRAG`, so URLs the engine understands work too), an open
store (:class:`~hyperviz_core.rag.HypergraphStore` or another ``StoreProtocol``
backend), or a ready :class:`~hyperviz_core.rag.VizRAG`.
LangChain chat models and embeddings are wrapped with the adapters of this package.

Example::

    >>> from vizrag_langchain.engine import resolve_engine
    >>> rag = resolve_engine("out/store")            # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from langchain_core.embeddings import Embeddings
from langchain_core.language_models.chat_models import BaseChatModel

from hyperviz_core.rag import StoreProtocol, VizRAG
from hyperviz_core.rag.store import is_store_url, redact_url

from .adapters import LangChainChatModel, LangChainEmbedder

__all__ = ["as_chat_model", "as_embedder", "redacted_args", "resolve_engine"]


def as_chat_model(chat: Any) -> Any:
    """A VizRAG chat model: LangChain chat models are wrapped, anything else passes."""
    return LangChainChatModel(chat) if isinstance(chat, BaseChatModel) else chat


def as_embedder(embedder: Any) -> Any:
    """A VizRAG embedder: LangChain ``Embeddings`` are wrapped, anything else passes."""
    return LangChainEmbedder(embedder) if isinstance(embedder, Embeddings) else embedder


def redacted_args(args: Iterable[tuple[str | None, Any]]) -> list[tuple[str | None, Any]]:
    """A pydantic ``__repr_args__`` with the password of a store URL hidden.

    >>> redacted_args([("store", "postgresql://rag:pw@db/rag"), ("k", 4)])
    [('store', 'postgresql://rag:***@db/rag'), ('k', 4)]
    """
    return [(name, redact_url(value) if isinstance(value, str) and is_store_url(value)
             else value) for name, value in args]


def resolve_engine(store: Any, *, chat: Any = None, embedder: Any = None,
                   engine_kwargs: dict[str, Any] | None = None,
                   must_exist: bool = False) -> VizRAG:
    """The :class:`VizRAG` engine behind ``store``.

    Args:
        store: a ``VizRAG`` (returned as is), an open store (``StoreProtocol``), or a
            path/string.
        chat, embedder: VizRAG or LangChain models (used only when an engine is created).
        engine_kwargs: further ``VizRAG(...)`` keyword arguments.
        must_exist: a path must name an existing store directory or file (a retriever reads
            a store; it never creates one, so a mistyped path is an error, not an empty
            store).

    Raises:
        TypeError: ``store`` is none of the above, or models are given with an engine.
        FileNotFoundError: ``must_exist`` and no store is at the path.
    """
    if isinstance(store, VizRAG):
        if chat is not None or embedder is not None or engine_kwargs:
            raise TypeError("store is already a VizRAG engine: configure chat/embedder on it, "
                            "not on the wrapper")
        return store
    if not isinstance(store, (str, Path, StoreProtocol)):
        raise TypeError("store must be a store directory, a .sqlite path, an open store "
                        f"or a VizRAG engine, not {type(store).__name__}")
    kwargs: dict[str, Any] = {"show_progress": False, "must_exist": must_exist,
                              **(engine_kwargs or {})}
    return VizRAG(store, chat=as_chat_model(chat), embedder=as_embedder(embedder), **kwargs)
