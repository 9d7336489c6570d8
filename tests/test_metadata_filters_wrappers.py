"""Metadata filters through the framework wrappers: LlamaIndex ``MetadataFilters`` /
``doc_ids`` / ``node_ids`` and LangChain's ``filter=`` dicts (PGVector/Chroma style)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document as LCDocument
from langchain_core.vectorstores import VectorStoreRetriever
from llama_index.core import Document as LIDocument
from llama_index.core.llms import MockLLM
from llama_index.core.schema import NodeRelationship, RelatedNodeInfo, TextNode
from llama_index.core.vector_stores import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from vizrag_langchain import VizRAGRetriever as LCRetriever
from vizrag_langchain import VizRAGVectorStore
from vizrag_llamaindex import VizRAGIndex
from vizrag_llamaindex.retriever import core_filter

QUERY = "Who discovered radium with Marie Curie?"
ROWS: list[tuple[str, str, dict[str, Any]]] = [
    ("d1", "Marie Curie was a physicist who discovered polonium and radium with Pierre Curie "
     "in Paris.", {"year": 2020, "lang": "en", "team": "a", "tags": ["physics", "nobel"]}),
    ("d2", "Pierre Curie was a French physicist. Pierre Curie worked with Marie Curie on "
     "radium.", {"year": 2021, "lang": "fr", "team": "b", "tags": ["physics"]}),
    ("d3", "Radium is a chemical element discovered by Marie Curie and Pierre Curie in 1898.",
     {"year": 2019, "lang": "en", "team": "b", "tags": ["chemistry"]}),
    ("d4", "Polonium was named by Marie Curie after Poland, her native country.",
     {"year": 2022, "lang": "de", "team": "a", "tags": ["chemistry", "nobel"]}),
    ("d5", "The Sorbonne in Paris is where Marie Curie taught physics.",
     {"year": 2018, "lang": "fr", "team": "c"}),
    ("d6", "The Nobel Prize in Physics 1903 went to Marie Curie, Pierre Curie and Henri "
     "Becquerel.", {"year": 2023, "lang": "en", "team": "c", "tags": ["nobel"]}),
]
META = {i: m for i, _, m in ROWS}


# ---------------------------------------------------------------------------- LlamaIndex
@pytest.fixture(scope="module")
def index() -> Iterator[VizRAGIndex]:
    idx = VizRAGIndex.from_documents([LIDocument(text=t, id_=i, metadata=m) for i, t, m in ROWS])
    idx.insert_nodes([TextNode(text="Marie Curie isolated radium chloride in 1910.", id_="n7",
                               metadata={"year": 2024, "lang": "en"}, relationships={
                                   NodeRelationship.SOURCE: RelatedNodeInfo(node_id="ref7")})])
    yield idx
    idx.close()


def _ranked(index: VizRAGIndex, **options: Any) -> list[tuple[str, float]]:
    nodes = index.as_retriever(include_image=False, **options).retrieve(QUERY)
    return [(n.node.ref_doc_id or "", float(n.score or 0.0)) for n in nodes]


def _masked(index: VizRAGIndex, keep: Any, k: int) -> list[tuple[str, float]]:
    every = _ranked(index, top_k=50)
    return [(d, s) for d, s in every if s > 0 and keep(d)][:k]


def test_llamaindex_filters_mask_the_ranking(index: VizRAGIndex) -> None:
    best = _ranked(index, top_k=1)[0][0]
    flt = MetadataFilters(filters=[MetadataFilter(key="doc_id", operator=FilterOperator.NE,
                                                  value=best)])
    got = _ranked(index, top_k=3, filters=flt)
    assert len(got) == 3 and best not in {d for d, _ in got}
    assert got == _masked(index, lambda d: d != best, 3)


@pytest.mark.parametrize(("flt", "want"), [
    (MetadataFilter(key="lang", value="fr"), {"d2", "d5"}),
    (MetadataFilter(key="year", operator=FilterOperator.GTE, value=2022), {"d4", "d6", "ref7"}),
    (MetadataFilter(key="year", operator=FilterOperator.LT, value=2020), {"d3", "d5"}),
    (MetadataFilter(key="lang", operator=FilterOperator.NIN, value=["en"]), {"d2", "d4", "d5"}),
    (MetadataFilter(key="tags", operator=FilterOperator.CONTAINS, value="nobel"),
     {"d1", "d4", "d6"}),
    (MetadataFilter(key="tags", operator=FilterOperator.ALL, value=["chemistry", "nobel"]),
     {"d4"}),
    (MetadataFilter(key="tags", operator=FilterOperator.IS_EMPTY, value=None), {"d5", "ref7"}),
])
def test_llamaindex_operators(index: VizRAGIndex, flt: MetadataFilter, want: set[str]) -> None:
    got = _ranked(index, top_k=7, filters=MetadataFilters(filters=[flt]))
    assert {d for d, _ in got} == want


def test_llamaindex_nested_filters_and_not(index: VizRAGIndex) -> None:
    flt = MetadataFilters(condition=FilterCondition.OR, filters=[
        MetadataFilters(filters=[MetadataFilter(key="team", value="a"),
                                 MetadataFilter(key="year", operator=">", value=2020)]),
        MetadataFilters(condition=FilterCondition.NOT, filters=[
            MetadataFilter(key="lang", operator=FilterOperator.IN, value=["en", "de"])]),
    ])
    got = _ranked(index, top_k=7, filters=flt)
    assert {d for d, _ in got} == {"d2", "d4", "d5"}
    assert got == _masked(index, lambda d: d in {"d2", "d4", "d5"}, 7)


def test_every_llamaindex_operator_maps() -> None:
    for op in FilterOperator:
        value: Any = (None if op is FilterOperator.IS_EMPTY else ["a"] if op.value in (
            "in", "nin", "any", "all") else "a")
        got = core_filter(MetadataFilters(filters=[MetadataFilter(key="k", operator=op,
                                                                  value=value)]))
        assert got is not None and got.filters[0].op == op.value  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="needs a list"):
        core_filter(MetadataFilters(filters=[MetadataFilter(key="year", value=2020,
                                                            operator=FilterOperator.IN)]))


def test_llamaindex_doc_ids_and_node_ids(index: VizRAGIndex) -> None:
    got = _ranked(index, top_k=7, doc_ids=["d2", "ref7", "d6"])
    assert {d for d, _ in got} == {"d2", "ref7", "d6"}
    assert got == _masked(index, lambda d: d in {"d2", "ref7", "d6"}, 7)
    ids = {n.node.ref_doc_id: n.node.node_id for n in index.as_retriever(
        top_k=7, include_image=False).retrieve(QUERY)}
    assert {d for d, _ in _ranked(index, top_k=7, node_ids=["n7", ids["d3"]])} == {"ref7", "d3"}
    both = _ranked(index, top_k=7, doc_ids=["d2", "d3"],
                   filters=MetadataFilters(filters=[MetadataFilter(key="lang", value="en")]))
    assert {d for d, _ in both} == {"d3"}


def test_llamaindex_query_engine_and_refusals(index: VizRAGIndex) -> None:
    flt = MetadataFilters(filters=[MetadataFilter(key="team", value="c")])
    with pytest.warns(UserWarning, match="not a chat model"):
        response = index.as_query_engine(llm=MockLLM(), filters=flt).query(QUERY)
    refs = {n.node.ref_doc_id for n in response.source_nodes if n.node.ref_doc_id}
    assert refs and refs <= {"d5", "d6"}
    with pytest.raises(ValueError, match="does not support vector_store_query_mode"):
        index.as_retriever(vector_store_query_mode="hybrid")
    with pytest.raises(TypeError, match="MetadataFilters"):
        index.as_retriever(filters={"lang": "en"})
    with pytest.raises(TypeError, match="list of ids"):
        index.as_retriever(doc_ids="d1")


# ---------------------------------------------------------------------------- LangChain
@pytest.fixture(scope="module")
def vs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[VizRAGVectorStore]:
    docs = [LCDocument(page_content=t, id=i, metadata=m) for i, t, m in ROWS]
    store = VizRAGVectorStore.from_documents(docs, store=tmp_path_factory.mktemp("lc") / "s")
    yield store
    store.close()


def _lc_masked(vs: VizRAGVectorStore, keep: Any, k: int) -> list[tuple[str | None, float]]:
    every = vs.similarity_search_with_score(QUERY, k=6)
    return [(d.id, s) for d, s in every if s > 0 and keep(META[str(d.id)])][:k]


@pytest.mark.parametrize(("flt", "keep"), [
    ({"lang": "fr"}, lambda m: m["lang"] == "fr"),
    ({"lang": {"$eq": "en"}}, lambda m: m["lang"] == "en"),
    ({"lang": {"$ne": "en"}}, lambda m: m["lang"] != "en"),
    ({"year": {"$gt": 2020}}, lambda m: m["year"] > 2020),
    ({"year": {"$gte": 2021}}, lambda m: m["year"] >= 2021),
    ({"year": {"$lt": 2021}}, lambda m: m["year"] < 2021),
    ({"year": {"$lte": 2019}}, lambda m: m["year"] <= 2019),
    ({"team": {"$in": ["a", "c"]}}, lambda m: m["team"] in ("a", "c")),
    ({"team": {"$nin": ["a", "c"]}}, lambda m: m["team"] not in ("a", "c")),
    ({"$and": [{"lang": "en"}, {"year": {"$gte": 2020}}]},
     lambda m: m["lang"] == "en" and m["year"] >= 2020),
    ({"$or": [{"team": "a"}, {"$and": [{"lang": "fr"}, {"year": {"$lt": 2020}}]}]},
     lambda m: m["team"] == "a" or (m["lang"] == "fr" and m["year"] < 2020)),
    ({"team": "b", "year": {"$gt": 2019}}, lambda m: m["team"] == "b" and m["year"] > 2019),
])
def test_langchain_vectorstore_filter(vs: VizRAGVectorStore, flt: dict[str, Any],
                                      keep: Any) -> None:
    got = vs.similarity_search_with_score(QUERY, k=6, filter=flt)
    assert got and all(keep(d.metadata) for d, _ in got)
    assert [(d.id, s) for d, s in got] == _lc_masked(vs, keep, 6)


def test_langchain_best_excluded_async_and_as_retriever(vs: VizRAGVectorStore) -> None:
    best = vs.similarity_search(QUERY, k=1)[0]
    flt = {"lang": {"$ne": best.metadata["lang"]}}
    got = vs.similarity_search(QUERY, k=2, filter=flt)
    assert len(got) == 2 and best.id not in {d.id for d in got}
    assert [d.id for d in asyncio.run(vs.asimilarity_search(QUERY, k=2, filter=flt))] == [
        d.id for d in got]
    retriever = vs.as_retriever(search_kwargs={"k": 2, "filter": flt})
    assert isinstance(retriever, VectorStoreRetriever)
    assert [d.id for d in retriever.invoke(QUERY)] == [d.id for d in got]


def test_langchain_retriever_filter(vs: VizRAGVectorStore) -> None:
    engine = vs.engine
    own = LCRetriever(store=engine, k=3, filter={"team": "c"})
    assert {d.metadata["doc_id"] for d in own.invoke(QUERY)} == {"d5", "d6"}
    per_call = own.invoke(QUERY, filter={"year": {"$lte": 2019}})
    assert {d.metadata["doc_id"] for d in per_call} == {"d3", "d5"}
    kwargs = LCRetriever(store=engine, search_kwargs={"k": 3, "filter": {"lang": "de"}})
    assert [d.metadata["doc_id"] for d in kwargs.invoke(QUERY)] == ["d4"]
    docs = asyncio.run(own.ainvoke(QUERY, filter={"lang": "fr"}))
    assert {d.metadata["doc_id"] for d in docs} == {"d2", "d5"}


def test_langchain_no_image_document_when_nothing_passes(vs: VizRAGVectorStore) -> None:
    retriever = LCRetriever(store=vs.engine, k=3, include_image=True)
    assert retriever.invoke(QUERY, filter={"team": "none"}) == []
    docs = retriever.invoke(QUERY, filter={"team": "c"})
    assert [d.metadata["type"] for d in docs] == ["chunk", "chunk", "hyperviz_image"]


def test_langchain_bad_filters_are_named(vs: VizRAGVectorStore) -> None:
    with pytest.raises(TypeError, match="not a callable"):
        vs.similarity_search(QUERY, filter=lambda doc: True)
    with pytest.raises(ValueError, match=r"unknown operator\(s\) \['\$regex'\]"):
        vs.similarity_search(QUERY, filter={"lang": {"$regex": "e"}})
    with pytest.raises(ValueError, match="needs a list"):
        vs.similarity_search(QUERY, filter={"lang": {"$in": "en"}})
    with pytest.raises(TypeError, match="takes a dict"):
        LCRetriever(store=vs.engine, filter="lang == 'en'")


def test_langchain_filter_dict_forms_and_a_retrievers_dump(vs: VizRAGVectorStore,
                                                           tmp_path: Path) -> None:
    """A dict names metadata keys (``key`` and ``value`` too), except exactly a retriever's
    dump of its filter, so a retriever rebuilt from its dump keeps its filter."""
    want = {"d5", "d6"}
    for flt in ({"team": "c"}, {"condition": "or", "filters": [{"key": "team", "value": "c"}]}):
        assert {d.id for d in vs.similarity_search(QUERY, k=3, filter=flt)} == want, flt
    docs = [LCDocument(page_content="Ada Lovelace wrote notes.", id="a",
                       metadata={"key": "blue", "value": 2}),
            LCDocument(page_content="Ada Lovelace met Babbage.", id="b",
                       metadata={"key": "red", "value": 2})]
    other = VizRAGVectorStore.from_documents(docs, store=tmp_path / "kv")
    assert [d.id for d in other.similarity_search("Ada", filter={"key": "blue"})] == ["a"]
    assert [d.id for d in other.similarity_search(
        "Ada", filter={"key": "red", "value": 2})] == ["b"]
    other.close()
    own = LCRetriever(store=vs.engine, k=3, filter={"team": "c"})
    again = LCRetriever(store=vs.engine, **{k: v for k, v in own.model_dump().items()
                                            if k in ("k", "filter")})
    assert again.filter == own.filter
    assert [d.id for d in again.invoke(QUERY)] == [d.id for d in own.invoke(QUERY)]


def test_user_metadata_doc_id_is_filtered_as_shown(tmp_path: Path) -> None:
    """Child chunks that name their parent in ``doc_id`` metadata (LangChain's
    MultiVectorRetriever / ParentDocumentRetriever ``id_key``) filter on that value."""
    docs = [LCDocument(page_content=f"Child {n} of parent {p}: Ada Lovelace wrote notes.",
                       id=f"c{n}", metadata={"doc_id": f"parent-{p}"})
            for n, p in ((1, 0), (2, 0), (3, 1))]
    store = VizRAGVectorStore.from_documents(docs, store=tmp_path / "s")
    got = store.similarity_search("Ada Lovelace notes", k=3, filter={"doc_id": "parent-0"})
    assert sorted(d.id for d in got) == ["c1", "c2"]
    assert {d.metadata["doc_id"] for d in got} == {"parent-0"}
    store.close()


def test_llamaindex_ids_when_nodes_carry_their_own_id_metadata() -> None:
    """``node_ids``/``doc_ids`` name the engine's ids even when the nodes' metadata holds
    ``chunk_id``/``doc_id`` keys of their own (which a metadata filter reads)."""
    nodes = [TextNode(text="Marie Curie discovered radium with Pierre Curie.", id_="n1",
                      metadata={"chunk_id": 0, "doc_id": "paper-1"}),
             TextNode(text="Radium was discovered by Marie Curie in 1898.", id_="n2",
                      metadata={"chunk_id": 1, "doc_id": "paper-1"})]
    index = VizRAGIndex(nodes=nodes)
    index.insert(LIDocument(text="Marie Curie discovered radium in Paris.", id_="docA",
                            metadata={"doc_id": "external-7"}))

    def ids(**kw: Any) -> list[str]:
        return [n.node.node_id for n in index.as_retriever(
            similarity_top_k=3, include_image=False, **kw).retrieve(QUERY)]

    assert ids(node_ids=["n1"]) == ["n1"]
    assert [n.node.ref_doc_id for n in index.as_retriever(
        include_image=False, doc_ids=["docA"]).retrieve(QUERY)] == ["docA"]
    same = MetadataFilters(filters=[MetadataFilter(key="doc_id", value="paper-1")])
    assert sorted(ids(filters=same)) == ["n1", "n2"]
    index.close()
