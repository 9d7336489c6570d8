"""In-place metadata updates of :class:`~hyperviz_core.rag.store.postgres.PostgresStore`.

The same contract as the SQLite store's
:meth:`~hyperviz_core.rag.store.sqlite.metadata_updates.MetadataUpdatesMixin.update_metadata`:
one transaction holding the document id's advisory lock compares the stored rows with the
new version (:func:`~hyperviz_core.rag.store.inplace.same_content`) and rewrites only the
metadata and hash of the document and the metadata of its chunks.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from ...types import Chunk, Document
from ..base import validate_write
from ..inplace import CHUNK_ROWS, same_content
from ..sqlite.schema import dumps
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
            stored = c.execute("SELECT title, text FROM documents WHERE id = ?",
                               (doc.id,)).fetchone()
            if not same_content(stored, c.execute(CHUNK_ROWS, (doc.id,)).fetchall(), doc,
                                chunks, keys):
                return False
            c.execute("UPDATE documents SET hash = ?, metadata = ? WHERE id = ?",
                      (doc.hash, dumps(doc.metadata), doc.id))
            c.executemany("UPDATE chunks SET metadata = ? WHERE id = ?",
                          [(dumps(ch.metadata), ch.id) for ch in chunks])
            c.execute(NOTE_CHANGE)
            return True

        with self._lock:
            updated = self._pool.write(txn)
            if updated:
                self._after_write()
        return updated
