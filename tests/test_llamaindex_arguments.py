"""VizRAGIndex arguments and results: engine options survive persist/load, image nodes are refused,
model and document arguments are checked up front, the chat engines send the image with
detail "high", and skipped extraction records are said. Offline: LlamaIndex's own mocks."""

from __future__ import annotations

import asyncio
import base64
import warnings
from pathlib import Path
from typing import Any

import pytest
from llama_index.core import Document, StorageContext, load_index_from_storage
from llama_index.core.base.llms.types import ImageBlock
from llama_index.core.llms.mock import MockLLM, MockLLMWithChatMemoryOfLastCall
from llama_index.core.schema import ImageDocument, ImageNode, TextNode

from hyperviz_core.rag import Prompts
from vizrag_llamaindex import IndexingWarning, VizRAGIndex

DOCS = [
    Document(text="Marie Curie married Pierre Curie in Paris. Marie Curie won the Nobel "
                  "Prize in Physics with Pierre Curie and Henri Becquerel.", id_="curie"),
    Document(text="Albert Einstein was born in Ulm and worked at the Patent Office in Bern.",
             id_="einstein"),
    Document(text="Ada Lovelace worked with Charles Babbage on the Analytical Engine.",
             id_="ada"),
]
LONG = " ".join(f"Sentence number {i} mentions Marie Curie and Paris." for i in range(60))
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()
QUERY = "Who did Marie Curie marry?"


def reload(persist_dir: Path, **kwargs: Any) -> VizRAGIndex:
    index = load_index_from_storage(StorageContext.from_defaults(persist_dir=str(persist_dir)),
                                    **kwargs)
    assert isinstance(index, VizRAGIndex)
    return index


# ---------------------------------------------------------------- 1. options persisted
def test_engine_options_survive_persist_and_load(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents(DOCS, top_k=1, mode="naive", hops=2)
    assert len(index.as_retriever(include_image=False).retrieve("Marie Curie")) == 1
    index.storage_context.persist(persist_dir=str(tmp_path))
    loaded = reload(tmp_path)
    config = loaded.engine.config
    assert (config.top_k, config.mode, config.hops) == (1, "naive", 2)
    assert len(loaded.as_retriever(include_image=False).retrieve("Marie Curie")) == 1
    loaded.close()
    explicit = reload(tmp_path, top_k=2)  # an explicit keyword wins, the rest is restored
    assert (explicit.engine.config.top_k, explicit.engine.config.mode) == (2, "naive")
    assert len(explicit.as_retriever(include_image=False).retrieve("Marie Curie")) == 2
    explicit.close()


def test_chunking_options_survive_persist_and_load(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents([Document(text=LONG, id_="a")], chunk_size=200,
                                       chunk_overlap=0)
    built = len(index.ref_doc_info["a"].node_ids)
    assert built > 3
    index.storage_context.persist(persist_dir=str(tmp_path))
    loaded = reload(tmp_path)
    assert (loaded.engine.chunk_size, loaded.engine.chunk_overlap) == (200, 0)
    loaded.insert(Document(text=LONG, id_="b"))
    assert len(loaded.ref_doc_info["b"].node_ids) == built  # the same chunking
    loaded.close()


def test_options_that_are_objects_are_named_once_on_persist(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents(DOCS[:1], top_k=2, prompts=Prompts())
    assert index.index_struct.engine_options == {"top_k": 2}
    with pytest.warns(UserWarning, match="prompts") as said:
        index.storage_context.persist(persist_dir=str(tmp_path))
    assert len([w for w in said if "prompts" in str(w.message)]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        index.storage_context.persist(persist_dir=str(tmp_path))  # said once
    assert reload(tmp_path).engine.config.top_k == 2


def test_transformations_are_named_on_persist(tmp_path: Path) -> None:
    """Transformations are objects a persist cannot record: the first persist says to pass
    them to ``load_index_from_storage`` again (a reloaded index chunked new documents with
    the engine's default instead, silently)."""
    from llama_index.core.node_parser import SentenceSplitter

    index = VizRAGIndex.from_documents(DOCS[:1], transformations=[SentenceSplitter()])
    with pytest.warns(UserWarning, match=r"transformations \(objects\) will not be restored"):
        index.storage_context.persist(persist_dir=str(tmp_path))


# ---------------------------------------------------------------- 2. images refused
def test_image_documents_and_nodes_are_refused(tmp_path: Path) -> None:
    index = VizRAGIndex.from_documents(DOCS[:1], store_dir=tmp_path / "store")
    with pytest.raises(ValueError, match=r"'img-only' carries an image.*text only|"
                                         r"text only.*'img-only' carries an image"):
        index.insert(ImageDocument(image=PNG, text="", id_="img-only"))
    with pytest.raises(ValueError, match="'img-node' carries an image"):
        index.insert_nodes([TextNode(text="Curie.", id_="t"),
                            ImageNode(image=PNG, text="A chart of prizes", id_="img-node")])
    with pytest.raises(ValueError, match="'img-doc' carries an image"):
        VizRAGIndex.from_documents([ImageDocument(image=PNG, text="a caption", id_="img-doc")])
    assert sorted(index.ref_doc_info) == ["curie"]  # nothing written, "t" neither
    index.insert_nodes([ImageNode(text="An ImageNode holding text only.", id_="text-only")])
    assert "text-only" in index.ref_doc_info


# ---------------------------------------------------------------- 3. model arguments
@pytest.mark.parametrize(("option", "value"), [("llm", "gpt-4o-mini"),
                                               ("embed_model", "default"),
                                               ("embed_model", "local:BAAI/bge-small-en-v1.5")])
def test_model_names_are_refused_before_a_store_is_made(tmp_path: Path, option: str,
                                                        value: str) -> None:
    store = tmp_path / "store"
    kind = "LLM" if option == "llm" else "BaseEmbedding"
    with pytest.raises(TypeError, match=f"{option}= must be a LlamaIndex {kind} instance"):
        VizRAGIndex.from_documents(DOCS, store_dir=store, **{option: value})
    with pytest.raises(TypeError, match=f"{option}="):
        VizRAGIndex(store_dir=store, **{option: value})
    assert not store.exists()


# ---------------------------------------------------------------- 4. one document
def test_one_document_instead_of_a_list_is_named() -> None:
    with pytest.raises(TypeError, match=r"from_documents\(\) takes a list of documents, got "
                                        r"one Document"):
        VizRAGIndex.from_documents(DOCS[0])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="takes a list of documents"):
        VizRAGIndex(DOCS[0])  # type: ignore[arg-type]


# ---------------------------------------------------------------- 5. chat engines: detail
@pytest.fixture(scope="module")
def index() -> VizRAGIndex:
    return VizRAGIndex.from_documents(DOCS)


def detail_of(llm: MockLLMWithChatMemoryOfLastCall) -> list[str | None]:
    assert llm.last_chat_messages is not None
    return [b.detail for m in llm.last_chat_messages for b in m.blocks
            if isinstance(b, ImageBlock)]


@pytest.mark.parametrize("mode", ["best", "context", "condense_plus_context"])
def test_chat_engines_send_the_image_with_high_detail(index: VizRAGIndex, mode: str) -> None:
    llm = MockLLMWithChatMemoryOfLastCall(is_chat_model=True)
    engine = index.as_chat_engine(chat_mode=mode, llm=llm, top_k=2)
    engine.chat(QUERY)
    assert detail_of(llm) == ["high"]
    "".join(engine.stream_chat(QUERY).response_gen)
    assert detail_of(llm) == ["high"]

    async def main() -> None:
        await engine.achat(QUERY)
        assert detail_of(llm) == ["high"]
        response = await engine.astream_chat(QUERY)
        async for _ in response.async_response_gen():
            pass
        assert detail_of(llm) == ["high"]

    asyncio.run(main())
    assert engine.chat_history  # the engine's memory works through the wrapped LLM


# ---------------------------------------------------------------- 6. skipped records
def test_unparseable_extraction_answers_are_said() -> None:
    with pytest.warns(IndexingWarning, match=r"3 extraction record\(s\) could not be parsed"):
        index = VizRAGIndex.from_documents(DOCS, llm=MockLLM(max_tokens=10))
    assert index.engine.stats().entities == 0

    async def main() -> None:
        with pytest.warns(IndexingWarning, match="skipped"):
            await index.ainsert_nodes([TextNode(text="Niels Bohr lived in Copenhagen.",
                                                id_="bohr")])

    asyncio.run(main())


def test_a_parsed_extraction_says_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", IndexingWarning)
        index = VizRAGIndex.from_documents(DOCS)  # the offline extractor
    assert index.engine.stats().entities > 0
