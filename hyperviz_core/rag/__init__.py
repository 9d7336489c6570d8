"""The VizRAG engine: chunking, extraction, two-layer index, store, retrieval.

Framework-agnostic; the LlamaIndex and LangChain wrappers build on it. Sub-packages follow the
data flow (see ``docs/architecture.md``): :mod:`.providers` (model protocols, offline
defaults, the OpenAI-compatible client, middleware), :mod:`.extract` (extractors and the
tolerant parser), :mod:`.index` (loading, chunking, indexing), :mod:`.store` (the store
protocol and its SQLite backend), :mod:`.retrieve` (the named retrieval stages and ranking);
:mod:`.answer`, :mod:`.engine` (``VizRAG``) and :mod:`.hooks` (stage hooks) sit on top.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..lazy import lazy_exports
from .ann import AnnVectorIndex
from .answer import Answerer, extractive_summary
from .charged import charged
from .citations import (
    Citations,
    LabelledItem,
    cited_legend,
    export_legend,
    labelled_items,
    read_citations,
    visual_citations,
)
from .conformance import store_differences
from .engine import VizRAG
from .engine_lifecycle import EngineClosedError
from .extract import (
    Extractor,
    HeuristicExtractor,
    HeuristicKeywordExtractor,
    HeuristicThemeExtractor,
    KeywordExtractor,
    LLMDescriptionSummarizer,
    LLMExtractor,
    LLMKeywordExtractor,
    LLMThemeExtractor,
    ThemeExtractor,
    heuristic_keywords,
    merge_extractions,
)
from .extract.parse import parse_extraction, parse_id_list, parse_json_list, parse_json_object
from .hooks import EVENTS, STAGES, Hook, HookEvent
from .index import (
    DocumentStream,
    Indexer,
    IndexingError,
    IndexReport,
    LoaderError,
    chunk_document,
    chunk_documents,
    infer_title,
    load_documents,
    with_inferred_title,
)
from .index.handoff import FileOptions, handed_documents
from .local_embed import LocalMiniLMEmbedder, local_minilm_available
from .prompts import Prompts, fence
from .providers.middleware import (
    CacheBackend,
    CachingChatModel,
    DictCache,
    RateLimitedChatModel,
    RetryingChatModel,
    RetryingEmbedder,
    StoreCacheBackend,
    TrackingChatModel,
    UsageReport,
    UsageTracker,
    build_chat_stack,
    cache_key,
)
from .providers.offline import HashingEmbedder
from .providers.protocols import (
    ChatModel,
    Embedder,
    ProviderError,
    Usage,
    as_provider_error,
    report_usage,
)
from .providers.sync_models import SyncChatModel, SyncEmbedder
from .query_usage import usage_of
from .result import (
    CaptionOnlyWarning,
    RankedChunk,
    RenderedView,
    RetrievalResult,
    RetrievedEntity,
    RetrievedHyperedge,
    SentPrompt,
    visual_ids,
)
from .result_metadata import merge_metadata, vizrag_key, vizrag_value
from .retrieve import (
    MAX_HOPS,
    MODES,
    ChunkFilter,
    MetadataCondition,
    RankWeights,
    RetrievalConfig,
    Retriever,
    UnknownModeError,
    check_hops,
    check_mode,
)
from .store import (
    DocumentWrite,
    HypergraphStore,
    LocalReads,
    StoreClosedError,
    StoreError,
    StoreNotFoundError,
    StoreProtocol,
    StoreReplacedError,
    StoreStats,
    open_store,
    store_exists,
)
from .types import Chunk, ChunkExtraction, ChunkTheme, Document, content_hash, json_safe_metadata
from .vectors import ExactVectorIndex, VectorIndex

if TYPE_CHECKING:
    from .visual_context import (
        VisualContext,
        arender_passages,
        passages_hypergraph,
        render_hypergraph,
        render_passages,
    )

#: public name → module imported on its first use (the renderer: matplotlib, shapely, ...),
#: so that a process that only indexes or queries never loads it
_LAZY: dict[str, str] = {
    "VisualContext": ".visual_context",
    "arender_passages": ".visual_context",
    "passages_hypergraph": ".visual_context",
    "render_hypergraph": ".visual_context",
    "render_passages": ".visual_context",
}


if not TYPE_CHECKING:  # a type checker reads the imports above: a misspelt name is an
    # error there, not Any
    __getattr__, __dir__ = lazy_exports(__name__, _LAZY, globals())


__all__ = [
    "EVENTS",
    "MAX_HOPS",
    "MODES",
    "STAGES",
    "AnnVectorIndex",
    "Answerer",
    "CacheBackend",
    "CachingChatModel",
    "CaptionOnlyWarning",
    "ChatModel",
    "Chunk",
    "ChunkExtraction",
    "ChunkFilter",
    "ChunkTheme",
    "Citations",
    "DictCache",
    "Document",
    "DocumentStream",
    "DocumentWrite",
    "Embedder",
    "EngineClosedError",
    "ExactVectorIndex",
    "Extractor",
    "FileOptions",
    "HashingEmbedder",
    "HeuristicExtractor",
    "HeuristicKeywordExtractor",
    "HeuristicThemeExtractor",
    "Hook",
    "HookEvent",
    "HypergraphStore",
    "IndexReport",
    "Indexer",
    "IndexingError",
    "KeywordExtractor",
    "LLMDescriptionSummarizer",
    "LLMExtractor",
    "LLMKeywordExtractor",
    "LLMThemeExtractor",
    "LabelledItem",
    "LoaderError",
    "LocalMiniLMEmbedder",
    "LocalReads",
    "MetadataCondition",
    "Prompts",
    "ProviderError",
    "RankWeights",
    "RankedChunk",
    "RateLimitedChatModel",
    "RenderedView",
    "RetrievalConfig",
    "RetrievalResult",
    "RetrievedEntity",
    "RetrievedHyperedge",
    "Retriever",
    "RetryingChatModel",
    "RetryingEmbedder",
    "SentPrompt",
    "StoreCacheBackend",
    "StoreClosedError",
    "StoreError",
    "StoreNotFoundError",
    "StoreProtocol",
    "StoreReplacedError",
    "StoreStats",
    "SyncChatModel",
    "SyncEmbedder",
    "ThemeExtractor",
    "TrackingChatModel",
    "UnknownModeError",
    "Usage",
    "UsageReport",
    "UsageTracker",
    "VectorIndex",
    "VisualContext",
    "VizRAG",
    "arender_passages",
    "as_provider_error",
    "build_chat_stack",
    "cache_key",
    "charged",
    "check_hops",
    "check_mode",
    "chunk_document",
    "chunk_documents",
    "cited_legend",
    "content_hash",
    "export_legend",
    "extractive_summary",
    "fence",
    "handed_documents",
    "heuristic_keywords",
    "infer_title",
    "json_safe_metadata",
    "labelled_items",
    "load_documents",
    "local_minilm_available",
    "merge_extractions",
    "merge_metadata",
    "open_store",
    "parse_extraction",
    "parse_id_list",
    "parse_json_list",
    "parse_json_object",
    "passages_hypergraph",
    "read_citations",
    "render_hypergraph",
    "render_passages",
    "report_usage",
    "store_differences",
    "store_exists",
    "usage_of",
    "visual_citations",
    "visual_ids",
    "vizrag_key",
    "vizrag_value",
    "with_inferred_title",
]
