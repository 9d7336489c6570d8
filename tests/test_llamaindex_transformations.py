"""``transformations`` (node parsers, metadata extractors) apply as in a vector index: each
document's nodes are indexed under its id, re-inserting replaces them, ``refresh_ref_docs``
skips unchanged documents, and a failing transformation loses nothing already stored."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import BaseNode, TextNode, TransformComponent

from vizrag_llamaindex import VizRAGIndex
from vizrag_llamaindex.documents import ref_doc_of
from vizrag_llamaindex.nodes import REF_DOC_KEY

CURIE = ("Marie Curie worked with Pierre Curie in Paris. She studied radioactivity at the "
         "Sorbonne. " * 12)
EINSTEIN = "Albert Einstein lived in Bern. He worked at the Patent Office in Bern. " * 12


def splitter() -> SentenceSplitter:
    return SentenceSplitter(chunk_size=64, chunk_overlap=0)


def docs() -> list[Document]:
    return [Document(text=CURIE, id_="curie", metadata={"title": "Curie"}),
            Document(text=EINSTEIN, id_="einstein")]


def stored(index: VizRAGIndex) -> dict[str, list[str]]:
    return {ref: sorted(info.node_ids) for ref, info in sorted(index.ref_doc_info.items())}


def engine_docs(index: VizRAGIndex, ref: str) -> list[str]:
    """Ids of the engine documents stored for the LlamaIndex document ``ref``."""
    return sorted(d.id for d in index.engine.store.documents()
                  if ref_doc_of(d) == ref)


class Tagger(TransformComponent):
    """Adds a metadata key to every node (a stand-in for a metadata extractor)."""

    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        for node in nodes:
            node.metadata["section"] = "tagged"
        return nodes


class Broken(TransformComponent):
    def __call__(self, nodes: Sequence[BaseNode], **kwargs: Any) -> Sequence[BaseNode]:
        raise RuntimeError("extractor failed")


def test_from_documents_indexes_each_document_s_nodes() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "transformations are ignored" any more
        index = VizRAGIndex.from_documents(docs(), transformations=[splitter(), Tagger()])
    groups = stored(index)
    assert sorted(groups) == ["curie", "einstein"]
    assert all(len(ids) > 1 for ids in groups.values())  # split into several nodes
    plain = VizRAGIndex.from_documents(docs())
    assert all(len(ids) == 1 for ids in stored(plain).values())  # the engine's own chunks
    nodes = index.as_retriever(top_k=3, include_image=False).retrieve("Where did Curie work?")
    assert nodes and nodes[0].node.ref_doc_id == "curie"
    assert nodes[0].node.metadata["section"] == "tagged"  # the extractor's metadata
    assert not any(k.startswith("_llamaindex") for n in nodes for k in n.node.metadata)
    assert index.ref_doc_info["curie"].metadata == {"title": "Curie", "section": "tagged"}


def test_insert_again_replaces_the_nodes_and_refresh_skips_unchanged() -> None:
    index = VizRAGIndex.from_documents(docs(), transformations=[splitter()])
    before = stored(index)
    first = engine_docs(index, "curie")
    index.insert(docs()[0])  # the same passages keep their node ids (stop 52: were UUIDs)
    after = stored(index)
    assert engine_docs(index, "curie") == first and len(first) > 1
    assert after == before
    changed = Document(text=CURIE + " She won two Nobel Prizes.", id_="curie")
    assert index.refresh_ref_docs([docs()[1], changed]) == [False, True]
    assert stored(index)["einstein"] == before["einstein"]
    assert set(stored(index)["curie"]) != set(after["curie"])  # its passages split anew
    index.update_ref_doc(Document(text="Marie Curie lived in Warsaw.", id_="curie"))
    assert len(stored(index)["curie"]) == 1
    index.delete_ref_doc("curie")
    assert sorted(stored(index)) == ["einstein"]


def test_async_paths_and_a_failing_transformation() -> None:
    index = VizRAGIndex.from_documents(docs(), transformations=[splitter()])
    before = stored(index)
    asyncio.run(index.ainsert(Document(text=EINSTEIN + "He moved to Berlin.", id_="einstein")))
    again = set(stored(index)["einstein"])
    assert again - set(before["einstein"]) and again & set(before["einstein"])
    kept = stored(index)
    broken = VizRAGIndex(engine=index.engine, transformations=[splitter(), Broken()])
    with pytest.raises(RuntimeError, match="extractor failed"):
        broken.insert(Document(text="Marie Curie lived in Warsaw.", id_="curie"))
    assert stored(index) == kept  # nothing stored was lost


def test_nodes_are_not_transformed_again() -> None:
    index = VizRAGIndex.from_documents(docs(), transformations=[splitter()])
    nodes = splitter().get_nodes_from_documents([Document(text=EINSTEIN, id_="bern")])
    index.insert_nodes(nodes)
    assert engine_docs(index, "bern") == sorted(n.node_id for n in nodes)


def test_the_caller_s_documents_are_not_changed_and_the_last_of_one_id_counts() -> None:
    given = docs()
    index = VizRAGIndex.from_documents(given, transformations=[Tagger(), splitter()])
    assert given[0].metadata == {"title": "Curie"}  # the extractor ran on a copy
    assert index.refresh_ref_docs(docs()) == [False, False]  # same content: skipped
    twice = [Document(text=CURIE, id_="x"), Document(text=EINSTEIN, id_="x")]
    index.refresh_ref_docs(twice)
    texts = [d.text for d in index.engine.store.documents()
             if ref_doc_of(d) == "x"]
    assert texts and all("Einstein" in t for t in texts)  # the last of one id
    assert index.refresh_ref_docs([twice[1]]) == [False]


def test_a_pipeline_without_a_splitter_indexes_each_document_whole() -> None:
    index = VizRAGIndex.from_documents(docs(), transformations=[Tagger()])
    assert engine_docs(index, "curie") == ["curie"]
    assert index.refresh_ref_docs(docs()) == [False, False]


def test_an_index_loaded_without_its_transformations_still_replaces_the_nodes(
        tmp_path: Any) -> None:
    from llama_index.core import StorageContext, load_index_from_storage

    index = VizRAGIndex.from_documents(docs(), store_dir=tmp_path / "store",
                                       transformations=[splitter()])
    assert len(engine_docs(index, "curie")) > 1
    index.storage_context.persist(persist_dir=str(tmp_path / "persist"))
    loaded = load_index_from_storage(
        StorageContext.from_defaults(persist_dir=str(tmp_path / "persist")))
    assert isinstance(loaded, VizRAGIndex)
    loaded.update_ref_doc(Document(text="Marie Curie was born in Warsaw.", id_="curie"))
    assert engine_docs(loaded, "curie") == ["curie"]  # the old nodes went
    loaded.delete_ref_doc("einstein")
    assert engine_docs(loaded, "einstein") == []


def test_refresh_reads_the_stored_documents_once(monkeypatch: pytest.MonkeyPatch) -> None:
    index = VizRAGIndex.from_documents(docs(), transformations=[splitter()])
    store = index.engine.store
    calls: list[int] = []
    real = store.documents

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(store, "documents", counted)
    changed = Document(text=CURIE + " She won two Nobel Prizes.", id_="curie")
    assert index.refresh_ref_docs([docs()[1], changed]) == [False, True]
    assert len(calls) == 1  # the check and the replacement share one read


def test_a_users_own_ref_doc_id_metadata_links_nothing() -> None:
    """A document whose own metadata says ``ref_doc_id: A`` (a note pointing at its source)
    is its own document: replacing or deleting A leaves it (it was deleted as A's node)."""
    for tr in (None, [splitter()]):
        index = VizRAGIndex.from_documents(
            [Document(text=CURIE, id_="A"),
             Document(text=EINSTEIN, id_="B", metadata={"ref_doc_id": "A"})],
            transformations=tr)
        assert sorted(index.ref_doc_info) == ["A", "B"]
        assert index.ref_doc_info["B"].metadata == {"ref_doc_id": "A"}  # the user's, kept
        index.insert(Document(text=CURIE + " She moved to Warsaw.", id_="A"))  # replaced
        index.delete_ref_doc("A")
        assert sorted(index.ref_doc_info) == ["B"], tr
        node = index.as_retriever(top_k=1, include_image=False).retrieve("Einstein")[0].node
        assert node.metadata["ref_doc_id"] == "A" and node.ref_doc_id == "B"


def test_nodes_stored_by_an_earlier_version_stay_linked(tmp_path: Path) -> None:
    """Earlier versions stored the link as ``ref_doc_id`` beside the document hash."""
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="A")],
                                       transformations=[splitter()], store_dir=tmp_path / "s")
    store = index.engine.store
    for doc in store.documents():  # rewrite the nodes as an earlier version stored them
        meta = dict(doc.metadata)
        meta["ref_doc_id"] = meta.pop(REF_DOC_KEY)
        index.engine.insert([doc.model_copy(update={"metadata": meta})])
    assert sorted(index.ref_doc_info) == ["A"]
    assert "ref_doc_id" not in index.ref_doc_info["A"].metadata
    index.delete_ref_doc("A")
    assert index.ref_doc_info == {}


@pytest.mark.parametrize("tr", [False, True])
def test_refresh_with_one_id_twice_keeps_the_last(tr: bool) -> None:
    """[v2, v1] with v1 stored: the last (v1) counts — nothing to write, both flags False
    (v2 was written over the stored v1)."""
    v1, v2 = Document(text=CURIE, id_="A"), Document(text=EINSTEIN, id_="A")
    index = VizRAGIndex.from_documents([v1], transformations=[splitter()] if tr else None)
    assert index.refresh_ref_docs([v2, Document(text=CURIE, id_="A")]) == [False, False]
    assert all("Curie" in d.text for d in index.engine.store.documents())
    assert asyncio.run(index.arefresh_ref_docs([Document(text=CURIE, id_="A"), v2])) \
        == [True, True]
    assert all("Einstein" in d.text for d in index.engine.store.documents())


@pytest.mark.parametrize("tr", [False, True])
def test_a_lone_surrogate_is_a_clear_error_before_anything_is_written(tr: bool) -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="A")],
                                       transformations=[splitter()] if tr else None)
    before = sorted(d.id for d in index.engine.store.documents())
    bad = Document(text="Broken \ud800 text.", id_="B")
    ok = Document(text=EINSTEIN, id_="C")
    for call in (lambda: index.refresh_ref_docs([ok, bad]), lambda: index.insert(bad),
                 lambda: asyncio.run(index.arefresh_ref_docs([ok, bad]))):
        with pytest.raises(ValueError, match="document 'B': field 'text' holds a lone "
                                             "surrogate"):
            call()
    assert sorted(d.id for d in index.engine.store.documents()) == before


def test_objects_that_are_not_llamaindex_documents_are_a_type_error() -> None:
    from hyperviz_core.rag import Document as EngineDocument

    with pytest.raises(TypeError, match=r"got builtins\.str"):
        VizRAGIndex.from_documents(["Marie Curie worked in Paris."])  # type: ignore[list-item]
    with pytest.raises(TypeError, match=r"hyperviz_core\.rag\.types\.Document: convert it"):
        VizRAGIndex.from_documents([EngineDocument(text=CURIE)])  # type: ignore[list-item]
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="A")])
    before = sorted(d.id for d in index.engine.store.documents())
    with pytest.raises(TypeError, match="insert\\(\\) takes one document"):
        index.insert([Document(text=EINSTEIN, id_="C")])  # type: ignore[arg-type]
    assert sorted(d.id for d in index.engine.store.documents()) == before


def test_a_splitters_nodes_are_the_chunks(tmp_path: Path) -> None:
    """Nodes longer than the engine's chunk_size are not windowed again: each node is one
    chunk under its own id, so the ids retrieval and ref_doc_info show are the node ids
    delete_nodes takes."""
    big = SentenceSplitter(chunk_size=400, chunk_overlap=0)
    doc = Document(text=CURIE * 4, id_="curie")
    index = VizRAGIndex.from_documents([doc], transformations=[big], store_dir=tmp_path / "s")
    made = big.get_nodes_from_documents([Document(text=CURIE * 4, id_="curie")])
    assert len(made) >= 2 and max(len(n.text) for n in made) > 1200  # over chunk_size
    node_ids = stored(index)["curie"]
    assert len(node_ids) == len(made) == index.engine.stats().chunks
    assert sorted(c.text for c in index.engine.store.chunks()) == sorted(n.text for n in made)
    got = index.as_retriever(top_k=2, include_image=False).retrieve("Where did Curie work?")
    assert {n.node.node_id for n in got} <= set(node_ids)
    index.delete_nodes([got[0].node.node_id])
    assert stored(index)["curie"] == sorted(set(node_ids) - {got[0].node.node_id})
    text = " ".join(f"Marie Curie isolated radium in sample {i}." for i in range(80))
    index.insert_nodes([TextNode(text=text, id_="long-node")])  # as it is, one chunk
    assert "long-node" in index.ref_doc_info and index.ref_doc_info["long-node"].node_ids == [
        "long-node"]


@pytest.mark.parametrize("how", ["build", "insert_nodes", "ainsert_nodes"])
def test_a_document_written_over_its_inserted_nodes_replaces_them(how: str,
                                                                  tmp_path: Path) -> None:
    """An index built from (or given) a pipeline's nodes, without transformations of its
    own: ``update_ref_doc`` and ``refresh_ref_docs`` of their document replace the nodes (as
    a vector index does) instead of writing the document beside them — and the persisted
    index remembers it."""
    from llama_index.core import StorageContext, load_index_from_storage

    nodes = splitter().get_nodes_from_documents([docs()[0]])
    assert len(nodes) > 1
    if how == "build":
        index = VizRAGIndex(nodes, store_dir=tmp_path / "store")
    else:
        index = VizRAGIndex([], store_dir=tmp_path / "store")
        if how == "insert_nodes":
            index.insert_nodes(nodes)
        else:
            asyncio.run(index.ainsert_nodes(nodes))
    index.storage_context.persist(persist_dir=str(tmp_path / "persist"))  # nodes stored
    index.update_ref_doc(Document(text="Marie Curie discovered polonium.", id_="curie"))
    assert engine_docs(index, "curie") == ["curie"]  # the nodes went
    loaded = load_index_from_storage(
        StorageContext.from_defaults(persist_dir=str(tmp_path / "persist")))
    assert len(engine_docs(loaded, "curie")) == len(nodes)
    assert loaded.refresh_ref_docs([Document(text="Marie Curie.", id_="curie")]) == [True]
    assert engine_docs(loaded, "curie") == ["curie"]

