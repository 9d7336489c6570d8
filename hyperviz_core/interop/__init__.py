"""Interoperability with other hypergraph-RAG systems (Hyper-RAG) and exchange formats.

* Import an existing Hyper-RAG working dir into a VizRAG store without re-extraction:
  :func:`import_hyperrag` (``vizrag import-hyperrag``). Its ``.hgdb`` pickle is read only by
  :class:`RestrictedUnpickler`, which allows exactly ``collections.defaultdict`` and
  ``builtins.set``.
* Export a store or a part of it: :func:`store_hypergraph` (``vizrag export --hif``).
* Wrap a live Hyper-RAG instance: :func:`from_hyperrag_result` / :func:`aquery_hyperrag` turn
  its ``return_type="json"`` query result into a sub-hypergraph and a rendering
  (:class:`LiveResult`); the LlamaIndex and LangChain ``HyperRAGVisualRetriever`` build on it.
"""

from __future__ import annotations

from .hyperrag_import import DocumentConflictError, ImportReport, import_hyperrag, import_workdir
from .hyperrag_live import (
    HyperRAGResult,
    LiveResult,
    QueryParamLike,
    aquery_hyperrag,
    default_query_param,
    from_hyperrag_result,
    hyperrag_chunk_id,
    run_sync,
)
from .hyperrag_pickle import HgdbData, HyperRAGFormatError, RestrictedUnpickler, load_hgdb
from .hyperrag_read import HyperRAGWorkdir, read_workdir
from .hyperrag_write import scale_workdir, write_workdir
from .store_export import store_hypergraph

__all__ = [
    "DocumentConflictError",
    "HgdbData",
    "HyperRAGFormatError",
    "HyperRAGResult",
    "HyperRAGWorkdir",
    "ImportReport",
    "LiveResult",
    "QueryParamLike",
    "RestrictedUnpickler",
    "aquery_hyperrag",
    "default_query_param",
    "from_hyperrag_result",
    "hyperrag_chunk_id",
    "import_hyperrag",
    "import_workdir",
    "load_hgdb",
    "read_workdir",
    "run_sync",
    "scale_workdir",
    "store_hypergraph",
    "write_workdir",
]
