"""VizRAG for LlamaIndex: use LlamaIndex LLMs and embedding models in the VizRAG engine.

Requires the ``llamaindex`` extra (``pip install 'vizrag[llamaindex]'``).
"""

from __future__ import annotations

from .adapters import LlamaIndexChatModel, LlamaIndexEmbedder, to_llamaindex_messages

__all__ = ["LlamaIndexChatModel", "LlamaIndexEmbedder", "to_llamaindex_messages"]
