"""LlamaIndex review 43: one VizRAG index per storage context (refused when made), and no
second image from ``HyperVizPostprocessor`` after a VizRAG retriever that drew one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import (
    Document,
    StorageContext,
    VectorStoreIndex,
    load_index_from_storage,
    load_indices_from_storage,
)
from llama_index.core.base.llms.types import ImageBlock
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall
from llama_index.core.query_engine import RetrieverQueryEngine
from llama_index.core.schema import NodeWithScore, QueryBundle, TextNode

from vizrag_llamaindex import HyperVizPostprocessor, VizRAGImageNode, VizRAGIndex

QUERY = "Who did Marie Curie marry?"


def docs() -> list[Document]:
    return [Document(text="Marie Curie married Pierre Curie in Paris.", id_="curie"),
            Document(text="Albert Einstein lived in Bern and Berlin.", id_="einstein"),
            Document(text="Ada Lovelace worked with Charles Babbage in London.", id_="ada")]


# ------------------------------------------------------------ one VizRAG index per context
def test_a_second_vizrag_index_in_one_context_is_refused_when_made(tmp_path: Path) -> None:
    """It was accepted, and ``sc.persist`` failed later ("got 2"), after the work was done."""
    sc = StorageContext.from_defaults()
    first = VizRAGIndex.from_documents(docs()[:1], storage_context=sc)
    first.set_index_id("first")
    with pytest.raises(ValueError, match=r"holds VizRAGIndex 'first'.*its own StorageContext"):
        VizRAGIndex.from_documents(docs()[1:], storage_context=sc)
    assert [s.index_id for s in sc.index_store.index_structs()] == ["first"]
    sc.persist(persist_dir=str(tmp_path / "p"))
    loaded = load_index_from_storage(StorageContext.from_defaults(persist_dir=str(tmp_path / "p")))
    assert sorted(loaded.ref_doc_info) == ["curie"]


def test_a_refused_second_index_makes_no_store(tmp_path: Path) -> None:
    """It was refused after its ``store_dir`` was made, which stayed behind (empty store)."""
    sc = StorageContext.from_defaults()
    VizRAGIndex.from_documents(docs()[:1], storage_context=sc, store_dir=tmp_path / "a")
    with pytest.raises(ValueError, match="its own StorageContext"):
        VizRAGIndex.from_documents(docs()[1:], storage_context=sc, store_dir=tmp_path / "b")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a"]


def test_other_indexes_share_the_context_and_load_with_it(tmp_path: Path) -> None:
    sc = StorageContext.from_defaults()
    emb = MockEmbedding(embed_dim=8)
    VectorStoreIndex.from_documents(docs(), embed_model=emb, storage_context=sc).set_index_id("v")
    VizRAGIndex.from_documents(docs(), embed_model=emb, storage_context=sc).set_index_id("z")
    sc.persist(persist_dir=str(tmp_path / "p"))
    loaded = load_indices_from_storage(
        StorageContext.from_defaults(persist_dir=str(tmp_path / "p")), embed_model=emb)
    assert sorted(type(i).__name__ for i in loaded) == ["VectorStoreIndex", "VizRAGIndex"]


def test_a_closed_or_deleted_index_gives_way_to_a_new_one(tmp_path: Path) -> None:
    """An index no longer in use does not block the context (``persist`` raised "got 2")."""
    sc = StorageContext.from_defaults()
    VizRAGIndex.from_documents(docs()[:1], storage_context=sc).close()
    gone = VizRAGIndex.from_documents(docs()[1:2], storage_context=sc)
    sc.index_store.delete_index_struct(gone.index_id)
    last = VizRAGIndex.from_documents(docs()[2:], storage_context=sc)
    last.set_index_id("last")
    sc.persist(persist_dir=str(tmp_path / "p"))
    loaded = load_index_from_storage(StorageContext.from_defaults(persist_dir=str(tmp_path / "p")),
                                     index_id="last")
    assert sorted(loaded.ref_doc_info) == ["ada"]


def test_the_same_index_loaded_twice_into_one_context_is_no_second(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents(docs())
    index.storage_context.persist(persist_dir=str(tmp_path / "p"))
    sc = StorageContext.from_defaults(persist_dir=str(tmp_path / "p"))
    load_index_from_storage(sc)
    again = load_index_from_storage(sc)
    sc.persist(persist_dir=str(tmp_path / "p2"))
    assert list(sc.vizrag_indexes.values()) == [again]  # type: ignore[attr-defined]


# ------------------------------------------------------------ no second image
class ChatMock(MockLLMWithChatMemoryOfLastCall):
    def images_sent(self) -> int:
        return sum(isinstance(b, ImageBlock) for m in self.last_chat_messages or []
                   for b in m.blocks)


@pytest.fixture(scope="module")
def index() -> VizRAGIndex:
    return VizRAGIndex.from_documents(docs())


def images(nodes: list[NodeWithScore]) -> int:
    return sum(isinstance(n.node, VizRAGImageNode) for n in nodes)


def test_postprocessor_after_the_vizrag_retriever_adds_no_second_image(
        index: VizRAGIndex) -> None:
    llm = ChatMock(is_chat_model=True)
    engine = index.as_query_engine(llm=llm, top_k=3,
                                   node_postprocessors=[HyperVizPostprocessor(index=index)])
    response = engine.query(QUERY)
    assert images(response.source_nodes) == 1 and llm.images_sent() == 1
    nodes = index.as_retriever(top_k=3).retrieve(QUERY)
    post = HyperVizPostprocessor(index=index)
    assert post.postprocess_nodes(nodes, QueryBundle(QUERY)) == nodes
    assert asyncio.run(post.apostprocess_nodes(nodes, QueryBundle(QUERY))) == nodes


def test_postprocessor_draws_text_only_vizrag_nodes_and_mixed_ones(index: VizRAGIndex) -> None:
    post = HyperVizPostprocessor(index=index)
    text_only = index.as_retriever(top_k=3, include_image=False).retrieve(QUERY)
    assert images(post.postprocess_nodes(text_only)) == 1
    drawn = index.as_retriever(top_k=3).retrieve(QUERY)
    foreign = NodeWithScore(node=TextNode(text="Pierre Curie taught in Paris.", id_="web"),
                            score=0.5)
    assert images(post.postprocess_nodes([*drawn, foreign])) == 2  # a new one of all passages


def test_postprocessor_on_a_vector_engine_sends_the_image_with_multimodal() -> None:
    """As the README says: ``multimodal=True`` sends it; LlamaIndex's text synthesizer sends
    the caption only."""
    vec = VectorStoreIndex.from_documents(docs(), embed_model=MockEmbedding(embed_dim=8))
    for multimodal, sent in ((True, 1), (False, 0)):
        llm = ChatMock(is_chat_model=True)
        engine = vec.as_query_engine(llm=llm, similarity_top_k=3, multimodal=multimodal,
                                     node_postprocessors=[HyperVizPostprocessor()])
        response = engine.query(QUERY)
        assert images(response.source_nodes) == 1 and llm.images_sent() == sent
    engine = RetrieverQueryEngine.from_args(vec.as_retriever(similarity_top_k=3), llm=llm,
                                            multimodal=True,
                                            node_postprocessors=[HyperVizPostprocessor()])
    engine.query(QUERY)
    assert llm.images_sent() == 1
