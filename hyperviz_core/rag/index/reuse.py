"""A document indexed again embeds only its chunks whose text changed.

A changed document is replaced whole: chunked, extracted (model answers come from the
store's cache) and written again. Its chunks' vectors were all embedded again too, so
editing one paragraph of a long file, changing only its metadata, or moving the folder a
corpus was indexed from (the ``source`` changes) paid the embedding provider for every
chunk. :func:`chunk_vectors` asks the store for the vectors it holds for the same chunk ids
and texts (:meth:`unchanged_vectors`, keyed by the hash of the text embedded) and embeds
only the others. Stored vectors are reused only when the store's embedder is the one
indexing (same name): a store opened with another model of the same dimension embeds every
chunk of a changed document, as before. A store without ``unchanged_vectors`` (another
backend) embeds every chunk, as before.

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

from collections.abc import Sequence
from typing import Any

import numpy as np

from ..store.base import VectorsArg, chunk_text
from ..types import Chunk
from .guards import FiniteEmbedder

__all__ = ["chunk_vectors"]


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
