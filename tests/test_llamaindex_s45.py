"""Pre-parsed nodes and ``refresh_ref_docs``, an ``embed_model`` given to every index of a
shared storage context on load, and where the "node(s) carry an embedding" warning points."""

from __future__ import annotations

import asyncio
import warnings
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
from llama_index.core.embeddings import MockEmbedding
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import TextNode

from hyperviz_core.rag.store import StoreError
from vizrag_llamaindex import VizRAGIndex
from vizrag_llamaindex.documents import ref_doc_of

CURIE = ("Marie Curie worked with Pierre Curie in Paris. She studied radioactivity at the "
         "Sorbonne. " * 12)
EINSTEIN = "Albert Einstein lived in Bern. He worked at the Patent Office in Bern. " * 12


def docs() -> list[Document]:
    return [Document(text=CURIE, id_="curie", metadata={"title": "Curie"}),
            Document(text=EINSTEIN, id_="einstein")]


def engine_docs(index: VizRAGIndex) -> dict[str, list[str]]:
    """Document id → the ids of the engine documents stored for it."""
    out: dict[str, list[str]] = {}
    for doc in index.engine.store.documents():
        out.setdefault(ref_doc_of(doc), []).append(doc.id)
    return {ref: sorted(ids) for ref, ids in sorted(out.items())}


@pytest.mark.parametrize("how", ["build", "insert_nodes", "ainsert_nodes", "transformations"])
def test_refresh_keeps_the_pre_parsed_nodes_of_unchanged_documents(how: str,
                                                                   tmp_path: Path) -> None:
    """Nodes a splitter made (their SOURCE relationship carries the document's hash): an
    unchanged document is not indexed again (False) and keeps the user's nodes; a changed
    one is (True) and replaces them."""
    nodes = SentenceSplitter(chunk_size=64, chunk_overlap=0).get_nodes_from_documents(docs())
    assert len(nodes) > 2
    if how in ("build", "transformations"):
        extra = {"transformations": [SentenceSplitter()]} if how == "transformations" else {}
        index = VizRAGIndex(nodes, store_dir=tmp_path / "store", **extra)
    else:
        index = VizRAGIndex([], store_dir=tmp_path / "store")
        if how == "insert_nodes":
            index.insert_nodes(nodes)
        else:
            asyncio.run(index.ainsert_nodes(nodes))
    before = engine_docs(index)
    assert before == {ref: sorted(n.node_id for n in nodes if n.ref_doc_id == ref)
                      for ref in ("curie", "einstein")}
    assert index.refresh_ref_docs(docs()) == [False, False]
    assert asyncio.run(index.arefresh_ref_docs(docs())) == [False, False]
    assert engine_docs(index) == before
    changed = Document(text=CURIE + " Curie moved to Warsaw.", id_="curie",
                       metadata={"title": "Curie"})
    assert index.refresh_ref_docs([changed, docs()[1]]) == [True, False]
    assert engine_docs(index)["einstein"] == before["einstein"]
    assert engine_docs(index)["curie"] != before["curie"]


def test_refresh_of_a_document_whose_nodes_were_split_from_another_version(
        tmp_path: Path) -> None:
    """A node's SOURCE hash is of the version it was split from: the current version of
    the document (another hash) is indexed again."""
    old = Document(text=CURIE, id_="curie")
    nodes = SentenceSplitter(chunk_size=64, chunk_overlap=0).get_nodes_from_documents([old])
    index = VizRAGIndex(nodes, store_dir=tmp_path / "store")
    assert index.refresh_ref_docs([Document(text=CURIE, id_="curie",
                                            metadata={"year": 1903})]) == [True]


def test_load_indices_with_an_embed_model_for_a_shared_vector_index(tmp_path: Path) -> None:
    """``load_indices_from_storage(sc, embed_model=...)`` hands the vector index's model to
    the VizRAG index too: the error says so, names the indexes and how to load each one;
    loading the VizRAG index on its own (no embed_model) works."""
    nodes = SentenceSplitter(chunk_size=64, chunk_overlap=0).get_nodes_from_documents(docs())
    sc = StorageContext.from_defaults()
    vector = VectorStoreIndex(nodes, storage_context=sc, embed_model=MockEmbedding(embed_dim=8))
    viz = VizRAGIndex(nodes, storage_context=sc, store_dir=tmp_path / "store")
    sc.persist(str(tmp_path / "persist"))
    viz.close()
    loaded = StorageContext.from_defaults(persist_dir=str(tmp_path / "persist"))
    with pytest.raises(StoreError) as err:
        load_indices_from_storage(loaded, embed_model=MockEmbedding(embed_dim=8))
    message = str(err.value)
    assert "embed_model=MockEmbedding(...) given when loading VizRAGIndex" in message
    assert "pass their keyword arguments to every index they load" in message
    assert repr(vector.index_id) in message
    assert (f"load_index_from_storage(storage_context, index_id={viz.index_id!r}) for this one"
            in message)
    assert "512-dimensional vectors" in message  # the store's own error follows
    alone = load_index_from_storage(loaded, index_id=viz.index_id)
    assert isinstance(alone, VizRAGIndex) and alone.engine.stats().documents == len(nodes)
    alone.close()
    other = load_index_from_storage(loaded, index_id=vector.index_id,
                                    embed_model=MockEmbedding(embed_dim=8))
    assert isinstance(other, VectorStoreIndex)


def test_load_index_alone_with_another_embed_model(tmp_path: Path) -> None:
    """Loading a VizRAG index on its own with a model its store was not built with: the
    error names the keyword argument and the fix, then the store's own message."""
    index = VizRAGIndex.from_documents(docs(), store_dir=tmp_path / "store")
    index.storage_context.persist(str(tmp_path / "persist"))
    index.close()
    with pytest.raises(StoreError, match=r"given when loading VizRAGIndex .* no embed_model= "
                                         r"for a store built with VizRAG's offline default"):
        load_index_from_storage(StorageContext.from_defaults(persist_dir=str(tmp_path / "persist")),
                                embed_model=MockEmbedding(embed_dim=8))


def _embedding_warnings(caught: list[warnings.WarningMessage]) -> list[tuple[str, int]]:
    return [(Path(w.filename).name, w.lineno) for w in caught
            if "carry an embedding" in str(w.message)]


def test_the_embedding_warning_points_at_the_callers_line(tmp_path: Path) -> None:
    """The "node(s) carry an embedding" warning names the line that passed the nodes:
    ``VizRAGIndex(nodes)``, ``insert_nodes`` and ``ainsert_nodes``."""
    node = TextNode(text="Alpha is in Beta.", embedding=[0.1] * 4, id_="e1")
    here = Path(__file__).name
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        index = VizRAGIndex([node], store_dir=tmp_path / "a"); line = _line()  # noqa: E702
        assert _embedding_warnings(caught) == [(here, line)]
        caught.clear()
        index.insert_nodes([node]); line = _line()  # noqa: E702
        assert _embedding_warnings(caught) == [(here, line)]
        caught.clear()

        async def main() -> int:
            await index.ainsert_nodes([node]); return _line()  # noqa: E702

        line = asyncio.run(main())
        assert _embedding_warnings(caught) == [(here, line)]
    index.close()


def test_the_no_text_warning_points_at_the_callers_line(tmp_path: Path) -> None:
    """The "hold no text" warning of a write names the caller's line too: a node given to
    ``VizRAGIndex(nodes)``, and a document that replaces pre-parsed nodes."""
    nodes = SentenceSplitter(chunk_size=64, chunk_overlap=0).get_nodes_from_documents(docs())
    here = Path(__file__).name
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        blank = TextNode(text="", id_="blank")
        index = VizRAGIndex([blank, *nodes], store_dir=tmp_path / "a"); line = _line()  # noqa
        assert _no_text_warnings(caught) == [(here, line)]
        caught.clear()
        index.update_ref_doc(Document(text="", id_="curie")); line = _line()  # noqa: E702
        assert _no_text_warnings(caught) == [(here, line)]
    index.close()


def _no_text_warnings(caught: list[warnings.WarningMessage]) -> list[tuple[str, int]]:
    return [(Path(w.filename).name, w.lineno) for w in caught
            if "hold no text" in str(w.message)]


def _line() -> int:
    """The caller's line number."""
    import sys

    return sys._getframe(1).f_lineno
