"""Indexing: load documents, chunk them, extract, embed and write the store."""

from __future__ import annotations

from .chunking import chunk_document, chunk_documents
from .errors import IndexingError
from .indexer import Indexer, IndexReport
from .loaders import LoaderError, load_documents
from .stream import DocumentStream
from .titles import infer_title, with_inferred_title

__all__ = [
    "DocumentStream",
    "IndexReport",
    "Indexer",
    "IndexingError",
    "LoaderError",
    "chunk_document",
    "chunk_documents",
    "infer_title",
    "load_documents",
    "with_inferred_title",
]
