"""Persistence of a VizRAG store next to LlamaIndex's own JSON files.

``StorageContext.persist`` knows nothing of an external store, so :class:`VizRAGStorageContext`
(a ``StorageContext`` subclass) first copies the attached index's store into the persist
directory as ``vizrag.sqlite`` — an SQLite *online backup* (consistent while the store is
open, never a file copy of a live WAL database) — records its location in the index struct,
then writes the JSON files as usual. A context holds one VizRAG index: a second one is
refused before its store is opened (:meth:`VizRAGStorageContext.refuse_second`).

The struct records the store both as an absolute path (``store_path``) and, since it lies in
the persist directory, relative to it (``persist_file``). LlamaIndex's ``StorageContext``
does not keep the directory it was loaded from, so importing this module wraps
``SimpleIndexStore.from_persist_dir`` (what ``StorageContext.from_defaults(persist_dir=D)``
calls) to note ``D`` on the index store it returns (:data:`PERSIST_DIR_ATTR`; nothing else
changes); a loaded index then opens ``D/vizrag.sqlite``, so a copied or moved persist
directory is self-contained (:func:`loaded_store_path`).
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sqlite3
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from llama_index.core.storage.index_store.simple_index_store import SimpleIndexStore
from llama_index.core.storage.storage_context import DEFAULT_PERSIST_DIR, StorageContext

from hyperviz_core.rag.store import StoreError, redact_url

__all__ = ["PERSIST_DIR_ATTR", "STORE_FILE", "VizRAGStorageContext", "backup_store",
           "loaded_embedder_error", "loaded_store_path", "persist_dir_of"]

STORE_FILE = "vizrag.sqlite"

PERSIST_DIR_ATTR = "_vizrag_persist_dir"
"""Attribute of an index store: the (absolute) persist directory it was read from or last
persisted to, when it is a local one."""


def persist_dir_of(context: StorageContext | None) -> Path | None:
    """The local persist directory ``context``'s index store was read from (or last
    persisted to), if known."""
    found = getattr(getattr(context, "index_store", None), PERSIST_DIR_ATTR, None)
    return Path(found) if isinstance(found, str) else None


def loaded_embedder_error(exc: BaseException, index_id: str, embed_model: object,
                          context: StorageContext | None) -> StoreError | None:
    """The error of a VizRAG index loaded with an ``embed_model`` its store was not built
    with (None when ``exc`` is another error): ``load_index_from_storage`` and
    ``load_indices_from_storage`` give their keyword arguments to every index they load, so
    one ``embed_model=`` meant for a ``VectorStoreIndex`` sharing the storage context
    reaches this index too; the message says so and how to load each index on its own."""
    if type(exc) is not StoreError or "-dimensional vectors from embedder" not in str(exc):
        return None
    structs = getattr(getattr(context, "index_store", None), "index_structs", None)
    others = sorted(s.index_id for s in structs() if s.index_id != index_id) if structs else []
    shared = (f"; this storage context also holds {', '.join(map(repr, others))}, so "
              "load each index on its own: load_index_from_storage(storage_context, "
              f"index_id={index_id!r}) for this one (embed_model= only the model its store "
              "was built with; none for VizRAG's offline default) and "
              "load_index_from_storage(storage_context, index_id=..., embed_model=...) for "
              "each other index") if others else (
        ": pass the model its store was built with, or no embed_model= for a store built "
        "with VizRAG's offline default")
    return StoreError(
        f"embed_model={type(embed_model).__name__}(...) given when loading VizRAGIndex "
        f"{index_id!r} is not the embedder its store was built with "
        "(load_index_from_storage / load_indices_from_storage pass their keyword arguments "
        f"to every index they load){shared}. {exc}")


def _note_persist_dir(index_store: Any, persist_dir: str | os.PathLike[str]) -> None:
    with contextlib.suppress(AttributeError, TypeError):  # a store that takes none
        setattr(index_store, PERSIST_DIR_ATTR, str(Path(persist_dir).resolve()))


def _remember_persist_dir() -> None:
    """Wrap ``SimpleIndexStore.from_persist_dir`` (once) to note a local ``persist_dir`` on
    the store it returns; what it returns is otherwise unchanged. A LlamaIndex whose
    ``from_persist_dir`` is no longer a classmethod is left as it is (a loaded index then
    opens the store path it recorded, as before)."""
    found = SimpleIndexStore.__dict__.get("from_persist_dir")
    if not isinstance(found, classmethod) or getattr(found.__func__, "_vizrag_notes_dir", False):
        return
    original = found.__func__

    @functools.wraps(original)
    def from_persist_dir(cls: type[SimpleIndexStore], *args: Any, **kwargs: Any
                         ) -> SimpleIndexStore:
        store = original(cls, *args, **kwargs)
        try:
            bound = _PERSIST_DIR_SIGNATURE.bind_partial(*args, **kwargs).arguments
        except TypeError:  # arguments of a newer LlamaIndex: the directory is not noted
            return store
        if bound.get("fs") is None:  # a local directory (an fsspec file system may be remote)
            _note_persist_dir(store, bound.get("persist_dir", DEFAULT_PERSIST_DIR))
        return store

    from_persist_dir._vizrag_notes_dir = True  # type: ignore[attr-defined]
    SimpleIndexStore.from_persist_dir = classmethod(from_persist_dir)  # type: ignore[assignment,method-assign]


def _persist_dir_signature() -> inspect.Signature:
    """``from_persist_dir``'s parameters after ``cls``."""
    found = SimpleIndexStore.__dict__.get("from_persist_dir")
    func = getattr(found, "__func__", None)
    if func is None:
        return inspect.Signature()
    params = list(inspect.signature(getattr(func, "__wrapped__", func)).parameters.values())
    return inspect.Signature(params[1:])


_PERSIST_DIR_SIGNATURE = _persist_dir_signature()
_remember_persist_dir()


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return a.resolve() == b.resolve()


def loaded_store_path(store_path: str | None, persist_file: str | None,
                      persist_dir: Path | None) -> str | None:
    """Where a loaded index's store is.

    Loaded from a known persist directory, a struct that recorded its store there
    (``persist_file``) opens it in that directory (a copy opens the copy; a missing file is
    an error, never the original). A struct an earlier version persisted (the absolute
    ``store_path`` only) whose persist directory holds a ``vizrag.sqlite`` of its own
    that is another file (the directory was copied or moved) opens the directory's own,
    which was written with the JSON files beside it, and warns once; otherwise, and when
    the directory is unknown, ``store_path`` as recorded.
    """
    if persist_dir is None:
        return store_path
    if persist_file:
        return str(persist_dir / persist_file)
    own = persist_dir / STORE_FILE
    if not store_path or not own.is_file() or _same_file(own, Path(store_path)):
        return store_path
    warnings.warn(
        f"this VizRAGIndex was persisted by an earlier version, which recorded its store as "
        f"{redact_url(store_path)}; the persist dir {str(persist_dir)!r} holds its own "
        f"{STORE_FILE}, written with the index's JSON files, and that one is opened (pass "
        "store_dir= to load_index_from_storage to open the other; persist the index again "
        "to record its store relative to the persist dir)", UserWarning, stacklevel=6)
    return str(own)


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
        """``context`` itself if already one; a plain ``StorageContext`` made one in place
        (so the caller's ``storage_context.persist(...)`` saves the VizRAG store too, and
        ``index.storage_context is storage_context``); else (another subclass) a wrapper
        sharing its stores, with a ``UserWarning`` that only the index's
        ``storage_context.persist`` saves the VizRAG store."""
        if isinstance(context, cls):
            return context
        if type(context) is StorageContext:
            context.__class__ = cls
            upgraded = cast("VizRAGStorageContext", context)
            upgraded.vizrag_indexes = {}
            return upgraded
        warnings.warn(f"VizRAGIndex(storage_context=<{type(context).__name__}>) shares its "
                      "stores but not its persist(): save with index.storage_context."
                      "persist(...), which also writes the VizRAG store", UserWarning,
                      stacklevel=4)
        return cls(docstore=context.docstore, index_store=context.index_store,
                   vector_stores=context.vector_stores, graph_store=context.graph_store,
                   property_graph_store=context.property_graph_store)

    def refuse_second(self, index_id: str) -> None:
        """Refuse a VizRAG index ``index_id`` before its store is opened or made.

        A context holds one VizRAG index (its store is saved as the persist directory's one
        ``vizrag.sqlite``): while it still holds another one (open, its struct in the index
        store), this is a ``ValueError``, and a struct ``index_id`` removed from the index
        store. The same index loaded again (the same ``index_id``) replaces it.
        """
        others = [o for o in self.vizrag_indexes.values()
                  if o.index_id != index_id and self._holds(o)]
        if others:
            with contextlib.suppress(KeyError, ValueError):
                self.index_store.delete_index_struct(index_id)
            raise ValueError(
                f"this StorageContext already holds VizRAGIndex {others[0].index_id!r}, and "
                "a StorageContext persists one VizRAG store: give each VizRAGIndex its own "
                "StorageContext (StorageContext.from_defaults()) and persist_dir; other "
                "LlamaIndex indexes (a VectorStoreIndex ...) may share either one")

    def attach(self, index: Any) -> None:
        """Save ``index``'s store on every :meth:`persist` (checked by
        :meth:`refuse_second` first)."""
        self.refuse_second(index.index_id)
        self.vizrag_indexes = {index.index_id: index}

    def _holds(self, index: Any) -> bool:
        """``index`` is still this context's: not closed, its struct in the index store."""
        finalizer = getattr(index, "_finalizer", None)
        if finalizer is not None and not getattr(finalizer, "alive", True):
            return False
        return self.index_store.get_index_struct(index.index_id) is not None

    def persist(self, persist_dir: str | os.PathLike[str] = DEFAULT_PERSIST_DIR,
                *args: Any, **kwargs: Any) -> None:
        """Write the VizRAG store (``vizrag.sqlite``), then LlamaIndex's JSON files."""
        if self.vizrag_indexes and kwargs.get("fs") is not None:
            raise ValueError("a VizRAG store persists to a local directory only (fs=None)")
        for index in self.vizrag_indexes.values():  # one at most (attach)
            index.persist_store(Path(persist_dir) / STORE_FILE)
        super().persist(persist_dir, *args, **kwargs)
        if kwargs.get("fs") is None:  # the index store now holds what persist_dir holds
            _note_persist_dir(self.index_store, persist_dir)
