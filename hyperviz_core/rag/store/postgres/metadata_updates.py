"""In-place metadata updates of :class:`~hyperviz_core.rag.store.postgres.PostgresStore`.

The same contract as the SQLite store's
:meth:`~hyperviz_core.rag.store.sqlite.metadata_updates.MetadataUpdatesMixin.update_metadata`:
one transaction holding the document id's advisory lock compares the stored rows with the
new version and rewrites only the metadata and hash of the document and the metadata of its
chunks (:func:`~hyperviz_core.rag.store.inplace.rewrite_metadata`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from ...types import Chunk, Document
from ..base import validate_write
from ..inplace import rewrite_metadata
from .connection import Pool, QmarkConnection
from .schema import LOCK_KEYS, NOTE_CHANGE

__all__ = ["PgMetadataUpdatesMixin"]


class PgMetadataUpdatesMixin:
    """``update_metadata`` (mixed into the store)."""

    _pool: Pool
    _lock: threading.RLock
    upgrade: Callable[[], bool]
    _after_write: Callable[[], None]

    def update_metadata(self, doc: Document, chunks: Sequence[Chunk],
                        keys: Sequence[str] = ("title",)) -> bool:
        """Store ``doc``'s metadata and hash and ``chunks``' metadata in place of the stored
        ones when only they differ (the SQLite store's contract); False, with nothing
        written, otherwise."""
        # no NUL check: JSON escapes it in metadata, and the texts must equal stored ones
        validate_write(doc, chunks, (), ())
        self.upgrade()

        def txn(c: QmarkConnection) -> bool:
            c.execute(LOCK_KEYS, (["doc:" + doc.id],))
            if not rewrite_metadata(c, doc, chunks, keys):
                return False
            c.execute(NOTE_CHANGE)
            return True

        with self._lock:
            updated = self._pool.write(txn)
            if updated:
                self._after_write()
        return updated
