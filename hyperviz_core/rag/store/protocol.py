"""The store protocol: what the indexer, retriever, engine, CLI and wrappers call.

:class:`StoreProtocol` is structural (:class:`typing.Protocol`, runtime-checkable): any object
with these methods is a VizRAG store. :class:`~.sqlite.store.HypergraphStore` (one SQLite
file) is the reference implementation; a new backend is a sub-package beside :mod:`.sqlite`
that implements every method with the same meaning:

* documents are written whole (:meth:`add_document` is one transaction: chunks, the raw
  per-chunk extraction output, themes, embeddings; :meth:`add_documents` writes a batch in
  one transaction with the same result) and deleted whole (:meth:`delete_documents` deletes
  a batch in one transaction: all of it or, on an error, none); merged entities and
  hyperedges are always what the remaining documents support;
* :meth:`bottom` / :meth:`top` return the two hypergraph layers (cached; callers must not
  mutate them);
* vectors live in named spaces (``entity``, ``hyperedge``, ``theme``, ``chunk``);
* errors are :class:`~.base.StoreError`; results are the backend-neutral models of
  :mod:`.base` and :mod:`hyperviz_core.rag.types`.

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag.store import HypergraphStore
    >>> with HypergraphStore(tempfile.mkdtemp()) as store:
    ...     isinstance(store, StoreProtocol)
    True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol, runtime_checkable

import numpy as np
import numpy.typing as npt

from ...model import Hypergraph
from ..types import Chunk, ChunkExtraction, ChunkTheme, Document
from ..vectors import VectorIndex
from .base import BatchWrite, DocumentInput, DocumentWrite, StoreStats, VectorsArg

__all__ = ["LocalReads", "StoreProtocol", "SummarizeFn", "not_a_store", "stored_document_ids"]

#: ``summarize(name, description)`` → a shorter description (merged descriptions too long)
SummarizeFn = Callable[[str, str], str]


@runtime_checkable
class StoreProtocol(Protocol):
    """A VizRAG store: documents, chunks, both hypergraph layers, vectors, model-call cache."""

    @property
    def path(self) -> Path | str:
        """Where the store lives (the SQLite file; a server backend's redacted URL)."""
        ...

    #: merged descriptions longer than this many characters are summarised on write
    summary_threshold: int

    # ------------------------------------------------------------------ lifecycle
    def close(self) -> None:
        """Release the backend's resources; the store is unusable afterwards."""
        ...

    def __enter__(self) -> StoreProtocol: ...

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None: ...

    # ------------------------------------------------------------------ writes
    def add_document(
        self,
        doc: Document,
        chunks: Sequence[Chunk],
        extractions: Sequence[ChunkExtraction] = (),
        themes: Sequence[ChunkTheme] = (),
        vectors: VectorsArg | None = None,
        *,
        embedder: Any = None,
        summarize: SummarizeFn | None = None,
    ) -> DocumentWrite:
        """Add or replace one document with everything extracted from it (one transaction)."""
        ...

    def add_documents(self, items: Iterable[DocumentInput], *, embedder: Any = None,
                      summarize: SummarizeFn | None = None) -> BatchWrite:
        """Add or replace several documents in one transaction with one rebuild of what
        they touch; ends exactly as ``add_document`` of each item in order would."""
        ...

    def delete_document(self, doc_id: str, *, embedder: Any = None,
                        summarize: SummarizeFn | None = None) -> dict[str, int]:
        """Remove a document and what only it supported; counts of what changed (all zero
        for an unknown id). The same as :meth:`delete_documents` of ``[doc_id]``."""
        ...

    def delete_documents(self, doc_ids: Iterable[str], *, embedder: Any = None,
                         summarize: SummarizeFn | None = None) -> dict[str, int]:
        """Remove several documents in one transaction with one rebuild of the entities and
        hyperedges they touched (descriptions and vectors); on any error (the summariser or
        embedder raising, a store error) it rolls back and every document is still stored.

        Unknown ids are skipped, repeated ones count once, an id that is not a string raises
        :class:`TypeError` before anything is deleted. Counts as :meth:`delete_document`'s
        (``documents``: how many were stored); removed items are counted once each, so they
        equal the sum of one-by-one deletes, while ``updated_entities`` counts each
        surviving entity rebuilt once."""
        ...

    # ------------------------------------------------------------------ reads
    def has_document(self, doc_id: str) -> bool: ...

    def document_hash(self, doc_id: str) -> str | None: ...

    def documents(self, ids: Iterable[str] | None = None) -> list[Document]: ...

    def get_document(self, doc_id: str) -> Document | None: ...

    def chunks(self, ids: Iterable[str] | None = None) -> list[Chunk]: ...

    def chunk_ids(self, doc_id: str | None = None) -> list[str]: ...

    def chunk_doc_ids(self) -> dict[str, str]: ...

    def themes(self, chunk_ids: Iterable[str] | None = None) -> list[ChunkTheme]: ...

    def theme_hyperedge_chunks(self) -> dict[str, list[str]]: ...

    def extractions(self, doc_id: str) -> list[ChunkExtraction]:
        """The raw per-chunk extraction output stored for a document (merged per chunk, in
        chunk order; theme hyperedges excluded: they come from :meth:`themes`)."""
        ...

    def bottom(self) -> Hypergraph:
        """G_bot: merged entities and relation hyperedges (read-only, cached)."""
        ...

    def top(self) -> Hypergraph:
        """G_top: themes as hyperedges over their key entities (read-only, cached)."""
        ...

    # ------------------------------------------------------------------ vectors
    def embedder_info(self) -> tuple[str, int] | None: ...

    def check_embedder(self, name: str, dim: int) -> None: ...

    def vector_index(self, space: str) -> VectorIndex: ...

    def set_vector_index(self, space: str, index: VectorIndex) -> None: ...

    def vectors(
        self, space: str, ids: Iterable[str] | None = None
    ) -> tuple[list[str], npt.NDArray[np.float32]]: ...

    def search(self, space: str, query_vec: npt.ArrayLike, k: int) -> list[tuple[str, float]]: ...

    # ------------------------------------------------------------------ cache, inspection
    def cache_get(self, key: str) -> str | None: ...

    def cache_put(self, key: str, value: str, model: str = "") -> None: ...

    def cache_size(self) -> int: ...

    def cache_items(self) -> list[tuple[str, str, str]]:
        """Every cached model call as (key, value, model), sorted by key."""
        ...

    def stats(self) -> StoreStats: ...

    def check(self) -> list[str]:
        """Integrity problems found (empty when the store is sound)."""
        ...


@runtime_checkable
class LocalReads(Protocol):
    """Optional capability: per-query lookups by index instead of whole layers (issue 17).

    Both built-in backends have it (``isinstance(store, LocalReads)``); callers fall back to
    slicing :meth:`StoreProtocol.bottom`/``top`` for a store without it.
    """

    def document_titles(self, ids: Iterable[str] | None = None) -> dict[str, str]:
        """Document id → title, without reading document texts."""
        ...

    def entity_chunks(self, keys: Iterable[str]) -> dict[str, list[str]]:
        """Entity key → sorted ids of the chunks mentioning it (unknown keys left out)."""
        ...

    def neighbourhood(self, keys: Iterable[str], hops: int = 1,
                      layer: Literal["bottom", "top"] = "bottom") -> Hypergraph:
        """Entities within ``hops`` of ``keys``, every hyperedge incident to them, and
        those hyperedges' members (equal to the full layer's objects)."""
        ...


def stored_document_ids(store: StoreProtocol) -> set[str]:
    """The ids of every document of ``store``: from :meth:`LocalReads.document_titles` when
    it has it (no texts read), else from ``documents()``."""
    if isinstance(store, LocalReads):
        return set(store.document_titles())
    return {d.id for d in store.documents()}


def not_a_store(obj: object) -> str:
    """Why ``obj`` is not a :class:`StoreProtocol`: its type and the members it lacks (the
    protocol has about thirty; ``summary_threshold`` is a data attribute).

    >>> not_a_store(object())  # doctest: +ELLIPSIS
    'object lacks ... of StoreProtocol'
    """
    names = sorted({n for n in vars(StoreProtocol) if not n.startswith("_")}
                   | set(getattr(StoreProtocol, "__annotations__", {})))
    lacking = [n for n in names if not hasattr(obj, n)]
    if not lacking:  # every member, yet not a store: so far only a wrong-typed one
        return f"{type(obj).__name__} has every member of StoreProtocol"
    shown = ", ".join(lacking[:8]) + (f" and {len(lacking) - 8} more" if len(lacking) > 8 else "")
    return f"{type(obj).__name__} lacks {shown} of StoreProtocol"
