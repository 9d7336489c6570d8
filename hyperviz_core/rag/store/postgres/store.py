"""The VizRAG store on PostgreSQL + pgvector: the same protocol as the SQLite store, shared.

Select it by URL wherever a store is accepted (``vizrag ... --store postgresql://...``,
``VizRAG("postgresql://...")``, the framework wrappers). Semantics equal the SQLite
backend's — a document's insert is one transaction, delete by document, identical re-insert
is a no-op, readers see one consistent snapshot — plus many writer processes at once:

* each write transaction takes a transaction-scoped advisory lock on its document id, then —
  in one statement, in a fixed global order (by 64-bit hash) — on every entity key and
  hyperedge id it touches, before it rebuilds their merged rows from the mentions. Two
  writers touching the same entity therefore merge one after the other, each seeing the
  other's committed mentions, so the final rows equal those of a sequential run;
* a write that renames an entity re-embeds the theme hyperedges holding it, locking them
  first (a lock taken out of the global order: a deadlock it may cause is retried);
* merged rows are written with ``INSERT ... ON CONFLICT DO UPDATE`` (the shared
  :mod:`~hyperviz_core.rag.store.sqlite.merge` code, run through a ``?``-placeholder adapter);
* serialization failures and deadlocks are retried (:class:`~.connection.Pool`);
* every write adds a row to ``data_changes`` (trimming old ones); a process drops its cached
  layers and vector indexes when that table's ``CHANGE_TOKEN`` (:mod:`.schema`) moved.

Credentials come from the URL or the standard ``PG*`` environment variables and are never
printed: :attr:`path` is the URL without password.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from types import TracebackType
from typing import Any

from ....model import Hypergraph
from ...types import Chunk, ChunkExtraction, ChunkTheme, Document, passage_text
from ...vectors import ExactVectorIndex, VectorIndex
from ..base import (
    BatchWrite,
    DocumentInput,
    DocumentWrite,
    StoreError,
    VectorsArg,
    validate_write,
)
from ..batch import (
    NO_DELETE,
    delete_counts,
    delete_ids,
    merge_vectors,
    split_repeats,
    vector_changes,
)
from ..lookups import passage_title
from ..protocol import SummarizeFn
from ..sqlite.merge import MentionWriter
from ..sqlite.reads import StoreReadsMixin
from ..sqlite.rebuild import Rebuilder
from ..sqlite.schema import dumps
from ..sqlite.writes import chunk_collision, delete_all_rows, delete_rows
from .connection import Pool, QmarkConnection
from .inspect import PgInspectMixin
from .lexical import create_tables, tables_exist, write_postings
from .lookups import PgQueryLookupsMixin
from .metadata_updates import PgMetadataUpdatesMixin
from .schema import CHANGE_TOKEN, LOCK_KEYS, NOTE_CHANGE, PgSchemaMixin, mask_url
from .vectors import PgVectorMixin

__all__ = ["PostgresStore"]

log = logging.getLogger(__name__)


class _ReadConnection:
    """What the shared read mixin calls ``_conn``: each ``execute`` is one snapshot read."""

    def __init__(self, pool: Pool) -> None:
        self.pool = pool

    def execute(self, sql: str, params: Sequence[Any] = ()) -> _Rows:
        return _Rows(self.pool.query(sql, params))


class _Rows:
    def __init__(self, rows: list[Any]) -> None:
        self.rows = rows

    def fetchall(self) -> list[Any]:
        return self.rows

    def fetchone(self) -> Any:
        return self.rows[0] if self.rows else None


class PostgresStore(PgSchemaMixin, StoreReadsMixin, PgInspectMixin, PgVectorMixin,
                    PgQueryLookupsMixin, PgMetadataUpdatesMixin):
    """A VizRAG store in a PostgreSQL database (with the pgvector extension).

    Args:
        url: ``postgresql://user[:password]@host[:port]/dbname`` or any libpq URI, e.g.
            ``postgresql://postgres:@/postgres?host=/path/to/socket-dir``.
        summary_threshold: merged descriptions longer than this are summarised on write.
        exact_limit: spaces with at most this many vectors are searched exactly in memory
            (like the SQLite store); larger ones through their HNSW index in PostgreSQL.
        max_connections: size of the connection pool.
        must_exist: open only a database holding a store (else StoreNotFoundError).
        upgrade_on_open: upgrade an older schema at open when the role may (else it is read
            as it is; readers of an old schema deadlocked with a writer upgrading it).
    """

    def __init__(self, url: str, *, summary_threshold: int = 4000, exact_limit: int = 50_000,
                 max_connections: int = 4, must_exist: bool = False,
                 upgrade_on_open: bool = True) -> None:
        self.url = url
        #: where the store lives, without credentials (what is printed)
        self.path = mask_url(url)
        self.summary_threshold = summary_threshold
        self.exact_limit = exact_limit
        self.read_only = False
        self._lock = threading.RLock()
        self._pool = Pool(url, max_size=max_connections)
        self._schema = self._open_schema(create=not must_exist, upgrade=upgrade_on_open)
        reason = create_tables(self._pool)  # lazy retrieval's postings (see .lexical)
        if reason is not None:
            log.info("%s: no postings tables, queries will load the store (%s)", self.path,
                     reason)
        self._conn = _ReadConnection(self._pool)  # type: ignore[assignment]
        self._bottom: Hypergraph | None = None
        self._top: Hypergraph | None = None
        self._indexes: dict[str, VectorIndex] = {}
        self._loaded: set[str] = set()
        self._version = self._data_version()

    # ------------------------------------------------------------------ plumbing
    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._pool.query(sql, params)

    def close(self) -> None:
        """Close the connection pool (the store object is unusable afterwards)."""
        self._pool.close()

    def read_snapshot(self) -> AbstractContextManager[None]:
        """Every read this thread makes through this store object inside the block sees one
        committed state (one read transaction held open, :meth:`Pool.pinned`); other
        processes go on writing; a write from this thread inside the block raises
        :class:`StoreError`. What ``copy_store`` reads a source through, so a copy is one
        state of the database."""
        return self._pool.pinned()

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"PostgresStore({self.path!r})"

    def _data_version(self) -> tuple[int, int]:
        row = self._q(CHANGE_TOKEN)[0]
        return int(row[0]), int(row[1])

    def _sync_external(self) -> None:
        """Drop caches if any process committed a write since we last looked."""
        version = self._data_version()
        if version != self._version:
            self._version = version
            self._invalidate(reload_vectors=True)

    def _invalidate(self, *, reload_vectors: bool = False) -> None:
        self._bottom = None
        self._top = None
        if reload_vectors:
            self._loaded.clear()
            for space, idx in list(self._indexes.items()):
                if isinstance(idx, ExactVectorIndex):
                    del self._indexes[space]
                else:  # a framework index given to set_vector_index: emptied, refilled
                    idx.remove(list(getattr(idx, "ids", None) or []))

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

        Same contract as :meth:`HypergraphStore.add_document
        <hyperviz_core.rag.store.HypergraphStore.add_document>`.
        """
        item = DocumentInput(doc=doc, chunks=chunks, extractions=extractions, themes=themes,
                             vectors=vectors)
        return self.add_documents([item], embedder=embedder, summarize=summarize).writes[0]

    def add_documents(self, items: Iterable[DocumentInput], *, embedder: Any = None,
                      summarize: SummarizeFn | None = None) -> BatchWrite:
        """Add (or replace) several documents in one transaction and one rebuild.

        Same contract as :meth:`HypergraphStore.add_documents
        <hyperviz_core.rag.store.HypergraphStore.add_documents>`; the transaction locks
        every document id of the batch, then every touched item, each in one statement.
        """
        items = list(items)
        for it in items:
            validate_write(it.doc, it.chunks, it.extractions, it.themes)
            refuse_nul(it)
        out = BatchWrite()
        for part in split_repeats(items):
            if all(self.document_hash(it.doc.id) == it.doc.hash and not it.replace
                   for it in part):
                out.writes.extend(DocumentWrite(doc_id=it.doc.id, status="skipped")
                                  for it in part)
                continue
            self.upgrade()  # a store of an older schema: its first write upgrades it
            def txn(c: QmarkConnection, part: list[DocumentInput] = part
                    ) -> tuple[list[DocumentWrite], int]:
                return self._write_batch(c, part, embedder, summarize)

            with self._lock:
                writes, embedded = self._pool.write(txn)
                if any(w.status != "skipped" for w in writes):
                    self._after_write()
                    out.transactions += 1
            out.writes.extend(writes)
            out.embedded += embedded
        return out

    def _write_batch(self, c: QmarkConnection, items: list[DocumentInput], embedder: Any,
                     summarize: SummarizeFn | None) -> tuple[list[DocumentWrite], int]:
        """The transaction of one batch (documents with distinct ids)."""
        c.execute(LOCK_KEYS, (["doc:" + it.doc.id for it in items],))
        writer = MentionWriter(c)  # type: ignore[arg-type]
        writes: list[DocumentWrite] = []
        written: list[DocumentInput] = []
        removed: list[str] = []
        touched_e: set[str] = set()
        touched_h: set[str] = set()
        passages: dict[str, str] = {}  # chunk id → the passage BM25 reads
        stored = {str(r[0]): str(r[1]) for r in c.execute(  # one round trip for the batch
            "SELECT id, hash FROM documents WHERE id = ANY(?)",
            ([it.doc.id for it in items],)).fetchall()}
        for it in items:
            doc = it.doc
            old_hash = stored.get(doc.id)
            if old_hash == doc.hash and not it.replace:
                writes.append(DocumentWrite(doc_id=doc.id, status="skipped"))
                continue
            doc_e: set[str] = set()
            doc_h: set[str] = set()
            if old_hash is not None:
                removed += delete_rows(c, doc.id, doc_e, doc_h)
                writer.forget(doc_e, doc_h)
            _refuse_taken_chunks(c, it)
            c.execute("INSERT INTO documents(id, hash, title, text, metadata) "
                      "VALUES (?, ?, ?, ?, ?)",
                      (doc.id, doc.hash, doc.title, doc.text, dumps(doc.metadata)))
            metas = [dumps(ch.metadata) for ch in it.chunks]
            c.executemany('INSERT INTO chunks(id, doc_id, idx, text, start, "end", metadata) '
                          "VALUES (?, ?, ?, ?, ?, ?, ?)",
                          [(ch.id, ch.doc_id, ch.index, ch.text, ch.start, ch.end, meta)
                           for ch, meta in zip(it.chunks, metas, strict=True)])
            passages.update((ch.id, passage_text(passage_title(doc.title, meta), ch.text))
                            for ch, meta in zip(it.chunks, metas, strict=True))
            new_e, new_h = writer.write(it.chunks, it.extractions, it.themes)
            doc_e |= new_e
            doc_h |= new_h
            touched_e |= doc_e
            touched_h |= doc_h
            written.append(it)
            writes.append(DocumentWrite(
                doc_id=doc.id, status="replaced" if old_hash is not None else "added",
                chunks=len(it.chunks), entities_touched=len(doc_e),
                hyperedges_touched=len(doc_h)))
        if not written:
            return writes, 0
        if tables_exist(c, writable=True):  # lazy retrieval's postings, same transaction
            write_postings(c, passages)
        writer.flush()
        rebuilt = self._rebuild(c, touched_e, touched_h, summarize, writer)
        chunks = [ch for it in written for ch in it.chunks]
        texts, dead = vector_changes(rebuilt, chunks, removed)
        embedded = self._write_vectors(c, texts, dead, merge_vectors(written), embedder)
        c.execute(NOTE_CHANGE)
        last = max(i for i, w in enumerate(writes) if w.status != "skipped")
        writes[last] = writes[last].model_copy(update={"embedded": embedded})
        return writes, embedded

    def delete_document(self, doc_id: str, *, embedder: Any = None,
                        summarize: SummarizeFn | None = None) -> dict[str, int]:
        """Remove a document and everything supported only by it (counts of what changed):
        :meth:`delete_documents` of ``[doc_id]``."""
        return self.delete_documents([doc_id], embedder=embedder, summarize=summarize)

    def delete_documents(self, doc_ids: Iterable[str], *, embedder: Any = None,
                         summarize: SummarizeFn | None = None) -> dict[str, int]:
        """Remove several documents in one transaction with one rebuild of what they touched.

        Same contract as :meth:`HypergraphStore.delete_documents
        <hyperviz_core.rag.store.HypergraphStore.delete_documents>`; the transaction locks
        every document id of the batch in one statement.
        """
        ids = delete_ids(doc_ids)
        if not ids:
            return dict(NO_DELETE)
        self.upgrade()

        def txn(c: QmarkConnection) -> dict[str, int]:
            c.execute(LOCK_KEYS, (["doc:" + i for i in ids],))
            stored = [r[0] for r in c.execute(
                "SELECT id FROM documents WHERE id = ANY(?) ORDER BY id", (ids,)).fetchall()]
            if not stored:
                return dict(NO_DELETE)
            removed, touched_e, touched_h = delete_all_rows(c, stored)
            rebuilt = self._rebuild(c, touched_e, touched_h, summarize)
            dead, counts = delete_counts(len(stored), removed, rebuilt)
            self._write_vectors(c, rebuilt.texts, dead, None, embedder)
            c.execute(NOTE_CHANGE)
            return counts

        with self._lock:
            result = self._pool.write(txn)
            if result["documents"]:
                self._after_write()
        return result

    def _rebuild(self, c: QmarkConnection, keys: set[str], hids: set[str],
                 summarize: SummarizeFn | None, fresh: MentionWriter | None = None) -> Any:
        """Lock every touched key (one statement, global hash order), then rebuild them."""
        c.execute(LOCK_KEYS, ([f"e:{k}" for k in sorted(keys)]
                              + [f"h:{h}" for h in sorted(hids)],))

        def lock(more: list[str]) -> None:  # untouched hyperedges of a renamed member
            c.execute(LOCK_KEYS, ([f"h:{h}" for h in more],))

        return Rebuilder(c, summarize, self.summary_threshold,  # type: ignore[arg-type]
                         spaces=self._vector_format()[0], lock=lock).rebuild(keys, hids, fresh)

    def _after_write(self) -> None:
        # Other processes may have committed too: rather than patching the loaded indexes
        # with our own vectors, drop every cache (reloaded on the next read).
        self._invalidate(reload_vectors=True)
        self._version = self._data_version()


def _nul_at(value: Any, where: str) -> str | None:
    """Where in ``value`` (a model dump) a string holds NUL, e.g. ``chunks[0].text``;
    JSON columns (``metadata``, ``member_attrs``) are left out: JSON escapes it."""
    if isinstance(value, str):
        return where if "\x00" in value else None
    if isinstance(value, dict):
        items: Iterable[tuple[str, Any]] = ((f"{where}.{k}" if where else str(k), v)
                                            for k, v in value.items()
                                            if k not in ("metadata", "member_attrs"))
    elif isinstance(value, list | tuple):
        items = ((f"{where}[{n}]", v) for n, v in enumerate(value))
    else:
        return None
    return next((found for path, v in items if (found := _nul_at(v, path))), None)


def _refuse_taken_chunks(c: QmarkConnection, item: DocumentInput) -> None:
    """Two documents can produce the same chunk id: refuse the second, naming both."""
    taken = [r for r in c.execute(
        "SELECT id, doc_id FROM chunks WHERE id = ANY(?) ORDER BY id",
        ([ch.id for ch in item.chunks],)).fetchall() if r[1] != item.doc.id]
    if taken:
        raise chunk_collision(item.doc.id, str(taken[0][0]), str(taken[0][1]))


def refuse_nul(item: DocumentInput) -> None:
    """Raise :class:`StoreError` naming the document and the field when a text of ``item``
    holds a NUL character, which PostgreSQL text cannot store (checked before the batch's
    transaction, so nothing of the batch is written)."""
    parts = [item.doc, *item.chunks, *item.extractions, *item.themes]
    if not any("\\u0000" in p.model_dump_json() for p in parts):  # the quick screen
        return
    dump = {"doc": item.doc.model_dump(), "chunks": [c.model_dump() for c in item.chunks],
            "extractions": [e.model_dump() for e in item.extractions],
            "themes": [t.model_dump() for t in item.themes]}
    where = _nul_at(dump, "")
    if where is not None:
        raise StoreError(f"document {item.doc.id!r}: {where} holds a NUL character (\\x00), "
                         "which PostgreSQL cannot store in text; remove it (e.g. "
                         "text.replace('\\x00', '')) and write the document again")
