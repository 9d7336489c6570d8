"""VizRAGIndex: documents by id, no double chunking, delete, persistence, running loops."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document, Settings, StorageContext, load_index_from_storage
from llama_index.core.data_structs.registry import INDEX_STRUCT_TYPE_TO_INDEX_STRUCT_CLASS
from llama_index.core.indices.registry import INDEX_STRUCT_TYPE_TO_INDEX_CLASS
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import TextNode

from hyperviz_core.rag import Document as VizDocument
from hyperviz_core.rag import IndexingError, VizRAG, chunk_document
from vizrag_llamaindex import IndexVizRAG, VizRAGIndex

ROOT = Path(__file__).resolve().parents[1]
CURIE = ("Marie Curie worked with Pierre Curie in Paris. Marie Curie won the Nobel Prize in "
         "Physics.")
EINSTEIN = "Albert Einstein lived in Bern. Albert Einstein worked at the Patent Office in Bern."
LONG = " ".join(f"Sentence {i} mentions Ada Lovelace and Charles Babbage in London."
                for i in range(60))


def docs() -> list[Document]:
    return [Document(text=CURIE, id_="curie", metadata={"title": "Curie"}),
            Document(text=EINSTEIN, id_="einstein")]


def retrieved_docs(index: VizRAGIndex, query: str) -> set[str]:
    nodes = index.as_retriever(top_k=5, include_image=False).retrieve(query)
    return {n.node.ref_doc_id for n in nodes if n.node.ref_doc_id}


def test_registered_in_both_registries() -> None:
    assert INDEX_STRUCT_TYPE_TO_INDEX_STRUCT_CLASS["vizrag"] is IndexVizRAG
    assert INDEX_STRUCT_TYPE_TO_INDEX_CLASS["vizrag"] is VizRAGIndex


def test_documents_go_to_the_engine_by_id_without_double_chunking() -> None:
    index = VizRAGIndex.from_documents([*docs(), Document(text=LONG, id_="long")])
    info = index.ref_doc_info
    assert sorted(info) == ["curie", "einstein", "long"]
    assert info["curie"].metadata["title"] == "Curie"
    # the engine chunks (1200 chars by default); LlamaIndex's SentenceSplitter never ran
    stored = index.store.chunks(info["long"].node_ids)
    expected = chunk_document(VizDocument(id="long", text=LONG), index.engine.chunk_size,
                              index.engine.chunk_overlap)
    assert [c.id for c in stored] == [c.id for c in expected] and len(stored) >= 2
    assert index.engine.stats().documents == 3
    assert len(index.docstore.docs) == 0  # no LlamaIndex nodes were created


def test_reinsert_is_a_noop_and_a_change_replaces() -> None:
    index = VizRAGIndex.from_documents(docs())
    before = index.ref_doc_info["curie"].node_ids
    stats = index.engine.stats()
    for _ in range(2):
        index.insert(Document(text=CURIE, id_="curie", metadata={"title": "Curie"}))
    assert index.engine.stats() == stats
    assert index.ref_doc_info["curie"].node_ids == before
    index.insert(Document(text=CURIE + " Pierre Curie taught at the Sorbonne.", id_="curie",
                          metadata={"title": "Curie"}))
    assert index.engine.stats().documents == 2
    assert "sorbonne" in index.store.bottom().entities
    assert index.refresh_ref_docs([*docs(), Document(text="Ada Lovelace wrote notes.",
                                                     id_="ada")]) == [True, False, True]
    assert sorted(index.ref_doc_info) == ["ada", "curie", "einstein"]
    # a change of metadata alone is a change: refreshed, and the nodes carry the new value
    changed = [*docs()[:1], Document(text=EINSTEIN, id_="einstein",
                                     metadata={"field": "physics"})]
    assert index.refresh_ref_docs(changed) == [False, True]
    node = index.as_retriever(top_k=1).retrieve("Where did Albert Einstein work?")[0]
    assert node.metadata["field"] == "physics"


def test_delete_really_deletes() -> None:
    index = VizRAGIndex.from_documents(docs())
    assert "einstein" in retrieved_docs(index, "Where did Albert Einstein work?")
    index.delete_ref_doc("einstein")
    assert sorted(index.ref_doc_info) == ["curie"]
    assert "albert einstein" not in index.store.bottom().entities
    for query in ("Where did Albert Einstein work?", "Patent Office in Bern"):
        assert "einstein" not in retrieved_docs(index, query)
    index.delete_ref_doc("einstein")  # unknown: a warning, nothing lost
    assert sorted(index.ref_doc_info) == ["curie"]
    with pytest.raises(ValueError, match="whole documents"):
        index.delete_nodes([index.ref_doc_info["curie"].node_ids[0]])


def test_async_paths_really_run_async() -> None:
    async def main() -> VizRAGIndex:
        index = VizRAGIndex(nodes=[])
        await index.ainsert(docs()[0])
        await index.ainsert_nodes([TextNode(text=EINSTEIN, id_="einstein-node")])
        assert sorted(index.ref_doc_info) == ["curie", "einstein-node"]
        assert await index.arefresh_ref_docs(docs()) == [False, True]
        await index.adelete_ref_doc("einstein-node")
        return index

    index = asyncio.run(main())
    assert sorted(index.ref_doc_info) == ["curie", "einstein"]


def test_every_sync_method_works_inside_a_running_loop(tmp_path: Path) -> None:
    async def main() -> list[str]:
        index = VizRAGIndex.from_documents(docs())
        index.insert(Document(text="Ada Lovelace met Charles Babbage in London.", id_="ada"))
        index.insert_nodes([TextNode(text="Grace Hopper wrote COBOL.", id_="hopper")])
        index.refresh_ref_docs(docs())
        index.update_ref_doc(Document(text="Ada Lovelace wrote the first program.", id_="ada"))
        index.delete_ref_doc("hopper")
        nodes = index.as_retriever(top_k=2).retrieve("Who met Charles Babbage?")
        assert nodes
        index.storage_context.persist(persist_dir=str(tmp_path / "p"))
        loaded = load_index_from_storage(
            StorageContext.from_defaults(persist_dir=str(tmp_path / "p")))
        assert sorted(loaded.ref_doc_info) == sorted(index.ref_doc_info)
        return sorted(index.ref_doc_info)

    assert asyncio.run(main()) == ["ada", "curie", "einstein"]


@pytest.mark.parametrize("where", ["directory", "url"])
def test_from_store_opens_a_store_built_by_the_engine(where: str, tmp_path: Path,
                                                      request: pytest.FixtureRequest) -> None:
    """A store directory, or a PostgreSQL URL (given to the engine as is: it was checked as
    a file path)."""
    location = tmp_path / "built" if where == "directory" else request.getfixturevalue("pg_url")
    with VizRAG(location, show_progress=False) as rag:
        rag.insert([VizDocument(id="curie", text=CURIE)])
    index = VizRAGIndex.from_store(location)
    assert sorted(index.ref_doc_info) == ["curie"]
    assert index.as_retriever(top_k=1, include_image=False).retrieve("Marie Curie")
    if where == "directory":
        assert index.index_struct.store_path == str((location / "vizrag.sqlite").resolve())
    index.close()


def test_from_store_names_a_missing_store_and_creates_nothing(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="no VizRAG store"):
        VizRAGIndex.from_store(tmp_path / "missing")
    (tmp_path / "empty" / "store").mkdir(parents=True)  # a folder that holds no store
    with pytest.raises(FileNotFoundError, match="no VizRAG store"):
        VizRAGIndex.from_store(tmp_path / "empty")
    assert [p.name for p in (tmp_path / "empty").iterdir()] == ["store"]  # nothing created


def test_store_dir_is_used_and_temp_store_is_owned(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents(docs(), store_dir=tmp_path / "s")
    assert (tmp_path / "s" / "vizrag.sqlite").is_file()
    temp = VizRAGIndex.from_documents(docs())
    temp_dir = Path(temp.store.path).parent
    assert temp_dir.is_dir() and temp.index_struct.store_path is None
    temp.close()
    assert not temp_dir.exists()
    index.close()


def test_persist_and_load_in_a_fresh_process(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents(docs())
    persist = tmp_path / "persist"
    index.storage_context.persist(persist_dir=str(persist))
    assert (persist / "vizrag.sqlite").is_file() and (persist / "index_store.json").is_file()
    struct = json.loads((persist / "index_store.json").read_text())
    assert "vizrag" in json.dumps(struct)
    index.insert(Document(text="Ada Lovelace met Charles Babbage.", id_="ada"))  # not persisted
    script = textwrap.dedent(f"""
        import json
        from llama_index.core import StorageContext, load_index_from_storage
        import vizrag_llamaindex
        index = load_index_from_storage(StorageContext.from_defaults(persist_dir={str(persist)!r}))
        nodes = index.as_retriever(top_k=1, include_image=False).retrieve(
            "Where did Albert Einstein work?")
        print(json.dumps({{"type": type(index).__name__, "docs": sorted(index.ref_doc_info),
                          "top": nodes[0].node.ref_doc_id}}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=ROOT, timeout=240, check=True)
    got = json.loads(out.stdout.strip().splitlines()[-1])
    assert got == {"type": "VizRAGIndex", "docs": ["curie", "einstein"], "top": "einstein"}


def test_persisting_twice_and_reloading_in_process(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents(docs())
    index.storage_context.persist(persist_dir=str(tmp_path / "p"))
    loaded = load_index_from_storage(StorageContext.from_defaults(persist_dir=str(tmp_path / "p")))
    assert isinstance(loaded, VizRAGIndex)
    loaded.insert(Document(text="Ada Lovelace met Charles Babbage.", id_="ada"))
    loaded.storage_context.persist(persist_dir=str(tmp_path / "p"))  # onto itself: no-op copy
    again = load_index_from_storage(StorageContext.from_defaults(persist_dir=str(tmp_path / "p")))
    assert sorted(again.ref_doc_info) == ["ada", "curie", "einstein"]


def test_persisting_over_a_store_another_index_is_writing(tmp_path: Path) -> None:
    """An index loaded from ``p`` writes ``p/vizrag.sqlite`` in place (a ``-wal`` beside it);
    persisting another index into ``p`` writes through that log instead of renaming a new
    file over it, which SQLite would then read with the old log applied (a damaged store)."""
    import sqlite3

    first = VizRAGIndex.from_documents(docs())
    first.storage_context.persist(persist_dir=str(tmp_path / "p"))
    loaded = load_index_from_storage(StorageContext.from_defaults(persist_dir=str(tmp_path / "p")))
    loaded.insert(Document(text="Ada Lovelace met Charles Babbage.", id_="ada"))
    assert (tmp_path / "p" / "vizrag.sqlite-wal").exists()
    second = VizRAGIndex.from_documents([Document(text="Alan Turing was born in London.",
                                                  id_="turing")])
    second.storage_context.persist(persist_dir=str(tmp_path / "p"))
    conn = sqlite3.connect(tmp_path / "p" / "vizrag.sqlite")
    try:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert [r[0] for r in conn.execute("SELECT id FROM documents")] == ["turing"]
    finally:
        conn.close()
    again = load_index_from_storage(StorageContext.from_defaults(persist_dir=str(tmp_path / "p")))
    assert sorted(again.ref_doc_info) == ["turing"]


def test_settings_llm_is_never_read(monkeypatch: pytest.MonkeyPatch) -> None:
    def boom(self: object) -> None:
        raise AssertionError("Settings.llm was read")

    monkeypatch.setattr(type(Settings), "llm", property(boom))
    index = VizRAGIndex.from_documents(docs())
    index.as_retriever().retrieve("Marie Curie")
    with pytest.raises(ValueError, match="needs an LLM"):
        index.as_query_engine()


def test_persisting_a_foreign_storage_context_fails_clearly_on_load(tmp_path: Path) -> None:
    class Foreign(StorageContext):  # a subclass is wrapped, not made the index's own
        pass

    plain = StorageContext.from_defaults()
    context = Foreign(docstore=plain.docstore, index_store=plain.index_store,
                      vector_stores=plain.vector_stores, graph_store=plain.graph_store)
    with pytest.warns(UserWarning, match="shares its stores but not its persist"):
        VizRAGIndex.from_documents(docs(), storage_context=context)
    context.persist(persist_dir=str(tmp_path / "p"))  # the caller's object, not the index's
    with pytest.raises(ValueError, match="persisted without its store"):
        load_index_from_storage(StorageContext.from_defaults(persist_dir=str(tmp_path / "p")))


def test_a_callers_engine_stays_open(tmp_path: Path) -> None:
    rag = VizRAG(tmp_path / "own", show_progress=False)
    index = VizRAGIndex(nodes=[TextNode(text=CURIE, id_="curie")], engine=rag)
    assert index.engine is rag and sorted(index.ref_doc_info) == ["curie"]
    index.close()
    assert rag.stats().documents == 1  # still usable
    with pytest.raises(ValueError, match="either engine"):
        VizRAGIndex(nodes=[], engine=rag, store_dir=tmp_path / "x")
    rag.close()


def test_chat_engine_needs_an_llm() -> None:
    index = VizRAGIndex.from_documents(docs())
    with pytest.raises(ValueError, match="needs an LLM"):
        index.as_chat_engine()


def test_backup_needs_a_file_backed_store(tmp_path: Path) -> None:
    from vizrag_llamaindex import backup_store

    with pytest.raises(TypeError, match="backup_to"):
        backup_store(object(), tmp_path / "x.sqlite")
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([VizDocument(id="curie", text=CURIE)])
        target = backup_store(rag.store, tmp_path / "copy" / "vizrag.sqlite")
        assert backup_store(rag.store, Path(rag.store.path)) == Path(rag.store.path)
    with VizRAG(target.parent, show_progress=False) as copy:
        assert copy.stats().documents == 1
    assert not list((tmp_path / "copy").glob("*.tmp"))


class _Switch(CustomLLM):
    """Answers an empty extraction, or fails as a provider whose key was revoked."""

    broken: bool = False

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="switch")

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any
                 ) -> CompletionResponse:
        if self.broken:
            raise PermissionError("401: key revoked")
        return CompletionResponse(text='{"entities": [], "relations": []}')

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        raise NotImplementedError


def test_a_failed_replacement_raises_and_keeps_the_stored_version(tmp_path: Path) -> None:
    """A changed document whose new nodes fail is an IndexingError, and its old nodes stay
    (they were deleted as stale after the failed write: the document was lost)."""
    llm = _Switch()
    index = VizRAGIndex.from_documents(
        [Document(text=LONG, id_="ada")], llm=llm, store_dir=tmp_path / "s",
        transformations=[SentenceSplitter(chunk_size=128, chunk_overlap=0)])
    before = index.ref_doc_info["ada"].node_ids
    assert len(before) > 1
    llm.broken = True
    with pytest.raises(IndexingError, match=r"1 document failed to index .*key revoked"):
        index.insert(Document(text="Ada Lovelace wrote notes.", id_="ada"))
    assert index.ref_doc_info["ada"].node_ids == before
    llm.broken = False
    index.insert(Document(text="Ada Lovelace wrote notes.", id_="ada"))
    assert len(index.ref_doc_info["ada"].node_ids) == 1


def test_delete_nodes_checks_every_id_before_deleting() -> None:
    index = VizRAGIndex.from_documents(docs())
    with pytest.raises(ValueError, match="'chunk-x' is not a document"):
        index.delete_nodes(["curie", "chunk-x", "einstein"])
    with pytest.raises(TypeError, match="must be strings"):
        asyncio.run(index.adelete_nodes(["curie", 5]))  # type: ignore[list-item]
    assert sorted(index.ref_doc_info) == ["curie", "einstein"]  # nothing deleted
    index.delete_nodes(["curie"])
    assert sorted(index.ref_doc_info) == ["einstein"]
