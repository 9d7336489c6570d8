"""The VizRAG engine: chunking, extraction, two-layer index, store, retrieval.

Framework-agnostic; the LlamaIndex and LangChain wrappers build on it.
"""

from __future__ import annotations

from .models import ChatModel, Embedder, ProviderError, Usage
from .types import Chunk, ChunkExtraction, ChunkTheme, Document, content_hash

__all__ = [
    "ChatModel",
    "Chunk",
    "ChunkExtraction",
    "ChunkTheme",
    "Document",
    "Embedder",
    "ProviderError",
    "Usage",
    "content_hash",
]
