"""VizRAG for LlamaIndex: a drop-in index, retriever and postprocessor, plus model adapters.

Requires the ``llamaindex`` extra (``pip install 'vizrag[llamaindex]'``). Importing the
package registers :class:`VizRAGIndex` with LlamaIndex, so ``load_index_from_storage`` can
reopen a persisted index in a fresh process.

    from llama_index.core import Document
    from vizrag_llamaindex import VizRAGIndex

    index = VizRAGIndex.from_documents([Document(text="...", id_="doc-1")])
    nodes = index.as_retriever(top_k=5).retrieve("question")   # chunks + hypergraph image
"""

from __future__ import annotations

from hyperviz_core import __version__

from . import _framework  # noqa: F401  (first: a missing extra is named)
from .adapters import LlamaIndexChatModel, LlamaIndexEmbedder, to_llamaindex_messages
from .captions import ImageCaptionPostprocessor
from .hyperrag import HyperRAGVisualRetriever
from .index import IndexVizRAG, VizRAGIndex, to_engine_document
from .instrumentation import StageSpans, VizRAGLocateEvent, VizRAGRenderEvent
from .nodes import (
    VizRAGImageNode,
    VizRAGTextNode,
    chunk_nodes,
    image_node,
    merge_metadata,
    vizrag_value,
)
from .options import IndexingWarning
from .postprocessor import HyperVizPostprocessor
from .query import CaptionOnlyWarning, build_query_engine
from .reader import VizRAGReader
from .retriever import VizRAGRetriever
from .storage import VizRAGStorageContext, backup_store

__all__ = [
    "CaptionOnlyWarning",
    "HyperRAGVisualRetriever",
    "HyperVizPostprocessor",
    "ImageCaptionPostprocessor",
    "IndexVizRAG",
    "IndexingWarning",
    "LlamaIndexChatModel",
    "LlamaIndexEmbedder",
    "StageSpans",
    "VizRAGImageNode",
    "VizRAGIndex",
    "VizRAGLocateEvent",
    "VizRAGReader",
    "VizRAGRenderEvent",
    "VizRAGRetriever",
    "VizRAGStorageContext",
    "VizRAGTextNode",
    "__version__",
    "backup_store",
    "build_query_engine",
    "chunk_nodes",
    "image_node",
    "merge_metadata",
    "to_engine_document",
    "to_llamaindex_messages",
    "vizrag_value",
]
