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

import copy
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Self

from langchain_core.embeddings import Embeddings
from pydantic import BaseModel, Field, PrivateAttr

from hyperviz_core.rag import StoreProtocol, VizRAG
from hyperviz_core.rag.store import is_store_url, redact_url

from .adapters import LangChainChatModel, LangChainEmbedder, chat_model_of

__all__ = ["SharedEngine", "as_chat_model", "as_embedder", "redacted_args",
           "resolve_engine"]


def as_chat_model(chat: Any) -> Any:
    """A VizRAG chat model: LangChain chat models, and runnables wrapping one
    (``with_retry()``, ``bind(...)``, ``with_fallbacks(...)``: :func:`chat_model_of`), are
    wrapped; anything else passes."""
    return LangChainChatModel(chat) if chat_model_of(chat) is not None else chat


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


class SharedEngine(BaseModel):
    """What the wrappers that open a VizRAG engine for their ``store`` share: copies made by
    ``copy.deepcopy``, ``model_copy`` or ``configurable_fields`` reuse the engine (a store
    connection cannot be copied, and opening it per copy would leak one each), pickling
    keeps the options and opens the store path again, and :meth:`close` (or ``with``)
    closes the engine when the wrapper opened it from a path."""

    shared_engine: Any = Field(default=None, exclude=True, repr=False)
    """The engine opened for ``store`` (set by the wrapper): copies made by
    ``configurable_fields`` or ``model_copy`` reuse it instead of opening the store again."""

    _engine: VizRAG = PrivateAttr()
    _owned: bool = PrivateAttr(False)

    def _open_engine(self, store: Any, **models: Any) -> VizRAG:
        """The engine of ``store``: the shared one of a copy, else opened (or adopted) now,
        so a bad store fails at construction; ``models``: ``chat``, ``embedder``,
        ``engine_kwargs`` for an engine created here."""
        if isinstance(self.shared_engine, VizRAG):  # a copy of a wrapper: its engine
            self._engine = self.shared_engine
            return self._engine
        self._engine = resolve_engine(store, must_exist=True, **models)
        self._owned = isinstance(store, (str, Path))
        self.shared_engine = self._engine
        return self._engine

    def __repr_args__(self) -> Any:
        return redacted_args(super().__repr_args__())

    def __deepcopy__(self, memo: dict[int, Any] | None = None) -> Self:
        """A copy sharing the open engine (a store connection cannot be copied), as
        ``configurable_fields`` copies do; like theirs, its :meth:`close` leaves the engine
        open (the original owns it)."""
        return copy.copy(self)

    def __copy__(self) -> Self:
        """A shallow copy (``copy.copy``, ``model_copy``) shares the engine too, and its
        :meth:`close` leaves it open: the original owns it."""
        clone = super().__copy__()
        clone._owned = False
        return clone

    def __reduce__(self) -> Any:
        """Pickled as its options: unpickling opens the store path again (a wrapper over an
        open store or engine object cannot be pickled; give it the path)."""
        store = getattr(self, "store", None)
        if store is not None and not isinstance(store, (str, Path)):
            name = type(self).__name__
            raise TypeError(f"a {name} over an open store or VizRAG engine cannot be "
                            "pickled: build it with store=<path or URL> to pickle it")
        fields = {name: getattr(self, name) for name in type(self).model_fields
                  if name != "shared_engine"}
        return (_unpickle, (type(self), fields))

    def close(self, timeout: float | None = None) -> None:
        """Close the engine's store (only when this wrapper opened it from a path; its
        copies share the engine and stop working too): ``VizRAG.close`` — new queries and
        writes raise ``EngineClosedError``, the ones in flight are waited for (at most
        ``timeout`` seconds)."""
        if self._owned:
            self._engine.close(timeout)

    async def aclose(self, timeout: float | None = None) -> None:
        """:meth:`close` without blocking the event loop (``VizRAG.aclose``): the ``ainvoke``
        tasks in flight on the loop end first."""
        if self._owned:
            await self._engine.aclose(timeout)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


def _unpickle(cls: type[SharedEngine], fields: dict[str, Any]) -> SharedEngine:
    """A pickled wrapper, its store opened again (:meth:`SharedEngine.__reduce__`)."""
    return cls(**fields)
