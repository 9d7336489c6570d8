"""Copy a store into another one, of any backend (what ``vizrag migrate`` runs).

Documents are copied one transaction each with their chunks, their raw extraction output
(:meth:`~.protocol.StoreProtocol.extractions`), their themes and the source's vectors, so the
destination rebuilds exactly the source's merged layers without any model call; then the
model-call cache is copied and the counts of both stores are compared.

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag import Document, VizRAG
    >>> from hyperviz_core.rag.store import open_store
    >>> rag = VizRAG(tempfile.mkdtemp(), show_progress=False)
    >>> _ = rag.insert([Document(title="Ada", text="Ada Lovelace met Charles Babbage.")])
    >>> with open_store(tempfile.mkdtemp()) as dst:
    ...     copy_store(rag.store, dst, show_progress=False).verified
    True
    >>> rag.close()
"""

from __future__ import annotations

from typing import Any

import numpy.typing as npt
from pydantic import BaseModel

from ..vectors import SPACES
from .base import StoreError, StoreStats, VectorsArg
from .protocol import StoreProtocol

__all__ = ["TransferReport", "copy_store"]


class TransferReport(BaseModel):
    """Outcome of :func:`copy_store`: what was copied and both stores' counts."""

    documents_copied: int
    documents_skipped: int
    cache_entries: int
    source: StoreStats
    destination: StoreStats
    verified: bool
    mismatches: list[str]


class _SourceEmbedder:
    """Stands for the source's embedder: its name and dimension, and no model behind it."""

    def __init__(self, name: str, dim: int) -> None:
        self.name, self.dim = name, dim

    def embed(self, texts: list[str]) -> npt.NDArray[Any]:
        raise StoreError(f"the source store has no vector for {len(texts)} item(s) "
                         f"(e.g. {texts[0][:60]!r}); it cannot be copied without re-embedding")


def _counts(stats: StoreStats) -> dict[str, Any]:
    return stats.model_dump(exclude={"path"})


def copy_store(src: StoreProtocol, dst: StoreProtocol, *,
               show_progress: bool = True) -> TransferReport:
    """Copy every document (and the model-call cache) of ``src`` into ``dst``.

    Documents already in ``dst`` with the same content are skipped, so an interrupted copy
    can be resumed. Raises :class:`StoreError` when the stores' embedding dimensions differ.
    """
    from tqdm.auto import tqdm

    info = src.embedder_info()
    embedder = _SourceEmbedder(*info) if info else None
    if info:
        dst.check_embedder(info[0], info[1])
    copied = skipped = 0
    docs = src.documents()
    theme_of = src.theme_hyperedge_chunks()
    for doc in tqdm(docs, desc="copying documents", unit="doc", disable=not show_progress):
        if dst.document_hash(doc.id) == doc.hash:
            skipped += 1
            continue
        chunk_ids = src.chunk_ids(doc.id)
        extractions = src.extractions(doc.id)
        themes = src.themes(chunk_ids)
        wanted: dict[str, list[str]] = {"chunk": chunk_ids, "entity": [], "hyperedge": [],
                                        "theme": []}
        for ex in extractions:
            wanted["entity"] += [e.key for e in ex.entities]
            wanted["hyperedge"] += [h.id for h in ex.hyperedges]
        wanted["entity"] += [k for t in themes for k in t.key_entities]
        wanted["theme"] = [h for h, cids in theme_of.items() if set(cids) & set(chunk_ids)]
        vectors: VectorsArg = {space: src.vectors(space, wanted[space]) for space in SPACES}
        dst.add_document(doc, src.chunks(chunk_ids), extractions, themes, vectors,
                         embedder=embedder)
        copied += 1
    items = src.cache_items()
    for key, value, model in items:
        dst.cache_put(key, value, model=model)
    a, b = _counts(src.stats()), _counts(dst.stats())
    mismatches = [f"{k}: source {a[k]!r}, destination {b.get(k)!r}"
                  for k in sorted(a) if a[k] != b.get(k)]
    return TransferReport(documents_copied=copied, documents_skipped=skipped,
                          cache_entries=len(items), source=src.stats(),
                          destination=dst.stats(), verified=not mismatches,
                          mismatches=mismatches)
