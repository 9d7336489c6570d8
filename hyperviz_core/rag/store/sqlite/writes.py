"""Write side of :class:`~hyperviz_core.rag.store.HypergraphStore`: document transactions.

:meth:`~DocumentWritesMixin.add_documents` writes a batch of documents in one transaction
with one rebuild of the merged rows they touch (:mod:`.rebuild`); it ends exactly as
writing them one by one with :meth:`~DocumentWritesMixin.add_document` would (identical
content skipped, new content under a known id replaces the old version), only faster: a hub
entity mentioned by every document of the batch is merged once, not once per document.
A crash leaves the store as it was before the batch. A store of schema 1 is upgraded
(:func:`~.schema.upgrade`) before its first write.

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
    >>> batch = store.add_documents([item(1), item(2), item(1)])
    >>> [w.status for w in batch.writes], batch.transactions
    (['added', 'added', 'skipped'], 1)
    >>> store.bottom().entities["paris"].source_ids
    ['c1', 'c2']
    >>> store.close()
"""

from __future__ import annotations

import contextlib
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ...types import Chunk, ChunkExtraction, ChunkTheme, Document
from ..base import (
    BatchWrite,
    DocumentInput,
    DocumentWrite,
    StoreError,
    VectorsArg,
    validate_write,
)
from ..batch import merge_vectors, split_repeats, vector_changes
from ..protocol import SummarizeFn
from .files import log_files
from .merge import MentionWriter
from .rebuild import Rebuilder
from .schema import CACHE_KIB, SCHEMA_VERSION, WRITE_CACHE_KIB, dumps
from .upgrade import schema_version, upgrade

__all__ = ["WRITES_KEY", "DocumentWritesMixin", "bump_writes", "chunk_collision",
           "chunk_owners", "delete_all_rows", "delete_rows", "write_transaction"]

#: the meta row counting the store's writes (document writes, deletes, upgrades, compaction)
WRITES_KEY = "writes"

Upserts = dict[str, tuple[list[str], npt.NDArray[np.float32]]]


class DocumentWritesMixin:
    """``add_document``, ``add_documents``, ``upgrade`` and ``compact`` (mixed into the
    store; deletes are in :mod:`.deletes`)."""

    path: Path
    summary_threshold: int
    _conn: sqlite3.Connection
    _lock: threading.RLock
    _q: Callable[..., list[Any]]
    _sync_external: Callable[[], None]
    _need_writable: Callable[[str], None]
    _read_data_version: Callable[[], int]
    _data_version: int
    _invalidate: Callable[..., None]
    _write_vectors: Callable[..., tuple[Upserts, int]]
    _apply_vectors: Callable[[Upserts, dict[str, list[str]]], None]
    _vector_format: Callable[[], tuple[tuple[str, ...], str]]
    document_hash: Callable[[str], str | None]
    has_document: Callable[[str], bool]
    page_cache: Callable[[int], contextlib.AbstractContextManager[None]]

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
        item = DocumentInput(doc=doc, chunks=chunks, extractions=extractions, themes=themes,
                             vectors=vectors)
        return self.add_documents([item], embedder=embedder, summarize=summarize).writes[0]

    def add_documents(
        self,
        items: Iterable[DocumentInput],
        *,
        embedder: Any = None,
        summarize: SummarizeFn | None = None,
    ) -> BatchWrite:
        """Add (or replace) several documents in one transaction and one rebuild.

        The store ends exactly as after ``add_document`` of each item in order (a repeated
        id starts a new transaction, so its second version replaces the first). Every item
        is validated before anything is written.
        """
        items = list(items)
        for it in items:
            validate_write(it.doc, it.chunks, it.extractions, it.themes)
        out = BatchWrite()
        if not items:
            return out
        self._need_writable(f"add document {items[0].doc.id!r}")
        with self._lock, self._write_cache():
            self._sync_external()
            for part in split_repeats(items):
                if all(self.document_hash(it.doc.id) == it.doc.hash and not it.replace
                       for it in part):
                    out.writes.extend(DocumentWrite(doc_id=it.doc.id, status="skipped")
                                      for it in part)
                    continue
                self._upgrade_if_old()
                writes, embedded = self._write_batch(part, embedder, summarize)
                out.writes.extend(writes)
                out.embedded += embedded
                out.transactions += 1
        return out

    def _write_cache(self) -> contextlib.AbstractContextManager[None]:
        """The page cache of a batch write: :data:`~.schema.WRITE_CACHE_KIB` while it runs
        (:meth:`page_cache`), unless a caller changed the connection's default size."""
        size = int(self._conn.execute("PRAGMA cache_size").fetchone()[0])
        if size != -CACHE_KIB:
            return contextlib.nullcontext()
        return self.page_cache(WRITE_CACHE_KIB)

    def schema_version(self) -> int:
        """The schema version of the store file (:data:`~.schema.SCHEMA_VERSION` once
        written by this version)."""
        with self._lock:
            return schema_version(self._conn)

    def _has_spans(self) -> bool:
        """Whether the mention tables have schema 3's span columns (an older store opened
        read-only keeps its schema)."""
        with self._lock:
            return schema_version(self._conn) >= 3

    def upgrade(self) -> bool:
        """Upgrade a store of an older schema in place (what every read returns stays the
        same); whether anything was done. Writes do it by themselves. A current store is
        left as it is, read-only too."""
        if self.schema_version() >= SCHEMA_VERSION:
            return False  # another process may upgrade it in between: upgrade() re-checks
        self._need_writable("upgrade the store schema")
        with self._lock:
            done = upgrade(self._conn)
            if done:
                bump_writes(self._conn)
                self._sync_external()  # another process's commit is not marked seen unread
                self._invalidate()
            return done

    def compact(self) -> int:
        """Rewrite the store file without free or half-filled pages (SQLite ``VACUUM``);
        the bytes saved. Pages of tables filled in key order at random positions end about
        a seventh empty (measured on the 5 MB benchmark store: 158.7 → 142.2 MiB, 6 s).
        Needs free disk space of about the store's size while it runs. The bytes are
        measured after the log is checkpointed (a log emptied is not compaction's gain) and
        are never negative (a reader of another process keeps the log from being truncated
        until it closes)."""
        self._need_writable("compact the store")
        with self._lock:
            conn = self._conn
            cache = conn.execute("PRAGMA cache_size").fetchone()[0]
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            before = _size(self.path)
            bump_writes(conn)  # VACUUM may renumber chunk rowids (lazy readers' keys)
            conn.execute("PRAGMA cache_size = -2048")  # the copy streams: no need to cache it
            try:
                conn.execute("VACUUM")
            finally:
                conn.execute(f"PRAGMA cache_size = {int(cache)}")
                conn.execute("PRAGMA shrink_memory")
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._sync_external()  # VACUUM does not move data_version for us; others' do
            return max(0, before - _size(self.path))

    def _upgrade_if_old(self) -> None:
        if schema_version(self._conn) < SCHEMA_VERSION:
            self.upgrade()

    def _write_batch(self, items: list[DocumentInput], embedder: Any,
                     summarize: SummarizeFn | None) -> tuple[list[DocumentWrite], int]:
        """One transaction: the documents of ``items`` (distinct ids), one rebuild."""
        conn = self._conn
        with write_transaction(conn):
            # others' commits up to our lock (BEGIN may have waited for them): their changes
            # reach our caches now, and our own commit does not move data_version for us
            self._sync_external()
            writer = MentionWriter(conn)
            writes, written, removed, touched = self._insert_documents(items, writer)
            if not written:
                conn.execute("ROLLBACK")
                return writes, 0
            writer.flush()
            rebuilt = Rebuilder(conn, summarize, self.summary_threshold,
                                spaces=self._vector_format()[0]).rebuild(
                touched[0], touched[1], writer)
            chunks = [c for it in written for c in it.chunks]
            texts, dead = vector_changes(rebuilt, chunks, removed)
            upserts, embedded = self._write_vectors(texts, dead, merge_vectors(written),
                                                    embedder)
        self._invalidate()
        self._apply_vectors(upserts, dead)
        last = max(i for i, w in enumerate(writes) if w.status != "skipped")
        writes[last] = writes[last].model_copy(update={"embedded": embedded})
        return writes, embedded

    def _insert_documents(
        self, items: list[DocumentInput], writer: MentionWriter
    ) -> tuple[list[DocumentWrite], list[DocumentInput], list[str], tuple[set[str], set[str]]]:
        """Inside the transaction: delete replaced versions, insert documents, chunks and
        mentions. Returns the per-document outcomes, the items written, the chunk ids of
        replaced versions and the touched (entity keys, hyperedge ids)."""
        writes: list[DocumentWrite] = []
        written: list[DocumentInput] = []
        removed: list[str] = []
        touched_e: set[str] = set()
        touched_h: set[str] = set()
        seq = int(self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM documents").fetchone()[0])
        for it in items:
            # re-read under the write lock: another process may have written it meanwhile
            old_hash = self.document_hash(it.doc.id)
            if old_hash == it.doc.hash and not it.replace:
                writes.append(DocumentWrite(doc_id=it.doc.id, status="skipped"))
                continue
            doc_e: set[str] = set()
            doc_h: set[str] = set()
            if old_hash is not None:
                removed += delete_rows(self._conn, it.doc.id, doc_e, doc_h)
                writer.forget(doc_e, doc_h)
            seq += 1
            self._insert_rows(it.doc, it.chunks, seq)
            new_e, new_h = writer.write(it.chunks, it.extractions, it.themes)
            doc_e |= new_e
            doc_h |= new_h
            touched_e |= doc_e
            touched_h |= doc_h
            written.append(it)
            writes.append(DocumentWrite(
                doc_id=it.doc.id, status="replaced" if old_hash is not None else "added",
                chunks=len(it.chunks), entities_touched=len(doc_e),
                hyperedges_touched=len(doc_h)))
        return writes, written, removed, (touched_e, touched_h)

    def _insert_rows(self, doc: Document, chunks: Sequence[Chunk], seq: int) -> None:
        """The document row (sequence number ``seq``) and its chunk rows."""
        conn = self._conn
        conn.execute(
            "INSERT INTO documents(id, hash, title, text, metadata, seq) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            (doc.id, doc.hash, doc.title, doc.text, dumps(doc.metadata), seq),
        )
        try:
            conn.executemany(
                'INSERT INTO chunks(id, doc_id, idx, text, start, "end", metadata) '
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                [(c.id, c.doc_id, c.index, c.text, c.start, c.end, dumps(c.metadata))
                 for c in chunks],
            )
        except sqlite3.IntegrityError as exc:  # a chunk id another document holds
            taken = [(c, d) for c, d in chunk_owners(self._q, [c.id for c in chunks])
                     if d != doc.id]  # (this document's first chunks went in)
            if not taken:
                raise
            raise chunk_collision(doc.id, *taken[0]) from exc


def delete_rows(conn: Any, doc_id: str, touched_e: set[str], touched_h: set[str]) -> list[str]:
    """Delete a document's rows (mentions cascade) through ``conn`` (an SQLite connection,
    or the PostgreSQL store's ``?``-placeholder one); record the entity keys and hyperedge
    ids its mentions touched. Returns its chunk ids, in chunk order."""
    chunk_ids = [str(r[0]) for r in conn.execute(
        "SELECT id FROM chunks WHERE doc_id = ? ORDER BY idx", (doc_id,)).fetchall()]
    sub = "SELECT id FROM chunks WHERE doc_id = ?"
    touched_e.update(r[0] for r in conn.execute(
        f"SELECT DISTINCT key FROM entity_mentions WHERE chunk_id IN ({sub})",
        (doc_id,)).fetchall())
    touched_h.update(r[0] for r in conn.execute(
        f"SELECT DISTINCT hid FROM hyperedge_mentions WHERE chunk_id IN ({sub})",
        (doc_id,)).fetchall())
    conn.execute("DELETE FROM documents WHERE id = ?", (doc_id,))
    return chunk_ids


def delete_all_rows(conn: Any, doc_ids: Iterable[str]
                    ) -> tuple[list[str], set[str], set[str]]:
    """:func:`delete_rows` of every document of ``doc_ids``: their chunk ids, and the entity
    keys and hyperedge ids their mentions touched (what the rebuild must redo)."""
    touched_e: set[str] = set()
    touched_h: set[str] = set()
    removed: list[str] = []
    for doc_id in doc_ids:
        removed += delete_rows(conn, doc_id, touched_e, touched_h)
    return removed, touched_e, touched_h


def chunk_owners(q: Callable[..., list[Any]], ids: list[str]) -> list[tuple[str, str]]:
    """(chunk id, document id) of the stored chunks among ``ids``, by chunk id."""
    out: list[tuple[str, str]] = []
    for lo in range(0, len(ids), 500):
        part = ids[lo:lo + 500]
        out += q(f"SELECT id, doc_id FROM chunks WHERE id IN ({','.join('?' * len(part))}) "
                 "ORDER BY id", part)
    return sorted((str(c), str(d)) for c, d in out)


def chunk_collision(doc_id: str, chunk_id: str, holder: str) -> StoreError:
    """The error for a document whose chunk id is already held by another document (two
    documents can produce the same chunk id: it hashes the document id and the text)."""
    return StoreError(f"document {doc_id!r}: chunk id {chunk_id!r} is already used by "
                      f"document {holder!r}; nothing of {doc_id!r} was stored (give one of "
                      "the documents another id)")


@contextlib.contextmanager
def write_transaction(conn: sqlite3.Connection) -> Iterator[None]:
    """One write transaction of the store: ``BEGIN IMMEDIATE``; when the block ends, one
    more write counted (:func:`bump_writes`) and ``COMMIT``, unless the block rolled back
    itself (it had nothing to write); any exception rolls back and goes on."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
        if conn.in_transaction:
            bump_writes(conn)
            conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def bump_writes(conn: sqlite3.Connection) -> None:
    """Count one more write in the store's ``writes`` meta row (inside the write's
    transaction): :meth:`~.lookups.QueryLookupsMixin.query_generation` includes it, since
    ``PRAGMA data_version`` does not move for the connection's own commits."""
    conn.execute(f"INSERT INTO meta(key, value) VALUES ('{WRITES_KEY}', '1') ON CONFLICT(key) "
                 "DO UPDATE SET value = CAST(value AS INTEGER) + 1")


def _size(path: Path) -> int:
    """Bytes of the store file and its write-ahead log."""
    wal = log_files(path)[0]
    return path.stat().st_size + (wal.stat().st_size if wal.exists() else 0)
