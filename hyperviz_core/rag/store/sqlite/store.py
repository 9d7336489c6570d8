"""The embedded VizRAG store: one SQLite file (WAL) holding both hypergraph layers.

Documents, chunks, the raw per-chunk extraction output (entity and hyperedge *mentions*),
merged entities and hyperedges with ordered incidences, chunk themes and key entities,
float32 embeddings per space and the LLM-call cache live in one file. Merged rows are always
rebuilt from the mentions, so deleting a document restores exactly what the remaining
documents support. Every document write is one transaction: a crash leaves the store as it
was before that document.

This module holds the store object, its cache invalidation and the document write/delete
transactions; the rest is mixed in from ``store_reads`` (documents, chunks, themes),
``store_graphs`` (G_bot/G_top), ``store_vectors`` (embeddings), ``store_cache`` (LLM
cache) and ``store_stats`` (:class:`StoreStats`, ``check``); the SQL schema is in
``store_schema`` and the mention merging in ``store_merge``.

Example:
    >>> import tempfile
    >>> from hyperviz_core.model import Entity, Hyperedge
    >>> from hyperviz_core.rag.types import Chunk, ChunkExtraction, ChunkTheme, Document
    >>> store = HypergraphStore(tempfile.mkdtemp())
    >>> doc = Document(id="d1", text="Marie Curie met Pierre Curie in Paris.")
    >>> ch = Chunk(id="c1", doc_id="d1", text=doc.text)
    >>> ex = ChunkExtraction(chunk_id="c1", entities=[Entity(name="Marie Curie"),
    ...     Entity(name="Pierre Curie"), Entity(name="Paris")],
    ...     hyperedges=[Hyperedge(members=["Marie Curie", "Pierre Curie", "Paris"])])
    >>> th = ChunkTheme(chunk_id="c1", theme="the Curies", key_entities=["marie curie"])
    >>> store.add_document(doc, [ch], [ex], [th]).status
    'added'
    >>> s = store.stats(); (s.entities, s.relation_hyperedges, s.theme_hyperedges)
    (3, 1, 1)
    >>> store.close()
"""

from __future__ import annotations

import contextlib
import logging
import os
import sqlite3
import threading
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

from ....model import Hypergraph
from ...types import Chunk, ChunkExtraction, ChunkTheme, Document
from ...vectors import ExactVectorIndex, VectorIndex
from ..base import DocumentWrite, StoreError, StoreStats, VectorsArg
from ..protocol import SummarizeFn
from .cache import LLMCacheMixin
from .graphs import GraphLayersMixin
from .lookups import QueryLookupsMixin
from .merge import MentionWriter, Rebuilder
from .reads import StoreReadsMixin
from .schema import dumps, open_connection, resolve_path
from .stats import StoreStatsMixin
from .vectors import VectorStoreMixin

__all__ = ["DocumentWrite", "HypergraphStore", "StoreError", "StoreStats"]

log = logging.getLogger(__name__)

class HypergraphStore(
    StoreReadsMixin, GraphLayersMixin, LLMCacheMixin, StoreStatsMixin, VectorStoreMixin,
    QueryLookupsMixin,
):
    """A VizRAG store in a directory (``vizrag.sqlite`` inside) or a ``.sqlite`` file.

    Thread-safe (one connection behind a lock). ``bottom()``/``top()`` are cached and must
    not be mutated by callers (use ``.copy()``); writes from this or another process
    invalidate the caches.
    """

    def __init__(
        self, path: str | Path, *, summary_threshold: int = 4000, read_only: bool | None = None
    ) -> None:
        from .... import __version__

        self.path = resolve_path(path)
        self.summary_threshold = summary_threshold
        if read_only is None:  # read-only when we may not write (a read-only file or folder)
            read_only = self.path.exists() and not _writable(self.path)
        elif not read_only and self.path.exists() and not _writable(self.path):
            raise StoreError(
                f"store {self.path} is read-only (no write access to the file or its folder)"
                "; writing needs write access to both"
            )
        #: opened with SQLite's ``mode=ro``: reads work, every write raises StoreError
        self.read_only: bool = read_only
        self._conn = open_connection(self.path, version=__version__, read_only=read_only)
        self._lock = threading.RLock()
        self._bottom: Hypergraph | None = None
        self._top: Hypergraph | None = None
        self._indexes: dict[str, VectorIndex] = {}
        self._loaded: set[str] = set()
        self._data_version = self._read_data_version()

    # ------------------------------------------------------------------ plumbing
    def close(self) -> None:
        """Close the connection (the store object is unusable afterwards)."""
        with self._lock:
            # fold the write-ahead log back into the main file (a no-op if others read)
            if not self.read_only:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()

    def _need_writable(self, what: str) -> None:
        if self.read_only:
            raise StoreError(f"store {self.path} is open read-only; cannot {what}")

    def __enter__(self) -> HypergraphStore:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"HypergraphStore({str(self.path)!r})"

    def backup_to(self, path: str | Path) -> Path:
        """Copy the store into the SQLite file ``path`` (online backup: consistent while
        the store is open and in use; ``path`` is overwritten)."""
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        dst = sqlite3.connect(str(target))
        try:
            with self._lock:
                self._conn.backup(dst)
        finally:
            dst.close()
        return target

    def _read_data_version(self) -> int:
        return int(self._conn.execute("PRAGMA data_version").fetchone()[0])

    def _sync_external(self) -> None:
        """Drop caches if another connection committed since we last looked."""
        dv = self._read_data_version()
        if dv != self._data_version:
            self._data_version = dv
            self._invalidate(reload_vectors=True)

    def _invalidate(self, *, reload_vectors: bool = False) -> None:
        self._bottom = None
        self._top = None
        if reload_vectors:
            for space in list(self._loaded):
                self._loaded.discard(space)
                idx = self._indexes.get(space)
                if isinstance(idx, ExactVectorIndex):
                    del self._indexes[space]
                elif idx is not None:
                    idx.remove(self._all_index_ids(idx))

    @staticmethod
    def _all_index_ids(idx: VectorIndex) -> list[str]:
        ids = getattr(idx, "ids", None)
        return list(ids) if ids is not None else []

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
        """Add (or replace) one document with everything extracted from it, atomically.

        Identical content under the same id is a no-op (``status="skipped"``); new content
        under a known id replaces the old version in the same transaction. ``vectors`` gives
        precomputed embeddings ``{space: (ids, matrix)}``; every other new or changed item is
        embedded with ``embedder`` (an :class:`~hyperviz_core.rag.Embedder`) when
        given. ``summarize(name, description)`` shortens merged descriptions longer than
        ``summary_threshold`` characters.
        """
        self._validate_write(doc, chunks, extractions, themes)
        self._need_writable(f"add document {doc.id!r}")
        with self._lock:
            self._sync_external()
            if self.document_hash(doc.id) == doc.hash:
                return DocumentWrite(doc_id=doc.id, status="skipped")
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            # re-read under the write lock: another process may have written it meanwhile
            old_hash = self.document_hash(doc.id)
            if old_hash == doc.hash:
                conn.execute("ROLLBACK")
                return DocumentWrite(doc_id=doc.id, status="skipped")
            try:
                touched_e: set[str] = set()
                touched_h: set[str] = set()
                removed_chunks: list[str] = []
                if old_hash is not None:
                    removed_chunks = self._delete_rows(doc.id, touched_e, touched_h)
                self._insert_rows(doc, chunks)
                writer = MentionWriter(conn)
                writer.write(chunks, extractions, themes)
                touched_e |= writer.entity_keys
                touched_h |= writer.hyperedge_ids
                rebuilt = Rebuilder(conn, summarize, self.summary_threshold).rebuild(
                    touched_e, touched_h
                )
                texts, dead = _vector_changes(rebuilt, chunks, removed_chunks)
                upserts, embedded = self._write_vectors(texts, dead, vectors, embedder)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            self._data_version = self._read_data_version()
            self._invalidate()
            self._apply_vectors(upserts, dead)
        return DocumentWrite(
            doc_id=doc.id,
            status="replaced" if old_hash is not None else "added",
            chunks=len(chunks),
            entities_touched=len(touched_e),
            hyperedges_touched=len(touched_h),
            embedded=embedded,
        )

    def _insert_rows(self, doc: Document, chunks: Sequence[Chunk]) -> None:
        """The document row (next sequence number) and its chunk rows (in the open
        transaction of :meth:`add_document`)."""
        conn = self._conn
        seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM documents").fetchone()
        conn.execute(
            "INSERT INTO documents(id, hash, title, text, metadata, seq) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (doc.id, doc.hash, doc.title, doc.text, dumps(doc.metadata), seq[0]),
        )
        conn.executemany(
            'INSERT INTO chunks(id, doc_id, idx, text, start, "end", metadata) '
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            [(c.id, c.doc_id, c.index, c.text, c.start, c.end, dumps(c.metadata))
             for c in chunks],
        )

    def delete_document(
        self, doc_id: str, *, embedder: Any = None, summarize: SummarizeFn | None = None
    ) -> dict[str, int]:
        """Remove a document, its chunks, and everything supported only by it.

        Shared entities/hyperedges lose that source and have their descriptions rebuilt from
        the remaining mentions (re-embedded when ``embedder`` is given). Returns counts of
        removed items (all zero when the document is unknown).
        """
        counts = {"documents": 0, "chunks": 0, "entities": 0, "relation_hyperedges": 0,
                  "theme_hyperedges": 0, "updated_entities": 0}
        self._need_writable(f"delete document {doc_id!r}")
        with self._lock:
            self._sync_external()
            if not self.has_document(doc_id):
                return counts
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            if not self.has_document(doc_id):  # deleted by another process meanwhile
                conn.execute("ROLLBACK")
                return counts
            try:
                touched_e: set[str] = set()
                touched_h: set[str] = set()
                removed_chunks = self._delete_rows(doc_id, touched_e, touched_h)
                rebuilt = Rebuilder(conn, summarize, self.summary_threshold).rebuild(
                    touched_e, touched_h
                )
                dead = dict(rebuilt.dead)
                dead["chunk"] = removed_chunks
                upserts, _ = self._write_vectors(rebuilt.texts, dead, None, embedder)
                conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            self._data_version = self._read_data_version()
            self._invalidate()
            self._apply_vectors(upserts, dead)
        counts.update(
            documents=1,
            chunks=len(removed_chunks),
            entities=len(dead["entity"]),
            relation_hyperedges=len(dead["hyperedge"]),
            theme_hyperedges=len(dead["theme"]),
            updated_entities=len(rebuilt.texts["entity"]),
        )
        return counts

    @staticmethod
    def _validate_write(
        doc: Document,
        chunks: Sequence[Chunk],
        extractions: Sequence[ChunkExtraction],
        themes: Sequence[ChunkTheme],
    ) -> None:
        ids = [c.id for c in chunks]
        if len(set(ids)) != len(ids):
            raise StoreError(f"document {doc.id!r}: duplicate chunk ids")
        bad = [c.id for c in chunks if c.doc_id != doc.id]
        if bad:
            raise StoreError(f"chunks {bad[:3]} do not belong to document {doc.id!r}")
        known = set(ids)
        named = [("ChunkExtraction", e.chunk_id) for e in extractions]
        named += [("ChunkTheme", t.chunk_id) for t in themes]
        for what, cid in named:
            if cid not in known:
                raise StoreError(
                    f"{what} names chunk {cid!r}, not a chunk of document {doc.id!r}"
                )

    def _delete_rows(self, doc_id: str, touched_e: set[str], touched_h: set[str]) -> list[str]:
        """Delete a document's rows (mentions cascade); record what they touched."""
        conn = self._conn
        chunk_ids = [r[0] for r in self._q("SELECT id FROM chunks WHERE doc_id = ?", (doc_id,))]
        sub = "SELECT id FROM chunks WHERE doc_id = ?"
        touched_e.update(
            r[0] for r in self._q(
                f"SELECT DISTINCT key FROM entity_mentions WHERE chunk_id IN ({sub})", (doc_id,))
        )
        touched_h.update(
            r[0] for r in self._q(
                f"SELECT DISTINCT hid FROM hyperedge_mentions WHERE chunk_id IN ({sub})",
                (doc_id,))
        )
        conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
        return chunk_ids


def _writable(path: Path) -> bool:
    """Whether this process may write the store file and create files beside it."""
    return os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)


def _chunk_text(chunk: Chunk) -> str:
    title = str(chunk.metadata.get("title", "") or "")
    return f"{title}\n{chunk.text}" if title else chunk.text



def _vector_changes(rebuilt: Any, chunks: Sequence[Chunk], removed_chunks: Sequence[str]
                    ) -> tuple[dict[str, dict[str, str]], dict[str, list[str]]]:
    """Texts to (re-)embed and ids to drop per vector space after a document write."""
    texts = dict(rebuilt.texts)
    texts["chunk"] = {c.id: _chunk_text(c) for c in chunks}
    dead = dict(rebuilt.dead)
    dead["chunk"] = sorted(set(removed_chunks) - {c.id for c in chunks})
    return texts, dead
