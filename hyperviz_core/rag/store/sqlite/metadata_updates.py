"""In-place metadata updates of :class:`~hyperviz_core.rag.store.HypergraphStore`.

:meth:`~MetadataUpdatesMixin.update_metadata` rewrites a stored document's metadata (and
hash) and its chunks' metadata in one transaction, when the new version differs from the
stored one only there (:func:`~hyperviz_core.rag.store.inplace.rewrite_metadata`): what the
indexer does for a moved folder instead of replacing every document whole.

Example:
    >>> import tempfile
    >>> from hyperviz_core.model import Entity
    >>> from hyperviz_core.rag.store import HypergraphStore
    >>> from hyperviz_core.rag.types import Chunk, ChunkExtraction, Document
    >>> store = HypergraphStore(tempfile.mkdtemp())
    >>> chunk = Chunk(id="c", doc_id="d", text="Marie Curie won.", end=16)
    >>> ex = ChunkExtraction(chunk_id="c", entities=[Entity(name="Marie Curie")])
    >>> _ = store.add_document(Document(id="d", text="Marie Curie won."), [chunk], [ex])
    >>> new = Document(id="d", text="Marie Curie won.", metadata={"tag": "physics"})
    >>> moved = chunk.model_copy(update={"metadata": {"tag": "physics"}})
    >>> store.update_metadata(new, [moved])
    True
    >>> store.chunks(["c"])[0].metadata, store.document_hash("d") == new.hash
    ({'tag': 'physics'}, True)
    >>> store.update_metadata(Document(id="d", text="Marie Curie lost."), [])  # the text
    False
    >>> store.close()
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Sequence

from ...types import Chunk, Document
from ..base import validate_write
from ..inplace import rewrite_metadata
from .writes import write_transaction

__all__ = ["MetadataUpdatesMixin"]


class MetadataUpdatesMixin:
    """``update_metadata`` (mixed into the store)."""

    _conn: sqlite3.Connection
    _lock: threading.RLock
    _sync_external: Callable[[], None]
    _need_writable: Callable[[str], None]
    _upgrade_if_old: Callable[[], None]
    _invalidate: Callable[..., None]

    def update_metadata(self, doc: Document, chunks: Sequence[Chunk],
                        keys: Sequence[str] = ("title",)) -> bool:
        """Store ``doc``'s metadata and hash and ``chunks``' metadata in place of the stored
        ones, in one transaction, when the stored document ``doc.id`` has ``doc``'s title
        and text and exactly ``chunks`` (ids, positions, texts, values of ``keys``): its
        entities, hyperedges, themes and vectors stay as they are. False, with nothing
        written, when it differs in more than that or is not stored."""
        validate_write(doc, chunks, (), ())
        self._need_writable(f"update the metadata of document {doc.id!r}")
        conn = self._conn
        with self._lock:
            self._upgrade_if_old()
            with write_transaction(conn):
                self._sync_external()  # others' commits up to our lock
                if not rewrite_metadata(conn, doc, chunks, keys):
                    conn.execute("ROLLBACK")
                    return False
            self._invalidate()
        return True
