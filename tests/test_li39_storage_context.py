"""A ``StorageContext`` passed to ``VizRAGIndex`` is the one the index uses: its own
``persist`` saves the VizRAG store beside LlamaIndex's JSON files."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document

from vizrag_llamaindex import VizRAGIndex


def docs() -> list[Document]:
    return [Document(text="Marie Curie worked in Paris.", id_="curie"),
            Document(text="Albert Einstein lived in Bern.", id_="einstein")]



def test_a_storage_context_passed_in_persists_the_store(tmp_path: Path) -> None:
    """The LlamaIndex idiom ``sc = StorageContext.from_defaults(); VizRAGIndex(...,
    storage_context=sc); sc.persist(d)`` saves the VizRAG store (it wrote the JSON files
    only, so loading failed once the index's temporary store was gone)."""
    from llama_index.core import StorageContext, load_index_from_storage

    sc = StorageContext.from_defaults()
    index = VizRAGIndex.from_documents(docs(), storage_context=sc)
    assert index.storage_context is sc
    sc.persist(persist_dir=str(tmp_path / "persist"))
    index.close()
    assert (tmp_path / "persist" / "vizrag.sqlite").is_file()
    loaded = load_index_from_storage(
        StorageContext.from_defaults(persist_dir=str(tmp_path / "persist")))
    assert sorted(loaded.ref_doc_info) == ["curie", "einstein"]


def test_a_storage_context_subclass_is_wrapped_with_a_warning() -> None:
    from llama_index.core import StorageContext

    class Mine(StorageContext):
        pass

    plain = StorageContext.from_defaults()
    mine = Mine(docstore=plain.docstore, index_store=plain.index_store,
                vector_stores=plain.vector_stores, graph_store=plain.graph_store)
    with pytest.warns(UserWarning, match=r"storage_context=<Mine>.*index\.storage_context"):
        index = VizRAGIndex.from_documents(docs(), storage_context=mine)
    assert index.storage_context is not mine
    assert index.storage_context.index_store is mine.index_store
