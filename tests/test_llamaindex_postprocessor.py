"""HyperVizPostprocessor: the hypergraph image after any retriever."""

from __future__ import annotations

import asyncio

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document, VectorStoreIndex
from llama_index.core.base.llms.types import ImageBlock
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from hyperviz_core.model import Entity
from hyperviz_core.rag import Chunk, ChunkExtraction
from hyperviz_core.render import HyperViz
from vizrag_llamaindex import HyperVizPostprocessor, VizRAGImageNode, VizRAGIndex

TEXTS = {
    "curie": "Marie Curie worked with Pierre Curie in Paris.",
    "einstein": "Albert Einstein lived in Bern and worked at the Patent Office.",
    "ada": "Ada Lovelace worked with Charles Babbage in London.",
}


@pytest.fixture(scope="module")
def vector_index() -> VectorStoreIndex:
    docs = [Document(text=t, id_=k) for k, t in TEXTS.items()]
    return VectorStoreIndex.from_documents(docs, embed_model=MockEmbedding(embed_dim=8))


def image_nodes(nodes: list[NodeWithScore]) -> list[VizRAGImageNode]:
    return [n.node for n in nodes if isinstance(n.node, VizRAGImageNode)]


def test_after_a_vector_store_retriever(vector_index: VectorStoreIndex) -> None:
    retriever = vector_index.as_retriever(similarity_top_k=3)
    nodes = retriever.retrieve("Who worked with Marie Curie?")
    out = HyperVizPostprocessor().postprocess_nodes(nodes, QueryBundle("Marie Curie"))
    assert out[:-1] == nodes
    image = out[-1]
    assert isinstance(image.node, VizRAGImageNode)
    assert image.score == max(n.score for n in nodes if n.score is not None)
    assert image.node.metadata["entities"] >= 6 and image.node.metadata["view"] == "passages"
    assert "Marie Curie" in image.node.text and "Charles Babbage" in image.node.text
    first = HyperVizPostprocessor(position="first").postprocess_nodes(nodes)
    assert isinstance(first[0].node, VizRAGImageNode) and first[1:] == nodes


def test_query_bundle_none_async_and_idempotent(vector_index: VectorStoreIndex) -> None:
    nodes = vector_index.as_retriever(similarity_top_k=2).retrieve("Ada Lovelace")
    post = HyperVizPostprocessor()
    sync = post.postprocess_nodes(nodes, query_bundle=None)
    got = asyncio.run(post.apostprocess_nodes(nodes))
    assert image_nodes(sync)[0].node_id == image_nodes(got)[0].node_id
    again = post.postprocess_nodes(sync)  # the image node itself is not a passage
    assert len(image_nodes(again)) == 1 and image_nodes(again)[0].node_id == \
        image_nodes(sync)[0].node_id
    assert post.postprocess_nodes([]) == []


def test_nodes_without_entities_get_no_image() -> None:
    nodes = [NodeWithScore(node=TextNode(text="   ", id_="blank"), score=None)]
    assert HyperVizPostprocessor().postprocess_nodes(nodes) == nodes


def test_unscored_nodes_give_a_keepable_image() -> None:
    nodes = [NodeWithScore(node=TextNode(text=TEXTS["curie"], id_="n"), score=None)]
    assert HyperVizPostprocessor().postprocess_nodes(nodes)[-1].score == 1.0


class OneEntity:
    def extract(self, chunk: Chunk) -> ChunkExtraction:
        return ChunkExtraction(chunk_id=chunk.id, entities=[Entity(name=f"Node {chunk.id}")])

    async def aextract(self, chunk: Chunk) -> ChunkExtraction:
        return self.extract(chunk)


def test_custom_extractor_and_renderer() -> None:
    nodes = [NodeWithScore(node=TextNode(text=t, id_=k), score=0.5) for k, t in TEXTS.items()]
    post = HyperVizPostprocessor(extractor=OneEntity(), renderer=HyperViz(layouts=("bi-inc",)))
    image = image_nodes(post.postprocess_nodes(nodes))[0]
    assert image.metadata["entities"] == 3 and image.metadata["width"] == 768


def test_store_nodes_use_the_store_entities() -> None:
    index = VizRAGIndex.from_documents([Document(text=t, id_=k) for k, t in TEXTS.items()])
    nodes = index.as_retriever(top_k=1, include_image=False).retrieve("Albert Einstein Bern")
    assert nodes[0].node.ref_doc_id == "einstein"
    post = HyperVizPostprocessor(index=index, extractor=OneEntity())
    image = image_nodes(post.postprocess_nodes(nodes))[0]
    assert "Albert Einstein" in image.text and "Node " not in image.text
    # the same node from elsewhere (not a store chunk) is extracted instead
    foreign = [NodeWithScore(node=TextNode(text=nodes[0].node.text, id_="web"), score=1.0)]
    assert "Node web" in image_nodes(post.postprocess_nodes(foreign))[0].text
    assert "Albert Einstein" in image_nodes(
        HyperVizPostprocessor(index=index.engine).postprocess_nodes(nodes))[0].text


def test_in_a_query_engine_the_image_reaches_the_chat_llm(
        vector_index: VectorStoreIndex) -> None:
    llm = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
    engine = RetrieverQueryEngine.from_args(
        vector_index.as_retriever(similarity_top_k=2), llm=llm, multimodal=True,
        node_postprocessors=[HyperVizPostprocessor()])
    engine.query("Who worked with Marie Curie?")
    assert llm.last_chat_messages is not None
    blocks = [b for m in llm.last_chat_messages for b in m.blocks]
    assert sum(isinstance(b, ImageBlock) for b in blocks) == 1
