"""Model protocols: every LLM, vision-LLM and embedding call goes through these.

Implementations: offline defaults in :mod:`hyperviz_core.rag.offline` (hashed embeddings,
no network), an OpenAI-compatible client in :mod:`hyperviz_core.rag.openai_compat`, and
LlamaIndex / LangChain adapters in ``vizrag_llamaindex`` / ``vizrag_langchain``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

__all__ = ["ChatModel", "Embedder", "ProviderError", "Usage"]


class ProviderError(RuntimeError):
    """A provider call failed. ``retryable`` marks 429 / 5xx / timeouts."""

    def __init__(self, message: str, *, retryable: bool = False, status: int | None = None):
        super().__init__(message)
        self.retryable = retryable
        self.status = status


class Usage:
    """Mutable token counters an adapter may update after each call."""

    def __init__(self) -> None:
        self.calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.images = 0


@runtime_checkable
class ChatModel(Protocol):
    """A chat / vision model. ``images`` are PNG bytes sent with the prompt."""

    model_name: str

    def complete(
        self,
        prompt: str,
        *,
        images: Sequence[bytes] = (),
        system: str | None = None,
        json_mode: bool = False,
    ) -> str: ...

    async def acomplete(
        self,
        prompt: str,
        *,
        images: Sequence[bytes] = (),
        system: str | None = None,
        json_mode: bool = False,
    ) -> str: ...


@runtime_checkable
class Embedder(Protocol):
    """Text embedder returning an L2-normalised float32 matrix of shape (n, dim)."""

    name: str
    dim: int

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]: ...
