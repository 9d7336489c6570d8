"""The embedded VizRAG store: one SQLite file (WAL) holding both hypergraph layers.

Documents, chunks, the raw per-chunk extraction output (entity and hyperedge *mentions*),
merged entities and hyperedges with ordered incidences, chunk themes and key entities,
float32 embeddings per space and the LLM-call cache live in one file. Merged rows are always
rebuilt from the mentions, so deleting a document restores exactly what the remaining
documents support. Every document write is one transaction: a crash leaves the store as it
was before that document.

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
import sqlite3
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Literal

from pydantic import BaseModel, Field

from ..model import Entity, Hyperedge, Hypergraph
from .store_merge import MentionWriter, Rebuilder, chunked
from .store_schema import StoreError, dumps, loads, open_connection, resolve_path
from .store_vectors import VectorsArg, VectorStoreMixin
from .types import Chunk, ChunkExtraction, ChunkTheme, Document
from .vectors import SPACES, ExactVectorIndex, VectorIndex

__all__ = ["DocumentWrite", "HypergraphStore", "StoreError", "StoreStats"]

log = logging.getLogger(__name__)

SummarizeFn = Callable[[str, str], str]


class StoreStats(BaseModel):
    """Counts of a store (what ``vizrag stats`` prints)."""

    documents: int
    chunks: int
    entities: int
    relation_hyperedges: int
    theme_hyperedges: int
    key_entities: int
    themes: int = 0
    vectors: dict[str, int] = Field(default_factory=dict)
    embedder: str | None = None
    embedding_dim: int | None = None
    llm_cache_entries: int = 0
    path: str = ""


class DocumentWrite(BaseModel):
    """Outcome of :meth:`HypergraphStore.add_document`."""

    doc_id: str
    status: Literal["added", "replaced", "skipped"]
    chunks: int = 0
    entities_touched: int = 0
    hyperedges_touched: int = 0
    embedded: int = 0


class HypergraphStore(VectorStoreMixin):
    """A VizRAG store in a directory (``vizrag.sqlite`` inside) or a ``.sqlite`` file.

    Thread-safe (one connection behind a lock). ``bottom()``/``top()`` are cached and must
    not be mutated by callers (use ``.copy()``); writes from this or another process
    invalidate the caches.
    """

    def __init__(self, path: str | Path, *, summary_threshold: int = 4000) -> None:
        from .. import __version__

        self.path = resolve_path(path)
        self.summary_threshold = summary_threshold
        self._conn = open_connection(self.path, version=__version__)
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
            with contextlib.suppress(sqlite3.Error):
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()

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

    # ------------------------------------------------------------------ documents
    def has_document(self, doc_id: str) -> bool:
        """Whether a document with this id is stored."""
        return self.document_hash(doc_id) is not None

    def document_hash(self, doc_id: str) -> str | None:
        """Content hash of the stored document ``doc_id`` (None if absent)."""
        with self._lock:
            row = self._conn.execute("SELECT hash FROM documents WHERE id = ?", (doc_id,))
            found = row.fetchone()
        return None if found is None else str(found[0])

    def documents(self, ids: Iterable[str] | None = None) -> list[Document]:
        """Stored documents sorted by id (or those of ``ids`` that exist, in that order)."""
        with self._lock:
            rows = self._q("SELECT id, text, title, metadata FROM documents ORDER BY id")
        docs = {r[0]: Document(id=r[0], text=r[1], title=r[2], metadata=loads(r[3])) for r in rows}
        if ids is None:
            return list(docs.values())
        return [docs[i] for i in ids if i in docs]

    def get_document(self, doc_id: str) -> Document | None:
        """One document, or None."""
        found = self.documents([doc_id])
        return found[0] if found else None

    def chunks(self, ids: Iterable[str] | None = None) -> list[Chunk]:
        """Chunks sorted by (doc id, index), or those of ``ids`` that exist, in that order."""
        sql = 'SELECT id, doc_id, text, idx, start, "end", metadata FROM chunks'
        with self._lock:
            if ids is None:
                rows = self._q(sql + " ORDER BY doc_id, idx")
            else:
                wanted = list(dict.fromkeys(ids))
                rows = []
                for part in chunked(wanted):
                    marks = ",".join("?" * len(part))
                    rows.extend(self._q(f"{sql} WHERE id IN ({marks})", part))
                order = {cid: i for i, cid in enumerate(wanted)}
                rows.sort(key=lambda r: order[r[0]])
        return [
            Chunk(id=r[0], doc_id=r[1], text=r[2], index=r[3], start=r[4], end=r[5],
                  metadata=loads(r[6]))
            for r in rows
        ]

    def chunk_ids(self, doc_id: str | None = None) -> list[str]:
        """Chunk ids of one document (in order) or of the whole store (by doc id, index)."""
        with self._lock:
            if doc_id is None:
                rows = self._q("SELECT id FROM chunks ORDER BY doc_id, idx")
            else:
                rows = self._q("SELECT id FROM chunks WHERE doc_id = ? ORDER BY idx", (doc_id,))
        return [r[0] for r in rows]

    def chunk_doc_ids(self) -> dict[str, str]:
        """Map chunk id → document id for every chunk."""
        with self._lock:
            return dict(self._q("SELECT id, doc_id FROM chunks ORDER BY id"))

    def themes(self, chunk_ids: Iterable[str] | None = None) -> list[ChunkTheme]:
        """Chunk themes (sorted by chunk id, or in the order of ``chunk_ids``)."""
        with self._lock:
            rows = self._q("SELECT chunk_id, theme, keywords FROM themes ORDER BY chunk_id")
            keys: dict[str, list[str]] = {}
            for cid, key in self._q(
                "SELECT chunk_id, key FROM key_entities ORDER BY chunk_id, position"
            ):
                keys.setdefault(cid, []).append(key)
        out = {
            r[0]: ChunkTheme(chunk_id=r[0], theme=r[1], key_entities=keys.get(r[0], []),
                             keywords=loads(r[2]))
            for r in rows
        }
        if chunk_ids is None:
            return list(out.values())
        return [out[c] for c in chunk_ids if c in out]

    def theme_hyperedge_chunks(self) -> dict[str, list[str]]:
        """Map theme hyperedge id → the chunk ids whose theme it carries."""
        with self._lock:
            rows = self._q("SELECT hid, chunk_id FROM themes WHERE hid IS NOT NULL ORDER BY 1, 2")
        out: dict[str, list[str]] = {}
        for hid, cid in rows:
            out.setdefault(hid, []).append(cid)
        return out

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
        embedded with ``embedder`` (an :class:`~hyperviz_core.rag.models.Embedder`) when
        given. ``summarize(name, description)`` shortens merged descriptions longer than
        ``summary_threshold`` characters.
        """
        self._validate_write(doc, chunks, extractions, themes)
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
                writer = MentionWriter(conn)
                writer.write(chunks, extractions, themes)
                touched_e |= writer.entity_keys
                touched_h |= writer.hyperedge_ids
                rebuilt = Rebuilder(conn, summarize, self.summary_threshold).rebuild(
                    touched_e, touched_h
                )
                texts = dict(rebuilt.texts)
                texts["chunk"] = {c.id: _chunk_text(c) for c in chunks}
                dead = dict(rebuilt.dead)
                dead["chunk"] = sorted(set(removed_chunks) - {c.id for c in chunks})
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

    # ------------------------------------------------------------------ graphs
    def bottom(self) -> Hypergraph:
        """G_bot: every entity and every relation hyperedge (cached; do not mutate)."""
        with self._lock:
            self._sync_external()
            if self._bottom is None:
                self._bottom = self._graph("relation", None)
            return self._bottom

    def top(self) -> Hypergraph:
        """G_top: key entities and theme hyperedges (cached; do not mutate)."""
        with self._lock:
            self._sync_external()
            if self._top is None:
                keys = {r[0] for r in self._q("SELECT DISTINCT key FROM key_entities")}
                self._top = self._graph("theme", keys)
            return self._top

    def _graph(self, kind: Literal["relation", "theme"], keys: set[str] | None) -> Hypergraph:
        entities: dict[str, Entity] = {}
        for key, name, typ, desc, meta, src in self._q(
            "SELECT key, name, type, description, metadata, source_ids FROM entities ORDER BY key"
        ):
            if keys is None or key in keys:
                entities[key] = Entity.model_construct(
                    name=name, type=typ, description=desc, source_ids=loads(src),
                    metadata=loads(meta))
        members: dict[str, list[str]] = {}
        for hid, key in self._q(
            "SELECT i.hid, i.entity_key FROM incidences i JOIN hyperedges h ON h.id = i.hid "
            "WHERE h.kind = ? ORDER BY i.hid, i.position", (kind,)
        ):
            members.setdefault(hid, []).append(key)
        edges: dict[str, Hyperedge] = {}
        for hid, desc, kw, weight, attrs, meta, src in self._q(
            "SELECT id, description, keywords, weight, member_attrs, metadata, source_ids "
            "FROM hyperedges WHERE kind = ? ORDER BY id", (kind,)
        ):
            mem = members.get(hid, [])
            edges[hid] = Hyperedge.model_construct(
                id=hid, members=mem, description=desc, keywords=loads(kw), weight=weight,
                order="low" if len(mem) <= 2 else "high", kind=kind, source_ids=loads(src),
                member_attrs=loads(attrs), metadata=loads(meta))
        return Hypergraph(entities=entities, hyperedges=edges,
                          metadata={"layer": "bottom" if kind == "relation" else "top"})

    # ------------------------------------------------------------------ cache
    def cache_get(self, key: str) -> str | None:
        """A cached LLM response, or None."""
        with self._lock:
            row = self._conn.execute("SELECT value FROM llm_cache WHERE key = ?", (key,))
            found = row.fetchone()
        return None if found is None else str(found[0])

    def cache_put(self, key: str, value: str, model: str = "") -> None:
        """Store an LLM response (committed at once, outside document transactions)."""
        with self._lock:
            self._conn.execute(
                "INSERT OR REPLACE INTO llm_cache(key, value, model, created) VALUES (?, ?, ?, ?)",
                (key, value, model, time.time()),
            )

    def cache_size(self) -> int:
        """Number of cached LLM responses."""
        with self._lock:
            return int(self._conn.execute("SELECT COUNT(*) FROM llm_cache").fetchone()[0])

    # ------------------------------------------------------------------ stats
    def stats(self) -> StoreStats:
        """Counts of documents, chunks, entities, hyperedges, themes and vectors."""
        with self._lock:
            one = lambda sql: int(self._conn.execute(sql).fetchone()[0])  # noqa: E731
            kinds = dict(self._q("SELECT kind, COUNT(*) FROM hyperedges GROUP BY kind"))
            vecs = dict(self._q("SELECT space, COUNT(*) FROM embeddings GROUP BY space"))
            info = self.embedder_info()
            return StoreStats(
                documents=one("SELECT COUNT(*) FROM documents"),
                chunks=one("SELECT COUNT(*) FROM chunks"),
                entities=one("SELECT COUNT(*) FROM entities"),
                relation_hyperedges=int(kinds.get("relation", 0)),
                theme_hyperedges=int(kinds.get("theme", 0)),
                key_entities=one("SELECT COUNT(DISTINCT key) FROM key_entities"),
                themes=one("SELECT COUNT(*) FROM themes"),
                vectors={s: int(vecs.get(s, 0)) for s in SPACES},
                embedder=info[0] if info else None,
                embedding_dim=info[1] if info else None,
                llm_cache_entries=one("SELECT COUNT(*) FROM llm_cache"),
                path=str(self.path),
            )

    def check(self) -> list[str]:
        """Integrity problems found by SQLite and by cross-table checks (empty = healthy)."""
        problems: list[str] = []
        with self._lock:
            res = [r[0] for r in self._q("PRAGMA integrity_check")]
            if res != ["ok"]:
                problems.extend(res)
            problems.extend(f"foreign key violation in {r[0]}"
                            for r in self._q("PRAGMA foreign_key_check"))
            for (key,) in self._q(
                "SELECT key FROM entities WHERE key NOT IN (SELECT key FROM entity_mentions)"
            ):
                problems.append(f"entity {key!r} has no mention")
            for (hid,) in self._q(
                "SELECT id FROM hyperedges WHERE id NOT IN (SELECT hid FROM hyperedge_mentions)"
            ):
                problems.append(f"hyperedge {hid!r} has no mention")
            for (doc,) in self._q(
                "SELECT id FROM documents WHERE trim(text) != '' "
                "AND id NOT IN (SELECT doc_id FROM chunks)"
            ):
                problems.append(f"document {doc!r} has no chunks")
        return problems

    def iter_entity_mentions(self, key: str) -> Iterator[tuple[str, str]]:
        """(chunk id, description) of every mention of an entity key."""
        with self._lock:
            rows = self._q(
                "SELECT chunk_id, description FROM entity_mentions WHERE key = ? ORDER BY 1",
                (key,))
        yield from ((r[0], r[1]) for r in rows)


def _chunk_text(chunk: Chunk) -> str:
    title = str(chunk.metadata.get("title", "") or "")
    return f"{title}\n{chunk.text}" if title else chunk.text
