"""vizrag_llamaindex fixes: repeated ids by the core's policy, the model-call cache label,
top_k type errors, node sets left doubled by an interrupted replace, unmatched queries,
delete by a chunk id and misspelt delete options."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import warnings
from typing import Any

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document
from llama_index.core.llms import MockLLM
from llama_index.core.node_parser import SentenceSplitter

from vizrag_llamaindex import LlamaIndexChatModel, VizRAGIndex, vizrag_value
from vizrag_llamaindex.documents import latest_documents
from vizrag_llamaindex.retriever import check_top_k

CURIE = "Marie Curie worked with Pierre Curie in Paris. Marie Curie won the Nobel Prize. "
EINSTEIN = "Albert Einstein worked at the Patent Office in Bern. "


def splitter() -> SentenceSplitter:
    return SentenceSplitter(chunk_size=40, chunk_overlap=0)


# ---------------------------------------------------------------- 1. ids
def test_documents_without_ids_sharing_text_are_both_kept() -> None:
    docs = [Document(text=CURIE, metadata={"lang": "en"}),
            Document(text=CURIE, metadata={"lang": "fr"})]
    index = VizRAGIndex.from_documents(docs)
    assert sorted(index.ref_doc_info) == sorted(d.doc_id for d in docs)
    assert sorted(i.metadata["lang"] for i in index.ref_doc_info.values()) == ["en", "fr"]


def test_one_id_twice_keeps_the_last_where_it_was_given_last_and_warns() -> None:
    first, other, last = (Document(text=CURIE, id_="x"), Document(text=EINSTEIN, id_="y"),
                          Document(text=CURIE + "Again.", id_="x"))
    with pytest.warns(UserWarning, match="given more than once.*'x'"):
        kept = latest_documents([first, other, last])
    assert kept == [other, last]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an exact repeat is no conflict
        assert latest_documents([other, other]) == [other]


def test_a_transformed_batch_with_one_id_twice_warns() -> None:
    docs = [Document(text=CURIE, id_="x"), Document(text=EINSTEIN, id_="x")]
    with pytest.warns(UserWarning, match="given more than once"):
        index = VizRAGIndex.from_documents(docs, transformations=[splitter()])
    texts = " ".join(c.text for c in index.engine.store.chunks())
    assert "Einstein" in texts and "Curie" not in texts


# ---------------------------------------------------------------- 2. cache label
def _openai(**kwargs: Any) -> Any:
    openai = pytest.importorskip("llama_index.llms.openai")
    return openai.OpenAI(model="gpt-4o-mini", api_key="sk-secret-1", **kwargs)


def test_the_cache_label_changes_with_the_llm_parameters() -> None:
    base = LlamaIndexChatModel(_openai(temperature=0.0)).model_name
    assert base.startswith("llamaindex:gpt-4o-mini#") and "sk-secret" not in base
    others = [LlamaIndexChatModel(_openai(temperature=0.7)).model_name,
              LlamaIndexChatModel(_openai(additional_kwargs={"seed": 3})).model_name,
              LlamaIndexChatModel(_openai(api_base="http://proxy.test/v1")).model_name,
              LlamaIndexChatModel(_openai(temperature=0.0), json_kwargs={
                  "response_format": {"type": "json_object"}}).model_name,
              LlamaIndexChatModel(MockLLM(max_tokens=5)).model_name]
    assert len({base, *others}) == 6
    assert LlamaIndexChatModel(MockLLM(max_tokens=5)).model_name != LlamaIndexChatModel(
        MockLLM(max_tokens=6)).model_name


def test_the_cache_label_ignores_secrets_and_is_the_same_in_another_process() -> None:
    keyed = LlamaIndexChatModel(_openai(api_base="http://u:pw1@proxy.test/v1?key=a&v=1"))
    other = _openai(api_base="http://u:pw2@proxy.test/v1?key=b&v=1")
    other.api_key = "sk-secret-2"
    assert keyed.model_name == LlamaIndexChatModel(other).model_name
    assert "pw1" not in keyed.model_name
    code = ("from llama_index.core.llms import MockLLM\n"
            "from vizrag_llamaindex import LlamaIndexChatModel\n"
            "print(LlamaIndexChatModel(MockLLM(max_tokens=7)).model_name)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env={**os.environ, "PYTHONHASHSEED": "123"})
    assert out.stdout.strip() == LlamaIndexChatModel(MockLLM(max_tokens=7)).model_name
    assert LlamaIndexChatModel(MockLLM(), model_name="mine").model_name == "mine"


# ---------------------------------------------------------------- 3. top_k types
@pytest.mark.parametrize("bad", ["3", 2.0, True, 1.5])
def test_a_top_k_of_the_wrong_type_is_a_type_error(bad: Any) -> None:
    with pytest.raises(TypeError, match="top_k must be an integer"):
        check_top_k(bad, "top_k")


def test_top_k_type_and_value_errors_through_the_index() -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")])
    with pytest.raises(TypeError, match="top_k"):
        index.as_retriever(top_k="3")
    with pytest.raises(ValueError, match="at least 1"):
        index.as_retriever(top_k=0)
    retriever = index.as_retriever(top_k=1)
    with pytest.raises(TypeError, match="similarity_top_k"):
        retriever.similarity_top_k = "2"  # type: ignore[assignment]


# ---------------------------------------------------------------- 4. interrupted replace
def _node_ids(index: VizRAGIndex, ref: str) -> list[str]:
    return sorted(d.id for d in index.engine.store.documents()
                  if (d.metadata.get("_llamaindex_ref_doc_id") or d.id) == ref)


def _interrupt_the_delete(index: VizRAGIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    def crash(ids: Any) -> Any:
        raise KeyboardInterrupt("killed between the write and the delete")
    monkeypatch.setattr(index.engine, "delete_many", crash)


@pytest.mark.parametrize("changed", [False, True])
def test_refresh_repairs_a_replace_interrupted_before_the_delete(
        monkeypatch: pytest.MonkeyPatch, changed: bool) -> None:
    doc = Document(text=CURIE * 3, id_="curie")
    index = VizRAGIndex.from_documents([doc], transformations=[splitter()])
    first = _node_ids(index, "curie")
    # every passage changed (since stop 52 an unchanged passage keeps its node: no delete)
    text = CURIE.replace("Paris", "Warsaw") * 3
    again = Document(text=text + ("Pierre Curie died in 1906." if changed else ""),
                     id_="curie")
    with monkeypatch.context() as patch:
        _interrupt_the_delete(index, patch)
        index.insert(doc)  # the same passages: nothing to delete, nothing written
        assert _node_ids(index, "curie") == first
        with pytest.raises(KeyboardInterrupt):
            index.insert(again)
    doubled = _node_ids(index, "curie")
    assert set(first) < set(doubled)  # old and new nodes both stored
    assert index.refresh_ref_docs([again]) == [True]
    repaired = _node_ids(index, "curie")
    assert not set(repaired) & set(first) and len(repaired) == len(doubled) - len(first)
    assert index.refresh_ref_docs([again]) == [False]  # complete now: nothing to do


def test_refresh_of_a_complete_set_written_before_the_marker_is_a_no_op() -> None:
    doc = Document(text=CURIE * 3, id_="curie")
    index = VizRAGIndex.from_documents([doc], transformations=[splitter()])
    store = index.engine.store
    legacy = []
    for d in store.documents():  # as an earlier version stored them: no run marker
        d.metadata.pop("_llamaindex_ref_doc_nodes")
        legacy.append(d)
    index.engine.insert(legacy)
    assert index.refresh_ref_docs([doc]) == [False]


# ---------------------------------------------------------------- 5. unmatched queries
def test_a_query_nothing_matched_flags_its_nodes_and_logs_once(
        caplog: pytest.LogCaptureFixture) -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie"),
                                        Document(text=EINSTEIN, id_="einstein")])
    retriever = index.as_retriever(top_k=2, include_image=False)
    with caplog.at_level(logging.WARNING, logger="hyperviz_core"):
        nodes = retriever.retrieve("xylophone quokka zebra")
    assert nodes and all(vizrag_value(n.node.metadata, "unmatched") is True for n in nodes)
    said = [r for r in caplog.records if "arbitrary" in r.getMessage()]
    assert len(said) == 1 and "xylophone" in said[0].getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="hyperviz_core"):
        nodes = retriever.retrieve("Who worked with Marie Curie?")
    assert all(vizrag_value(n.node.metadata, "unmatched") is None for n in nodes)
    assert not [r for r in caplog.records if "arbitrary" in r.getMessage()]


def test_a_document_of_its_own_unmatched_key_keeps_it() -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="c",
                                                 metadata={"unmatched": "no"})])
    node = index.as_retriever(top_k=1, include_image=False).retrieve("quokka")[0].node
    assert node.metadata["unmatched"] == "no" and node.metadata["vizrag_unmatched"] is True


# ---------------------------------------------------------------- 6. deletes
def test_delete_ref_doc_of_a_chunk_id_names_the_document(
        caplog: pytest.LogCaptureFixture) -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE * 40, id_="curie")],
                                       chunk_size=200)
    node = index.as_retriever(top_k=1, include_image=False).retrieve("Marie Curie")[0].node
    assert node.node_id != "curie" and node.ref_doc_id == "curie"
    with caplog.at_level(logging.WARNING, logger="vizrag_llamaindex"):
        index.delete_ref_doc(node.node_id)
    said = " ".join(r.getMessage() for r in caplog.records)
    assert "not found, nothing deleted" in said and "delete_ref_doc('curie')" in said
    assert sorted(index.ref_doc_info) == ["curie"]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="vizrag_llamaindex"):
        index.delete_ref_doc("nowhere")  # unknown: LlamaIndex's warning, no hint
    assert "not found, nothing deleted." in caplog.text and "chunk" not in caplog.text


def test_a_misspelt_delete_option_is_a_type_error() -> None:
    index = VizRAGIndex.from_documents([Document(text=CURIE, id_="curie")])
    with pytest.raises(TypeError, match=r"delete_from_doctore.*did you mean"):
        index.delete_ref_doc("curie", delete_from_doctore=True)
    with pytest.raises(TypeError, match="unknown option"):
        index.delete_nodes(["curie"], delete_from_docstroe=True)
    with pytest.raises(TypeError, match="a string"):
        index.delete_ref_doc(["curie"])  # type: ignore[arg-type]
    assert sorted(index.ref_doc_info) == ["curie"]
    index.delete_ref_doc("curie", delete_from_docstore=True)
    assert index.ref_doc_info == {}
