"""VizRAGVectorStore: LangChain's standard vector-store suite plus VizRAG's specifics."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import VectorStore, VectorStoreRetriever
from langchain_tests.integration_tests import VectorStoreIntegrationTests

from hyperviz_core.rag import RankWeights, VizRAG
from vizrag_langchain import VizRAGRetriever, VizRAGVectorStore
from vizrag_langchain.vectorstore import relevance_score


class TestVizRAGVectorStoreStandard(VectorStoreIntegrationTests):
    """langchain-tests' standard vector-store suite, offline, a fresh store per test."""

    @pytest.fixture
    def vectorstore(self, tmp_path: Path) -> Iterator[VectorStore]:
        store = VizRAGVectorStore(tmp_path / "store", self.get_embeddings())
        try:
            yield store
        finally:
            store.close()


@pytest.fixture
def vs(tmp_path: Path) -> Iterator[VizRAGVectorStore]:
    with VizRAGVectorStore(tmp_path / "vs", DeterministicFakeEmbedding(size=8)) as store:
        yield store


BAND = [
    Document("Iron Maiden were founded by Steve Harris in Leyton in 1975.",
             metadata={"source": "maiden.txt", "page": 1}),
    Document("Ada Lovelace wrote notes on the Analytical Engine.",
             metadata={"source": "ada.txt", "page": 7}),
    Document("The Thames flows through London.", metadata={"source": "thames.txt"}),
]


def test_search_returns_the_documents_as_added_without_vizrag_keys(
        vs: VizRAGVectorStore) -> None:
    ids = vs.add_documents(BAND)
    hits = vs.similarity_search_with_score("Who founded Iron Maiden?", k=2)
    first, score = hits[0]
    assert first == Document(id=ids[0], page_content=BAND[0].page_content,
                             metadata={"source": "maiden.txt", "page": 1})
    assert score > hits[1][1] >= 0.0
    assert len(hits) == 2 and hits[1][0].id in ids
    # VizRAG's own view of the same search stays available
    chunk = vs.vizrag_retriever.invoke("Who founded Iron Maiden?", k=1)[0]
    assert chunk.metadata["score"] == score and chunk.metadata["doc_id"] == ids[0]
    assert "score_parts" in chunk.metadata and "score_parts" not in first.metadata


def test_relevance_scores_are_the_share_of_the_ceiling(vs: VizRAGVectorStore) -> None:
    vs.add_documents(BAND)
    scored = vs.similarity_search_with_score("Who founded Iron Maiden?", k=3)
    relevant = vs.similarity_search_with_relevance_scores("Who founded Iron Maiden?", k=3)
    weights = vs.engine.config.weights.for_embedder(vs.engine.embedder)
    assert weights.vector == 1.0  # a LangChain embedding counts as semantic
    assert [d for d, _ in relevant] == [d for d, _ in scored]
    assert [r for _, r in relevant] == [round(s / 3.5, 6) for _, s in scored]
    assert all(0.0 <= r <= 1.0 for _, r in relevant)
    naive = vs.similarity_search_with_relevance_scores("Ada Lovelace", k=1, mode="naive")
    assert naive[0][1] == 1.0  # naive: the cosine relative to the best hit's
    kept = vs.similarity_search_with_relevance_scores(
        "Who founded Iron Maiden?", k=3, score_threshold=relevant[0][1])
    assert [d for d, _ in kept] == [relevant[0][0]]


def test_relevance_score_function() -> None:
    hashed = RankWeights(vector=0.0)
    assert relevance_score(2.5, "vizrag", hashed) == 1.0
    assert relevance_score(1.0, "hyper-lite", hashed) == 0.4
    assert relevance_score(9.0, "text", hashed) == 1.0  # clipped
    assert relevance_score(0.25, "naive", hashed) == 0.25
    assert relevance_score(1.0, "vizrag", RankWeights(bm25=0, vector=0, graph=0)) == 0.0


def test_as_retriever_similarity_and_threshold(vs: VizRAGVectorStore) -> None:
    ids = vs.add_documents(BAND)
    retriever = vs.as_retriever(search_type="similarity", search_kwargs={"k": 1})
    assert isinstance(retriever, VectorStoreRetriever)
    assert [d.id for d in retriever.invoke("Analytical Engine notes")] == [ids[1]]
    assert [d.id for d in asyncio.run(retriever.ainvoke("Thames London"))] == [ids[2]]
    strict = vs.as_retriever(search_type="similarity_score_threshold",
                             search_kwargs={"k": 3, "score_threshold": 0.99})
    assert strict.invoke("Analytical Engine notes") == []
    mmr = vs.as_retriever(search_type="mmr")
    with pytest.raises(NotImplementedError, match="maximal-marginal-relevance"):
        mmr.invoke("Ada")


def test_per_call_mode_and_unknown_options(vs: VizRAGVectorStore) -> None:
    vs.add_documents(BAND)
    assert vs.vizrag_retriever.mode == "vizrag"  # the engine's default
    assert len(vs.similarity_search("Ada Lovelace", k=2, mode="naive", hops=2)) == 2
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        vs.similarity_search("Ada", mode="global")
    hits = vs.similarity_search("Ada Lovelace Iron Maiden", k=3, filter={"source": "ada.txt"})
    assert [d.metadata["source"] for d in hits] == ["ada.txt"]
    with pytest.raises(TypeError, match="callable"):
        vs.similarity_search("Ada", filter=lambda d: True)
    with pytest.raises(TypeError, match="did you mean 'k'"):
        vs.similarity_search("Ada", top_k=2)
    with pytest.raises(TypeError, match="include_image"):
        vs.similarity_search("Ada", include_image=True)
    with pytest.raises(TypeError, match="k must be an integer"):
        vs.similarity_search("Ada", k="2")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="query as a string"):
        vs.similarity_search(["Ada"])  # type: ignore[arg-type]
    with pytest.raises(NotImplementedError, match="cannot search by a vector"):
        vs.similarity_search_by_vector([0.1] * 8)
    with pytest.raises(NotImplementedError, match="maximal-marginal-relevance"):
        vs.max_marginal_relevance_search("Ada")


def test_engine_default_mode_and_constructor_checks(tmp_path: Path) -> None:
    engine = VizRAG(tmp_path / "naive", show_progress=False, mode="naive")
    store = VizRAGVectorStore(engine)
    assert store.vizrag_retriever.mode == "naive" and store.embeddings is None
    with pytest.raises(TypeError, match="already a VizRAG engine"):
        VizRAGVectorStore(engine, DeterministicFakeEmbedding(size=8))
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        VizRAGVectorStore(tmp_path / "never", mode="global")
    with pytest.raises(TypeError, match="one_chunk must be True or False"):
        VizRAGVectorStore(tmp_path / "never", one_chunk="yes")  # type: ignore[arg-type]
    assert not (tmp_path / "never").exists()  # checked before a store is created
    store.close()
    assert engine.store.stats().documents == 0  # an engine given stays open


def test_offline_default_embedder(tmp_path: Path) -> None:
    with VizRAGVectorStore.from_texts(
            ["Ada Lovelace wrote notes.", "The Thames flows through London."],
            metadatas=[{"n": 1}, {"n": 2}], ids=["ada", "thames"],
            store=tmp_path / "offline") as store:
        assert store.embeddings is None
        assert store.engine.embedder.name.startswith("hashing")
        hits = store.similarity_search_with_relevance_scores("Thames", k=1)
        assert hits[0][0] == Document(id="thames", page_content="The Thames flows through London.",
                                      metadata={"n": 2})
        assert 0.0 < hits[0][1] <= 1.0


def test_from_documents_keeps_ids_and_checks_before_creating(tmp_path: Path) -> None:
    emb = DeterministicFakeEmbedding(size=8)
    docs = [Document("Ada Lovelace wrote notes.", id="ada"),
            Document("The Thames flows through London.")]
    store = VizRAGVectorStore.from_documents(docs, emb, store=tmp_path / "fd", mode="text")
    ids = [d.id for d in store.get_by_ids(["ada", "missing", "ada"])]
    assert ids == ["ada"] and store.embeddings is emb
    assert store.vizrag_retriever.mode == "text"
    store.close()
    with pytest.raises(TypeError, match="needs store="):
        VizRAGVectorStore.from_documents(docs, emb)
    with pytest.raises(ValueError, match="one id per document"):
        VizRAGVectorStore.from_documents(docs, emb, store=tmp_path / "bad", ids=["x"])
    with pytest.raises(TypeError, match="one text per character"):
        VizRAGVectorStore.from_texts("not a list", emb, store=tmp_path / "bad")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Document objects"):
        VizRAGVectorStore.from_documents(["a text"], emb, store=tmp_path / "bad")  # type: ignore[list-item]
    with pytest.raises(TypeError, match="unknown option 'top_k'"):
        VizRAGVectorStore.from_documents(docs, emb, store=tmp_path / "bad", top_k=2)
    assert not (tmp_path / "bad").exists()


def test_async_constructors_and_search(tmp_path: Path) -> None:
    async def go() -> tuple[list[str], list[Document], list[Document]]:
        store = await VizRAGVectorStore.afrom_texts(
            ["Ada Lovelace wrote notes.", "The Thames flows through London."],
            DeterministicFakeEmbedding(size=8), ids=["ada", "thames"],
            store=tmp_path / "async")
        more = await store.aadd_texts(["Steve Harris founded Iron Maiden."], ids=["maiden"])
        found = await store.asimilarity_search("Who founded Iron Maiden?", k=1)
        await store.adelete(["thames"])
        left = await store.aget_by_ids(["ada", "thames", "maiden"])
        store.close()
        return more, found, left
    more, found, left = asyncio.run(go())
    assert more == ["maiden"] and [d.id for d in found] == ["maiden"]
    assert [d.id for d in left] == ["ada", "maiden"]


def test_delete_refuses_none_and_takes_chunk_ids(vs: VizRAGVectorStore) -> None:
    ids = vs.add_documents(BAND)
    with pytest.raises(TypeError, match="never deletes a whole store"):
        vs.delete()
    with pytest.raises(TypeError, match="unknown option"):
        vs.delete(ids, cascade=True)
    chunk_id = vs.vizrag_retriever.invoke("Thames", k=1)[0].id
    assert chunk_id is not None and vs.delete([chunk_id]) is True
    assert [d.id for d in vs.get_by_ids(ids)] == ids[:2]
    with pytest.raises(TypeError, match="string ids"):
        vs.get_by_ids([1])  # type: ignore[list-item]


LONG = " ".join(f"Sentence {i} tells of the river Thames and of boats on it." for i in range(60))


def test_windowed_documents_are_one_hit_each(tmp_path: Path) -> None:
    """one_chunk=False: a long document is several chunks but one hit, returned whole."""
    store = VizRAGVectorStore(tmp_path / "win", DeterministicFakeEmbedding(size=8),
                              one_chunk=False, engine_kwargs={"chunk_size": 200,
                                                              "chunk_overlap": 0})
    ids = store.add_documents([Document(LONG, id="long", metadata={"k": "v"}),
                               Document("Ada Lovelace wrote notes on the Thames.", id="ada")])
    assert store.engine.stats().chunks > 3  # the long one was windowed
    hits = store.similarity_search("river Thames boats", k=2)
    assert sorted(d.id for d in hits) == sorted(ids)  # each document once
    long_doc = next(d for d in hits if d.id == "long")
    assert long_doc.page_content == LONG and long_doc.metadata == {"k": "v"}
    store.close()


def test_one_chunk_default_indexes_a_long_document_whole(vs: VizRAGVectorStore) -> None:
    vs.add_documents([Document(LONG, id="long")])
    assert vs.engine.stats().chunks == 1
    assert isinstance(vs.vizrag_retriever, VizRAGRetriever)



def test_a_query_that_matches_nothing_scores_zero(tmp_path: Path) -> None:
    """Nothing of the query matched (``unmatched``): no chance evidence either (central
    entities used to score such hits 0.35-0.55), so a relevance threshold drops them all."""
    with VizRAGVectorStore(tmp_path / "e") as vs:  # the offline default embedder
        vs.add_documents(BAND)
        query = "quantum chromodynamics lattice gauge theory"
        assert vs.vizrag_retriever.invoke(query, k=1)[0].metadata["unmatched"] is True
        assert [s for _, s in vs.similarity_search_with_score(query, k=3)] == [0.0] * 3
        assert vs.similarity_search_with_relevance_scores(query, k=3,
                                                          score_threshold=0.3) == []
        assert vs.similarity_search_with_score("Who founded Iron Maiden?", k=1)[0][1] > 0


def test_langchain_indexing_api_keeps_the_store_in_sync(tmp_path: Path) -> None:
    """``langchain_core.indexing.index`` (a record manager) passes ``batch_size`` to
    ``add_documents``; it used to be refused, so nothing could be indexed that way."""
    from langchain_core.indexing import InMemoryRecordManager, aindex, index

    band = [Document("Iron Maiden formed in Leyton.", metadata={"source": "a.txt"}),
            Document("Steve Harris founded the band.", metadata={"source": "a.txt"}),
            Document("Maiden Japan is a live EP.", metadata={"source": "b.txt"})]
    with VizRAGVectorStore(tmp_path / "vs") as vs:
        records = InMemoryRecordManager(namespace="viz")
        records.create_schema()
        first = index(band, records, vs, cleanup="incremental", source_id_key="source",
                      key_encoder="sha256")
        assert (first["num_added"], first["num_deleted"]) == (3, 0)
        again = index(band, records, vs, cleanup="incremental", source_id_key="source",
                      key_encoder="sha256")
        assert (again["num_added"], again["num_skipped"]) == (0, 3)
        changed = [Document("Iron Maiden formed in Leyton, East London, in 1975.",
                            metadata={"source": "a.txt"}), band[2]]
        step = index(changed, records, vs, cleanup="incremental", source_id_key="source",
                     key_encoder="sha256")
        assert (step["num_added"], step["num_deleted"]) == (1, 2)
        assert vs.engine.stats().documents == 2
        assert vs.similarity_search("Where did Iron Maiden form?", k=1)[0].page_content == \
            changed[0].page_content
        full = asyncio.run(aindex([band[2]], records, vs, cleanup="full", key_encoder="sha256"))
        assert (full["num_deleted"], vs.engine.stats().documents) == (1, 1)
        with pytest.raises(ValueError, match="batch_size must be a positive integer"):
            vs.add_documents(band, batch_size=0)
