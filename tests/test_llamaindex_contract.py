"""VizRAGIndex / VizRAGRetriever keep the contract LlamaIndex users expect of an index:
the one-line idiom works, document metadata comes back on the nodes, nodes from a node
parser stay grouped under their document, vector-store options are refused, not dropped,
and the question is embedded as a query."""

from __future__ import annotations

import gc
from pathlib import Path

import pytest
from llama_index.core import Document
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.llms import MockLLM
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import MetadataMode
from pydantic import Field

from vizrag_llamaindex import LlamaIndexEmbedder, VizRAGIndex, VizRAGRetriever

CURIE = ("Marie Curie worked with Pierre Curie in Paris. Marie Curie won the Nobel Prize in "
         "Physics.")
EINSTEIN = "Albert Einstein lived in Bern. Albert Einstein worked at the Patent Office in Bern."


def text_nodes(nodes: list) -> list:
    return [n for n in nodes if n.node.metadata.get("chunk_id")]


def test_the_chained_one_liner_keeps_its_store_open() -> None:
    engine = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")]).as_query_engine(
        llm=MockLLM(), include_image=False)
    retriever = VizRAGIndex.from_documents([Document(text=EINSTEIN, id_="e")]).as_retriever(
        include_image=False)
    gc.collect()  # the indexes are unreachable but for the retriever / query engine
    assert "Marie Curie" in str(engine.query("Who worked with Pierre Curie?").source_nodes[0]
                                .node.get_content())
    assert retriever.retrieve("Where did Albert Einstein work?")[0].node.ref_doc_id == "e"


def test_document_metadata_comes_back_on_the_nodes() -> None:
    doc = Document(text=CURIE, id_="curie", metadata={"author": "alice", "year": 1903,
                                                      "path": "/data/curie.txt"},
                   excluded_llm_metadata_keys=["path"])
    index = VizRAGIndex.from_documents([doc])
    node = text_nodes(index.as_retriever(include_image=False).retrieve("Marie Curie"))[0].node
    assert node.metadata["author"] == "alice" and node.metadata["year"] == 1903
    assert node.metadata["doc_id"] == "curie" and node.ref_doc_id == "curie"
    shown = node.get_content(MetadataMode.LLM)
    assert "author: alice" in shown and "/data/curie.txt" not in shown  # doc's own exclusion
    assert "vizrag_score" not in shown and "entities" not in shown  # VizRAG's keys hidden
    assert "_llamaindex_excluded" not in node.metadata


def test_nodes_from_a_node_parser_stay_under_their_document() -> None:
    text = " ".join([CURIE] * 8)
    nodes = SentenceSplitter(chunk_size=64, chunk_overlap=0).get_nodes_from_documents(
        [Document(text=text, id_="physics", metadata={"topic": "physics"}),
         Document(text=EINSTEIN, id_="bern")])
    assert len(nodes) > 3
    index = VizRAGIndex(nodes)
    info = index.ref_doc_info
    assert sorted(info) == ["bern", "physics"]
    assert info["physics"].metadata["topic"] == "physics"
    hits = text_nodes(index.as_retriever(top_k=3, include_image=False).retrieve(
        "Who won the Nobel Prize in Physics?"))
    assert {n.node.ref_doc_id for n in hits} == {"physics"}
    index.delete_ref_doc("physics")
    assert sorted(index.ref_doc_info) == ["bern"]
    left = text_nodes(index.as_retriever(include_image=False).retrieve("Marie Curie"))
    assert {n.node.ref_doc_id for n in left} <= {"bern"}


@pytest.mark.parametrize("option", [{"vector_store_query_mode": "hybrid"},
                                    {"sparse_top_k": 2}])
def test_vector_store_options_are_refused_not_dropped(option: dict) -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")])
    with pytest.raises(ValueError, match="does not support"):
        index.as_retriever(**option)
    with pytest.raises(ValueError, match="does not support"):
        index.as_query_engine(llm=MockLLM(), **option)


def test_options_that_ask_for_nothing_are_accepted_and_two_ks_must_agree() -> None:
    """Code that always builds a filter object passes an empty one; LlamaIndex's own
    default query mode changes nothing: both were refused. A real filter applies (the
    document has no ``year``: nothing passes), a filter of another type is refused. ``top_k`` and
    ``similarity_top_k`` that disagree were resolved silently (top_k won)."""
    from llama_index.core.vector_stores import FilterOperator, MetadataFilter, MetadataFilters
    from llama_index.core.vector_stores.types import VectorStoreQueryMode

    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")])
    for option in ({"filters": MetadataFilters(filters=[])}, {"doc_ids": []},
                   {"vector_store_query_mode": "default"},
                   {"vector_store_query_mode": VectorStoreQueryMode.DEFAULT}):
        assert index.as_retriever(include_image=False, **option).retrieve("Curie")
    real = MetadataFilters(filters=[MetadataFilter(key="year", value=1903,
                                                   operator=FilterOperator.EQ)])
    assert index.as_retriever(filters=real, include_image=False).retrieve("Curie") == []
    with pytest.raises(TypeError, match="filters must be a llama_index MetadataFilters"):
        index.as_retriever(filters=object())
    with pytest.raises(ValueError, match="does not support vector_store_query_mode"):
        index.as_retriever(vector_store_query_mode="hybrid")
    with pytest.raises(ValueError, match="top_k=4 and similarity_top_k=2 disagree"):
        index.as_retriever(top_k=4, similarity_top_k=2)
    assert index.as_retriever(top_k=2, similarity_top_k=2).top_k == 2


def test_similarity_top_k_is_a_live_alias_and_bad_values_fail_at_construction() -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="a"),
                                        Document(text=EINSTEIN, id_="b")])
    retriever = index.as_retriever(similarity_top_k=1, include_image=False)
    assert len(retriever.retrieve("Curie Einstein")) == 1
    retriever.similarity_top_k = 2
    assert retriever.top_k == 2 and len(retriever.retrieve("Curie Einstein")) == 2
    for bad in ({"top_k": True}, {"top_k": 0}, {"hops": -1}, {"hops": "x"}, {"hops": 4}):
        with pytest.raises(ValueError):
            VizRAGRetriever(index, **bad)
    with pytest.raises(ValueError):
        retriever.similarity_top_k = 0


class CountingEmbedding(MockEmbedding):
    """MockEmbedding that records which texts were embedded as queries."""

    queries: list[str] = Field(default_factory=list)

    def _get_query_embedding(self, query: str) -> list[float]:
        self.queries.append(query)
        return super()._get_query_embedding(query)


def test_the_question_is_embedded_as_a_query() -> None:
    model = CountingEmbedding(embed_dim=16)
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")], embed_model=model)
    index.as_retriever(include_image=False).retrieve("Who worked with Pierre Curie?")
    assert model.queries == ["Who worked with Pierre Curie?"]
    vec = LlamaIndexEmbedder(model).embed_query("x")
    assert vec.shape == (16,) and abs(float((vec ** 2).sum()) - 1.0) < 1e-5


def test_settings_embed_model_is_not_read_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from llama_index.core import Settings

    monkeypatch.setattr(Settings, "_embed_model", MockEmbedding(embed_dim=8))
    with pytest.warns(UserWarning, match="does not read Settings.embed_model"):
        index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")])
    assert index.engine.embedder.name.startswith("hashing")


def test_the_postprocessor_serialises_without_its_index() -> None:
    from vizrag_llamaindex import HyperVizPostprocessor

    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")])
    assert '"position": "last"' in HyperVizPostprocessor(index=index).to_json()


def test_vizrag_loader_bookkeeping_is_not_shown_to_the_llm(tmp_path: Path) -> None:
    from hyperviz_core.rag import VizRAG, load_documents

    (tmp_path / "curie.md").write_text("# Marie Curie\n\n" + CURIE)
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(load_documents([tmp_path / "curie.md"]))
    index = VizRAGIndex.from_store(tmp_path / "s")
    node = text_nodes(index.as_retriever(include_image=False).retrieve("Marie Curie"))[0].node
    assert node.metadata["source"].endswith("curie.md")
    assert "curie.md" not in node.get_content(MetadataMode.LLM)
    index.close()
