"""The one call that learns an embedder's vector size, failing with a message that says so.

A framework embedder (LangChain ``Embeddings``, a LlamaIndex ``BaseEmbedding``) does not say
its vector size: the adapter embeds a probe text on first use, which for a store that is
being opened happens while ``VizRAG(...)`` is built. When that call fails (no network: an
OpenAI embedder cannot even fetch its tokenizer), the user used to get the framework's own
exception, 60 lines deep, with nothing saying which step failed. :func:`probe_dim` raises a
:class:`~.protocols.ProviderError` naming the embedder, the step and the way around it (give
the size: ``dim=N``), chained to the original.

Example:
    >>> import numpy as np
    >>> probe_dim("demo", lambda: np.zeros((1, 8), dtype=np.float32))
    8
    >>> def offline(): raise OSError("could not download cl100k_base")
    >>> probe_dim("langchain:text-embedding-3-small", offline)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.providers.protocols.ProviderError: embedder langchain:... learns its
    vector size from one call, and that call failed (OSError: could not download
    cl100k_base): check that the provider can be reached, or give its size (dim=N)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...textsafe import server_text
from .protocols import ProviderError, as_provider_error

__all__ = ["probe_dim"]


def probe_dim(name: str, embed_probe: Callable[[], Any]) -> int:
    """The width of the matrix ``embed_probe()`` returns (one probe text embedded); a
    failure is a :class:`ProviderError` saying what failed (retryable when the original
    maps to a retryable one: a timeout, a dropped connection, HTTP 429/5xx)."""
    try:
        return int(embed_probe().shape[1])
    except Exception as exc:
        mapped = as_provider_error(exc)
        raise ProviderError(
            f"embedder {name} learns its vector size from one call, and that call failed "
            f"({type(exc).__name__}: {server_text(exc)}): check that the provider can be "
            "reached, or give its size (dim=N)",
            retryable=bool(mapped and mapped.retryable),
            status=mapped.status if mapped else None) from exc
