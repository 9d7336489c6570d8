"""Reads behind lazy retrieval (issue 17): candidate chunks, their evidence, compact arrays.

What :class:`~hyperviz_core.rag.retrieve.lazy.LazyCorpus` asks the SQLite store for instead
of loading both layers and every chunk: the chunks holding a query token (from the derived
FTS5 index of :mod:`.fts`), chunks by rowid, the source chunks of some entities and
hyperedges, the entity keys of some chunks, and — once per store state, as integer arrays
without texts or descriptions — the entity–hyperedge incidences and the chunk–entity
mentions the personalised PageRank walks over. Every lookup uses a primary key or an index
(``entity_mentions(key)``, ``hyperedge_mentions(hid)``, ``incidences``).

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag.store import HypergraphStore
    >>> from hyperviz_core.rag.types import Chunk, ChunkExtraction, Document
    >>> from hyperviz_core.model import Entity, Hyperedge
    >>> store = HypergraphStore(tempfile.mkdtemp())
    >>> ex = ChunkExtraction(chunk_id="c1", entities=[Entity(name="Hank Snow")],
    ...     hyperedges=[Hyperedge(members=["Hank Snow", "Nashville"])])
    >>> _ = store.add_document(Document(id="d", text="Hank Snow sang.", title="Snow"),
    ...     [Chunk(id="c1", doc_id="d", text="Hank Snow sang.")], [ex])
    >>> store.lexical_ready()
    True
    >>> [(c.id, title) for _, c, title in store.lexical_candidates(["sang"])]
    [('c1', 'Snow')]
    >>> store.close()
"""

from __future__ import annotations

import itertools
import sqlite3
import threading
import unicodedata
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt

from ...types import Chunk
from .fts import (
    ensure_chunk_fts,
    fts_ready,
    lengths,
    match_chunks,
    missing_lengths,
    postings,
    store_lengths,
)
from .local_reads import _BATCH, _batches
from .schema import loads
from .writes import WRITES_KEY

__all__ = ["QueryLookupsMixin"]

IntArray = npt.NDArray[np.int64]
_CHUNK_COLS = 'c.rowid, c.id, c.doc_id, c.text, c.idx, c.start, c."end", c.metadata, d.title'


def _pairs(cursor: Iterable[tuple[int, int]]) -> IntArray:
    flat = np.fromiter(itertools.chain.from_iterable(cursor), dtype=np.int64)
    return flat.reshape(-1, 2)


def _chunk(row: Any) -> tuple[int, Chunk, str]:
    rowid, cid, doc_id, text, idx, start, end, meta, title = row
    return int(rowid), Chunk(id=cid, doc_id=doc_id, text=text, index=idx, start=start,
                             end=end, metadata=loads(meta)), str(title or "")


def _title(doc_title: str | None, meta: str) -> str:
    """The title ranking gives a chunk: its document's, else ``metadata["title"]``."""
    return str(doc_title or loads(meta).get("title") or "")


def _passage(title: str, text: str) -> str:
    """``title + newline + text`` (the title once), as ``ChunkIndex.passage_text``."""
    if not title or text.lstrip().startswith(title):
        return text
    return f"{title}\n{text}"


_LETTERS = ("Lu", "Ll", "Lt", "Lm", "Lo", "Nd", "Nl", "No")
_SEPARATORS = ("Zs", "Zl", "Zp", "Pd", "Ps", "Pe", "Pi", "Pf", "Po", "Sm", "Sc", "Sk", "So",
               "Cc", "Cf")
_SAFE: dict[str, bool] = {}


def _safe_char(c: str) -> bool:
    """Whether FTS5 ``unicode61`` and Python's ``\\w`` agree on ``c`` as far as tokens of
    ASCII characters go: a letter or digit of an old block (both count it as a token
    character, it lower-cases to one non-ASCII character) or a separator for both. (The
    ASCII underscore is never asked about: both split words at it — FTS5 by default, BM25
    through ``lexical_text``.)"""
    ok = _SAFE.get(c)
    if ok is None:
        cat = unicodedata.category(c)
        cp = ord(c)
        old = cp < 0x2C00 or 0x3040 <= cp < 0xA000 or 0xAC00 <= cp < 0xD7A4
        low = c.lower()
        ok = (cat in _SEPARATORS and cp < 0x3000) or (
            cat in _LETTERS and old and len(low) == 1 and not low.isascii()
            and len(c.casefold()) == 1 and not c.casefold().isascii())
        _SAFE[c] = ok
    return ok


def _same_ascii_tokens(passage: str) -> bool:
    """Whether the FTS tokens of ``passage`` that are ASCII equal its BM25 tokens that are
    ASCII (ASCII text; else only characters of :func:`_safe_char`)."""
    return passage.isascii() or all(
        _safe_char(c) for c in set(passage) if not c.isascii())


class QueryLookupsMixin:
    """Lookups of lazy retrieval (mixed into :class:`~.store.HypergraphStore`)."""

    _conn: sqlite3.Connection
    _lock: threading.RLock
    _q: Callable[..., list[Any]]
    _members: Callable[[set[str]], dict[str, list[str]]]  # LocalReadsMixin's
    read_only: bool

    # ------------------------------------------------------------------ state
    def query_generation(self) -> tuple[int, int, int]:
        """A token that changes whenever a document is written or deleted (by this or
        another process): caches of derived query data are keyed by it.

        (``PRAGMA data_version``, the store's write counter, the last document sequence
        number): the first moves with other connections' commits, the second with every
        write of this version (this connection's included — after a delete and an add the
        document count and last sequence number may be what they were)."""
        with self._lock:
            dv = int(self._conn.execute("PRAGMA data_version").fetchone()[0])
            writes = self._conn.execute(
                "SELECT CAST(value AS INTEGER) FROM meta WHERE key = ?", (WRITES_KEY,)
            ).fetchone()
            seq = self._conn.execute("SELECT COALESCE(MAX(seq), 0) FROM documents").fetchone()
        return dv, int(writes[0]) if writes else 0, int(seq[0])

    def lexical_ready(self) -> bool:
        """Whether BM25 candidates can come from the FTS5 index (made on first use; False
        on a read-only store that lacks it)."""
        with self._lock:
            if self.read_only:
                return fts_ready(self._conn)
            return ensure_chunk_fts(self._conn)

    def lexical_candidates(self, tokens: Iterable[str]) -> list[tuple[int, Chunk, str]]:
        """(rowid, chunk, document title) of every chunk whose passage holds a token."""
        with self._lock:
            rows = match_chunks(self._conn, sorted(set(tokens)), _CHUNK_COLS.replace(
                "d.title", "(SELECT d.title FROM documents d WHERE d.id = c.doc_id)"))
        return [_chunk(r) for r in rows]

    def lexical_postings(self, terms: Iterable[str]) -> dict[str, tuple[IntArray, IntArray]]:
        """Token → (chunk rowids, occurrences) of the passages holding it (FTS tokens)."""
        with self._lock:
            return {t: postings(self._conn, t) for t in sorted(set(terms))}

    def lexical_lengths(self, measure: Callable[[str], int]) -> tuple[IntArray, IntArray,
                                                                      IntArray]:
        """(rowids, BM25 lengths, exact flags) of every chunk. ``measure(passage)`` gives
        the length of the passages not measured yet (stored for the next reader when the
        store is writable); *exact* means the passage equals its indexed body and its
        FTS tokens made of ASCII characters are its BM25 tokens made of ASCII characters
        (:func:`_same_ascii_tokens`), so ASCII query tokens may be counted by FTS."""
        with self._lock:
            fresh = []
            for rowid, text, meta, title, body in missing_lengths(self._conn):
                passage = _passage(_title(title, meta), text)
                fresh.append((int(rowid), measure(passage),
                              int(body == passage and _same_ascii_tokens(passage))))
            if fresh and not self.read_only:
                store_lengths(self._conn, fresh)
            rows = {r: (d, e) for r, d, e in lengths(self._conn)}
            rows.update((r, (d, e)) for r, d, e in fresh)
        order = sorted(rows)
        return (np.asarray(order, dtype=np.int64),
                np.asarray([rows[r][0] for r in order], dtype=np.int64),
                np.asarray([rows[r][1] for r in order], dtype=np.int64))

    def lexical_passages(self, rowids: Iterable[int]) -> dict[int, str]:
        """rowid → the passage BM25 reads (title + newline + text)."""
        out: dict[int, str] = {}
        with self._lock:
            for part in _batches(int(r) for r in rowids):
                marks = ",".join("?" * len(part))
                for rowid, text, meta, title in self._q(
                        "SELECT c.rowid, c.text, c.metadata, d.title FROM chunks c JOIN "
                        f"documents d ON d.id = c.doc_id WHERE c.rowid IN ({marks})", part):
                    out[int(rowid)] = _passage(_title(title, meta), text)
        return out

    def iter_passages(self, batch: int = _BATCH) -> Iterator[str]:
        """Every chunk's passage (as :meth:`lexical_passages`), in rowid order, read
        ``batch`` chunks at a time (keyset pages: one page in memory, the store's lock held
        per page only)."""
        sql = ("SELECT c.rowid, c.text, c.metadata, d.title FROM chunks c JOIN documents d "
               "ON d.id = c.doc_id {where} ORDER BY c.rowid LIMIT ?")
        last: int | None = None
        while True:
            with self._lock:
                if last is None:
                    rows = self._q(sql.format(where=""), (batch,))
                else:
                    rows = self._q(sql.format(where="WHERE c.rowid > ?"), (last, batch))
            for _rowid, text, meta, title in rows:
                yield _passage(_title(title, meta), text)
            if len(rows) < batch:
                return
            last = int(rows[-1][0])

    # ------------------------------------------------------------------ chunks
    def chunk_catalogue(self) -> list[tuple[int, str, str, int, str, str | None]]:
        """(rowid, chunk id, doc id, index, document title, metadata JSON when the title is
        empty) of every chunk, by chunk id — no texts."""
        with self._lock:
            rows = self._q(
                "SELECT c.rowid, c.id, c.doc_id, c.idx, d.title, "
                "CASE WHEN d.title = '' THEN c.metadata END "
                "FROM chunks c JOIN documents d ON d.id = c.doc_id ORDER BY c.id")
        return [(int(r[0]), r[1], r[2], int(r[3]), str(r[4] or ""), r[5]) for r in rows]

    def chunks_by_rowid(self, rowids: Iterable[int]) -> dict[int, tuple[Chunk, str]]:
        """rowid → (chunk, document title)."""
        out: dict[int, tuple[Chunk, str]] = {}
        with self._lock:
            for part in _batches(int(r) for r in rowids):
                marks = ",".join("?" * len(part))
                for row in self._q(f"SELECT {_CHUNK_COLS} FROM chunks c JOIN documents d "
                                   f"ON d.id = c.doc_id WHERE c.rowid IN ({marks})", part):
                    rowid, chunk, title = _chunk(row)
                    out[rowid] = (chunk, title)
        return out

    def chunk_rowids(self, ids: Iterable[str]) -> dict[str, int]:
        """Chunk id → rowid (unknown ids left out)."""
        out: dict[str, int] = {}
        with self._lock:
            for part in _batches(ids):
                marks = ",".join("?" * len(part))
                out.update((r[0], int(r[1])) for r in self._q(
                    f"SELECT id, rowid FROM chunks WHERE id IN ({marks})", part))
        return out

    def chunk_heads(self, rowids: Iterable[int], chars: int) -> dict[int, str]:
        """rowid → the first ``chars`` characters of the chunk's text."""
        out: dict[int, str] = {}
        with self._lock:
            for part in _batches(int(r) for r in rowids):
                marks = ",".join("?" * len(part))
                out.update((int(r[0]), r[1]) for r in self._q(
                    f"SELECT rowid, substr(text, 1, ?) FROM chunks WHERE rowid IN ({marks})",
                    [chars, *part]))
        return out

    # ------------------------------------------------------------------ evidence
    def hyperedge_source_rowids(self, hids: Iterable[str]) -> dict[str, list[int]]:
        """Relation hyperedge id → rowids of the chunks it was extracted from."""
        return self._sources(
            "SELECT m.hid, c.rowid FROM hyperedge_mentions m JOIN chunks c ON c.id = m.chunk_id"
            " WHERE m.hid IN ({marks}) AND EXISTS (SELECT 1 FROM hyperedges h WHERE h.id = "
            "m.hid AND h.kind = 'relation')", hids)

    def _sources(self, sql: str, names: Iterable[str]) -> dict[str, list[int]]:
        out: dict[str, set[int]] = {}
        with self._lock:
            for part in _batches(names):
                for name, rowid in self._q(sql.format(marks=",".join("?" * len(part))), part):
                    out.setdefault(name, set()).add(int(rowid))
        return {k: sorted(v) for k, v in sorted(out.items())}

    def chunk_entity_keys(self, rowids: Iterable[int]) -> dict[int, list[str]]:
        """Chunk rowid → sorted keys of the entities extracted from it."""
        out: dict[int, list[str]] = {}
        with self._lock:
            for part in _batches(int(r) for r in rowids):
                marks = ",".join("?" * len(part))
                for rowid, key in self._q(
                        "SELECT c.rowid, m.key FROM chunks c JOIN entity_mentions m ON "
                        f"m.chunk_id = c.id JOIN entities e ON e.key = m.key "
                        f"WHERE c.rowid IN ({marks}) ORDER BY 1, 2", part):
                    out.setdefault(int(rowid), []).append(key)
        return out

    def entity_info(self, keys: Iterable[str]) -> dict[str, tuple[str, str]]:
        """Entity key → (name, type) for the keys that exist."""
        out: dict[str, tuple[str, str]] = {}
        with self._lock:
            for part in _batches(keys):
                marks = ",".join("?" * len(part))
                out.update((r[0], (r[1], r[2])) for r in self._q(
                    f"SELECT key, name, type FROM entities WHERE key IN ({marks})", part))
        return out

    def hyperedge_kinds(self, hids: Iterable[str]) -> dict[str, str]:
        """Hyperedge id → kind (``relation``/``theme``) for the ids that exist."""
        out: dict[str, str] = {}
        with self._lock:
            for part in _batches(hids):
                marks = ",".join("?" * len(part))
                out.update((r[0], r[1]) for r in self._q(
                    f"SELECT id, kind FROM hyperedges WHERE id IN ({marks})", part))
        return out

    def hyperedge_members(self, hids: Iterable[str]) -> dict[str, list[str]]:
        """Hyperedge id → member keys in order (the ids that exist)."""
        with self._lock:
            return self._members(set(hids))

    # ------------------------------------------------------------------ compact arrays
    def entity_catalogue(self) -> tuple[list[str], IntArray]:
        """Every entity key sorted, and the rowid of each."""
        with self._lock:
            rows = self._q("SELECT key, rowid FROM entities ORDER BY key")
        return [r[0] for r in rows], np.asarray([r[1] for r in rows], dtype=np.int64)

    def layer_structure(self, kind: str) -> tuple[list[str], IntArray, IntArray]:
        """The incidence structure of the hyperedges of ``kind`` without their texts:
        (their ids sorted, their rowids in that order, (hyperedge rowid, entity rowid)
        pairs in (id, member position) order)."""
        with self._lock:
            rows = self._q("SELECT id, rowid FROM hyperedges WHERE kind = ? ORDER BY id",
                           (kind,))
            pairs = _pairs(self._conn.execute(
                "SELECT h.rowid, e.rowid FROM incidences i JOIN hyperedges h ON h.id = i.hid "
                "JOIN entities e ON e.key = i.entity_key WHERE h.kind = ? "
                "ORDER BY i.hid, i.position", (kind,)))
        return ([r[0] for r in rows], np.asarray([r[1] for r in rows], dtype=np.int64),
                pairs)

    def top_entity_keys(self) -> list[str]:
        """Keys of the entities of G_top (key entities of some theme), sorted."""
        with self._lock:
            return [r[0] for r in self._q("SELECT DISTINCT key FROM key_entities ORDER BY key")]

    def mention_rowids(self) -> IntArray:
        """Distinct (chunk rowid, entity rowid) pairs of every mention of an entity."""
        with self._lock:
            return _pairs(self._conn.execute(
                "SELECT c.rowid, e.rowid FROM entity_mentions m JOIN chunks c ON "
                "c.id = m.chunk_id JOIN entities e ON e.key = m.key"))
