"""Vector side of :class:`~hyperviz_core.rag.store.HypergraphStore`: embeddings per space.

Vectors are blobs in the ``embeddings`` table (float16 and only the spaces retrieval reads in
a store created since issue 17, float32 and every space before: see :mod:`..compact`), keyed
by (space, id) with the hash of the text they embed, so only new or changed items are
re-embedded. The embedder's name and
dimension are recorded on first write; a different dimension is refused.

A space holding ``ann_threshold`` vectors or more (default 100,000; the optional ``usearch``
package installed) is searched through a persisted HNSW index beside the store file
(:mod:`.ann_files`): every vector write bumps the space's generation in its transaction,
the first search restores the index memory-mapped or brings it up to date, and closing a
store that wrote vectors updates the files once. Smaller spaces are searched exactly.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import numpy.typing as npt

from ...types import content_hash
from ...vectors import (
    SPACES,
    ExactVectorIndex,
    VectorIndex,
    as_matrix,
    bump_epoch,
    stored_unit_columns,
)
from ..base import VectorsArg, check_embedder, check_space
from ..compact import decode, encode, parse_spaces
from ..vector_plan import SpacePlan, plan_space, plan_space_blocks, unchanged_ids
from .ann_files import AnnFiles, PersistedIndex, bump_generation
from .damage import check_blobs
from .merge import chunked

__all__ = ["VectorStoreMixin", "check_space", "with_stored_vectors"]

log = logging.getLogger("hyperviz_core.rag.store.sqlite.store")
#: ids per ``IN (...)`` list of a read by id (with the space: at most 500 parameters)
_IN_LIMIT = 499


def with_stored_vectors(space: str, live: dict[str, str], given: VectorsArg | None,
                        embedder: Any, known: Callable[[list[str]], dict[str, str]]
                        ) -> VectorsArg | None:
    """``given`` plus, when ``embedder`` hands out stored vectors by id (a
    ``stored_vectors(space, ids)`` method: what ``vizrag migrate`` passes, the source
    store's vectors), those of the live items of ``space`` without a given vector whose text
    changed — e.g. a theme whose member was renamed by a later document: a copy takes the
    source's vector rather than embedding anything."""
    fetch = getattr(embedder, "stored_vectors", None)
    if fetch is None or not live:
        return given
    have = set(given[space][0]) if given and space in given else set()
    todo = sorted(i for i in live if i not in have)
    stored = known(todo) if todo else {}
    stale = [i for i in todo if stored.get(i) != content_hash(live[i])]
    ids, mat = fetch(space, stale) if stale else ([], None)
    if not len(ids):
        return given
    out: VectorsArg = dict(given or {})
    if have:
        g_ids, g_mat = out[space]
        out[space] = ([*g_ids, *ids], np.vstack([as_matrix(g_mat), as_matrix(mat)]))
    else:
        out[space] = (list(ids), as_matrix(mat))
    return out


class VectorStoreMixin:
    """Embedding storage and in-memory vector indexes (mixed into the store)."""

    path: Path
    _conn: sqlite3.Connection
    _lock: threading.RLock
    _indexes: dict[str, VectorIndex]
    _loaded: set[str]
    read_only: bool
    #: the persisted ANN indexes of the big spaces (``stats`` counts restores and builds)
    ann_files: AnnFiles
    _ann_written: set[str]
    _ann_bumped: set[str]
    #: per space, how many indexes were set with :meth:`set_vector_index` (a search holding
    #: a copy of the space drops it when its count moves, and asks the index)
    vector_index_epochs: Mapping[str, int] = MappingProxyType({})

    def _q(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return self._conn.execute(sql, params).fetchall()

    def _meta(self, key: str) -> str | None:
        row = self._conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: str) -> None:
        self._conn.execute(
            "INSERT INTO meta(key, value) VALUES (?, ?) "
            "ON CONFLICT(key) DO UPDATE SET value = excluded.value",
            (key, value),
        )

    def _sync_external(self) -> None:  # overridden by the store
        return None

    def _vector_format(self) -> tuple[tuple[str, ...], str]:
        """(spaces this store embeds, ``"float16"``/``"float32"``), from its metadata."""
        return parse_spaces(self._meta("vector_spaces")), self._meta("vector_dtype") or "float32"

    def vector_spaces(self) -> tuple[str, ...]:
        """The spaces this store keeps vectors for (new stores: entity, theme, chunk)."""
        with self._lock:
            return self._vector_format()[0]

    def embedder_info(self) -> tuple[str, int] | None:
        """(name, dim) of the embedder whose vectors the store holds, or None."""
        with self._lock:
            name, dim = self._meta("embedder_name"), self._meta("embedder_dim")
        return None if dim is None else (name or "", int(dim))

    def check_embedder(self, name: str, dim: int) -> None:
        """Raise :class:`StoreError` if the store holds vectors of another dimension."""
        check_embedder(self.path, self.embedder_info(), name, dim)

    def _record_dim(self, dim: int, name: str) -> None:
        self.check_embedder(name, dim)
        if self._meta("embedder_dim") is None:
            self._set_meta("embedder_dim", str(dim))
            self._set_meta("embedder_name", name)

    def _write_vectors(
        self,
        texts: dict[str, dict[str, str]],
        dead: dict[str, list[str]],
        given: VectorsArg | None,
        embedder: Any,
    ) -> tuple[dict[str, tuple[list[str], npt.NDArray[np.float32]]], int]:
        conn = self._conn
        upserts: dict[str, tuple[list[str], npt.NDArray[np.float32]]] = {}
        embedded = 0
        self._ann_bumped = set()  # the spaces whose generation this write bumped
        stored, dtype = self._vector_format()
        for space in SPACES:
            self._delete_vectors(space, dead.get(space, []))
            live = texts.get(space, {}) if space in stored else {}
            if not live:
                continue

            def known(ids: list[str], space: str = space) -> dict[str, str]:
                return self._text_hashes(space, ids)

            def dims(dim: int, name: str) -> None:
                self._record_dim(dim, name)

            space_given = with_stored_vectors(space, live, given, embedder, known)
            if space in self._loaded or (space_given and space in space_given):
                plans: Iterable[SpacePlan] = [plan_space(
                    space, live, space_given, embedder, stored_hashes=known, record_dim=dims)]
            else:  # nobody holds them in memory: embed and write a block at a time
                plans = plan_space_blocks(space, live, embedder, stored_hashes=known,
                                          record_dim=dims)
            blocks = iter(plans)
            while (plan := next(blocks, None)) is not None:
                embedded += plan.embedded
                conn.executemany(
                    "INSERT OR REPLACE INTO embeddings(space, id, text_hash, vector) "
                    "VALUES (?, ?, ?, ?)",
                    ((space, i, plan.hashes[i], encode(plan.matrix[n], dtype))
                     for n, i in enumerate(plan.ids)),  # encoded as written
                )
                if plan.ids:
                    self._vectors_changed(space)
                if plan.ids and space in self._loaded:  # only a loaded index takes them
                    upserts[space] = (plan.ids, plan.matrix)
                plan = None  # this block's vectors are gone before the next is embedded
        return upserts, embedded

    def _delete_vectors(self, space: str, ids: list[str]) -> None:
        """Inside the write transaction: delete the stored vectors of ``ids``."""
        for part in chunked(ids):
            marks = ",".join("?" * len(part))
            cur = self._conn.execute(
                f"DELETE FROM embeddings WHERE space = ? AND id IN ({marks})", [space, *part])
            if cur.rowcount:
                self._vectors_changed(space)

    def _vectors_changed(self, space: str) -> None:
        """Inside the write transaction: a vector of ``space`` was written or deleted;
        bump its generation (a persisted ANN index of it is then stale) once per write."""
        if space not in self._ann_bumped:
            bump_generation(self._conn, space)
            self._ann_bumped.add(space)
            self._ann_written.add(space)

    def _apply_vectors(
        self,
        upserts: dict[str, tuple[list[str], npt.NDArray[np.float32]]],
        dead: dict[str, list[str]],
    ) -> None:
        for space in self._loaded:
            idx = self._indexes[space]
            if dead.get(space):
                idx.remove(dead[space])
            if space in upserts:
                idx.add(*upserts[space])

    def set_vector_index(self, space: str, index: VectorIndex) -> None:
        """Replace the in-memory index of ``space`` (e.g. by a framework vector store).

        The stored vectors are loaded into it now; later writes are forwarded to it.
        """
        check_space(space)
        with self._lock:
            self._indexes[space] = index
            self._loaded.discard(space)
            self.vector_index(space)
            self.vector_index_epochs = bump_epoch(self.vector_index_epochs, space)

    def replaced_vector_index(self, space: str) -> VectorIndex | None:
        """The index set with :meth:`set_vector_index` for ``space``, or None when the
        space is searched exactly over its stored vectors (nothing is loaded to answer)."""
        check_space(space)
        with self._lock:
            self._sync_external()
            index = self._indexes.get(space)
            if index is None or isinstance(index, ExactVectorIndex):
                return self._persisted_index(space)
            if space not in self._loaded:  # emptied after another process's write: refill
                return self.vector_index(space)
            return index

    def vector_index(self, space: str) -> VectorIndex:
        """The (loaded, up-to-date) vector index of ``space``: the persisted ANN index of a
        big space, else an exact index of the stored vectors (or the one set)."""
        check_space(space)
        with self._lock:
            self._sync_external()
            index = self._indexes.get(space)
            if index is None or isinstance(index, ExactVectorIndex):
                persisted = self._persisted_index(space)
                if persisted is not None:
                    self._indexes.pop(space, None)  # a smaller past's exact copy: not used
                    self._loaded.discard(space)
                    return persisted
            if space not in self._loaded:
                idx = self._indexes.setdefault(space, ExactVectorIndex())
                ids, matrix = self.vectors(space)
                if ids:
                    idx.add(ids, matrix)
                self._loaded.add(space)
            return self._indexes[space]

    def _persisted_index(self, space: str) -> PersistedIndex | None:
        """The up-to-date persisted ANN index of ``space``, or None (searched exactly)."""
        info = self.embedder_info()
        return self.ann_files.index(self._conn, space, dim=info[1] if info else 0,
                                    writable=not self.read_only)

    def _save_ann_indexes(self) -> None:
        """Bring the persisted indexes of the spaces this store object wrote up to date
        (one build or update at the end of an indexing run, not one per batch)."""
        if self.read_only or not self._ann_written or not self.ann_files.enabled:
            return
        for space in sorted(self._ann_written):
            index = self._indexes.get(space)
            if index is not None and not isinstance(index, ExactVectorIndex):
                continue  # searched through the index set by the caller
            try:
                self._persisted_index(space)
            except (sqlite3.Error, OSError, RuntimeError, ValueError) as exc:
                log.warning("could not update the ANN index of space %r (%s); it is "
                            "brought up to date by the next search", space, exc)
        self._ann_written.clear()

    def unit_vectors(self, space: str) -> tuple[list[str], npt.NDArray[np.float32]]:
        """The ids of a space (sorted) and :func:`~...vectors.unit_columns` of their vectors,
        decoded and normalised a block at a time: equal to ``unit_columns(vectors(space)[1])``
        without its full float32 matrix of the rows (the search's copy of a space)."""
        ids, blobs, dim = self._stored(space, None)
        return stored_unit_columns(ids, blobs, dim, lambda part: decode(part, dim))

    def vectors(
        self, space: str, ids: Iterable[str] | None = None
    ) -> tuple[list[str], npt.NDArray[np.float32]]:
        """Stored vectors of a space (sorted by id, or the known ones of ``ids`` in order)."""
        found, blobs, dim = self._stored(space, ids)
        if not blobs:
            return [], np.zeros((0, dim), dtype=np.float32)
        return found, decode(blobs, dim)

    def unchanged_vectors(self, space: str, texts: Mapping[str, str]
                          ) -> tuple[list[str], npt.NDArray[np.float32]]:
        """The stored vectors of the ids of ``texts`` (id → the text its vector embeds) whose
        stored text hash is that text's, in the order of ``texts``: what a document indexed
        again reuses instead of embedding its unchanged chunks again."""
        check_space(space)
        with self._lock:  # the hashes and the vectors of one state
            return self.vectors(space, unchanged_ids(texts, self._text_hashes(space, list(texts))))

    def _text_hashes(self, space: str, ids: Sequence[str]) -> dict[str, str]:
        """The stored text hashes of those of ``ids`` with a vector in ``space`` (the
        caller holds the lock, or is inside the write transaction)."""
        found: dict[str, str] = {}
        for part in chunked(ids, _IN_LIMIT):
            found.update(self._q(
                "SELECT id, text_hash FROM embeddings WHERE space = ? AND id IN "
                f"({','.join('?' * len(part))})", [space, *part]))
        return found

    def _stored(self, space: str, ids: Iterable[str] | None
                ) -> tuple[list[str], list[bytes], int]:
        """(ids, stored blobs, the embedder's dimension or 0) of :meth:`vectors`; a blob
        of another length than a vector of that dimension: :class:`~.damage.DamagedRowError`
        naming it."""
        check_space(space)
        info = self.embedder_info()
        dim = info[1] if info else 0
        with self._lock:
            if ids is None:
                rows = self._q(
                    "SELECT id, vector FROM embeddings WHERE space = ? ORDER BY id", (space,))
            else:  # only the wanted rows (a per-document copy must not read the space)
                wanted = list(dict.fromkeys(ids))
                found: dict[str, Any] = {}
                for part in chunked(wanted, _IN_LIMIT):
                    found.update((r[0], r) for r in self._q(
                        "SELECT id, vector FROM embeddings WHERE space = ? AND id IN "
                        f"({','.join('?' * len(part))})", [space, *part]))
                rows = [found[i] for i in wanted if i in found]
        ids_out, blobs = [r[0] for r in rows], [r[1] for r in rows]
        check_blobs(space, ids_out, blobs, dim)
        return ids_out, blobs, dim

    def search(self, space: str, query_vec: npt.ArrayLike, k: int) -> list[tuple[str, float]]:
        """Shorthand for ``vector_index(space).search(query_vec, k)``."""
        return self.vector_index(space).search(query_vec, k)

