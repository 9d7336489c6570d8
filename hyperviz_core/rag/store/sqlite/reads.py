"""Read side of :class:`~hyperviz_core.rag.store.HypergraphStore`: documents, chunks, themes.

Plain lookups of what the document transactions wrote: stored documents and their content
hashes, chunks (by id or in document order), chunk themes with their key entities, which
chunks carry each theme hyperedge, and the raw mentions of an entity.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterable
from typing import Any

from ....model import Entity, Hyperedge
from ...types import Chunk, ChunkExtraction, ChunkTheme, Document
from .damage import real
from .local_reads import LocalReadsMixin
from .merge import chunked
from .schema import loads
from .spans import DESCRIPTION_SQL

__all__ = ["StoreReadsMixin"]


class StoreReadsMixin(LocalReadsMixin):
    """Document, chunk, theme and mention lookups (mixed into the store); the per-query
    lookups by index (:meth:`neighbourhood`, :meth:`entity_chunks`, :meth:`document_titles`)
    come from :class:`~.local_reads.LocalReadsMixin`."""

    _conn: sqlite3.Connection
    _lock: threading.RLock
    _q: Callable[..., list[Any]]
    _invalidate: Callable[..., None]

    def release_layers(self) -> None:
        """Drop the cached layers (``bottom()``/``top()`` read them again when asked): lazy
        retrieval calls it after a query fell back to loading the whole store."""
        with self._lock:
            self._invalidate()

    def _has_spans(self) -> bool:
        """Whether the mention tables have the span columns of schema 3 (PostgreSQL: always,
        it is migrated when opened; SQLite overrides this)."""
        return True

    def _mention_description(self) -> str:
        """SQL of the description of a mention ``m`` joined with its chunk ``ch``."""
        return DESCRIPTION_SQL if self._has_spans() else "m.description"

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
        """Stored documents sorted by id (or those of ``ids`` that exist, in that order).

        ``one_chunk`` is read back from the chunks: such a document's one chunk has the
        document's own id (no windowed chunk has), so its hash is the one it was stored with.
        """
        sql = ("SELECT id, text, title, metadata, EXISTS (SELECT 1 FROM chunks c WHERE "
               "c.id = documents.id AND c.doc_id = documents.id) FROM documents")
        wanted = None if ids is None else list(ids)
        with self._lock:
            rows = (self._q(sql + " ORDER BY id") if wanted is None
                    else self._by_ids(sql + " WHERE id IN ({marks})", wanted))
        docs = {r[0]: Document(id=r[0], text=r[1], title=r[2],
                               metadata=loads(r[3], "documents", "metadata", r[0]),
                               one_chunk=bool(r[4])) for r in rows}
        if wanted is None:
            return list(docs.values())
        return [docs[i] for i in wanted if i in docs]

    def _by_ids(self, sql: str, ids: Iterable[str]) -> list[Any]:
        """Rows of ``sql`` (with ``{marks}`` where the ``IN`` list goes) for the distinct
        ``ids``, read at most 500 ids per statement; in no particular order."""
        rows: list[Any] = []
        for part in chunked(list(dict.fromkeys(ids))):
            rows.extend(self._q(sql.format(marks=",".join("?" * len(part))), part))
        return rows

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
                  metadata=loads(r[6], "chunks", "metadata", r[0]))
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
        wanted = None if chunk_ids is None else list(chunk_ids)
        theme_sql = "SELECT chunk_id, theme, keywords FROM themes"
        key_sql = "SELECT chunk_id, key, position FROM key_entities"
        with self._lock:
            if wanted is None:
                rows = self._q(theme_sql + " ORDER BY chunk_id")
                key_rows = self._q(key_sql + " ORDER BY chunk_id, position")
            else:  # only the wanted rows (a per-document copy must not read the table)
                rows = self._by_ids(theme_sql + " WHERE chunk_id IN ({marks})", wanted)
                key_rows = sorted(self._by_ids(key_sql + " WHERE chunk_id IN ({marks})",
                                               wanted), key=lambda r: (r[0], r[2]))
            keys: dict[str, list[str]] = {}
            for cid, key, _ in key_rows:
                keys.setdefault(cid, []).append(key)
        out = {
            r[0]: ChunkTheme(chunk_id=r[0], theme=r[1], key_entities=keys.get(r[0], []),
                             keywords=loads(r[2], "themes", "keywords", r[0]))
            for r in rows
        }
        if wanted is None:
            return list(out.values())
        return [out[c] for c in wanted if c in out]

    def theme_hyperedge_chunks(self) -> dict[str, list[str]]:
        """Map theme hyperedge id → the chunk ids whose theme it carries."""
        with self._lock:
            rows = self._q("SELECT hid, chunk_id FROM themes WHERE hid IS NOT NULL ORDER BY 1, 2")
        out: dict[str, list[str]] = {}
        for hid, cid in rows:
            out.setdefault(hid, []).append(cid)
        return out

    def extractions(self, doc_id: str) -> list[ChunkExtraction]:
        """The stored extraction output of a document's chunks, in chunk order.

        Rebuilt from the mention rows (one entity per chunk and key, relation hyperedges by
        id); theme hyperedges are left out — they come back from :meth:`themes`. Writing
        these with the same chunks and themes reproduces the document's merged rows (what
        ``vizrag migrate`` relies on).
        """
        desc = self._mention_description()
        with self._lock:
            ents = self._q(
                f"SELECT m.chunk_id, m.key, m.name, m.type, {desc}, m.metadata "
                "FROM entity_mentions m JOIN chunks ch ON ch.id = m.chunk_id "
                "WHERE ch.doc_id = ? ORDER BY m.chunk_id, m.key", (doc_id,))
            edges = self._q(
                f"SELECT m.chunk_id, m.hid, m.members, {desc}, m.keywords, m.weight, "
                "m.member_attrs, m.metadata FROM hyperedge_mentions m JOIN chunks ch ON "
                "ch.id = m.chunk_id WHERE ch.doc_id = ? AND m.kind = 'relation' "
                "ORDER BY m.chunk_id, m.hid", (doc_id,))
        out = {cid: ChunkExtraction(chunk_id=cid) for cid in self.chunk_ids(doc_id)}
        for cid, key, name, typ, desc, meta in ents:
            meta_value = loads(meta, "entity_mentions", "metadata", (key, cid))
            ent = Entity(name=name, type=typ, description=desc, metadata=meta_value)
            if ent.key == key:  # mentions made only for hyperedge members come back by
                out[cid].entities.append(ent)  # themselves (the writer re-adds them)
            else:
                out[cid].entities.append(Entity(name=key, type=typ, description=desc,
                                                metadata=meta_value))
        for cid, hid, members, desc, kws, weight, attrs, meta in edges:
            row, table = (hid, cid), "hyperedge_mentions"
            out[cid].hyperedges.append(Hyperedge(
                id=hid, members=loads(members, table, "members", row), description=desc,
                keywords=loads(kws, table, "keywords", row), weight=real(weight, table, row),
                member_attrs=loads(attrs, table, "member_attrs", row),
                metadata=loads(meta, table, "metadata", row)))
        return list(out.values())
