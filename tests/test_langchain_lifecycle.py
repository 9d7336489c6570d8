"""The review's LangChain defects, pinned: ``from_documents`` checks every option before it
creates a store, constructor (and ``configurable_fields``) options are as strict as a
call's, ``HyperVizRunnable`` shares, pickles and closes its engine as the retriever does (so
a chain deep-copies), ``adelete`` runs off the event loop, a ``PromptTemplate``'s partial
variables are filled, NaN metadata comes back JSON-safe, and the engine's own model calls are
told apart from the answer model in ``astream_events``."""

from __future__ import annotations

import copy
import json
import pickle
import threading
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.language_models.fake_chat_models import (
    GenericFakeChatModel,
    ParrotFakeChatModel,
)
from langchain_core.messages import AIMessage
from langchain_core.prompts import PromptTemplate
from langchain_core.runnables import ConfigurableField
from test_langchain_retriever import QUERY, build_store

import hyperviz_core.rag.engine as engine_module
from hyperviz_core.rag import StoreError, VizRAG
from vizrag_langchain import (
    HyperVizRunnable,
    LangChainChatModel,
    VizRAGRetriever,
    create_vizrag_chain,
)

DOCS = [Document(page_content="Ada Lovelace wrote notes on the Analytical Engine.", id="ada"),
        Document(page_content="Charles Babbage designed the Analytical Engine.", id="cb")]


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("lc-lifecycle"))


def count_engines(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """A list that grows by one per ``VizRAG`` opened from now on."""
    opened: list[int] = []
    init = engine_module.VizRAG.__init__

    def counting(self: VizRAG, *args: Any, **kwargs: Any) -> None:
        opened.append(1)
        init(self, *args, **kwargs)

    monkeypatch.setattr(engine_module.VizRAG, "__init__", counting)
    return opened


# ------------------------------------------------------------------ 1. from_documents
@pytest.mark.parametrize(("option", "kind", "message"), [
    ({"k": 0}, ValueError, "k must be at least 1, got 0"),
    ({"k": "x"}, TypeError, "k must be an integer, got 'x'"),
    ({"hops": 9}, ValueError, "hops must be an integer from 0 to 3, got 9"),
    ({"include_image": []}, TypeError, "include_image must be True or False, got"),
    ({"tags": 5}, ValueError, "tags"),
])
def test_from_documents_checks_every_option_before_it_creates_a_store(
        tmp_path: Path, option: dict[str, Any], kind: type[Exception], message: str) -> None:
    with pytest.raises(kind, match=message):
        VizRAGRetriever.from_documents(DOCS, tmp_path / "s", **option)
    assert not (tmp_path / "s").exists()  # nothing created


# ------------------------------------------------------------------ 2. HyperVizRunnable
def test_hyperviz_runnable_copies_share_its_engine_and_a_chain_deep_copies(
        store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=2)
    docs = retriever.invoke(QUERY)
    hv = HyperVizRunnable(store=store_dir)
    opened = count_engines(monkeypatch)
    configurable = hv.configurable_fields(detail=ConfigurableField(id="detail"))
    for _ in range(3):
        configurable.invoke(docs, config={"configurable": {"detail": "low"}})
    assert opened == []  # no store reopened (leaked) per configurable copy
    deep = copy.deepcopy(hv)
    assert deep._store is hv._store and deep.invoke(docs) == hv.invoke(docs)
    assert copy.deepcopy(HyperVizRunnable(store=retriever.engine))._store is \
        retriever.engine.store
    chain = create_vizrag_chain(retriever, ParrotFakeChatModel())
    assert copy.deepcopy(chain).invoke(QUERY) == chain.invoke(QUERY)
    assert opened == []
    deep.close()  # a copy's close leaves the engine to the original, as a configured copy's
    copy.deepcopy(retriever).close()
    copy.copy(retriever).close()
    retriever.model_copy().close()
    copy.copy(hv).close()
    assert hv.invoke(docs)["image"] and retriever.invoke(QUERY)


def test_hyperviz_runnable_pickles_and_closes_like_the_retriever(store_dir: Path) -> None:
    hv = HyperVizRunnable(store=store_dir, image_format="image_url")
    again = pickle.loads(pickle.dumps(hv))
    assert again.image_format == "image_url" and again._store is not hv._store
    again.close()
    assert pickle.loads(pickle.dumps(HyperVizRunnable())).store is None
    with pytest.raises(TypeError, match="HyperVizRunnable over an open store"):
        pickle.dumps(HyperVizRunnable(store=VizRAG(store_dir, show_progress=False)))
    docs = VizRAGRetriever(store=store_dir, k=2).invoke(QUERY)
    with HyperVizRunnable(store=store_dir) as opened:
        assert opened.invoke(docs)["image"] is not None
    with pytest.raises(StoreError, match="is closed"):
        opened.invoke(docs)
    engine = VizRAG(store_dir, show_progress=False)
    HyperVizRunnable(store=engine).close()  # not opened by it: left open
    assert engine.stats().documents == 12
    engine.close()


# ------------------------------------------------------------------ 3. strict constructor
@pytest.mark.parametrize(("option", "kind", "message"), [
    ({"include_image": "yes"}, TypeError, "include_image must be True or False, got 'yes'"),
    ({"include_image": 1}, TypeError, "include_image must be True or False, got 1"),
    ({"k": True}, TypeError, "k must be an integer, got True"),
    ({"k": 2.0}, TypeError, "k must be an integer, got 2.0"),
    ({"k": "3"}, TypeError, "k must be an integer, got '3'"),
    ({"hops": "2"}, ValueError, "hops must be an integer from 0 to 3, got '2'"),
])
def test_constructor_options_are_as_strict_as_a_calls(
        store_dir: Path, option: dict[str, Any], kind: type[Exception], message: str) -> None:
    with pytest.raises(kind, match=message):
        VizRAGRetriever(store=store_dir, **option)
    retriever = VizRAGRetriever(store=store_dir)
    with pytest.raises(kind, match=message):
        retriever.invoke(QUERY, **option)


def test_configurable_values_are_checked_too(store_dir: Path) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=2)
    image = retriever.configurable_fields(include_image=ConfigurableField(id="img"))
    with pytest.raises(TypeError, match="include_image must be True or False, got 'no'"):
        image.invoke(QUERY, config={"configurable": {"img": "no"}})
    assert len(image.invoke(QUERY, config={"configurable": {"img": True}})) == 3


# ------------------------------------------------------------------ 4. adelete
async def test_adelete_runs_off_the_event_loop(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    retriever = VizRAGRetriever.from_documents(
        DOCS, tmp_path / "s", embedder=DeterministicFakeEmbedding(size=16))
    threads: list[int] = []
    delete_many = retriever.engine.delete_many

    def spy(ids: Any) -> dict[str, int]:
        threads.append(threading.get_ident())
        return delete_many(ids)

    monkeypatch.setattr(retriever.engine, "delete_many", spy)
    await retriever.adelete(["ada"])
    assert threads and threads[0] != threading.get_ident()  # a worker thread
    assert [d.id for d in retriever.engine.store.documents()] == ["cb"]
    with pytest.raises(TypeError, match="list of document ids"):
        await retriever.adelete("cb")
    retriever.close()


# ------------------------------------------------------------------ 5. partial prompts
def test_prompt_template_partials_are_filled(store_dir: Path) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=1)
    calls: list[int] = []

    def persona() -> str:
        calls.append(1)
        return "You are terse."

    prompt = PromptTemplate.from_template("{persona} {tone}\n{question}\n{passages}").partial(
        persona=persona, tone="Plain.")
    assert isinstance(prompt, PromptTemplate)  # .partial keeps the class
    seen = ParrotFakeChatModel()
    chain = create_vizrag_chain(retriever, seen, prompt=prompt)
    text = chain.invoke(QUERY)
    assert text.startswith(f"You are terse. Plain.\n{QUERY}\n[1] ")
    chain.invoke(QUERY)
    assert calls == [1, 1]  # a callable partial is called per answer
    other = PromptTemplate.from_template("{mood} {question}").partial(persona="x")
    assert isinstance(other, PromptTemplate)
    with pytest.raises(ValueError, match=r"unknown field \{mood\}"):
        create_vizrag_chain(retriever, seen, prompt=other)


# ------------------------------------------------------------------ 6. NaN metadata
def test_non_finite_metadata_comes_back_json_safe(tmp_path: Path) -> None:
    doc = Document(page_content="Max Planck taught in Kiel.",
                   metadata={"nan": float("nan"), "inf": [float("-inf")], "ok": 1.5})
    with VizRAGRetriever.from_documents([doc], tmp_path / "s") as retriever:
        meta = retriever.invoke("Planck Kiel")[0].metadata
    json.dumps(meta, allow_nan=False)
    assert (meta["nan"], meta["inf"], meta["ok"]) == ("nan", ["-inf"], 1.5)


# ------------------------------------------------------------------ engine model runs
def engine_chat() -> GenericFakeChatModel:
    return GenericFakeChatModel(messages=iter([AIMessage('["Iron Maiden"]'),
                                               AIMessage("E1 E2")] * 10))


async def test_engine_model_calls_are_named_and_tagged(store_dir: Path) -> None:
    answer = GenericFakeChatModel(messages=iter([AIMessage("FINAL ANSWER")] * 3))
    retriever = VizRAGRetriever(store=store_dir, k=2, chat=engine_chat())
    chain = create_vizrag_chain(retriever, answer)
    starts = [(ev["name"], "vizrag" in ev["tags"])
              async for ev in chain.astream_events(QUERY, version="v2")
              if ev["event"] == "on_chat_model_start"]
    assert starts[-1] == ("GenericFakeChatModel", False)  # the answer model
    assert starts[:-1] and set(starts[:-1]) == {("vizrag_engine", True)}
    answers = [ev["data"]["chunk"].content
               async for ev in chain.astream_events(QUERY, version="v2",
                                                    exclude_tags=["vizrag"])
               if ev["event"] == "on_chat_model_stream"]
    assert "".join(answers) == "FINAL ANSWER"
    own = LangChainChatModel(engine_chat(), config={"run_name": "mine", "tags": ["x"]})
    assert own._config() == {"run_name": "mine", "tags": ["x", "vizrag"]}
    assert own.complete("hi") == '["Iron Maiden"]'
    assert LangChainChatModel(ParrotFakeChatModel()).complete("hi") == "hi"


# ------------------------------------------------------------------ one_chunk
def test_one_chunk_indexes_a_splitters_documents_whole(tmp_path: Path) -> None:
    """A text splitter's chunks (here over the engine's 1,200 characters) are indexed as they
    are with ``one_chunk=True``: one chunk each, under the document's id; by default the
    engine windows a long document."""
    long = " ".join(f"Ada Quill flew kite {i} over Leyton Marsh." for i in range(60))
    docs = [Document(page_content=long, id="part-1"),
            Document(page_content="Leyton Marsh lies east of London.", id="part-2")]
    with VizRAGRetriever.from_documents(docs, tmp_path / "a", one_chunk=True) as whole:
        assert whole.engine.stats().chunks == 2
        assert whole.engine.store.chunk_ids("part-1") == ["part-1"]
        got = whole.invoke("Who flew kites over Leyton Marsh?")
        assert {d.metadata["chunk_id"] for d in got} <= {"part-1", "part-2"}
        whole.add_documents([Document(page_content=long, id="part-3")])
        assert whole.engine.store.chunk_ids("part-3") == ["part-3"]
    with VizRAGRetriever.from_documents(docs, tmp_path / "b") as windowed:
        assert windowed.engine.stats().chunks > 2
    with pytest.raises(TypeError, match="one_chunk must be True or False"):
        VizRAGRetriever.from_documents(docs, tmp_path / "c", one_chunk="yes")
    assert not (tmp_path / "c").exists()
