"""``HyperVizPostprocessor``: add the hypergraph image after ANY LlamaIndex retriever.

The retrieved nodes become ``(node_id, text)`` passages for
:func:`hyperviz_core.rag.render_passages`: with ``index=`` (a ``VizRAGIndex``, ``VizRAG`` or
store) nodes that are chunks of that store bring the store's entities; the others are
extracted from their text with ``extractor`` (offline heuristic by default). The rendering is
appended (or prepended) as a :class:`~vizrag_llamaindex.nodes.VizRAGImageNode` scored like the
best input node (1.0 when no node is scored, so score filters keep it). Nodes in which no
entity is found get no image; nodes a VizRAG retriever returned with its image (a
``VizRAGImageNode`` beside only VizRAG chunk nodes) are returned as they are, so a VizRAG
query engine's postprocessor adds no second image. ``filters=`` (the ``MetadataFilters``
the nodes were retrieved under, or the engine's filter) draws only the store's facts all of
whose source chunks pass them, so no excluded document's text reaches the image or its
caption. The model sees the image only through a multimodal synthesizer and a chat LLM
(``multimodal=True``); LlamaIndex's text synthesizer reads its caption alone.

Example:
    >>> from llama_index.core.schema import NodeWithScore, TextNode
    >>> nodes = [NodeWithScore(node=TextNode(text="Ada Lovelace met Charles Babbage in London.",
    ...                                      id_="n1"), score=0.7)]
    >>> out = HyperVizPostprocessor().postprocess_nodes(nodes)
    >>> [type(n.node).__name__ for n in out], out[-1].score
    (['TextNode', 'VizRAGImageNode'], 0.7)
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from llama_index.core.bridge.pydantic import Field, field_validator
from llama_index.core.postprocessor.types import BaseNodePostprocessor
from llama_index.core.schema import MetadataMode, NodeWithScore, QueryBundle
from llama_index.core.vector_stores import MetadataFilters

from hyperviz_core.rag import VisualContext, VizRAG, arender_passages, render_passages
from hyperviz_core.rag.retrieve.filters import ChunkFilter, as_filter

from .nodes import VizRAGImageNode, VizRAGTextNode, image_node, is_image_node, top_score
from .retriever import core_filter

__all__ = ["HyperVizPostprocessor"]


class HyperVizPostprocessor(BaseNodePostprocessor):
    """Render the sub-hypergraph of the retrieved nodes and add it as an image node."""

    index: Any = Field(default=None, exclude=True,
                       description="VizRAGIndex, VizRAG engine or store.")
    extractor: Any = Field(default=None, exclude=True,
                           description="Extractor for non-store nodes.")
    renderer: Any = Field(default=None, exclude=True,
                          description="HyperViz renderer (default dual view).")
    position: Literal["first", "last"] = Field(default="last")
    filters: Any = Field(default=None, description="MetadataFilters (or the engine's "
                         "filter) the nodes were retrieved under.")

    @field_validator("filters", mode="before")
    @classmethod
    def _core_filters(cls, value: Any) -> ChunkFilter | None:
        """The engine's filter, made (and so checked) when the postprocessor is."""
        if value is None or isinstance(value, MetadataFilters):
            return core_filter(value)
        if not isinstance(value, ChunkFilter | Mapping):
            raise TypeError(f"filters= takes MetadataFilters or the engine's filter, got "
                            f"{type(value).__name__}")
        return as_filter(value)

    @classmethod
    def class_name(cls) -> str:
        return "HyperVizPostprocessor"

    def _store(self) -> Any:
        source = getattr(self.index, "engine", self.index)
        return source.store if isinstance(source, VizRAG) else source

    @staticmethod
    def _passages(nodes: list[NodeWithScore]) -> list[tuple[str, str]]:
        return [(n.node.node_id, n.node.get_content(MetadataMode.NONE))
                for n in nodes if not is_image_node(n.node)]

    @staticmethod
    def _drawn(nodes: list[NodeWithScore]) -> bool:
        """The nodes are a VizRAG retriever's with its image: a ``VizRAGImageNode`` and, beside
        it, VizRAG chunk nodes only (a node of another retriever gets a new image)."""
        return (any(isinstance(n.node, VizRAGImageNode) for n in nodes)
                and all(isinstance(n.node, VizRAGTextNode) for n in nodes
                        if not is_image_node(n.node)))

    def _place(self, nodes: list[NodeWithScore], ctx: VisualContext) -> list[NodeWithScore]:
        if ctx.is_empty:
            return nodes
        score = top_score(nodes)
        image = image_node(ctx, view="passages", score=1.0 if score is None else score)
        if any(n.node.node_id == image.node.node_id for n in nodes):
            return nodes  # already there (the postprocessor ran twice)
        return [image, *nodes] if self.position == "first" else [*nodes, image]

    def _postprocess_nodes(self, nodes: list[NodeWithScore],
                           query_bundle: QueryBundle | None = None) -> list[NodeWithScore]:
        passages = self._passages(nodes)
        if not passages or self._drawn(nodes):
            return nodes
        ctx = render_passages(passages, store=self._store(), extractor=self.extractor,
                              renderer=self.renderer, filters=self.filters,
                              query=query_bundle.query_str if query_bundle else None)
        return self._place(nodes, ctx)

    async def _apostprocess_nodes(self, nodes: list[NodeWithScore],
                                  query_bundle: QueryBundle | None = None
                                  ) -> list[NodeWithScore]:
        passages = self._passages(nodes)
        if not passages or self._drawn(nodes):
            return nodes
        ctx = await arender_passages(passages, store=self._store(), extractor=self.extractor,
                                     renderer=self.renderer, filters=self.filters,
                                     query=query_bundle.query_str if query_bundle else None)
        return self._place(nodes, ctx)
