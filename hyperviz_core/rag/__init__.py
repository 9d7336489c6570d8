"""The VizRAG engine: chunking, extraction, two-layer index, store, retrieval.

Framework-agnostic; the LlamaIndex and LangChain wrappers build on it. The OpenAI-compatible
client lives in :mod:`hyperviz_core.rag.openai_compat` (optional ``openai`` extra).
"""

from __future__ import annotations

from .answer import Answerer, extractive_summary
from .chunking import chunk_document, chunk_documents
from .engine import VizRAG
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
from .index import Indexer, IndexReport
from .loaders import LoaderError, load_documents
from .middleware import (
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
from .models import ChatModel, Embedder, ProviderError, Usage, as_provider_error, report_usage
from .offline import HashingEmbedder
from .parse import parse_extraction, parse_id_list, parse_json_list, parse_json_object
from .prompts import Prompts
from .rank import RankWeights
from .result import (
    RankedChunk,
    RenderedView,
    RetrievalResult,
    RetrievedEntity,
    RetrievedHyperedge,
    SentPrompt,
)
from .retrieve import MODES, RetrievalConfig, Retriever, UnknownModeError
from .store import DocumentWrite, HypergraphStore, StoreError, StoreStats
from .types import Chunk, ChunkExtraction, ChunkTheme, Document, content_hash
from .vectors import ExactVectorIndex, VectorIndex

__all__ = [
    "MODES",
    "Answerer",
    "CacheBackend",
    "CachingChatModel",
    "ChatModel",
    "Chunk",
    "ChunkExtraction",
    "ChunkTheme",
    "DictCache",
    "Document",
    "DocumentWrite",
    "Embedder",
    "ExactVectorIndex",
    "Extractor",
    "HashingEmbedder",
    "HeuristicExtractor",
    "HeuristicKeywordExtractor",
    "HeuristicThemeExtractor",
    "HypergraphStore",
    "IndexReport",
    "Indexer",
    "KeywordExtractor",
    "LLMDescriptionSummarizer",
    "LLMExtractor",
    "LLMKeywordExtractor",
    "LLMThemeExtractor",
    "LoaderError",
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
    "StoreError",
    "StoreStats",
    "ThemeExtractor",
    "TrackingChatModel",
    "UnknownModeError",
    "Usage",
    "UsageReport",
    "UsageTracker",
    "VectorIndex",
    "VizRAG",
    "as_provider_error",
    "build_chat_stack",
    "cache_key",
    "chunk_document",
    "chunk_documents",
    "content_hash",
    "extractive_summary",
    "heuristic_keywords",
    "load_documents",
    "merge_extractions",
    "parse_extraction",
    "parse_id_list",
    "parse_json_list",
    "parse_json_object",
    "report_usage",
]
