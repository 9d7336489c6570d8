"""VizRAG for LangChain: a retriever, a vector store, a rendering runnable, an LCEL chain, a
retriever tool that sends the picture, and model adapters.

Requires the ``langchain`` extra (``pip install 'vizrag[langchain]'``).

Example::

    >>> from vizrag_langchain import VizRAGRetriever
    >>> retriever = VizRAGRetriever(store="out/store", k=4)   # doctest: +SKIP
"""

from __future__ import annotations

from hyperviz_core import __version__

from . import _framework  # noqa: F401  (first: a missing extra is named)
from .adapters import (
    LangChainChatModel,
    LangChainEmbedder,
    message_text,
    to_langchain_messages,
)
from .chain import (
    DEFAULT_PROMPT,
    DEFAULT_TEXT_PROMPT,
    create_vizrag_chain,
    format_passages,
    vizrag_message,
)
from .documents import (
    IMAGE_DOC_TYPE,
    VizRAGImageDocument,
    image_document,
    is_image_document,
    merge_metadata,
    result_documents,
    vizrag_value,
)
from .hyperrag import HyperRAGVisualRetriever
from .loader import VizRAGLoader
from .retriever import VizRAGRetriever
from .runnable import HyperVizRunnable, image_block, split_documents
from .tool import create_vizrag_tool, tool_content
from .vectorstore import VizRAGVectorStore

__all__ = [
    "DEFAULT_PROMPT",
    "DEFAULT_TEXT_PROMPT",
    "IMAGE_DOC_TYPE",
    "HyperRAGVisualRetriever",
    "HyperVizRunnable",
    "LangChainChatModel",
    "LangChainEmbedder",
    "VizRAGImageDocument",
    "VizRAGLoader",
    "VizRAGRetriever",
    "VizRAGVectorStore",
    "__version__",
    "create_vizrag_chain",
    "create_vizrag_tool",
    "format_passages",
    "image_block",
    "image_document",
    "is_image_document",
    "merge_metadata",
    "message_text",
    "result_documents",
    "split_documents",
    "to_langchain_messages",
    "tool_content",
    "vizrag_message",
    "vizrag_value",
]
