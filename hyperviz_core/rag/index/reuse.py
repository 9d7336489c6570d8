"""A document indexed again reuses what the store holds of it: one whose text is unchanged
is updated in place, another embeds only its chunks whose text changed.

**Only the metadata changed.** Moving the folder a corpus was indexed from changes every
document's ``source``; a tag or a date changes only metadata too. When the extractors say
which metadata they read (:func:`~.extractors.metadata_keys`) and the document's chunks
keep their texts and those keys, :func:`update_in_place` has the store rewrite the
metadata of the document and its chunks (its ``update_metadata``:
:mod:`~hyperviz_core.rag.store.inplace`): no extraction, no model call, no embedding, and
the entities, hyperedges, themes and vectors stay as stored.

**Replaced.** Any other changed document is replaced whole: chunked, extracted (model
answers come from the store's cache) and written again. Its chunks' vectors were all
embedded again too, so editing one paragraph of a long file paid the embedding provider
for every chunk. :func:`chunk_vectors` asks the store for the vectors it holds for the
same chunk ids and texts (:meth:`unchanged_vectors`, keyed by the hash of the text
embedded) and embeds only the others. Stored vectors are reused only when the store's
embedder is the one indexing (same name): a store opened with another model of the same
dimension embeds every chunk of a changed document, as before. A store without
``unchanged_vectors`` (another backend) embeds every chunk, as before.

Example:
    >>> import asyncio, tempfile
    >>> from hyperviz_core.rag import HashingEmbedder
    >>> from hyperviz_core.rag.store import HypergraphStore
    >>> from hyperviz_core.rag.types import Chunk
    >>> store = HypergraphStore(tempfile.mkdtemp() + "/s.db")
    >>> chunks = [Chunk(id="d::0", doc_id="d", index=0, text="Marie Curie won.")]
    >>> vectors, reused = asyncio.run(chunk_vectors(store, HashingEmbedder(), chunks))
    >>> vectors["chunk"][0], reused  # nothing stored yet: every chunk embedded
    (['d::0'], 0)
    >>> store.close()
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..store.base import VectorsArg, chunk_text
from ..types import Chunk, Document
from .guards import FiniteEmbedder

__all__ = ["chunk_vectors", "update_in_place"]


async def chunk_vectors(store: Any, embedder: Any, chunks: Sequence[Chunk]
                        ) -> tuple[VectorsArg | None, int]:
    """The ``chunk`` vectors of ``chunks`` for a store write (None without chunks) and how
    many of them are the store's own, reused (see the module docstring); the others are
    embedded by ``embedder`` in one call (:class:`~.guards.FiniteEmbedder`). ``store``
    None (a new document: nothing to reuse): every chunk is embedded."""
    if not chunks:
        return None, 0
    texts = {c.id: chunk_text(c) for c in chunks}
    ids: list[str] = []
    stored = np.zeros((0, 0), dtype=np.float32)
    reuse = getattr(store, "unchanged_vectors", None) if store is not None else None
    info = store.embedder_info() if reuse is not None else None
    if reuse is not None and info is not None and info[0] == str(embedder.name):
        ids, stored = reuse("chunk", texts)
    kept = set(ids)
    todo = [i for i in texts if i not in kept]
    if not todo:
        return {"chunk": (ids, stored)}, len(ids)
    fresh = await FiniteEmbedder(embedder).aembed([texts[i] for i in todo])
    if not ids:
        return {"chunk": (todo, fresh)}, 0
    order = [*ids, *todo]
    return {"chunk": (order, np.concatenate([stored, fresh]))}, len(ids)


async def update_in_place(store: Any, doc: Document, chunks: Sequence[Chunk],
                          keys: Sequence[str] | None) -> bool:
    """Whether ``store`` took the changed ``doc`` (chunked into ``chunks``) as a metadata
    update in place (see the module docstring; in a thread: it is one write transaction).
    False, with nothing written, when it differs in more than metadata, when ``keys`` is
    None (an extractor may read any metadata) or when the store has no
    ``update_metadata`` (another backend): the caller replaces it whole."""
    update = getattr(store, "update_metadata", None)
    if keys is None or update is None:
        return False
    return bool(await asyncio.to_thread(update, doc, chunks, keys))
