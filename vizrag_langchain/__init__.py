"""VizRAG for LangChain: use LangChain chat models and embeddings in the VizRAG engine.

Requires the ``langchain`` extra (``pip install 'vizrag[langchain]'``).
"""

from __future__ import annotations

from .adapters import (
    LangChainChatModel,
    LangChainEmbedder,
    message_text,
    to_langchain_messages,
)

__all__ = ["LangChainChatModel", "LangChainEmbedder", "message_text", "to_langchain_messages"]
