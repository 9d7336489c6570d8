"""The store a ``vizrag index`` run writes: opened or created, removed again when this run
created it and then failed, compacted and made query-ready after the run.

A new store that cannot be opened (a full disk, a damaged file) or stores no document is
removed again (:func:`created_paths`), unless another process holds its lock: then it may be
that process's, created a moment ago. Ctrl-C during compaction or the query-ready step
(:func:`after_run`) ends that step only: every document of the run is committed already.
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

__all__ = ["after_run", "compact_store", "created_paths", "open_for_index", "prune_missing"]


def open_for_index(spec: str, options: dict[str, Any], created: Callable[[], bool]
                   ) -> tuple[Any, bool]:
    """Open (or create) the store ``vizrag index`` writes, and whether it holds no document.
    When that fails (a full disk, a damaged file: one line), what this run created is removed
    again (:func:`created_paths`), unless another process holds the store's lock: then the
    store may be that process's, just created."""
    from ..rag.index.failures import is_lock_error
    from ..rag.store import open_store

    store: Any = None
    try:
        store = open_store(spec, read_only=False, **options)
        return store, store.stats().documents == 0  # a damaged store fails here
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
    gone = missing_file_documents(store, folders)
    if gone:
        indexer.delete_many(gone)
        report.documents_removed += len(gone)
        report.files_gone = gone
        if report.store is not None:  # the counts the run reports: after the deletes
            report.store = store.stats()
    return gone


def after_run(args: argparse.Namespace, store: Any, report: Any, was_empty: bool
              ) -> tuple[float | None, str | None]:
    """Compaction and query-ready preparation after a run: the seconds making the store
    query-ready (None: not done), and what Ctrl-C interrupted (None: nothing). Either step
    is one transaction of its own, so an interrupted one leaves every document committed."""
    step = "compacting the store (compaction is all or nothing: done, or skipped)"
    try:
        compact = was_empty if args.compact is None else args.compact
        if (compact and report.documents_added and report.stopped is None
                and hasattr(store, "compact")):
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
        return lambda: False
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

    return remove


def compact_store(store: Any, report: Any) -> None:
    """The optional compaction after a run: its failure (VACUUM needs about the store's size
    in free disk) is a warning, never the loss of the run's report: whatever fails there,
    every document is committed already."""
    try:
        report.compacted_bytes = store.compact()
    except Exception as exc:
        print(f"vizrag index: warning: compaction skipped ({exc}); every document is "
              "committed (run `vizrag index --compact` again with more free space)",
              file=sys.stderr)
