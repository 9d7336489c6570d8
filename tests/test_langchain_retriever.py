"""VizRAGRetriever: LangChain's standard retriever suite plus metadata, overrides and images."""

from __future__ import annotations

import asyncio
import base64
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_tests.integration_tests import RetrieversIntegrationTests
from pydantic import Field
from rag_fakes import PNG_MAGIC, demo_documents

from hyperviz_core.rag import IndexingError, VizRAG, visual_ids
from vizrag_langchain import IMAGE_DOC_TYPE, VizRAGRetriever, is_image_document

QUERY = "Who founded Iron Maiden?"


def build_store(root: Path) -> Path:
    """A small offline store (12 MuSiQue demo passages) under ``root``; returns its directory."""
    store = root / "store"
    with VizRAG(store, show_progress=False) as rag:
        rag.insert(demo_documents(0, 12))
    return store


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("lc-store"))


class TestVizRAGRetrieverStandard(RetrieversIntegrationTests):
    """langchain-tests' standard retriever suite, offline."""

    _store: Path

    @pytest.fixture(autouse=True, scope="class")
    @classmethod
    def _build(cls, tmp_path_factory: pytest.TempPathFactory) -> None:
        cls._store = build_store(tmp_path_factory.mktemp("lc-standard"))

    @property
    def retriever_constructor(self) -> type[VizRAGRetriever]:
        return VizRAGRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"store": str(self._store)}

    @property
    def retriever_query_example(self) -> str:
        return QUERY


def test_documents_carry_ids_and_metadata(store_dir: Path) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=3)
    docs = retriever.invoke(QUERY)
    result = retriever.engine.retrieve(QUERY, top_k=3, render=False)
    assert [d.id for d in docs] == [c.chunk_id for c in result.chunks]
    assert [d.page_content for d in docs] == [c.text for c in result.chunks]
    first = docs[0].metadata
    assert first["chunk_id"] == docs[0].id and first["doc_id"].startswith("m")
    assert first["rank"] == 1 and first["score"] == result.chunks[0].score
    assert set(first["score_parts"]) == set(result.chunks[0].evidence)
    assert first["entities"] == result.chunks[0].entities  # best first
    assert set(first["entity_ids"]) <= set(first["entities"])
    assert all(v.startswith("E") for v in first["entity_ids"].values())
    assert all(v.startswith("H") for v in first["hyperedge_ids"].values())
    json.dumps([d.metadata for d in docs])  # JSON-serialisable
    assert not any(is_image_document(d) for d in docs)


def test_per_call_overrides(store_dir: Path) -> None:
    retriever = VizRAGRetriever(store=str(store_dir), k=4)
    assert len(retriever.invoke(QUERY, k=2)) == 2
    naive = retriever.invoke(QUERY, k=2, mode="naive")
    assert {d.metadata["mode"] for d in naive} == {"naive"}
    assert [len(x) for x in retriever.batch([QUERY, "Steve Harris"], k=1)] == [1, 1]
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        retriever.invoke(QUERY, mode="nope")


async def test_include_image_appends_one_document(store_dir: Path) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=2)
    docs = await retriever.ainvoke(QUERY, include_image=True)
    assert len(docs) == 3 and [is_image_document(d) for d in docs] == [False, False, True]
    image: Document = docs[-1]
    assert image.metadata["type"] == IMAGE_DOC_TYPE and image.metadata["mime_type"] == "image/png"
    assert base64.b64decode(image.metadata["image_base64"]).startswith(PNG_MAGIC)
    assert image.page_content.startswith("HyperViz rendering")
    assert image.id and image.id.startswith("hyperviz-")
    text_docs = docs[:2]
    assert all(d.metadata["entity_ids"] for d in text_docs[:1])


def test_include_image_draws_only_the_bottom_view(store_dir: Path) -> None:
    views: list[str] = []

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if name == "render" and phase == "start":
            views.append(payload["view"])

    retriever = VizRAGRetriever(store=store_dir, k=2, include_image=True)
    retriever._engine.add_hook(hook)
    docs = retriever.invoke(QUERY)
    assert is_image_document(docs[-1]) and docs[-1].metadata["view"] == "bottom"
    assert views == ["bottom"]  # I_top is not drawn for an image nobody reads
    # a notebook showing the documents prints a short line, not the 200 kB PNG
    shown = repr(docs[-1])
    assert len(shown) < 10_000 and "base64 chars>" in shown and "<export: " in shown
    assert len(docs[-1].metadata["image_base64"]) > 1_000  # the metadata holds it whole
    from langchain_core.documents import Document
    from langchain_core.load import dumpd, load

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # load() is a LangChain beta
        again = load(dumpd(docs[-1]), allowed_objects="all")
    assert type(again) is Document and again.metadata == docs[-1].metadata
    assert again == docs[-1] and docs[-1] == again  # equal to its plain form, both ways
    assert len(str(docs[-1])) < 10_000 and "base64 chars>" in str(docs[-1])
    views.clear()
    assert len(retriever.invoke(QUERY, include_image=False)) == 2 and views == []


@pytest.mark.parametrize("mode", ["text", "naive"])
async def test_modes_without_a_view_send_the_ranked_chunks_rendering(
        store_dir: Path, mode: str) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=3, mode=mode, include_image=True)
    for docs in (retriever.invoke(QUERY), await retriever.ainvoke(QUERY)):
        assert len(docs) == 4 and is_image_document(docs[-1])
        assert docs[-1].metadata["view"] == "passages"
        assert base64.b64decode(docs[-1].metadata["image_base64"]).startswith(PNG_MAGIC)
        entities, edges = visual_ids(docs[-1].metadata["export"])
        labels = [(k, v, entities) for d in docs[:-1] for k, v in d.metadata["entity_ids"].items()]
        labels += [(h, v, edges) for d in docs[:-1]
                   for h, v in d.metadata["hyperedge_ids"].items()]
        assert mode == "naive" or labels  # text mode's chunks name entities of the image
        assert all(drawn.get(key) == label for key, label, drawn in labels)


class VisionSpy(BaseChatModel):
    """Answers keyword prompts with a JSON list and image (locate) prompts with E# ids."""

    calls: list[list[BaseMessage]] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "vision-spy"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self.calls.append(list(messages))
        content = messages[-1].content
        has_image = isinstance(content, list) and any(
            isinstance(p, dict) and p.get("type") in ("image", "image_url") for p in content)
        answer = '["E1", "E2"]' if has_image else '["Iron Maiden", "founded"]'
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


def test_langchain_chat_model_drives_the_engine(store_dir: Path) -> None:
    spy = VisionSpy()
    retriever = VizRAGRetriever(store=store_dir, k=2, chat=spy)
    docs = retriever.invoke(QUERY)
    assert len(docs) == 2 and len(spy.calls) == 2  # keywords, then locate with I_top
    first, second = (m[-1].content for m in spy.calls)
    assert isinstance(first, str) or not any(p.get("type") == "image_url" for p in first
                                             if isinstance(p, dict))
    assert isinstance(second, list) and any(
        isinstance(p, dict) and p.get("type") == "image_url" for p in second)


def test_constructor_errors(store_dir: Path) -> None:
    with pytest.raises(ValueError, match="unknown retrieval mode"):
        VizRAGRetriever(store=store_dir, mode="global")
    with pytest.raises(TypeError, match="store must be"):
        VizRAGRetriever(store=42)
    engine = VizRAG(store_dir, show_progress=False)
    assert VizRAGRetriever(store=engine).engine is engine
    with pytest.raises(TypeError, match="already a VizRAG engine"):
        VizRAGRetriever(store=engine, chat=VisionSpy())


def test_add_documents_takes_ids_and_refuses_unknown_options(tmp_path: Path) -> None:
    retriever = VizRAGRetriever.from_documents([], store=tmp_path / "ids", k=2)
    docs = [Document(page_content="Ada Lovelace wrote notes on the Analytical Engine."),
            Document(page_content="Charles Babbage designed the Analytical Engine.", id="cb")]
    assert retriever.add_documents(docs, ids=["ada", "babbage"]) == ["ada", "babbage"]
    stored = sorted(d.id for d in retriever._engine.store.documents())
    assert stored == ["ada", "babbage"]  # the ids given win over doc.id
    with pytest.raises(ValueError, match="one id per document"):
        retriever.add_documents(docs, ids=["only-one"])
    with pytest.raises(TypeError, match="ids must be strings"):
        retriever.add_documents(docs, ids=[1, 2])
    # None falls back to doc.id, else the content hash (LangChain builds [d.id for d in docs])
    fallback = retriever.add_documents(docs, ids=[None, None])
    assert fallback[1] == "cb" and fallback[0].startswith("doc-")
    assert len(set(fallback)) == 2
    with pytest.raises(TypeError, match="unknown option"):
        retriever.add_documents(docs, idz=["a", "b"])
    assert asyncio.run(retriever.aadd_documents(docs[:1], ids=["ada2"])) == ["ada2"]
    assert sorted(d.id for d in retriever._engine.store.documents()) == sorted(
        ["ada", "ada2", "babbage", *fallback])
    retriever.close()


class RefusesBabbage(BaseChatModel):
    """An empty extraction, except for texts naming Babbage: a revoked key's error."""

    @property
    def _llm_type(self) -> str:
        return "refuses-babbage"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        if "Babbage" in str(messages[-1].content):
            raise PermissionError("401: key revoked")
        answer = '{"entities": [], "relations": []}'
        return ChatResult(generations=[ChatGeneration(message=AIMessage(content=answer))])


def test_add_documents_raises_when_a_document_fails(tmp_path: Path) -> None:
    retriever = VizRAGRetriever.from_documents([], store=tmp_path / "f", chat=RefusesBabbage())
    docs = [Document(page_content="Ada Lovelace wrote notes.", id="ada"),
            Document(page_content="Charles Babbage designed the engine.", id="cb")]
    with pytest.raises(IndexingError, match=r"1 document failed to index \(cb: "):
        retriever.add_documents(docs)
    assert [d.id for d in retriever.engine.store.documents()] == ["ada"]  # the other is kept
    with pytest.raises(IndexingError, match="key revoked"):
        asyncio.run(retriever.aadd_documents(docs[1:]))


def test_a_failed_from_documents_closes_the_store_it_opened(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[bool] = []
    original = VizRAG.close

    def spy(self: VizRAG) -> None:
        closed.append(True)
        original(self)

    monkeypatch.setattr(VizRAG, "close", spy)
    docs = [Document(page_content="Charles Babbage designed the engine.", id="cb")]
    with pytest.raises(IndexingError):
        VizRAGRetriever.from_documents(docs, store=tmp_path / "f", chat=RefusesBabbage())
    assert closed == [True]
    with pytest.raises(ValueError, match="unknown retrieval mode"):  # refused before opening
        VizRAGRetriever.from_documents(docs, store=tmp_path / "g", mode="global")
    assert closed == [True] and not (tmp_path / "g").exists()


def test_copies_and_pickles(store_dir: Path) -> None:
    """deepcopy shares the engine (a store connection cannot be copied) and pickle reopens
    the store path; both failed on the sqlite3 connection."""
    import copy
    import pickle

    retriever = VizRAGRetriever(store=store_dir, k=2, mode="text")
    want = [d.id for d in retriever.invoke(QUERY)]
    deep = copy.deepcopy(retriever)
    assert deep.engine is retriever.engine and [d.id for d in deep.invoke(QUERY)] == want
    again = pickle.loads(pickle.dumps(retriever))
    assert (again.k, again.mode) == (2, "text") and again.engine is not retriever.engine
    assert [d.id for d in again.invoke(QUERY)] == want
    again.close()
    with pytest.raises(TypeError, match="cannot be pickled: build it with store=<path"):
        pickle.dumps(VizRAGRetriever(store=retriever.engine))
