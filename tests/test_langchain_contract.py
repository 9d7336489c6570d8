"""VizRAGRetriever and create_vizrag_chain keep the contract LangChain users expect: copies
made by ``configurable_fields`` share the store, the question is embedded with
``embed_query``, a mistyped store path or a bad argument fails clearly, a closed store says
so, and the chain's documents carry the E#/H# of the image the model sees."""

from __future__ import annotations

import logging
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.prompts import ChatPromptTemplate, PromptTemplate
from langchain_core.runnables import ConfigurableField, RunnableLambda
from pydantic import Field
from rag_fakes import demo_documents
from test_langchain_lifecycle import count_engines
from test_langchain_retriever import QUERY, build_store

from hyperviz_core.rag import CaptionOnlyWarning, StoreError, VizRAG
from vizrag_langchain import (
    HyperRAGVisualRetriever,
    HyperVizRunnable,
    LangChainEmbedder,
    VizRAGRetriever,
    create_vizrag_chain,
)
from vizrag_langchain.chain import _vizrag_retriever


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("lc-contract"))


def test_configurable_copies_share_the_engine(store_dir: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=4)
    configurable = retriever.configurable_fields(k=ConfigurableField(id="k"))
    opened = count_engines(monkeypatch)
    for _ in range(3):
        assert len(configurable.invoke(QUERY, config={"configurable": {"k": 1}})) == 1
    assert opened == []
    assert _vizrag_retriever(configurable) is retriever
    assert _vizrag_retriever(configurable.bind(k=2)) is retriever
    # with_retry / with_fallbacks / with_listeners keep the store behind the chain
    assert _vizrag_retriever(retriever.with_retry()) is retriever
    assert _vizrag_retriever(retriever.with_fallbacks([RunnableLambda(lambda q: [])])) \
        is retriever
    assert _vizrag_retriever(retriever.with_listeners(on_end=lambda run: None)) is retriever


class QueryCountingEmbeddings(DeterministicFakeEmbedding):
    queries: list[str] = Field(default_factory=list)

    def embed_query(self, text: str) -> list[float]:
        self.queries.append(text)
        return super().embed_query(text)


def test_the_question_goes_through_embed_query(tmp_path: Path) -> None:
    embeddings = QueryCountingEmbeddings(size=32)
    with VizRAG(tmp_path / "s", embedder=LangChainEmbedder(embeddings),
                show_progress=False) as rag:
        rag.insert(demo_documents(0, 6))
    retriever = VizRAGRetriever(store=tmp_path / "s", embedder=embeddings, k=2)
    retriever.invoke(QUERY)
    assert embeddings.queries == [QUERY]


def test_a_mistyped_store_path_is_an_error_not_a_new_store(tmp_path: Path) -> None:
    missing = tmp_path / "nope" / "sotre"
    with pytest.raises(FileNotFoundError, match="no VizRAG store"):
        VizRAGRetriever(store=str(missing))
    assert not (tmp_path / "nope").exists()
    folder = tmp_path / "out"  # a folder that holds no store (e.g. a store's parent)
    (folder / "store").mkdir(parents=True)
    for make in (lambda: VizRAGRetriever(store=folder), lambda: HyperVizRunnable(store=folder)):
        with pytest.raises(FileNotFoundError, match="no VizRAG store"):
            make()
    assert sorted(p.name for p in folder.iterdir()) == ["store"]  # nothing created


def test_misspelt_options_are_refused(store_dir: Path) -> None:
    with pytest.raises(ValueError, match="imageformat"):
        HyperVizRunnable(imageformat="image_url")
    with pytest.raises(TypeError, match=r"includeimage.*did you mean 'include_image'"):
        HyperRAGVisualRetriever(rag=object(), includeimage=True)  # as VizRAGRetriever


def test_from_documents_checks_before_it_creates_a_store(tmp_path: Path) -> None:
    from langchain_core.documents import Document

    docs = [Document(page_content="Ada Lovelace wrote notes."),
            Document(page_content="Charles Babbage designed engines.")]
    for kwargs, kind in (({"ids": ["a"]}, ValueError), ({"bogus": 1}, TypeError),
                         ({"mode": "nope"}, ValueError)):
        with pytest.raises(kind):
            VizRAGRetriever.from_documents(docs, tmp_path / "s", **kwargs)
    with pytest.raises(TypeError, match="Document objects, got str"):
        VizRAGRetriever.from_documents(["text"], tmp_path / "s")  # type: ignore[list-item]
    assert not (tmp_path / "s").exists()
    with VizRAGRetriever.from_documents(docs, tmp_path / "s", ids=["ada", "cb"]) as r:
        assert {d.metadata["doc_id"] for d in r.invoke("Lovelace Babbage", k=2)} == {"ada",
                                                                                     "cb"}
        with pytest.raises(ValueError, match="id 'x' and different content"):
            r.add_documents([Document(page_content="one", id="x"),
                             Document(page_content="two", id="x")])
        assert r.engine.stats().documents == 2  # nothing added
        assert r.add_documents([docs[0], docs[0]], ids=["y", "y"]) == ["y", "y"]  # the same
        assert r.engine.stats().documents == 3


def test_bad_arguments_fail_clearly(store_dir: Path) -> None:
    with pytest.raises(TypeError, match="'top_k' \\(did you mean 'k'"):  # refused, named
        VizRAGRetriever(store=store_dir, top_k=2)
    retriever = VizRAGRetriever(store=store_dir, k=2)
    for kwargs, kind in (({"k": True}, TypeError), ({"k": 2.7}, TypeError),
                         ({"mode": ""}, ValueError), ({"hops": 9}, ValueError),
                         ({"include_image": "no"}, TypeError)):
        with pytest.raises(kind):
            retriever.invoke(QUERY, **kwargs)
    with pytest.raises(TypeError, match="question as a string"):
        retriever.invoke({"question": QUERY})  # type: ignore[arg-type]


def test_a_closed_store_says_so_and_the_retriever_is_a_context_manager(
        store_dir: Path) -> None:
    with VizRAGRetriever(store=store_dir, k=1) as retriever:
        assert len(retriever.invoke(QUERY)) == 1
    with pytest.raises(StoreError, match="is closed"):
        retriever.invoke(QUERY)
    retriever.close()  # closing again is a no-op


def test_model_failures_are_logged(store_dir: Path, caplog: pytest.LogCaptureFixture) -> None:
    class Failing(GenericFakeChatModel):
        def _generate(self, *args: Any, **kwargs: Any) -> Any:
            raise PermissionError("401 invalid API key")

    retriever = VizRAGRetriever(store=store_dir, k=2,
                                chat=Failing(messages=iter([AIMessage("x")])))
    with caplog.at_level(logging.WARNING, logger="hyperviz_core.rag"):
        assert retriever.invoke(QUERY)
    assert any("keyword model failed (401 invalid API key)" in r.getMessage()
               for r in caplog.records)


def test_chain_prompt_types_and_completion_models(store_dir: Path) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=2)
    template = PromptTemplate.from_template("Q: {question}\n{passages}")
    chat = GenericFakeChatModel(messages=iter([AIMessage("Steve Harris [1]")]))
    assert create_vizrag_chain(retriever, chat, template).invoke(QUERY) == "Steve Harris [1]"
    with pytest.raises(TypeError, match="template string"):
        create_vizrag_chain(retriever, chat, ChatPromptTemplate.from_messages([("human", "x")]))
    with pytest.warns(CaptionOnlyWarning, match="only its caption"):
        create_vizrag_chain(retriever, FakeListLLM(responses=["ok"]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", CaptionOnlyWarning)
        create_vizrag_chain(retriever, GenericFakeChatModel(messages=iter([])))


def test_rendered_documents_carry_the_ids_of_the_image(store_dir: Path) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=3)
    docs = retriever.invoke(QUERY)
    out = HyperVizRunnable(store=retriever.engine).invoke({"documents": docs,
                                                            "question": QUERY})
    shown = {m[1].strip().lower(): m[0]
             for m in re.findall(r"^(E\d+) ([^\[]+?) \[", out["caption"], re.M)}
    pairs = [(shown[k], v) for d in out["documents"]
             for k, v in d.metadata["entity_ids"].items() if k in shown]
    assert pairs and all(a == b for a, b in pairs)
    assert [d.id for d in out["documents"]] == [d.id for d in docs]


def test_from_documents_add_and_delete(tmp_path: Path) -> None:
    from langchain_core.documents import Document

    docs = [Document(page_content="Marie Curie worked with Pierre Curie in Paris.", id="curie",
                     metadata={"title": "Marie Curie", "source": "curie.txt", "page": 3}),
            Document(page_content="Albert Einstein lived in Bern and worked at the Patent "
                                  "Office.", metadata={"source": "einstein.txt"})]
    with VizRAGRetriever.from_documents(docs, tmp_path / "new", k=1) as retriever:
        top = retriever.invoke("Who worked with Pierre Curie?")[0]
        assert top.metadata["doc_id"] == "curie"
        assert (top.metadata["source"], top.metadata["page"]) == ("curie.txt", 3)
        stats = retriever.engine.stats()
        assert retriever.add_documents(docs[:1]) == ["curie"]  # unchanged: a no-op
        assert retriever.engine.stats() == stats
        moved = Document(page_content=docs[0].page_content, id="curie",
                         metadata={**docs[0].metadata, "page": 4})
        assert retriever.add_documents([moved]) == ["curie"]  # metadata alone: replaced
        assert retriever.invoke("Who worked with Pierre Curie?")[0].metadata["page"] == 4
        ids = retriever.add_documents([Document(page_content="Ada Lovelace wrote notes.")])
        assert ids[0].startswith("doc-") and retriever.engine.stats().documents == 3
        retriever.delete(["curie"])
        assert "curie" not in {d.metadata["doc_id"]
                               for d in retriever.invoke("Marie Curie Paris", k=3)}
        with pytest.raises(TypeError, match="list of document ids"):
            retriever.delete("curie")  # type: ignore[arg-type]
        with pytest.raises(TypeError, match=r"list of document ids, got None \(nothing"):
            retriever.delete(None)  # type: ignore[arg-type]
        before = retriever.engine.stats().documents
        with pytest.raises(TypeError, match="must be strings"):  # checked before deleting
            retriever.delete([ids[0], 5])  # type: ignore[list-item]
        assert retriever.engine.stats().documents == before
    with pytest.raises(StoreError, match="is closed"):
        retriever.invoke("Bern")
    assert VizRAGRetriever(store=tmp_path / "new", k=1).invoke("Bern")[0].metadata[
        "source"] == "einstein.txt"
