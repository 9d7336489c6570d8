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

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["SyncChatModel", "SyncEmbedder"]


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
