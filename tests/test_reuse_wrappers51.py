"""Through the wrappers, a changed document embeds only its changed chunks (stop 51):
LlamaIndex ``refresh_ref_docs`` and a LangChain vector store's ``add_documents`` with the
same ids (one chunk per document there) go through the engine's indexer, which keeps the
stored vectors of unchanged chunks (:mod:`hyperviz_core.rag.index.reuse`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from langchain_core.documents import Document as LCDocument
from langchain_core.embeddings import DeterministicFakeEmbedding
from llama_index.core import Document, MockEmbedding
from pydantic import Field

from vizrag_langchain import VizRAGVectorStore
from vizrag_llamaindex import VizRAGIndex

PARAS = [f"{n} studied in {c} and wrote about {t}. " * 3 for n, c, t in [
    ("Marie Curie", "Paris", "radium"), ("Lise Meitner", "Vienna", "fission"),
    ("Niels Bohr", "Copenhagen", "atoms"), ("Emmy Noether", "Erlangen", "rings"),
    ("Alan Turing", "Cambridge", "machines"), ("Ada Lovelace", "London", "engines")]]
TEXT = "\n\n".join(PARAS)


class CountingEmbedding(MockEmbedding):
    """MockEmbedding that records the texts embedded as documents."""

    texts: list[str] = Field(default_factory=list)

    def _get_text_embedding(self, text: str) -> list[float]:
        self.texts.append(text)
        return super()._get_text_embedding(text)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        return super()._get_text_embeddings(texts)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._get_text_embeddings(texts)


def _chunk_texts(store: Any) -> set[str]:
    from hyperviz_core.rag.store.base import chunk_text
    return {chunk_text(c) for c in store.chunks()}


def test_llamaindex_refresh_ref_docs_embeds_only_changed_chunks(tmp_path: Path) -> None:
    model = CountingEmbedding(embed_dim=16)
    index = VizRAGIndex.from_documents([Document(text=TEXT, id_="sci", metadata={"v": 1})],
                                       embed_model=model, chunk_size=300, chunk_overlap=0,
                                       store_dir=tmp_path / "s", show_progress=False)
    store = index.engine.store
    before = _chunk_texts(store)
    assert len(before) >= 3 and before <= set(model.texts)
    model.texts.clear()
    assert index.refresh_ref_docs([Document(text=TEXT, id_="sci", metadata={"v": 2})]) == [True]
    assert not before & set(model.texts)  # a metadata change embeds no chunk again
    edited = TEXT.replace("Ada Lovelace studied in London", "Ada Byron studied in Kirkby")
    assert index.refresh_ref_docs([Document(text=edited, id_="sci")]) == [True]
    changed = _chunk_texts(store) - before
    assert changed and set(model.texts) & _chunk_texts(store) == changed
    index.close()


class CountingFake(DeterministicFakeEmbedding):
    texts: list[str] = Field(default_factory=list)

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        self.texts += texts
        return super().embed_documents(texts)


def test_langchain_add_documents_with_new_metadata_embeds_no_chunk_again(
        tmp_path: Path) -> None:
    emb = CountingFake(size=16)
    with VizRAGVectorStore(tmp_path / "vs", emb) as vs:  # one chunk per document
        vs.add_documents([LCDocument(page_content=TEXT, metadata={"v": 1})], ids=["sci"])
        before = _chunk_texts(vs.engine.store)
        assert len(before) == 1 and before <= set(emb.texts)
        emb.texts.clear()
        vs.add_documents([LCDocument(page_content=TEXT, metadata={"v": 2})], ids=["sci"])
        assert not before & set(emb.texts)
        assert vs.get_by_ids(["sci"])[0].metadata["v"] == 2


def test_llamaindex_transformations_reuse_with_an_id_func(tmp_path: Path) -> None:
    """A splitter's nodes got new UUIDs each run (every chunk embedded again, as LlamaIndex's
    own index does); since stop 52 such ids are renamed after the document and the text
    (:mod:`vizrag_llamaindex.node_ids`), and an ``id_func`` of the document and position
    keeps its own ids: either way a metadata change embeds no chunk again."""
    from llama_index.core.node_parser import SentenceSplitter

    def run(id_func: Any) -> tuple[set[str], set[str]]:
        model = CountingEmbedding(embed_dim=16)
        kw = {} if id_func is None else {"id_func": id_func}
        splitter = SentenceSplitter(chunk_size=64, chunk_overlap=0, **kw)
        index = VizRAGIndex.from_documents(
            [Document(text=TEXT, id_="sci", metadata={"v": 1})], embed_model=model,
            transformations=[splitter], store_dir=tmp_path / str(id_func is None),
            show_progress=False)
        before = _chunk_texts(index.engine.store)
        model.texts.clear()
        index.refresh_ref_docs([Document(text=TEXT, id_="sci", metadata={"v": 2})])
        sent = set(model.texts) & _chunk_texts(index.engine.store)
        index.close()
        return before, sent

    before, sent = run(None)  # LlamaIndex's random node ids: renamed by text (stop 52)
    assert len(before) >= 3 and sent == set()  # before stop 52: every chunk again
    before, sent = run(lambda i, doc: f"{doc.id_}-{i}")
    assert len(before) >= 3 and sent == set()
