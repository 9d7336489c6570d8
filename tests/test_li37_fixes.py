"""LlamaIndex wrapper review fixes: copied persist dirs, pre-parsed nodes, option checks,
Settings.llm, QueryBundle embedding strings, file titles, pickling."""

from __future__ import annotations

import copy
import json
import pickle
import shutil
import sqlite3
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import (
    Document,
    Settings,
    SimpleDirectoryReader,
    StorageContext,
    load_index_from_storage,
)
from llama_index.core.llms import MockLLM
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.postprocessor import PrevNextNodePostprocessor
from llama_index.core.schema import (
    MetadataMode,
    NodeRelationship,
    NodeWithScore,
    QueryBundle,
    RelatedNodeInfo,
    TextNode,
)
from llama_index.core.storage.docstore import SimpleDocumentStore

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.index.loaders import load_documents
from vizrag_llamaindex import VizRAGIndex
from vizrag_llamaindex.retriever import OptionTypeError

CURIE = "Marie Curie worked in Paris. Marie Curie discovered polonium."
TENNESSEE = "Tennessee's capital is Nashville. Nashville lies on the Cumberland River."


def _ids(store: Path) -> list[str]:
    with sqlite3.connect(store) as db:
        return sorted(r[0] for r in db.execute("select id from documents"))


# ---------------------------------------------------------------- 1. copied persist dir
def test_a_copied_persist_dir_opens_and_writes_its_own_store(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")])
    index.storage_context.persist(str(tmp_path / "storage"))
    index.close()
    shutil.copytree(tmp_path / "storage", tmp_path / "snap")
    loaded = load_index_from_storage(StorageContext.from_defaults(
        persist_dir=str(tmp_path / "snap")))
    assert isinstance(loaded, VizRAGIndex)
    assert Path(loaded.store.path).resolve() == (tmp_path / "snap" / "vizrag.sqlite").resolve()
    loaded.insert(Document(text="Only meant for the snapshot.", id_="snapdoc"))
    loaded.close()
    assert _ids(tmp_path / "storage" / "vizrag.sqlite") == ["curie"]
    assert _ids(tmp_path / "snap" / "vizrag.sqlite") == ["curie", "snapdoc"]


def test_a_moved_persist_dir_loads_and_a_missing_store_is_named(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")])
    index.storage_context.persist(str(tmp_path / "a"))
    index.close()
    (tmp_path / "a").rename(tmp_path / "b")
    loaded = load_index_from_storage(StorageContext.from_defaults(
        persist_dir=str(tmp_path / "b")))
    assert sorted(loaded.ref_doc_info) == ["curie"]
    loaded.close()
    (tmp_path / "b" / "vizrag.sqlite").unlink()  # the JSON files copied without the store
    with pytest.raises(FileNotFoundError, match=r"has no vizrag\.sqlite"):
        load_index_from_storage(StorageContext.from_defaults(persist_dir=str(tmp_path / "b")))


def test_an_old_absolute_only_struct_prefers_the_persist_dirs_own_store(
        tmp_path: Path) -> None:
    """An index persisted by an earlier version records only the absolute path: loaded from
    a copy holding its own vizrag.sqlite, the copy is opened, with a warning."""
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")])
    index.storage_context.persist(str(tmp_path / "storage"))
    index.close()
    store_json = tmp_path / "storage" / "index_store.json"
    data = json.loads(store_json.read_text())
    for entry in data["index_store/data"].values():
        struct = json.loads(entry["__data__"])
        struct.pop("persist_file", None)  # what an earlier version wrote
        entry["__data__"] = json.dumps(struct)
    store_json.write_text(json.dumps(data))
    shutil.copytree(tmp_path / "storage", tmp_path / "snap")
    context = StorageContext.from_defaults(persist_dir=str(tmp_path / "snap"))
    with pytest.warns(UserWarning, match=r"holds its own vizrag\.sqlite"):
        loaded = load_index_from_storage(context)
    assert Path(loaded.store.path).resolve() == (tmp_path / "snap" / "vizrag.sqlite").resolve()
    loaded.close()
    with warnings.catch_warnings():  # the original dir: its own store, no warning
        warnings.simplefilter("error")
        again = load_index_from_storage(StorageContext.from_defaults(
            persist_dir=str(tmp_path / "storage")))
    assert Path(again.store.path).resolve() == (tmp_path / "storage" / "vizrag.sqlite").resolve()
    again.close()


def test_store_dir_still_wins_on_load(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")])
    index.storage_context.persist(str(tmp_path / "p"))
    index.close()
    shutil.copy(tmp_path / "p" / "vizrag.sqlite", tmp_path / "other.sqlite")
    loaded = load_index_from_storage(StorageContext.from_defaults(
        persist_dir=str(tmp_path / "p")), store_dir=tmp_path / "other.sqlite")
    assert Path(loaded.store.path).resolve() == (tmp_path / "other.sqlite").resolve()
    loaded.close()


# ---------------------------------------------------------------- 2. pre-parsed nodes
def _curie_nodes() -> list[TextNode]:
    n1 = TextNode(id_="n1", text="Marie Curie discovered polonium in Paris.",
                  metadata={"author": "A"}, metadata_template="<{key}>={value}",
                  text_template="META[{metadata_str}]\n{content}",
                  start_char_idx=0, end_char_idx=41)
    n2 = TextNode(id_="n2", text="Pierre Curie was born in Paris.", start_char_idx=42,
                  end_char_idx=73)
    for n in (n1, n2):
        n.relationships[NodeRelationship.SOURCE] = RelatedNodeInfo(node_id="doc-curie")
    n1.relationships[NodeRelationship.NEXT] = RelatedNodeInfo(node_id="n2")
    n2.relationships[NodeRelationship.PREVIOUS] = RelatedNodeInfo(node_id="n1")
    return [n1, n2]


def test_pre_parsed_nodes_keep_templates_offsets_links_and_name_their_document() -> None:
    nodes = _curie_nodes()
    index = VizRAGIndex(nodes)
    got = {n.node.node_id: n.node for n in index.as_retriever(top_k=2, include_image=False)
           .retrieve("Where did Marie Curie discover polonium?")}
    n1 = got["n1"]
    assert n1.ref_doc_id == "doc-curie" and n1.metadata["doc_id"] == "doc-curie"
    assert n1.metadata["chunk_id"] == "n1"
    assert (n1.metadata_template, n1.text_template) == ("<{key}>={value}",
                                                        "META[{metadata_str}]\n{content}")
    assert (n1.start_char_idx, n1.end_char_idx) == (0, 41)
    assert n1.next_node is not None and n1.next_node.node_id == "n2"
    assert got["n2"].prev_node is not None and got["n2"].prev_node.node_id == "n1"
    assert n1.get_content(MetadataMode.LLM) == (
        "META[<author>=A\n<doc_id>=doc-curie]\nMarie Curie discovered polonium in Paris.")
    assert not any(k.startswith("_llamaindex") for k in n1.metadata)
    assert index.ref_doc_info["doc-curie"].metadata == {"author": "A"}
    # the documented replacement for index.docstore (empty): a docstore of your nodes
    docstore = SimpleDocumentStore()
    docstore.add_documents(nodes)
    after = PrevNextNodePostprocessor(docstore=docstore, num_nodes=1, mode="next")
    out = after.postprocess_nodes([NodeWithScore(node=n1, score=1.0)])
    assert [n.node.node_id for n in out] == ["n1", "n2"]
    index.close()


def test_split_documents_show_the_document_id_not_a_random_node_id() -> None:
    doc = Document(text=CURIE * 20, id_="curie-doc")
    index = VizRAGIndex.from_documents([doc], transformations=[
        SentenceSplitter(chunk_size=64, chunk_overlap=0)])
    nodes = index.as_retriever(top_k=3, include_image=False).retrieve("Marie Curie")
    assert nodes and all(n.node.metadata["doc_id"] == "curie-doc" for n in nodes)
    assert all(n.node.metadata["chunk_id"] == n.node.node_id for n in nodes)
    assert all(n.node.start_char_idx is not None for n in nodes)
    assert "doc_id: curie-doc" in nodes[0].node.get_content(MetadataMode.LLM)
    index.close()


# ---------------------------------------------------------------- 3. options, early
@pytest.mark.parametrize(("option", "error", "match"), [
    ({"topk": 3}, TypeError, r"VizRAGIndex got an unknown option 'topk' \(did you mean "
                             r"'top_k'\?\)"),
    ({"top_k": 0}, ValueError, "top_k must be at least 1"),
    ({"hops": 9}, ValueError, "hops must be"),
    ({"chunk_size": -5}, ValueError, "chunk_size must be at least 1, got -5"),
    ({"chunk_overlap": 2000}, ValueError, "chunk_overlap must be smaller than chunk_size"),
    ({"top_k": "3"}, OptionTypeError, "top_k must be an integer, got str '3'"),
])
def test_bad_engine_options_fail_before_a_store_is_made(
        tmp_path: Path, option: dict[str, object], error: type[Exception], match: str) -> None:
    store = tmp_path / "ns1"
    with pytest.raises(error, match=match):
        VizRAGIndex.from_documents([Document(text=TENNESSEE, id_="tn")], store_dir=store,
                                   **option)
    assert not store.exists()


def test_a_failed_index_leaves_no_temporary_directory(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ResourceWarning)
        for bad in ({"topk": 3}, {"mode": "nope"}, {"concurrency": 0}):
            with pytest.raises((TypeError, ValueError)):
                VizRAGIndex.from_documents([Document(text=TENNESSEE, id_="tn")], **bad)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("option", "match"), [
    ({"top_k": 0}, "VizRAG top_k: .*greater than or equal to 1"),
    ({"hops": 9}, "VizRAG hops: .*less than or equal to 3"),
    ({"chunk_size": -5}, "VizRAG chunk_size must be at least 1"),
    ({"chunk_size": 50}, "chunk_overlap must be smaller than chunk_size"),
    ({"concurrency": 0}, "VizRAG concurrency must be at least 1"),
])
def test_core_engine_checks_options_before_creating_the_store(
        tmp_path: Path, option: dict[str, object], match: str) -> None:
    store = tmp_path / "x"
    with pytest.raises(ValueError, match=match):
        VizRAG(store, show_progress=False, **option)  # type: ignore[arg-type]
    assert not store.exists()


def test_core_engine_refuses_a_chunk_size_of_another_type(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="chunk_size must be an integer, got str"):
        VizRAG(tmp_path / "x", chunk_size="800")  # type: ignore[arg-type]
    assert not (tmp_path / "x").exists()


# ---------------------------------------------------------------- 4. Settings.llm
@pytest.fixture
def settings_llm() -> Iterator[None]:
    saved = Settings._llm
    try:
        yield
    finally:
        Settings._llm = saved


def test_settings_llm_set_by_the_user_is_named_in_a_warning(settings_llm: None) -> None:
    Settings._llm = None  # unset (LlamaIndex's lazy default not resolved): no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        VizRAGIndex.from_documents([Document(text=TENNESSEE, id_="tn")]).close()
    Settings.llm = MockLLM()
    with pytest.warns(UserWarning, match="does not read Settings.llm: pass llm=Settings.llm"):
        VizRAGIndex.from_documents([Document(text=TENNESSEE, id_="tn")]).close()
    with warnings.catch_warnings(record=True) as seen:  # given explicitly: nothing to say
        warnings.simplefilter("always")
        VizRAGIndex.from_documents([Document(text=TENNESSEE, id_="tn")],
                                   llm=Settings.llm).close()
    assert not [w for w in seen if "Settings" in str(w.message)]


# ---------------------------------------------------------------- 6. QueryBundle
def test_custom_embedding_strings_are_named_once_per_retriever() -> None:
    index = VizRAGIndex.from_documents([Document(text=TENNESSEE, id_="tn")])
    retriever = index.as_retriever(top_k=1, include_image=False)
    hyde = QueryBundle(query_str="capital", custom_embedding_strs=["Nashville", "capital"])
    with pytest.warns(UserWarning, match="ignores QueryBundle.custom_embedding_strs"):
        retriever.retrieve(hyde)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        retriever.retrieve(hyde)  # once per retriever
        retriever.retrieve(QueryBundle(query_str="capital"))
        other = index.as_retriever(top_k=1, include_image=False)
        other.retrieve(QueryBundle(query_str="capital", custom_embedding_strs=["capital"]))
        other.retrieve(QueryBundle(query_str="capital", embedding=[0.0] * 8))
    index.close()


# ---------------------------------------------------------------- 7. file titles
def test_reader_documents_are_titled_as_vizrag_index_titles_the_files(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "00_Tennessee.txt").write_text(TENNESSEE + "\n", encoding="utf-8")
    (corpus / "01_notes.md").write_text("# Cumberland River\n\nIt flows through Nashville.\n",
                                        encoding="utf-8")
    cli_titles = sorted(d.title for d in load_documents([corpus]))
    docs = SimpleDirectoryReader(str(corpus), filename_as_id=True).load_data()
    index = VizRAGIndex.from_documents(docs)
    titles = sorted(d.title for d in index.store.documents())
    assert titles == cli_titles == ["00_Tennessee", "Cumberland River"]
    index.close()
    split = VizRAGIndex.from_documents(docs, transformations=[SentenceSplitter(chunk_size=64,
                                                                              chunk_overlap=0)])
    assert sorted({d.title for d in split.store.documents()}) == cli_titles
    split.close()


# ---------------------------------------------------------------- 9. pickling
def test_pickling_or_deep_copying_says_what_to_do_instead() -> None:
    index = VizRAGIndex.from_documents([Document(text=TENNESSEE, id_="tn")])
    retriever = index.as_retriever(top_k=1)
    for obj, name in ((retriever, "VizRAGRetriever"), (index, "VizRAGIndex")):
        for how in (pickle.dumps, copy.deepcopy):
            with pytest.raises(TypeError, match=f"a {name} cannot be pickled or deep-copied: "
                                                ".*load_index_from_storage"):
                how(obj)
    shallow = copy.copy(retriever)  # shares the open store, as before
    assert shallow.retrieve("Nashville")[0].node.ref_doc_id == "tn"
    index.close()
