"""Whether a new version of a stored document differs from it only in metadata.

Moving the folder a corpus was indexed from changes every document's ``source``; a
metadata edit (a tag, a date, LlamaIndex's reference hash) changes nothing the index
derives from the text. Replacing such a document whole chunked, extracted and merged it
again (model answers from the cache, vectors reused: :mod:`~hyperviz_core.rag.index.reuse`)
only to write back the same rows. A store's ``update_metadata(doc, chunks, keys)`` instead
rewrites the document's and its chunks' metadata in one transaction
(:func:`rewrite_metadata`, the same statements for SQLite and PostgreSQL), when
:func:`same_content` finds that the stored rows hold ``doc``'s title and text, the same
chunks (ids, positions, texts) and, in each chunk, the same values of ``keys``: the
metadata the extraction reads (its title at least: it is embedded with the chunk text and
drawn in its picture).

Example:
    >>> from hyperviz_core.rag.types import Chunk, Document
    >>> doc = Document(id="d", text="Marie Curie won.", metadata={"source": "/b/d.txt"})
    >>> chunk = Chunk(id="c", doc_id="d", text="Marie Curie won.", end=16,
    ...               metadata={"source": "/b/d.txt"})
    >>> stored = ("", "Marie Curie won.")
    >>> rows = [("c", 0, "Marie Curie won.", 0, 16, '{"source":"/a/d.txt"}')]
    >>> same_content(stored, rows, doc, [chunk], ("title",))
    True
    >>> same_content(stored, rows, doc, [chunk], ("title", "source"))
    False
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..types import Chunk, Document
from .sqlite.damage import loads
from .sqlite.schema import dumps

__all__ = ["CHUNK_ROWS", "rewrite_metadata", "same_content"]

CHUNK_ROWS = 'SELECT id, idx, text, start, "end", metadata FROM chunks WHERE doc_id = ? ' \
    "ORDER BY idx, id"
"""The stored chunk rows :func:`same_content` compares (one parameter: the document id)."""


def rewrite_metadata(conn: Any, doc: Document, chunks: Sequence[Chunk],
                     keys: Sequence[str]) -> bool:
    """Inside the caller's write transaction on ``conn`` (a SQLite connection, or the
    PostgreSQL store's connection that takes ``?`` parameters too): when the stored rows of
    ``doc.id`` differ from ``doc`` and ``chunks`` only in metadata (:func:`same_content`),
    write the new metadata and hash of the document and the new metadata of its chunks.
    Whether it wrote (False: nothing written)."""
    stored = conn.execute("SELECT title, text FROM documents WHERE id = ?",
                          (doc.id,)).fetchone()
    if not same_content(stored, conn.execute(CHUNK_ROWS, (doc.id,)).fetchall(), doc, chunks,
                        keys):
        return False
    conn.execute("UPDATE documents SET hash = ?, metadata = ? WHERE id = ?",
                 (doc.hash, dumps(doc.metadata), doc.id))
    conn.executemany("UPDATE chunks SET metadata = ? WHERE id = ?",
                     [(dumps(c.metadata), c.id) for c in chunks])
    return True


def same_content(stored: Sequence[Any] | None, rows: Sequence[Sequence[Any]], doc: Document,
                 chunks: Sequence[Chunk], keys: Sequence[str]) -> bool:
    """Whether the stored document (``stored``: its title and text; None when it is not
    stored) and its chunk ``rows`` (:data:`CHUNK_ROWS`) hold ``doc``'s title and text and
    exactly ``chunks`` (ids, positions, texts, and the values of ``keys`` in their
    metadata), so that only metadata no extraction reads differs."""
    if stored is None or (str(stored[0]), str(stored[1])) != (doc.title, doc.text):
        return False
    if len(rows) != len(chunks):
        return False
    ordered = sorted(chunks, key=lambda c: (c.index, c.id))
    for row, chunk in zip(rows, ordered, strict=True):
        if (str(row[0]), int(row[1]), str(row[2]), int(row[3]), int(row[4])) != (
                chunk.id, chunk.index, chunk.text, chunk.start, chunk.end):
            return False
        old = loads(row[5], "chunks", "metadata", row[0])
        new = loads(dumps(chunk.metadata))  # as the store writes it
        if any(old.get(k) != new.get(k) for k in keys):
            return False
    return True
