"""Fixes of the LangChain wrapper: metadata-aware derived ids, model-label fingerprints,
the ``unmatched`` flag, delete by chunk id, the rendered image's E#/H# in text/naive mode,
option messages, and adapter callbacks added to the inherited ones (langchain-core fakes)."""

from __future__ import annotations

import asyncio
import logging
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.documents import Document
from langchain_core.language_models.fake_chat_models import (
    FakeListChatModel,
    ParrotFakeChatModel,
)
from langchain_core.runnables import RunnableLambda
from pydantic import Field, SecretStr

from hyperviz_core.rag import RankedChunk, RetrievalResult
from vizrag_langchain import HyperVizRunnable, LangChainChatModel, VizRAGRetriever

FOOTER = "Acme Corp confidential. All rights reserved."
CHUNKS = [Document(page_content=FOOTER, metadata={"source": "a.pdf", "page": 1}),
          Document(page_content=FOOTER, metadata={"source": "b.pdf", "page": 7}),
          Document(page_content="Widgets are assembled in Ohio.", metadata={"source": "a.pdf"})]
CURIE = [Document(page_content=t, id=f"d{i}") for i, t in enumerate([
    "Marie Curie was a physicist who worked in Paris with Pierre Curie.",
    "Albert Einstein developed the theory of relativity in Bern and Berlin.",
    "Isaac Newton formulated the laws of motion at Cambridge.",
    "Pierre Curie and Marie Curie shared the Nobel Prize in Physics in 1903."])]


@pytest.fixture(scope="module")
def curie(tmp_path_factory: pytest.TempPathFactory) -> VizRAGRetriever:
    return VizRAGRetriever.from_documents(CURIE, tmp_path_factory.mktemp("lcfix") / "s", k=2)


# ---------------------------------------------------------------- 1. derived ids
def test_same_text_other_metadata_are_two_documents(tmp_path: Path) -> None:
    with VizRAGRetriever.from_documents(CHUNKS, tmp_path / "s", k=3) as r:
        assert r.engine.stats().documents == 3
        found = {(d.metadata["source"], d.metadata.get("page"))
                 for d in r.invoke("Acme confidential")}
        assert {("a.pdf", 1), ("b.pdf", 7)} <= found


def test_second_add_keeps_the_first(tmp_path: Path) -> None:
    with VizRAGRetriever.from_documents(CHUNKS[:1], tmp_path / "s", k=3) as r:
        first = r.add_documents(CHUNKS[:1])
        second = r.add_documents(CHUNKS[1:2])
        assert first != second
        assert r.engine.stats().documents == 2
        assert {d.metadata["source"] for d in r.invoke("Acme confidential")} == {"a.pdf",
                                                                                 "b.pdf"}


def test_derived_id_is_deterministic_and_metadata_free_ids_unchanged(tmp_path: Path) -> None:
    code = ("from langchain_core.documents import Document\n"
            "from vizrag_langchain.documents import to_engine_document as t\n"
            f"print(t(Document(page_content={FOOTER!r}, metadata={{'b': 1, 'a': [1, 2]}})).id)")
    ids = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONHASHSEED": seed}, check=True).stdout
           for seed in ("1", "2")}
    assert len(ids) == 1 and next(iter(ids)).startswith("doc-")
    from hyperviz_core.rag import Document as VizDocument
    from vizrag_langchain.documents import to_engine_document
    plain = to_engine_document(Document(page_content=FOOTER))
    assert plain.id == VizDocument(text=FOOTER).id  # stores made before keep their ids
    ordered = to_engine_document(Document(page_content=FOOTER, metadata={"a": [1, 2], "b": 1}))
    assert ordered.id == next(iter(ids)).strip()  # key order does not matter


def test_identical_repeat_in_one_batch_is_indexed_once(tmp_path: Path) -> None:
    with VizRAGRetriever.from_documents(CHUNKS[:1] * 2, tmp_path / "s") as r:
        assert r.engine.stats().documents == 1
        ids = r.add_documents([CHUNKS[2], CHUNKS[2]])
        assert ids[0] == ids[1] and r.engine.stats().documents == 2
        with pytest.raises(ValueError, match="id 'x' and different content"):
            r.add_documents([Document(page_content="one", id="x"),
                             Document(page_content="two", id="x")])


# ---------------------------------------------------------------- 2. model labels
def test_label_follows_the_model_parameters() -> None:
    base = FakeListChatModel(responses=["bad"])
    labels = {
        LangChainChatModel(base).model_name,
        LangChainChatModel(FakeListChatModel(responses=["good"])).model_name,
        LangChainChatModel(base.bind(format="json")).model_name,
        LangChainChatModel(base.bind(temperature=0.7).with_retry()).model_name,
        LangChainChatModel(base, json_kwargs={"format": "json"}).model_name,
    }
    assert len(labels) == 5
    assert all(label.startswith("langchain:fake-list-chat-model#") for label in labels)
    assert LangChainChatModel(base).model_name == LangChainChatModel(
        FakeListChatModel(responses=["bad"])).model_name
    assert LangChainChatModel(ParrotFakeChatModel()).model_name == \
        "langchain:parrot-fake-chat-model"  # nothing identifying: the name alone
    assert LangChainChatModel(base, model_name="mine").model_name == "mine"


class Served(ParrotFakeChatModel):
    """A parrot with a provider's parameters."""

    model: str = "served-7b"
    base_url: str = "http://localhost:11434"
    api_key: SecretStr = SecretStr("sk-one")
    openai_api_key: str = "sk-plain"
    default_headers: dict[str, str] = Field(
        default_factory=lambda: {"Authorization": "Bearer one"})
    temperature: float = 0.0


def test_label_ignores_credentials_but_not_the_endpoint() -> None:
    from vizrag_langchain.adapters import model_label

    label = model_label(Served())
    assert label.startswith("langchain:served-7b#")
    assert model_label(Served(api_key=SecretStr("sk-two"), openai_api_key="sk-other",
                              default_headers={"Authorization": "Bearer two"})) == label
    assert model_label(Served(base_url="http://user:pw@localhost:11434")) == label
    assert model_label(Served(base_url="http://gpu-box:11434")) != label
    assert model_label(Served(temperature=0.5)) != label
    assert "sk-" not in label


def test_label_is_the_same_in_every_process() -> None:
    code = ("from langchain_core.language_models.fake_chat_models import FakeListChatModel\n"
            "from vizrag_langchain import LangChainChatModel\n"
            "print(LangChainChatModel(FakeListChatModel(responses=['x']).bind(stop=['y'], "
            "format='json')).model_name)")
    out = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env={"PYTHONHASHSEED": seed}, check=True).stdout for seed in "12"}
    assert len(out) == 1


# ---------------------------------------------------------------- 3. unmatched
def test_unmatched_query_is_flagged_and_logged_once(curie: VizRAGRetriever,
                                                    caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="hyperviz_core"):
        docs = curie.invoke("zzqx blorf quuxification", include_image=True)
    assert docs and all(d.metadata["unmatched"] is True for d in docs)
    assert len([r for r in caplog.records if "arbitrary" in r.getMessage()]) == 1
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="hyperviz_core"):
        hit = curie.invoke("Marie Curie Paris")
        asyncio.run(curie.ainvoke("zzqx blorf"))
    assert all(d.metadata["unmatched"] is False for d in hit)
    assert len([r for r in caplog.records if "arbitrary" in r.getMessage()]) == 1


def test_unmatched_flag_keeps_a_documents_own_key(tmp_path: Path) -> None:
    doc = Document(page_content="Ada Lovelace wrote notes.", metadata={"unmatched": "mine"})
    with VizRAGRetriever.from_documents([doc], tmp_path / "s") as r, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = r.invoke("zzqx")[0].metadata
    assert got["unmatched"] == "mine" and got["vizrag_unmatched"] is True


# ---------------------------------------------------------------- 4. delete
def test_delete_by_a_retrieved_documents_id(tmp_path: Path) -> None:
    long = Document(page_content=" ".join(f"Word{i} sentence about Paris." for i in range(300)),
                    id="long")
    docs = [*CURIE, long]
    with VizRAGRetriever.from_documents(docs, tmp_path / "s", k=1) as r:
        hit = r.invoke("Isaac Newton Cambridge")[0]
        assert hit.metadata["doc_id"] == "d2" and hit.id != "d2"
        r.delete([hit.id])
        assert not r.engine.store.has_document("d2")
        part = r.invoke("Word250 Paris")[0]
        assert part.metadata["doc_id"] == "long"
        asyncio.run(r.adelete([part.id, "no-such-id"]))
        assert not r.engine.store.has_document("long")
        assert r.engine.stats().documents == 3


# ---------------------------------------------------------------- 5. naive-mode links
def test_chunk_links_of_a_shown_rendering_in_naive_mode() -> None:
    shown = {"entities": [{"key": "ada", "id": "E1", "source_ids": ["c1"]},
                          {"key": "bob", "id": "E2", "source_ids": ["c2"]}],
             "hyperedges": [{"key": "h-1", "id": "H1", "source_ids": ["c1", "c2"]}]}
    result = RetrievalResult(query="q", mode="naive")
    chunk = RankedChunk(chunk_id="c1", doc_id="d", score=1.0, rank=1, text="t")
    assert result.chunk_links(chunk, shown) == {
        "entities": ["ada"], "entity_ids": {"ada": "E1"},
        "hyperedges": ["h-1"], "hyperedge_ids": {"h-1": "H1"}}
    from hyperviz_core.rag.result import rendered_links

    assert rendered_links(shown, "c2", ["zed"])["entities"] == ["zed", "bob"]


@pytest.mark.parametrize("mode", ["text", "naive"])
def test_text_documents_carry_the_images_ids(curie: VizRAGRetriever, mode: str) -> None:
    docs = curie.invoke("Where did Marie Curie work?", mode=mode, include_image=True)
    image, text = docs[-1], docs[:-1]
    assert image.metadata["type"] == "hyperviz_image" and image.metadata["entity_ids"]
    for doc in text:
        assert doc.metadata["entity_ids"], doc.metadata
        assert set(doc.metadata["entity_ids"].values()) <= set(
            image.metadata["entity_ids"].values())


def test_runnable_renumbers_naive_documents(curie: VizRAGRetriever) -> None:
    docs = curie.invoke("Where did Marie Curie work?", mode="naive")
    assert all(not d.metadata["entity_ids"] for d in docs)
    out = HyperVizRunnable(store=curie.engine).invoke(docs)
    assert all(d.metadata["entity_ids"] and d.metadata["entities"] for d in out["documents"])


# ---------------------------------------------------------------- 6. option messages
def test_search_kwargs_alias(curie: VizRAGRetriever) -> None:
    r = VizRAGRetriever(store=curie.engine, search_kwargs={"k": 1})
    assert r.k == 1 and len(r.invoke("Marie Curie")) == 1
    with pytest.raises(TypeError, match="'score_threshold'"):
        VizRAGRetriever(store=curie.engine, search_kwargs={"score_threshold": 0.5})
    with pytest.raises(TypeError, match="'k' twice"):
        VizRAGRetriever(store=curie.engine, k=3, search_kwargs={"k": 1})
    with pytest.raises(TypeError, match="must be a dict"):
        VizRAGRetriever(store=curie.engine, search_kwargs=2)


def test_from_documents_messages(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match=r"'top_k' \(did you mean 'k'\?\)"):
        VizRAGRetriever.from_documents(CURIE, tmp_path / "s", top_k=3)
    with pytest.raises(TypeError, match=r"^from_documents takes"):
        VizRAGRetriever.from_documents(["text"], tmp_path / "s")  # type: ignore[list-item]
    assert not (tmp_path / "s").exists()
    with VizRAGRetriever.from_documents(CURIE, tmp_path / "s", search_kwargs={"k": 1}) as r:
        assert r.k == 1


# ---------------------------------------------------------------- 7. callbacks
class Starts(BaseCallbackHandler):
    def __init__(self) -> None:
        self.parents: list[UUID | None] = []

    def on_chat_model_start(self, serialized: Any, messages: Any, *, run_id: UUID,
                            parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        self.parents.append(parent_run_id)

    def on_chain_start(self, serialized: Any, inputs: Any, *, run_id: UUID,
                       parent_run_id: UUID | None = None, **kwargs: Any) -> None:
        if parent_run_id is None:
            self.root = run_id


def test_adapter_callbacks_add_to_the_inherited_ones() -> None:
    own, outer = Starts(), Starts()
    chat = LangChainChatModel(ParrotFakeChatModel(), config={"callbacks": [own]})
    RunnableLambda(lambda q: chat.complete(q)).invoke("hi", config={"callbacks": [outer]})
    assert outer.parents == [outer.root]  # still a child run of the caller's trace
    assert own.parents == [outer.root]


def test_adapter_callbacks_in_astream_events() -> None:
    own = Starts()
    chat = LangChainChatModel(ParrotFakeChatModel(), config={"callbacks": [own]})

    async def call(q: str) -> str:
        return await chat.acomplete(q)

    async def kinds() -> list[str]:
        return [e["event"] async for e in RunnableLambda(call).astream_events("hi",
                                                                             version="v2")]
    assert "on_chat_model_start" in asyncio.run(kinds())
    assert len(own.parents) == 1
    assert LangChainChatModel(ParrotFakeChatModel()).complete("solo") == "solo"


def test_documents_stored_under_the_earlier_id_rule_are_not_doubled(tmp_path: Path) -> None:
    """A store filled before ids covered metadata (``doc-<hash of title + text>``): adding
    the same documents again is still a no-op (no second copy under the new id); a document
    with other metadata is another document."""
    from langchain_core.documents import Document

    from hyperviz_core.rag import Document as VizDocument
    from vizrag_langchain import VizRAGRetriever

    docs = [Document(page_content="Ada Lovelace wrote notes on the Analytical Engine.",
                     metadata={"source": "a.txt"}),
            Document(page_content="Charles Babbage designed the Analytical Engine.",
                     metadata={"source": "b.txt"})]
    earlier = [VizDocument(text=d.page_content, metadata=dict(d.metadata)) for d in docs]
    from hyperviz_core.rag import VizRAG

    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(earlier)  # what add_documents stored before
    with VizRAGRetriever(store=str(tmp_path / "s")) as r:
        assert r.add_documents(docs) == [d.id for d in earlier]
        assert r.engine.store.stats().documents == 2
        other = Document(page_content=docs[0].page_content, metadata={"source": "c.txt"})
        assert r.add_documents([other]) != [earlier[0].id]
        assert r.engine.store.stats().documents == 3


def test_earlier_ids_read_the_store_once_per_call(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Id-less documents with metadata: the earlier-id rule costs one store read per call,
    not one or more per document (a 2,000-chunk PDF added page by page)."""
    from hyperviz_core.rag import Document as VizDocument
    from vizrag_langchain.documents import derived_id

    first = [Document(page_content="Ada wrote notes.", metadata={"p": 0})]
    with VizRAGRetriever.from_documents(first, store=tmp_path / "s") as r:
        store = r.engine.store
        reads: list[str] = []
        for name in ("has_document", "documents", "get_document"):
            real = getattr(store, name)
            monkeypatch.setattr(store, name,
                                lambda *a, _n=name, _f=real, **k: reads.append(_n) or _f(*a, **k))
        docs = [VizDocument(text=f"Page {i} of the manual.", metadata={"p": i})
                for i in range(40)]
        for d in docs:  # as add_documents names an id-less document
            d.id = derived_id(d)
        assert [d.id for d in r._earlier_ids(docs)] == [d.id for d in docs]
        assert reads == ["documents"]
