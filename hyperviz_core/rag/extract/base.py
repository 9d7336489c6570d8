"""The extractor protocols: what the indexer and retriever call to extract.

* :class:`Extractor` — chunk → :class:`ChunkExtraction` (entities + relation hyperedges):
  :class:`~.heuristic.HeuristicExtractor` (offline default) or :class:`~.llm.LLMExtractor`;
* :class:`ThemeExtractor` — chunk (+ its extraction, + its rendered image) →
  :class:`ChunkTheme`: :class:`~.heuristic.HeuristicThemeExtractor` or
  :class:`~.llm.LLMThemeExtractor`;
* :class:`KeywordExtractor` — query → keywords: :class:`~.heuristic.HeuristicKeywordExtractor`
  or :class:`~.llm.LLMKeywordExtractor`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from ...model import Entity, Hyperedge, Hypergraph
from ..types import Chunk, ChunkExtraction, ChunkTheme

__all__ = ["Extractor", "KeywordExtractor", "ThemeExtractor", "extraction_hypergraph",
           "merge_extractions"]


@runtime_checkable
class Extractor(Protocol):
    """Bottom-layer extraction of one chunk.

    Optional: ``metadata_keys``, the keys of ``chunk.metadata`` it reads (the built-in
    extractors: ``("title",)`` or none). With it, a document indexed again with only other
    metadata is updated in place instead of extracted again
    (:mod:`hyperviz_core.rag.index.extractors`); the same holds for a theme extractor.
    """

    def extract(self, chunk: Chunk) -> ChunkExtraction: ...

    async def aextract(self, chunk: Chunk) -> ChunkExtraction: ...


@runtime_checkable
class ThemeExtractor(Protocol):
    """Top-layer theme + key entities of one chunk; ``image`` is the chunk's PNG or None."""

    def theme(
        self, chunk: Chunk, extraction: ChunkExtraction, image: bytes | None = None
    ) -> ChunkTheme: ...

    async def atheme(
        self, chunk: Chunk, extraction: ChunkExtraction, image: bytes | None = None
    ) -> ChunkTheme: ...


@runtime_checkable
class KeywordExtractor(Protocol):
    """Query keywords for top-down retrieval."""

    def keywords(self, query: str) -> list[str]: ...

    async def akeywords(self, query: str) -> list[str]: ...


def merge_extractions(chunk_id: str, parts: Iterable[ChunkExtraction]) -> ChunkExtraction:
    """Union of several extractions of one chunk (same-key entities and same-id edges merge)."""
    entities: dict[str, Entity] = {}
    edges: dict[str, Hyperedge] = {}
    skipped = 0
    for part in parts:
        skipped += part.skipped
        for e in part.entities:
            entities[e.key] = entities[e.key].merged(e) if e.key in entities else e
        for h in part.hyperedges:
            edges[h.id] = edges[h.id].merged(h) if h.id in edges else h
    return ChunkExtraction(
        chunk_id=chunk_id, entities=list(entities.values()), hyperedges=list(edges.values()),
        skipped=skipped,
    )


def extraction_hypergraph(extraction: ChunkExtraction, title: str = "") -> Hypergraph:
    """The chunk hypergraph G_Di of one extraction (members without an entity are added)."""
    hg = Hypergraph(metadata={"chunk_id": extraction.chunk_id, "title": title})
    for ent in extraction.entities:
        hg.add_entity(ent)
    for edge in extraction.hyperedges:
        for m in edge.members:
            if m not in hg.entities:
                hg.add_entity(Entity(name=m))
        if edge.members:
            hg.add_hyperedge(edge)
    return hg
