"""The least a model you write needs for :class:`~hyperviz_core.rag.VizRAG`: the sync
method alone. The engine gives a model without ``acomplete``/``aembed`` an async twin that
runs the sync method in a worker thread, and names a chat model without ``model_name`` by its
class (:func:`~.protocols.with_async`), so these protocols, not
:class:`~.protocols.ChatModel`/:class:`~.protocols.Embedder`, type the engine's ``chat`` and
``embedder`` parameters: a sync-only model type-checks where it runs.

>>> class Upper:
...     def complete(self, prompt: str, **kw: object) -> str:
...         return prompt.upper()
>>> isinstance(Upper(), SyncChatModel)
True
"""

from __future__ import annotations

import logging
import threading
import weakref
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["SyncChatModel", "SyncEmbedder", "class_name"]

log = logging.getLogger(__name__)
_WARNED: weakref.WeakSet[type] = weakref.WeakSet()  # the classes named so far
_WARNED_LOCK = threading.Lock()


def class_name(model: object) -> str:
    """The name of a chat model without ``model_name``: its class's. The first time a class
    is named so, a warning says that its instances share one name in the answer cache (two
    wrapping different backends read each other's cached answers) and how to name them.

    >>> class Echo:
    ...     def complete(self, prompt: str, **kw: object) -> str:
    ...         return prompt
    >>> class_name(Echo())
    'Echo'
    """
    cls = type(model)
    with _WARNED_LOCK:
        first = cls not in _WARNED
        _WARNED.add(cls)
    if first:
        log.warning(
            "chat model %s.%s has no model_name: it is named %r in cache keys and usage, so "
            "every %s shares the answers cached under that name (one wrapping another backend "
            "too); set model_name (a str attribute, e.g. self.model_name = 'provider:model') "
            "to keep their cached answers apart", cls.__module__, cls.__qualname__,
            cls.__name__, cls.__name__)
    return cls.__name__


@runtime_checkable
class SyncChatModel(Protocol):
    """A chat / vision model with ``complete`` (``acomplete`` and ``model_name`` optional)."""

    def complete(
        self,
        prompt: str,
        *,
        images: Sequence[bytes] = (),
        system: str | None = None,
        json_mode: bool = False,
    ) -> str: ...


@runtime_checkable
class SyncEmbedder(Protocol):
    """An embedder with ``name``, ``dim`` and ``embed`` (``aembed`` optional)."""

    @property
    def name(self) -> str:
        """Identifies the embedding space (store it with the vectors)."""
        ...

    @property
    def dim(self) -> int:
        """Vector length."""
        ...

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...
