"""Export a VizRAG store (or part of it) as a hypergraph, e.g. to HIF.

Selections (combinable; each adds to the result):

* nothing: the whole store, G_bot (every entity, every relation hyperedge) plus G_top's theme
  hyperedges (``layer`` picks ``"bottom"``, ``"top"`` or ``"both"``);
* ``doc_ids``: the entities and hyperedges whose sources include a chunk of those documents
  (with every member of those hyperedges);
* ``query``: what :meth:`VizRAG.retrieve <hyperviz_core.rag.VizRAG.retrieve>` reaches for the
  question (its entities and hyperedges, no rendering).

Example:
    >>> import tempfile
    >>> from hyperviz_core.rag import VizRAG, Document
    >>> rag = VizRAG(tempfile.mkdtemp(), show_progress=False)
    >>> _ = rag.insert([Document(id="d1", text="Marie Curie met Pierre Curie in Paris.")])
    >>> hg = store_hypergraph(rag.store, doc_ids=["d1"])
    >>> sorted(hg.entities)[:2], len(hg.hyperedges) >= 1
    (['marie curie', 'paris'], True)
    >>> rag.close()
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from ..model import Hypergraph
from ..rag import HypergraphStore

__all__ = ["Layer", "store_embedder", "store_hypergraph"]

Layer = Literal["bottom", "top", "both"]


def _layer(store: HypergraphStore, layer: Layer) -> Hypergraph:
    if layer == "bottom":
        return store.bottom()
    if layer == "top":
        return store.top()
    both = store.bottom().merge(store.top())
    both.metadata["layer"] = "both"  # merge keeps the first graph's: it said "bottom"
    return both


def store_embedder(store: HypergraphStore) -> Any:
    """An embedder matching the store's vectors when it was the offline hashing one (its
    size, n-grams and version: :func:`~hyperviz_core.rag.providers.spec.store_embedder`),
    else None."""
    from ..rag import HashingEmbedder
    from ..rag.providers.spec import store_embedder as recorded_embedder

    info = store.embedder_info()
    if info is None:
        return HashingEmbedder()
    if info[0].startswith("hashing"):
        return recorded_embedder(info)
    return None


def _doc_seeds(store: HypergraphStore, hg: Hypergraph, doc_ids: Sequence[str]
               ) -> tuple[set[str], set[str]]:
    chunks: set[str] = set()
    for d in doc_ids:
        if not store.has_document(d):
            raise ValueError(f"no document {d!r} in {store.path}")
        chunks.update(store.chunk_ids(d))
    keys = {k for k, e in hg.entities.items() if chunks.intersection(e.source_ids)}
    hids = {h for h, e in hg.hyperedges.items() if chunks.intersection(e.source_ids)}
    return keys, hids


def _query_seeds(store: HypergraphStore, hg: Hypergraph, query: str, embedder: Any,
                 retrieve: dict[str, Any]) -> tuple[set[str], set[str]]:
    from ..rag import VizRAG

    if embedder is None:
        embedder = store_embedder(store)
    if embedder is None:
        raise ValueError("the store was embedded with a remote model; give its embedder")
    rag = VizRAG(store, embedder=embedder, show_progress=False)
    result = rag.retrieve(query, render=False, **retrieve)
    keys = {e.key for e in result.entities if e.key in hg.entities}
    hids = {h.id for h in result.hyperedges if h.id in hg.hyperedges}
    return keys, hids


def store_hypergraph(
    store: HypergraphStore,
    *,
    layer: Layer = "both",
    doc_ids: Sequence[str] = (),
    query: str | None = None,
    embedder: Any = None,
    **retrieve: Any,
) -> Hypergraph:
    """The store's hypergraph, or the part selected by ``doc_ids`` and/or ``query``.

    ``retrieve`` passes ``mode``/``top_k``/``hops`` to the query's retrieval. Raises
    ``ValueError`` for an unknown document id.
    """
    hg = _layer(store, layer)
    if not doc_ids and query is None:
        return hg.copy()
    keys: set[str] = set()
    hids: set[str] = set()
    if doc_ids:
        k, h = _doc_seeds(store, hg, doc_ids)
        keys |= k
        hids |= h
    if query is not None:
        k, h = _query_seeds(store, hg, query, embedder, retrieve)
        keys |= k
        hids |= h
    return hg.subgraph(seed_entities=sorted(keys), seed_hyperedges=sorted(hids), hops=0)
