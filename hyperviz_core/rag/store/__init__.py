"""Storage of both hypergraph layers, chunks, embeddings and the model-call cache.

:class:`~.protocol.StoreProtocol` is what the indexer, retriever, CLI and wrappers use;
:class:`HypergraphStore` (:mod:`.sqlite`) is the embedded SQLite implementation. A new
backend is a sub-package here (e.g. ``store/postgres/``) implementing the protocol.
"""

from __future__ import annotations

from .base import (
    BatchWrite,
    DocumentInput,
    DocumentWrite,
    StoreClosedError,
    StoreError,
    StoreNotFoundError,
    StoreReplacedError,
    StoreStats,
    VectorsArg,
    redact_url,
)
from .open import (
    is_store_url,
    open_store,
    refuse_keyword_dsn,
    sqlite_store_exists,
    store_exists,
)
from .protocol import LocalReads, StoreProtocol, SummarizeFn
from .sqlite.store import HypergraphStore

__all__ = [
    "BatchWrite",
    "DocumentInput",
    "DocumentWrite",
    "HypergraphStore",
    "LocalReads",
    "StoreClosedError",
    "StoreError",
    "StoreNotFoundError",
    "StoreProtocol",
    "StoreReplacedError",
    "StoreStats",
    "SummarizeFn",
    "VectorsArg",
    "is_store_url",
    "open_store",
    "redact_url",
    "refuse_keyword_dsn",
    "sqlite_store_exists",
    "store_exists",
]
