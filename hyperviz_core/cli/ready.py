"""After a command wrote a store: make it query-ready for the (read-only) queries to come.

``vizrag query`` opens the store read-only, so it cannot store what queries derive. Without
the full-text index a read-only query loads the whole store (seconds per megabyte); with the
index but without the kept query arrays every process rebuilds them (15 s on a 50 MB store).
A writing command (``vizrag index``, ``vizrag delete``, ``vizrag import-hyperrag``,
``vizrag migrate`` for its destination) therefore
builds both before it closes the store
(:func:`~hyperviz_core.rag.retrieve.lazy.prepare_lazy`; a PostgreSQL store keeps the arrays
in its database), for stores read lazily (``LAZY_MIN_CHUNKS`` chunks or more); smaller
stores load faster than they would read lazily and are left as they are. A failure here is
a warning: every document is committed.
"""

from __future__ import annotations

import sys
import time
from typing import Any

__all__ = ["make_query_ready", "ready_json", "ready_line"]


def make_query_ready(store: Any, command: str) -> float | None:
    """Seconds spent making ``store`` query-ready, or None when there was nothing to do (a
    small store, another backend) or it failed (a warning on stderr naming ``command``)."""
    from ..rag.retrieve.lazy import prepare_lazy
    from ..rag.retrieve.retriever import LAZY_MIN_CHUNKS

    # the SQLite and PostgreSQL stores keep what queries derive (``kept_strings`` and co.)
    if not hasattr(store, "kept_strings") or getattr(store, "read_only", False):
        return None
    t0 = time.perf_counter()
    try:
        if store.stats().chunks < LAZY_MIN_CHUNKS or prepare_lazy(store) is None:
            return None
    except Exception as exc:  # the documents are committed: only later queries are slower
        print(f"vizrag {command}: warning: the store was not made query-ready ({exc}); "
              "every document is committed, queries build what they need themselves",
              file=sys.stderr)
        return None
    return time.perf_counter() - t0


def ready_line(seconds: float | None) -> str | None:
    """The line a command prints after :func:`make_query_ready` (None: nothing to say)."""
    if seconds is None:
        return None
    return (f"  query-ready: text index, BM25 lengths and query arrays kept in the store "
            f"({seconds:.1f} s)")


def ready_json(seconds: float | None) -> float | None:
    """The ``query_ready_seconds`` field of a command's ``--json`` report (None: not done)."""
    return None if seconds is None else round(seconds, 3)

