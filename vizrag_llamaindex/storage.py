"""Persistence of a VizRAG store next to LlamaIndex's own JSON files.

``StorageContext.persist`` knows nothing of an external store, so :class:`VizRAGStorageContext`
(a ``StorageContext`` subclass) first copies each attached index's store into the persist
directory as ``vizrag.sqlite`` — an SQLite *online backup* (consistent while the store is
open, never a file copy of a live WAL database) — records its location in the index struct,
then writes the JSON files as usual.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from llama_index.core.storage.storage_context import DEFAULT_PERSIST_DIR, StorageContext

__all__ = ["STORE_FILE", "VizRAGStorageContext", "backup_store"]

STORE_FILE = "vizrag.sqlite"


def backup_store(store: Any, target: Path) -> Path:
    """Copy ``store`` into the file ``target`` with the store's ``backup_to``.

    An existing target is written through its own connection and write-ahead log (SQLite's
    backup API: one transaction, so a crash leaves it as it was), never replaced by a new
    file: an index loaded from ``target`` may have it open with a ``-wal`` beside it, which
    SQLite would otherwise apply to the new file and damage it. A new target (or one that is
    no SQLite file and has no ``-wal``/``-shm``) is written to a temporary file renamed over
    it. Backing a store up onto its own file is a no-op.
    """
    target = Path(target)
    backup_to = getattr(store, "backup_to", None)
    if not callable(backup_to):
        raise TypeError(f"{type(store).__name__} has no backup_to(path): only a file-backed "
                        "VizRAG store can be persisted into a LlamaIndex persist_dir")
    source = Path(getattr(store, "path", "")).resolve()
    if target.exists() and target.resolve() == source:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    logs = [target.with_name(target.name + s) for s in ("-wal", "-shm")]
    if target.exists() or any(p.exists() for p in logs):
        try:
            backup_to(target)  # through the target's own log: its -wal stays consistent
            return target
        except sqlite3.DatabaseError:
            if any(p.exists() for p in logs):
                raise  # a damaged live database: never rename a new file over its log
    tmp = target.with_name(target.name + ".tmp")
    tmp.unlink(missing_ok=True)
    try:
        backup_to(tmp)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


@dataclass
class VizRAGStorageContext(StorageContext):
    """A ``StorageContext`` whose ``persist`` also saves the attached VizRAG stores."""

    vizrag_indexes: dict[str, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def wrap(cls, context: StorageContext) -> VizRAGStorageContext:
        """``context`` itself if already one, else a wrapper sharing its stores."""
        if isinstance(context, cls):
            return context
        return cls(docstore=context.docstore, index_store=context.index_store,
                   vector_stores=context.vector_stores, graph_store=context.graph_store,
                   property_graph_store=context.property_graph_store)

    def attach(self, index: Any) -> None:
        """Save ``index``'s store on every :meth:`persist`."""
        self.vizrag_indexes[index.index_id] = index

    def persist(self, persist_dir: str | os.PathLike[str] = DEFAULT_PERSIST_DIR,
                *args: Any, **kwargs: Any) -> None:
        """Write the VizRAG store(s) (``vizrag.sqlite``), then LlamaIndex's JSON files."""
        if self.vizrag_indexes and kwargs.get("fs") is not None:
            raise ValueError("a VizRAG store persists to a local directory only (fs=None)")
        indexes = list(self.vizrag_indexes.values())
        if len(indexes) > 1:
            raise ValueError("one VizRAGIndex per persisted StorageContext is supported, "
                             f"got {len(indexes)}")
        for index in indexes:
            index.persist_store(Path(persist_dir) / STORE_FILE)
        super().persist(persist_dir, *args, **kwargs)
