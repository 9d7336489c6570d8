"""Vector side of the PostgreSQL store: pgvector columns, HNSW search, in-memory exact index.

Embeddings are ``vector(dim)`` values keyed by (space, id) with the hash of the text they
embed. Once the embedder's dimension is known the column is typed; one HNSW cosine index per
space is built when the space first outgrows exact search. ``vector_index(space)`` returns
the SQLite backend's exact in-memory index while a space holds at most ``exact_limit``
vectors (identical, deterministic results on small stores), and a :class:`PgVectorIndex`
(HNSW search inside PostgreSQL, no vectors loaded) above that.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from ...vectors import (
    SPACES,
    ExactVectorIndex,
    VectorIndex,
    as_matrix,
    bump_epoch,
    stored_unit_columns,
)
from ..base import StoreError, VectorsArg, check_embedder, check_space
from ..compact import parse_spaces, storable_row
from ..sqlite.vectors import with_stored_vectors
from ..vector_plan import plan_space, unchanged_ids
from .connection import Pool, QmarkConnection
from .schema import hnsw_index_sql

__all__ = ["PgVectorIndex", "PgVectorMixin", "vector_literal"]


def vector_literal(row: npt.ArrayLike, dtype: str = "float32") -> str:
    """pgvector's text form of one vector, rounded to the stored precision first (float16
    for ``halfvec``), so the values read back are exactly those SQLite's compact format
    stores (:func:`~..compact.storable_row`: non-finite rows refused, rows float16 cannot
    hold normalised, as on SQLite)."""
    arr = storable_row(row, dtype)
    if dtype == "float16":
        arr = arr.astype(np.float16)
    return "[" + ",".join(repr(float(x)) for x in arr) + "]"


def _vtype(dtype: str) -> str:
    """The pgvector column type of a stored precision."""
    return "halfvec" if dtype == "float16" else "vector"


def _unpack(blobs: Sequence[bytes], dtype: str) -> npt.NDArray[np.float32]:
    """Rows of pgvector's binary format (int16 dim, int16 unused, big-endian float32s, or
    float16s for ``halfvec``)."""
    kind = ">f2" if dtype == "float16" else ">f4"
    return np.stack([np.frombuffer(b, dtype=kind, offset=4) for b in blobs]).astype(np.float32)


class PgVectorIndex:
    """HNSW cosine search over one space, inside PostgreSQL (nothing loaded in memory).

    Results are the ``k`` best ``(id, cosine)`` pairs, best first, ties by id; approximate
    like every HNSW search (``ef_search`` is raised with ``k``). ``add``/``remove`` are not
    supported: vectors change only through the store's document transactions.
    """

    def __init__(self, pool: Pool, space: str, dtype: str = "float32") -> None:
        self.pool = pool
        self.space = space
        self.dtype = dtype

    def add(self, ids: Sequence[str], matrix: npt.ArrayLike) -> None:
        raise StoreError("vectors of a PostgreSQL store change only with its documents")

    def remove(self, ids: Sequence[str]) -> None:
        raise StoreError("vectors of a PostgreSQL store change only with its documents")

    def search(self, query_vec: npt.ArrayLike, k: int) -> list[tuple[str, float]]:
        if k <= 0:
            return []
        q = vector_literal(np.asarray(query_vec, dtype=np.float32).ravel(), self.dtype)
        vt = _vtype(self.dtype)
        with self.pool.read() as c:
            c.execute(f"SET LOCAL hnsw.ef_search = {max(40, 2 * int(k))}")
            rows = c.execute(
                f"SELECT id, 1 - (vector <=> ?::{vt}) FROM embeddings WHERE space = ? "
                f"ORDER BY vector <=> ?::{vt} LIMIT ?", (q, self.space, q, 2 * int(k))
            ).fetchall()
        best = sorted((-float(s), str(i)) for i, s in rows)[:k]
        return [(i, -neg) for neg, i in best]

    def __len__(self) -> int:
        with self.pool.read() as c:
            row = c.execute("SELECT COUNT(*) FROM embeddings WHERE space = ?",
                            (self.space,)).fetchone()
        return int(row[0])


class PgVectorMixin:
    """Embedding storage and vector indexes of the PostgreSQL store (mixed into it)."""

    path: str
    exact_limit: int
    _pool: Pool
    _lock: threading.RLock
    _indexes: dict[str, VectorIndex]
    _loaded: set[str]
    #: per space, how many indexes were set with :meth:`set_vector_index` (a search holding
    #: a copy of the space drops it when its count moves, and asks the index)
    vector_index_epochs: Mapping[str, int] = MappingProxyType({})

    def _sync_external(self) -> None:  # overridden by the store
        return None

    def _vector_format(self) -> tuple[tuple[str, ...], str]:
        """(spaces this store embeds, ``"float16"``/``"float32"``), from its metadata."""
        with self._pool.read() as c:
            meta = dict(c.execute("SELECT key, value FROM meta WHERE key IN "
                                  "('vector_spaces', 'vector_dtype')").fetchall())
        return parse_spaces(meta.get("vector_spaces")), meta.get("vector_dtype") or "float32"

    def vector_spaces(self) -> tuple[str, ...]:
        """The spaces this store keeps vectors for (new stores: entity, theme, chunk)."""
        return self._vector_format()[0]

    def embedder_info(self) -> tuple[str, int] | None:
        """(name, dim) of the embedder whose vectors the store holds, or None."""
        with self._pool.read() as c:
            meta = dict(c.execute("SELECT key, value FROM meta WHERE key IN "
                                  "('embedder_name', 'embedder_dim')").fetchall())
        dim = meta.get("embedder_dim")
        return None if dim is None else (meta.get("embedder_name") or "", int(dim))

    def check_embedder(self, name: str, dim: int) -> None:
        """Raise :class:`StoreError` if the store holds vectors of another dimension."""
        check_embedder(self.path, self.embedder_info(), name, dim)

    def _record_dim(self, c: QmarkConnection, dim: int, name: str) -> None:
        """Record the embedder on first use and give the vector column its dimension (a
        concurrent first write of another dimension is refused, as :meth:`check_embedder`
        refuses it)."""
        c.execute("SELECT pg_advisory_xact_lock(7248114)")
        meta = dict(c.execute("SELECT key, value FROM meta WHERE key IN "
                              "('embedder_name', 'embedder_dim')").fetchall())
        if meta.get("embedder_dim") is not None:
            stored = (meta.get("embedder_name") or "", int(meta["embedder_dim"]))
            if stored[1] != dim:
                check_embedder(self.path, stored, name, dim)
            return
        c.execute("INSERT INTO meta(key, value) VALUES ('embedder_dim', ?), "
                  "('embedder_name', ?)", (str(dim), name))
        row = c.execute("SELECT value FROM meta WHERE key = 'vector_dtype'").fetchone()
        vt = _vtype(str(row[0]) if row else "float32")
        c.execute(f"ALTER TABLE embeddings ALTER COLUMN vector TYPE {vt}({int(dim)}) "
                  f"USING vector::{vt}({int(dim)})")

    def _write_vectors(
        self,
        c: QmarkConnection,
        texts: dict[str, dict[str, str]],
        dead: dict[str, list[str]],
        given: VectorsArg | None,
        embedder: Any,
    ) -> int:
        """Delete dead vectors and write new/changed ones, inside the write transaction;
        how many texts were embedded. (Caches are dropped after the commit, not patched.)"""
        embedded = 0
        meta = dict(c.execute("SELECT key, value FROM meta WHERE key IN "
                              "('vector_spaces', 'vector_dtype')").fetchall())
        stored, dtype = parse_spaces(meta.get("vector_spaces")), meta.get("vector_dtype")
        vt = _vtype(dtype or "float32")
        for space in SPACES:
            if dead.get(space):
                c.execute("DELETE FROM embeddings WHERE space = ? AND id = ANY(?)",
                          (space, list(dead[space])))
            live = texts.get(space, {}) if space in stored else {}
            if not live:
                continue

            def known(ids: list[str], space: str = space) -> dict[str, str]:
                return dict(c.execute("SELECT id, text_hash FROM embeddings WHERE space = ? "
                                      "AND id = ANY(?)", (space, ids)).fetchall())

            plan = plan_space(space, live, with_stored_vectors(space, live, given, embedder,
                                                               known),
                              embedder, stored_hashes=known,
                              record_dim=lambda dim, name: self._record_dim(c, dim, name))
            embedded += plan.embedded
            if not plan.ids:
                continue
            c.executemany(
                "INSERT INTO embeddings(space, id, text_hash, vector) VALUES (?, ?, ?, "
                f"?::{vt}) ON CONFLICT (space, id) DO UPDATE SET text_hash = "
                "excluded.text_hash, vector = excluded.vector",
                [(space, i, plan.hashes[i], vector_literal(plan.matrix[n], dtype or ""))
                 for n, i in enumerate(plan.ids)])
        return embedded

    def set_vector_index(self, space: str, index: VectorIndex) -> None:
        """Replace the in-memory index of ``space`` (loaded now; fed by later writes)."""
        check_space(space)
        with self._lock:
            self._indexes[space] = index
            self._loaded.discard(space)
            self._load_index(space, index)
            self.vector_index_epochs = bump_epoch(self.vector_index_epochs, space)

    def _load_index(self, space: str, idx: VectorIndex) -> None:
        ids, matrix = self.vectors(space)
        if ids:
            idx.add(ids, matrix)
        self._loaded.add(space)

    def vector_index(self, space: str) -> VectorIndex:
        """Exact in-memory index up to ``exact_limit`` vectors, else HNSW in PostgreSQL."""
        check_space(space)
        with self._lock:
            self._sync_external()
            if space in self._loaded:
                return self._indexes[space]
            if space not in self._indexes and self._count(space) > self.exact_limit:
                dtype = self._vector_format()[1]
                self._ensure_hnsw(space, _vtype(dtype))
                return PgVectorIndex(self._pool, space, dtype)
            self._load_index(space, self._indexes.setdefault(space, ExactVectorIndex()))
            return self._indexes[space]

    def replaced_vector_index(self, space: str) -> VectorIndex | None:
        """The index a search must ask for ``space`` — one set with
        :meth:`set_vector_index`, or the HNSW index of a space above ``exact_limit`` — or
        None when the space is searched exactly over its stored vectors: answered without
        loading the space (the exact index :meth:`vector_index` would load is a second copy
        of what the search reads; 1.8 s of a fresh process's first query at 50 MB)."""
        check_space(space)
        with self._lock:
            self._sync_external()
            index = self._indexes.get(space)
            if isinstance(index, ExactVectorIndex):
                return None
            if index is not None or self._count(space) > self.exact_limit:
                return self.vector_index(space)
            return None

    def _ensure_hnsw(self, space: str, vtype: str) -> None:
        """Build the HNSW index of a space the first time it outgrows exact search (later
        inserts maintain it; small stores never pay for it)."""
        self._pool.write(lambda c: c.execute(hnsw_index_sql(space, vtype)))

    def _count(self, space: str) -> int:
        with self._pool.read() as c:
            return int(c.execute("SELECT COUNT(*) FROM embeddings WHERE space = ?",
                                 (space,)).fetchone()[0])

    def unit_vectors(self, space: str) -> tuple[list[str], npt.NDArray[np.float32]]:
        """The ids of a space (sorted) and :func:`~...vectors.unit_columns` of their vectors,
        unpacked and normalised a block at a time: equal to ``unit_columns(vectors(space)[1])``
        without its full float32 matrix of the rows (the search's copy of a space)."""
        ids, blobs, dim = self._stored(space, None)
        dtype = self._vector_format()[1]
        return stored_unit_columns(ids, blobs, dim, lambda part: as_matrix(_unpack(part, dtype)))

    def vectors(
        self, space: str, ids: Iterable[str] | None = None
    ) -> tuple[list[str], npt.NDArray[np.float32]]:
        """Stored vectors of a space (sorted by id, or the known ones of ``ids`` in order)."""
        found, blobs, dim = self._stored(space, ids)
        if not blobs:
            return [], np.zeros((0, dim), dtype=np.float32)
        dtype = self._vector_format()[1]
        return found, as_matrix(_unpack(blobs, dtype))

    def unchanged_vectors(self, space: str, texts: Mapping[str, str]
                          ) -> tuple[list[str], npt.NDArray[np.float32]]:
        """The stored vectors of the ids of ``texts`` (id → the text its vector embeds) whose
        stored text hash is that text's, in the order of ``texts`` (one read: hashes and
        vectors of one state); what a document indexed again reuses."""
        check_space(space)
        info = self.embedder_info()
        dim = info[1] if info else 0
        with self._pool.read() as c:
            cur = c.conn.cursor(binary=True)
            rows = {str(r[0]): r for r in cur.execute(
                "SELECT id, text_hash, vector FROM embeddings WHERE space = %s AND "
                "id = ANY(%s)", (space, list(texts))).fetchall()}
        keep = unchanged_ids(texts, {i: str(r[1]) for i, r in rows.items()})
        if not keep:
            return [], np.zeros((0, dim), dtype=np.float32)
        blobs = [rows[i][2] for i in keep]
        return keep, as_matrix(_unpack(blobs, self._vector_format()[1]))

    def _stored(self, space: str, ids: Iterable[str] | None
                ) -> tuple[list[str], list[bytes], int]:
        """(ids, stored rows in pgvector's binary format, the embedder's dimension or 0)
        of :meth:`vectors`."""
        check_space(space)
        info = self.embedder_info()
        dim = info[1] if info else 0
        with self._pool.read() as c:
            cur = c.conn.cursor(binary=True)
            if ids is None:
                rows = cur.execute("SELECT id, vector FROM embeddings WHERE space = %s "
                                   "ORDER BY id", (space,)).fetchall()
            else:
                wanted = list(dict.fromkeys(ids))
                found = {r[0]: r for r in cur.execute(
                    "SELECT id, vector FROM embeddings WHERE space = %s AND id = ANY(%s)",
                    (space, wanted)).fetchall()}
                rows = [found[i] for i in wanted if i in found]
        return [str(r[0]) for r in rows], [r[1] for r in rows], dim

    def search(self, space: str, query_vec: npt.ArrayLike, k: int) -> list[tuple[str, float]]:
        """Shorthand for ``vector_index(space).search(query_vec, k)``."""
        return self.vector_index(space).search(query_vec, k)
