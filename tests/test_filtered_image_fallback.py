"""A filtered retrieval whose views show nothing (the query reached only facts of chunks the
filter excludes) sends the rendering of the returned passages instead, as ``text`` and
``naive`` modes do, in both wrappers. A reviewer found the LlamaIndex retriever returned the
text node alone, and its query engine sent the model no image, silently."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt
import pytest

from hyperviz_core.rag import Document, VizRAG

_TEXTS = {
    "curie": ("Alice", "Marie Curie was a physicist and chemist who conducted pioneering research "
              "on radioactivity. She married Pierre Curie in Paris. Marie Curie won the Nobel "
              "Prize in Physics in 1903."),
    "pierre": ("Bob", "Pierre Curie was a French physicist. Pierre Curie taught at the Sorbonne "
               "in Paris and worked with Marie Curie on radioactivity."),
    "einstein": ("Alice", "Albert Einstein developed the theory of relativity. Einstein won the "
                 "Nobel Prize in Physics in 1921 for the photoelectric effect. He lived in "
                 "Berlin and Princeton."),
    "darwin": ("Carol", "Charles Darwin proposed the theory of evolution by natural selection. "
               "Darwin sailed on HMS Beagle to the Galapagos Islands."),
    "lovelace": ("Bob", "Ada Lovelace worked with Charles Babbage on the Analytical Engine in "
                 "London. Ada Lovelace wrote the first computer program."),
    "noether": ("Dave", "Emmy Noether was a German mathematician known for Noether's theorem on "
                "symmetry and conservation laws in physics."),
}
DOCS = [Document(id=k, text=t, metadata={"author": a}) for k, (a, t) in _TEXTS.items()]
QUERY = "Marie Curie radioactivity"


class _Flat:
    """Every text the same unit vector (as LlamaIndex's ``MockEmbedding``): the themes a
    query reaches are those of the first chunks, not the filter's."""

    name = "flat-test-v1"
    dim = 8

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.full((len(texts), self.dim), self.dim ** -0.5, dtype=np.float32)

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return self.embed(texts)


@pytest.fixture()
def rag(tmp_path: Path) -> VizRAG:
    engine = VizRAG(tmp_path / "s", embedder=_Flat(), show_progress=False)
    engine.insert(DOCS)
    return engine


def test_the_filtered_views_show_nothing(rag: VizRAG) -> None:
    res = rag.retrieve(QUERY, top_k=2, render=True, filters={"key": "author", "value": "Carol"})
    assert [c.doc_id for c in res.chunks] == ["darwin"]
    views = [v for v in (res.top_view, res.bottom_view) if v is not None]
    assert views and all(v.is_empty for v in views)


@pytest.mark.parametrize("view", ["bottom", "top", "both"])
def test_llamaindex_sends_the_passage_rendering(rag: VizRAG, view: str) -> None:
    from llama_index.core.vector_stores import MetadataFilter, MetadataFilters

    from vizrag_llamaindex import VizRAGRetriever

    mf = MetadataFilters(filters=[MetadataFilter(key="author", value="Carol")])
    nodes = VizRAGRetriever(rag, top_k=2, filters=mf, image_view=view).retrieve(QUERY)
    images = [n.node for n in nodes if n.node.metadata.get("view")]
    assert [n.node.ref_doc_id for n in nodes if not n.node.metadata.get("view")] == ["darwin"]
    assert [i.metadata["view"] for i in images] == ["passages"]
    assert "charles darwin" in images[0].metadata["entity_ids"]
    assert "marie curie" not in images[0].metadata["entity_ids"]  # the filter holds


def test_langchain_sends_the_passage_rendering(rag: VizRAG) -> None:
    from vizrag_langchain import VizRAGRetriever
    from vizrag_langchain.documents import IMAGE_DOC_TYPE

    docs = VizRAGRetriever(store=rag, k=2, include_image=True,
                           filter={"author": "Carol"}).invoke(QUERY)
    images = [d for d in docs if d.metadata.get("type") == IMAGE_DOC_TYPE]
    assert [d.metadata["view"] for d in images] == ["passages"]
    assert "charles darwin" in images[0].metadata["entity_ids"]
    assert "marie curie" not in images[0].metadata["entity_ids"]  # the filter holds
