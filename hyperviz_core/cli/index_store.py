"""The store a ``vizrag index`` run writes: opened or created, removed again when this run
created it and then failed, compacted and made query-ready after the run (``--compact``:
whatever the run did, also nothing).

A new store that cannot be opened (a full disk, a damaged file), or that holds nothing at all
at the end of the run (no document and no LLM cache entry: :func:`settle_created`), is
removed again (:func:`created_paths`), unless another process holds its lock or has it open:
then it may be that process's, created a moment ago. A new store that holds only the model
answers the run paid for (every document failed after some calls) is kept, so the same
command re-uses them. Ctrl-C during compaction or the query-ready step (:func:`after_run`)
ends that step only: every document of the run is committed already.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .ready import make_query_ready

__all__ = ["after_run", "compact_store", "created_paths", "open_for_index", "prune_missing",
           "recorded_embedder", "settle_created"]


def open_for_index(spec: str, options: dict[str, Any], created: Callable[[], bool]
                   ) -> tuple[Any, int]:
    """Open (or create) the store ``vizrag index`` writes, and how many documents it holds.
    A damaged store (SQLite's quick check, :func:`~..rag.store.sqlite.check.refuse_damaged`:
    every page read) is refused before anything is written.
    When that fails (a full disk, a damaged file: one line), what this run created is removed
    again (:func:`created_paths`), unless another process holds the store's lock: then the
    store may be that process's, just created."""
    from ..rag.index.failures import is_lock_error
    from ..rag.store import open_store
    from ..rag.store.sqlite.check import refuse_damaged

    store: Any = None
    try:
        store = open_store(spec, read_only=False, **options)
        documents = store.stats().documents  # a damaged index or meta page fails here,
        refuse_damaged(store)  # a damaged table page (vectors ...) here: nothing written
        return store, documents
    except Exception as exc:
        if store is not None:
            with contextlib.suppress(Exception):
                store.close()
        if not is_lock_error(exc):
            created()
        raise


def prune_missing(args: argparse.Namespace, store: Any, indexer: Any, report: Any
                  ) -> list[str]:
    """``--prune-missing``: after a run that stored every document, delete (one
    transaction) the documents of text files inside the given folders whose files are gone
    (deleted or renamed); their ids. A run with failures, or stopped, deletes nothing."""
    from ..rag.index.replace import missing_file_documents

    if not args.prune_missing or report.documents_failed or report.stopped is not None:
        return []
    folders = [p for p in args.paths if Path(p).expanduser().is_dir()]
    unchecked: list[str] = []
    gone = missing_file_documents(store, folders, unchecked=unchecked)
    report.files_unchecked = sorted(unchecked)
    if gone:
        indexer.delete_many(gone)
        report.files_gone = gone  # said once: not among the stale parts (documents_removed)
        if report.store is not None:  # the counts the run reports: after the deletes
            report.store = store.stats()
    return gone


def after_run(args: argparse.Namespace, store: Any, report: Any, was_empty: bool
              ) -> tuple[float | None, str | None]:
    """Compaction and query-ready preparation after a run: the seconds making the store
    query-ready (None: not done), and what Ctrl-C interrupted (None: nothing). Either step
    is one transaction of its own, so an interrupted one leaves every document committed.
    ``--compact`` compacts whatever the run did (also a run that added nothing: the way to
    reclaim the space deletes left); by default only a run that filled an empty store."""
    step = "compacting the store (compaction is all or nothing: done, or skipped)"
    try:
        compact = (args.compact if args.compact is not None
                   else was_empty and bool(report.documents_added))
        if compact and report.stopped is None and hasattr(store, "compact"):
            compact_store(store, report)
        step = ("making the store query-ready (skipped: queries build what they need "
                "themselves)")
        ready = (make_query_ready(store, "index")
                 if args.prepare and report.stopped is None else None)
    except KeyboardInterrupt:
        return None, step
    return ready, None


def created_paths(spec: str) -> Callable[[], bool]:
    """Before a run opens the SQLite store ``spec``: a function that removes what opening it
    created (the folder, or the file and its ``-wal``/``-shm``/ANN siblings), when it did
    not exist before, and says whether it removed anything. A run stopped before it stored
    a document then leaves nothing behind; any other path is never touched."""
    from ..rag.store import is_store_url
    from ..rag.store.sqlite.schema import resolve_path

    path = Path(spec).expanduser()
    if is_store_url(spec) or path.exists():
        return _nothing
    parent = None if resolve_path(path).parent == path else path.parent  # None: a folder
    before = set(os.listdir(parent)) if parent is not None and parent.is_dir() else set()

    def remove() -> bool:
        if parent is None:  # a store folder: all of it is the run's
            shutil.rmtree(path, ignore_errors=True)
            return not path.exists()
        new = sorted(n for n in set(os.listdir(parent)) - before if n.startswith(path.name))
        for name in new:
            target = parent / name
            if target.is_dir():
                shutil.rmtree(target, ignore_errors=True)
            else:
                target.unlink(missing_ok=True)
        return bool(new)

    remove.new = True  # type: ignore[attr-defined]
    return remove


def _nothing() -> bool:
    """What :func:`created_paths` gives for a store that existed before: removes nothing."""
    return False


def compact_store(store: Any, report: Any, command: str = "index") -> None:
    """The compaction after a run (or ``vizrag delete --compact``): its failure (VACUUM
    needs about the store's size in free disk) is a warning, never the loss of the run's
    report: whatever fails there, every document is committed already. The bytes freed go
    to ``report.compacted_bytes``."""
    try:
        report.compacted_bytes = store.compact()
    except Exception as exc:
        print(f"vizrag {command}: warning: compaction skipped ({exc}); every document is "
              f"committed (`vizrag delete --store {store.path} --compact` compacts it alone; "
              "it needs free disk space of about the store's size)", file=sys.stderr)


def _being_created(path: Path) -> bool:
    """Whether the SQLite file ``path`` is a store another process is creating right now: an
    empty file, or an SQLite database without any schema yet (the race-safe creating open
    gives it its schema). Any other file (not SQLite, another database) is not."""
    from ..rag.store.sqlite.schema import connect_read_only

    try:
        if path.stat().st_size == 0:
            return True
        conn = connect_read_only(path)
    except Exception:  # gone again, or not a database: the opening that follows says which
        return False
    try:
        return int(conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]) == 0
    except Exception:
        return False
    finally:
        conn.close()


def recorded_embedder(spec: str) -> Any:
    """The offline embedder an existing store recorded (``store_embedder``), read without
    writing; None for a new store (one another process is creating at this moment too:
    an empty file or schema-less database), none recorded, or a provider's (that one needs
    --embed)."""
    from ..rag.providers.spec import store_embedder
    from ..rag.store import is_store_url, open_store
    from ..rag.store.sqlite.schema import resolve_path

    if not is_store_url(spec):
        path = resolve_path(spec)
        if not path.exists() or _being_created(path):
            return None
    store = open_store(spec, read_only=True)
    try:
        return store_embedder(store.embedder_info())
    finally:
        store.close()


def holds_nothing(report: Any) -> bool:
    """Whether the store of a finished run holds no document and no LLM cache entry (its
    counts at the end of the run; without them, whether the run stored no document)."""
    stats = report.store
    if stats is None:  # the store that stopped the run could not count
        return not (report.documents_added or report.documents_replaced)
    return bool(stats.documents == 0 and stats.llm_cache_entries == 0)


def _open_elsewhere(spec: str) -> bool:
    """After this run closed the SQLite store ``spec``: whether another connection still
    has it open (SQLite removes the ``-wal`` file when its last connection closes)."""
    from ..rag.store.sqlite.schema import resolve_path

    try:
        wal = resolve_path(spec)
    except Exception:
        return False
    return Path(f"{wal}-wal").exists()


def settle_created(spec: str, report: Any, created: Callable[[], bool]) -> str | None:
    """After the run closed the store: remove the store it created when it holds nothing
    (:func:`holds_nothing`), never one another process holds (its lock) or has open. What
    happened, in words for the run's messages: ``"removed"``, ``"kept"`` (a new store
    holding only model answers) or None (nothing to say: an existing store, or a new one
    with documents)."""
    from ..rag.index.failures import is_lock_error

    stats = report.store
    if not holds_nothing(report):
        new_cache_only = (stats is not None and stats.documents == 0
                          and stats.llm_cache_entries > 0)
        return "kept" if new_cache_only and _is_new(created) else None
    if report.stopped is not None and is_lock_error(report.stopped):
        return None
    if _open_elsewhere(spec):
        return None
    return "removed" if created() else None


def _is_new(created: Callable[[], bool]) -> bool:
    """Whether ``created`` (:func:`created_paths`) would remove anything: the run made the
    store (it is not the do-nothing function of an existing store or a URL)."""
    return getattr(created, "new", False) is True
