"""The embedded VizRAG store: one SQLite file (WAL) holding both hypergraph layers.

Documents, chunks, the raw per-chunk extraction output (entity and hyperedge *mentions*),
merged entities and hyperedges with ordered incidences, chunk themes and key entities,
float32 embeddings per space and the LLM-call cache live in one file. Merged rows are always
rebuilt from the mentions, so deleting a document restores exactly what the remaining
documents support. Every document write is one transaction: a crash leaves the store as it
was before that document.

This module holds the store object and its cache invalidation; the rest is mixed in from
``writes`` (the document write transactions, batched ``add_documents``), ``deletes``
(``delete_document``/``delete_documents``: one transaction per batch), ``reads``
(documents, chunks, themes), ``graphs`` (G_bot/G_top), ``vectors`` (embeddings), ``cache``
(LLM cache) and ``stats`` (:class:`StoreStats`, ``check``); the SQL schema is in ``schema``
and the mention merging in ``merge``, ``merge_state`` and ``rebuild``.

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
import weakref
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType

from ....model import Hypergraph
from ...vectors import ExactVectorIndex, VectorIndex
from ..base import DocumentWrite, StoreClosedError, StoreError, StoreReplacedError, StoreStats
from .ann_files import DEFAULT_ANN_THRESHOLD, AnnFiles
from .cache import LLMCacheMixin
from .deletes import DocumentDeletesMixin
from .files import log_files
from .graphs import GraphLayersMixin, snapshot
from .lookups import QueryLookupsMixin
from .metadata_updates import MetadataUpdatesMixin
from .reads import StoreReadsMixin
from .schema import open_connection, resolve_path
from .stats import StoreStatsMixin
from .vectors import VectorStoreMixin
from .writes import DocumentWritesMixin

__all__ = ["DocumentWrite", "HypergraphStore", "StoreError", "StoreStats"]

log = logging.getLogger(__name__)


class _ClosedConnection:
    """Stands in for the connection of a closed store: every use names the problem."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def __getattr__(self, name: str) -> object:
        raise StoreClosedError(self._path)


class _ForkedConnection:
    """Stands in, in a forked child, for the connection the store had in the parent: an
    SQLite connection must not be used across ``fork()`` (SQLite's per-process lock state is
    copied with it, so even a new connection to the same file in the child can believe it
    holds locks it does not), so any use is a :class:`StoreError` saying so, at once (the
    child's first query used to wait forever on a lock a parent thread held)."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def __getattr__(self, name: str) -> object:
        raise StoreError(
            f"the store {self._path} was opened in the parent process before fork(); an "
            "SQLite connection cannot be used across fork(): open stores in the child only "
            "(nothing opened before the fork), or start workers with the spawn method")


#: how long a write waits for another thread's read snapshot (a query's lasts milliseconds)
#: before it is refused — a worker thread writing on behalf of the snapshot's own thread
#: would otherwise wait forever
SNAPSHOT_WAIT_S = 30.0


class HypergraphStore(
    DocumentWritesMixin, DocumentDeletesMixin, StoreReadsMixin, GraphLayersMixin,
    LLMCacheMixin, StoreStatsMixin, VectorStoreMixin, QueryLookupsMixin, MetadataUpdatesMixin,
):
    """A VizRAG store in a directory (``vizrag.sqlite`` inside) or a ``.sqlite`` file.

    Thread-safe (one connection behind a lock). ``bottom()``/``top()`` are cached and must
    not be mutated by callers (use ``.copy()``); writes from this or another process
    invalidate the caches. A vector space of ``ann_threshold`` vectors or more is searched
    through a persisted HNSW index beside the file (needs the ``usearch`` extra; 0/None =
    always exact; see :mod:`.ann_files`).
    """

    def __init__(
        self, path: str | Path, *, summary_threshold: int = 4000, read_only: bool | None = None,
        ann_threshold: int | None = DEFAULT_ANN_THRESHOLD,
    ) -> None:
        from .... import __version__

        self.path = resolve_path(path)
        self.summary_threshold = summary_threshold
        why = _why_unwritable(self.path) if self.path.exists() else None
        if read_only is None:  # read-only when we may not write (a read-only file or folder)
            read_only = why is not None
        elif not read_only and why is not None:
            raise StoreError(why)
        #: opened with SQLite's ``mode=ro``: reads work, every write raises StoreError
        self.read_only: bool = read_only
        #: why this process may not write the store (None: it may), for the errors of writes
        self.unwritable: str | None = why
        self._conn = open_connection(self.path, version=__version__, read_only=read_only)
        self._file = _file_identity(self.path)  # the file opened (replaced: StoreError)
        self._lock = threading.RLock()
        #: the thread inside read_snapshot() (None: none): its writes through this refused;
        #: another thread's write waits for the lock the snapshot holds
        self._snapshot_thread: int | None = None
        self._bottom: Hypergraph | None = None
        self._top: Hypergraph | None = None
        self._indexes: dict[str, VectorIndex] = {}
        self._loaded: set[str] = set()
        self._data_version = self._read_data_version()
        # spaces of ann_threshold vectors or more: persisted HNSW index (0/None = never)
        self.ann_files = AnnFiles(self.path, ann_threshold)
        self._ann_written: set[str] = set()
        _OPEN.add(self)  # a forked child gives it new locks and refuses its use

    # ------------------------------------------------------------------ plumbing
    def close(self) -> None:
        """Close the connection (the store object is unusable afterwards: any read or
        write raises :class:`StoreError` saying so; closing again is a no-op)."""
        with self._lock:
            if isinstance(self._conn, _ClosedConnection | _ForkedConnection):
                self._conn = _ClosedConnection(self.path)  # type: ignore[assignment]
                return  # (a forked child never closes the parent's connection)
            self._save_ann_indexes()  # the ANN files of big spaces this object wrote
            # fold the write-ahead log back into the main file; without waiting: a reader
            # holding an older snapshot (another process's copy or query) would otherwise
            # keep this close in the busy handler for the whole busy timeout, and the log
            # is folded back by a later checkpoint anyway
            if not self.read_only:
                with contextlib.suppress(sqlite3.Error):
                    self._conn.execute("PRAGMA busy_timeout = 0")
                    self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            self._conn.close()
            self._conn = _ClosedConnection(self.path)  # type: ignore[assignment]

    @contextlib.contextmanager
    def page_cache(self, kib: int) -> Iterator[None]:
        """Give this connection a page cache of ``kib`` KiB while the block runs (then
        the size it had). A writer keeps 16 MiB by default; a bulk import that reads
        back little of what it wrote does as well with SQLite's own default of 2 MiB."""
        with self._lock:
            old = int(self._conn.execute("PRAGMA cache_size").fetchone()[0])
            self._conn.execute(f"PRAGMA cache_size = -{int(kib)}")
        try:
            yield
        finally:
            with self._lock:
                self._conn.execute(f"PRAGMA cache_size = {old}")

    @contextlib.contextmanager
    def read_snapshot(self) -> Iterator[None]:
        """Every read of this store object inside the block sees one committed state (one
        read transaction; other processes go on writing, unseen until the block ends; other
        threads reading or writing through this object wait). Writing through this object
        from the block's own thread raises :class:`StoreError` (a write would end the
        snapshot).
        What ``copy_store`` reads a source through, so a copy is one state of a store that
        is being written."""
        with self._lock, snapshot(self._conn):
            outer, self._snapshot_thread = self._snapshot_thread, threading.get_ident()
            try:
                yield
            finally:
                self._snapshot_thread = outer  # a nested block leaves the outer one held

    def keeps_derived(self) -> bool:
        """Whether a query may keep what it derives in the database file (the full-text
        index, BM25 lengths, state arrays; ANN indexes are files beside it): not on a
        read-only store, nor inside a read snapshot (a write there would hold the write lock
        until the snapshot ends, and every other process's write would wait for it)."""
        return not self.read_only and self._snapshot_thread is None

    def snapshot_held_here(self) -> bool:
        """Whether this thread is inside :meth:`read_snapshot` (its writes are refused)."""
        return self._snapshot_thread == threading.get_ident()

    def _need_writable(self, what: str) -> None:
        self._check_file()  # a write to a replaced file would go to the unlinked one, or
        # (its -wal shared by name) damage the store that replaced it
        if self.read_only:
            raise StoreError(f"store {self.path} is open read-only; cannot {what}")
        owner = self._snapshot_thread
        if owner == threading.get_ident():
            raise StoreError(f"store {self.path} holds a read snapshot (read_snapshot()); "
                             f"cannot {what} through it until the snapshot ends")
        if owner is not None:  # another thread's (a query's: short) — wait for its end; a
            # worker writing for the snapshot's own thread would wait forever: bounded
            if not self._lock.acquire(timeout=SNAPSHOT_WAIT_S):
                raise StoreError(
                    f"store {self.path} holds a read snapshot (read_snapshot()) in another "
                    f"thread for over {SNAPSHOT_WAIT_S:g} s; cannot {what} through it until "
                    "the snapshot ends")
            self._lock.release()

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
        """Drop caches if another connection committed since we last looked (after
        :meth:`_check_file`)."""
        self._check_file()
        dv = self._read_data_version()
        if dv != self._data_version:
            self._data_version = dv
            self._invalidate(reload_vectors=True)

    def _check_file(self) -> None:
        """:class:`StoreError` when the store file at :attr:`path` is no longer the one this
        object opened (deleted, or replaced by another process: the open connection would
        go on reading and writing the old, unlinked file, and its writes would be lost)."""
        if self._file is not None and _file_identity(self.path) != self._file:
            raise StoreReplacedError(self.path)

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


def _file_identity(path: Path) -> tuple[int, int] | None:
    """(device, inode) of the file at ``path``; None when there is none."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_dev, st.st_ino


#: open stores of this process, for :func:`_after_fork`
_OPEN: weakref.WeakSet[HypergraphStore] = weakref.WeakSet()
#: the parent's connections in a forked child: kept so that they are never closed there
_INHERITED: list[object] = []


def _after_fork() -> None:
    """In a forked child: new locks (a thread of the parent, gone here, may have held them,
    so the refusal below comes at once) and the parent's connection set aside, never used
    nor closed here (:class:`_ForkedConnection`)."""
    for store in list(_OPEN):
        store._lock = threading.RLock()
        store._snapshot_thread = None
        if not isinstance(store._conn, _ClosedConnection | _ForkedConnection):
            _INHERITED.append(store._conn)
            store._conn = _ForkedConnection(store.path)  # type: ignore[assignment]


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _logs(path: Path) -> list[Path]:
    """The store's write-ahead log and shared-memory files that exist now."""
    return [p for p in log_files(path) if p.exists()]


def _why_unwritable(path: Path) -> str | None:
    """Why this process may not write the store file, its existing ``-wal``/``-shm`` files
    or create files beside it, naming what is in the way; None when it may."""
    with contextlib.suppress(OSError, AttributeError):  # statvfs: POSIX only
        if os.statvfs(path).f_flag & os.ST_RDONLY:
            return (f"store {path} is on a read-only file system; writing needs a writable "
                    "one (copy the store to a writable disk)")
    if not (os.access(path, os.W_OK) and os.access(path.parent, os.W_OK)):
        return (f"store {path} is read-only (no write access to the file or its folder); "
                "writing needs write access to both")
    names = ", ".join(p.name for p in _logs(path) if not os.access(p, os.W_OK))
    if names:
        return (f"store {path} cannot be written: {names} beside it is read-only (SQLite "
                "made it so for a read-only open of a read-only file); make it writable, or "
                "remove it while no process has the store open")
    return None
