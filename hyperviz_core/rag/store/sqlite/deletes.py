"""Delete side of :class:`~hyperviz_core.rag.store.HypergraphStore`: documents go whole.

:meth:`~DocumentDeletesMixin.delete_documents` removes a batch of documents in one
transaction with one rebuild of the entities and hyperedges they touched (descriptions and
vectors). Any failure on the way — the summariser or embedder raising during the rebuild, a
store error — rolls the transaction back: every document of the batch is still stored, as
before the call. :meth:`~DocumentDeletesMixin.delete_document` is the batch of one.

Example:
    >>> import tempfile
    >>> from hyperviz_core.model import Entity
    >>> from hyperviz_core.rag.store import DocumentInput, HypergraphStore
    >>> from hyperviz_core.rag.types import Chunk, ChunkExtraction, Document
    >>> def item(i):
    ...     ex = ChunkExtraction(chunk_id=f"c{i}", entities=[Entity(name="Paris")])
    ...     return DocumentInput(doc=Document(id=f"d{i}", text=f"text {i}"),
    ...                          chunks=[Chunk(id=f"c{i}", doc_id=f"d{i}", text="t")],
    ...                          extractions=[ex])
    >>> store = HypergraphStore(tempfile.mkdtemp())
    >>> _ = store.add_documents([item(1), item(2), item(3)])
    >>> store.delete_documents(["d1", "d2", "unknown"])["documents"]
    2
    >>> store.bottom().entities["paris"].source_ids
    ['c3']
    >>> store.close()
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from typing import Any

from ..batch import NO_DELETE, delete_counts, delete_ids
from ..protocol import SummarizeFn
from .rebuild import Rebuilder
from .writes import Upserts, delete_all_rows, write_transaction

__all__ = ["DocumentDeletesMixin"]


class DocumentDeletesMixin:
    """``delete_document`` and ``delete_documents`` (mixed into the store)."""

    summary_threshold: int
    _conn: sqlite3.Connection
    _lock: threading.RLock
    _sync_external: Callable[[], None]
    _need_writable: Callable[[str], None]
    _upgrade_if_old: Callable[[], None]
    _read_data_version: Callable[[], int]
    _data_version: int
    _invalidate: Callable[..., None]
    _write_vectors: Callable[..., tuple[Upserts, int]]
    _apply_vectors: Callable[[Upserts, dict[str, list[str]]], None]
    _vector_format: Callable[[], tuple[tuple[str, ...], str]]
    has_document: Callable[[str], bool]

    def delete_document(
        self, doc_id: str, *, embedder: Any = None, summarize: SummarizeFn | None = None
    ) -> dict[str, int]:
        """Remove a document, its chunks, and everything supported only by it.

        Shared entities/hyperedges lose that source and have their descriptions rebuilt from
        the remaining mentions (re-embedded when ``embedder`` is given). Returns counts of
        removed items (all zero when the document is unknown). The same as
        :meth:`delete_documents` of ``[doc_id]``.
        """
        return self.delete_documents([doc_id], embedder=embedder, summarize=summarize)

    def delete_documents(
        self, doc_ids: Iterable[str], *, embedder: Any = None,
        summarize: SummarizeFn | None = None,
    ) -> dict[str, int]:
        """Remove several documents in one transaction with one rebuild of what they touched.

        Unknown ids are skipped and repeated ones count once; an id that is not a string
        raises :class:`TypeError` before anything is deleted. The counts are those of
        :meth:`delete_document` (``documents``: how many were stored); ``updated_entities``
        counts each surviving entity rebuilt once. On any error nothing is deleted.
        """
        ids = delete_ids(doc_ids)
        if not ids:
            return dict(NO_DELETE)
        self._need_writable(f"delete document {ids[0]!r}" if len(ids) == 1 else
                            f"delete documents {', '.join(map(repr, ids[:3]))}"
                            f"{', ...' if len(ids) > 3 else ''}")
        with self._lock:
            self._sync_external()
            if not any(self.has_document(i) for i in ids):
                return dict(NO_DELETE)
            self._upgrade_if_old()
            return self._delete_batch(ids, embedder, summarize)

    def _delete_batch(self, ids: list[str], embedder: Any,
                      summarize: SummarizeFn | None) -> dict[str, int]:
        """The transaction of :meth:`delete_documents` (under the lock)."""
        conn = self._conn
        with write_transaction(conn):
            self._sync_external()  # others' commits up to our lock reach our caches now
            # re-read under the write lock: another process may have deleted some meanwhile
            stored = [i for i in ids if self.has_document(i)]
            if not stored:
                conn.execute("ROLLBACK")
                return dict(NO_DELETE)
            removed, touched_e, touched_h = delete_all_rows(conn, stored)
            rebuilt = Rebuilder(conn, summarize, self.summary_threshold,
                                spaces=self._vector_format()[0]).rebuild(touched_e, touched_h)
            dead, counts = delete_counts(len(stored), removed, rebuilt)
            upserts, _ = self._write_vectors(rebuilt.texts, dead, None, embedder)
        self._invalidate()
        self._apply_vectors(upserts, dead)
        return counts
