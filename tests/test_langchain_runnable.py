"""HyperVizRunnable: VizRAG documents, any retriever's documents, formats, batch, events."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from langchain_core.documents import Document
from langchain_core.embeddings import DeterministicFakeEmbedding
from langchain_core.vectorstores import InMemoryVectorStore
from rag_fakes import PNG_MAGIC, demo_documents
from test_langchain_retriever import QUERY, build_store

from vizrag_langchain import HyperVizRunnable, VizRAGRetriever, image_block, is_image_document

QUESTIONS = [QUERY, "Steve Harris", "Leyton", "heavy metal band", "East London",
             "The Number of the Beast", "English musician", "Classic Albums"]


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("lc-runnable"))


def vector_retriever(k: int = 3) -> Any:
    """An InMemoryVectorStore retriever over the same passages (not a VizRAG store)."""
    docs = [Document(id=d.id, page_content=d.text, metadata={"title": d.title})
            for d in demo_documents(0, 12)]
    store = InMemoryVectorStore(DeterministicFakeEmbedding(size=64))
    store.add_documents(docs)
    return store.as_retriever(search_kwargs={"k": k})


def test_any_retriever_documents_are_extracted() -> None:
    docs = vector_retriever().invoke(QUERY)
    out = HyperVizRunnable().invoke(docs)
    assert out["documents"] == docs
    assert out["image"]["type"] == "image" and out["image"]["mime_type"] == "image/png"
    assert base64.b64decode(out["image"]["base64"]).startswith(PNG_MAGIC)
    assert set(out["image"]) == {"type", "base64", "mime_type"}  # no random id
    assert out["export"]["entities"] and out["caption"].startswith("HyperViz rendering")
    shown = {str(e["key"]) for e in out["export"]["entities"]}
    words = " ".join(d.page_content.lower() for d in docs)
    assert all(key in words for key in shown)  # entities come from these passages
    assert HyperVizRunnable().invoke(docs) == out  # deterministic


def test_vizrag_documents_use_the_store(store_dir: Path) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=3)
    docs = retriever.invoke(QUERY)
    out = HyperVizRunnable(store=retriever.engine, image_format="image_url").invoke(
        {"documents": docs, "question": QUERY})
    url = out["image"]["image_url"]
    assert url["detail"] == "high" and url["url"].startswith("data:image/png;base64,")
    assert isinstance(out, dict) and len(repr(out)) < len(url["url"]) // 4  # a short repr
    assert "<image_url block>" in repr(out) and "<export: " in repr(out)
    keys = {str(e["key"]) for e in out["export"]["entities"]}
    bottom = retriever.engine.store.bottom()
    ids = {d.id for d in docs}
    assert keys and all(ids & set(bottom.entities[k].source_ids) for k in keys)  # from store


def test_image_document_is_reused_without_rendering(store_dir: Path) -> None:
    docs = VizRAGRetriever(store=store_dir, k=2, include_image=True).invoke(QUERY)
    image = docs[-1]
    out = HyperVizRunnable().invoke(docs)
    assert out["documents"] == docs[:2] and not any(map(is_image_document, out["documents"]))
    assert out["image"]["base64"] == image.metadata["image_base64"]
    assert out["caption"] == image.page_content


def test_empty_input_gives_no_image() -> None:
    assert HyperVizRunnable().invoke([]) == {"image": None, "caption": "", "export": {},
                                              "view": "", "documents": []}


def test_bad_input_and_format() -> None:
    with pytest.raises(TypeError, match="list of Documents"):
        HyperVizRunnable().invoke("text")
    with pytest.raises(TypeError, match="expects Documents"):
        HyperVizRunnable().invoke(["text"])
    with pytest.raises(ValueError, match="image_format"):
        HyperVizRunnable(image_format="png")  # type: ignore[arg-type]
    from hyperviz_core.rag import VisualContext

    with pytest.raises(ValueError, match="unknown image_format"):
        image_block(VisualContext(png_base64="AA", width=1, height=1, sha256="0"), "x")  # type: ignore[arg-type]


async def test_async_and_batch_equal_sequential(store_dir: Path) -> None:
    retriever = VizRAGRetriever(store=store_dir, k=2)
    sequential = [retriever.invoke(q) for q in QUESTIONS]
    assert retriever.batch(QUESTIONS, config={"max_concurrency": 8}) == sequential
    assert await retriever.abatch(QUESTIONS, config={"max_concurrency": 8}) == sequential
    runnable = HyperVizRunnable(store=store_dir)
    rendered = [runnable.invoke(d) for d in sequential[:4]]
    assert runnable.batch(sequential[:4], config={"max_concurrency": 8}) == rendered
    assert await runnable.ainvoke(sequential[0]) == rendered[0]


async def test_render_events_carry_no_image_bytes() -> None:
    docs = vector_retriever().invoke(QUERY)
    events = [e async for e in HyperVizRunnable().astream_events(docs, version="v2")
              if e["event"] == "on_custom_event"]
    assert [e["name"] for e in events] == ["vizrag.render.start", "vizrag.render.end"]
    end = events[1]["data"]
    assert end["event"] == "render" and end["phase"] == "end" and end["entities"] > 0
    assert end["elapsed_ms"] > 0 and len(end["sha256"]) == 64
    assert "base64" not in str(events) and "png" not in " ".join(map(str, end))
