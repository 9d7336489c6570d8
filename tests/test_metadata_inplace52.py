"""A document indexed again with only new metadata is updated in place (stop 52).

Before, a moved corpus folder (every ``source`` changes) or a metadata edit replaced each
document whole: chunked, extracted again (model answers from the cache), merged and
written again, only to store the same entities, hyperedges, themes and vectors. Now the
store rewrites the document's and its chunks' metadata in one transaction, when the
extractors say which metadata they read and the chunks keep their texts and those keys.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from bench_import import bench_module

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract import HeuristicExtractor
from hyperviz_core.rag.index.chunking import chunk_document
from hyperviz_core.rag.types import ChunkExtraction

SENTENCES = [f"{name} studied in {city} and wrote about {topic}."
             for name, city, topic in [
                 ("Marie Curie", "Paris", "radium"), ("Lise Meitner", "Vienna", "fission"),
                 ("Niels Bohr", "Copenhagen", "atoms"), ("Emmy Noether", "Erlangen", "rings"),
                 ("Alan Turing", "Cambridge", "machines"), ("Ada Lovelace", "London", "engines")]]
TEXT = "\n\n".join(" ".join([s] * 3) for s in SENTENCES)
QUESTION = "Where did Lise Meitner study?"


class Spy(HeuristicExtractor):
    """The offline extractor, counting the chunks it extracts."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def extract_text(self, text: str, chunk_id: str, metadata: Any = None) -> ChunkExtraction:
        self.calls += 1
        return super().extract_text(text, chunk_id, metadata)


def counting() -> Any:
    """A hashed embedder recording the texts it embeds (``benchmarks/reindex_bench.py``'s)."""
    return bench_module("reindex_bench").CountingEmbedder(dim=64)


def _engine(store: str | Path, extractor: Any, emb: Any = None) -> VizRAG:
    return VizRAG(store, embedder=emb or counting(), extractor=extractor, chunk_size=300,
                  chunk_overlap=0, index_visualization=False, show_progress=False)


def _state(rag: VizRAG) -> tuple[Any, ...]:
    """What an update of metadata must leave as it was."""
    ids = sorted(c.id for c in rag.store.chunks())
    bottom, top = rag.store.bottom(), rag.store.top()
    return (ids, rag.store.vectors("chunk", ids)[1].tobytes(), sorted(bottom.entities),
            sorted(bottom.hyperedges), sorted(top.hyperedges),
            [(t.chunk_id, t.theme) for t in rag.store.themes()],
            [c.chunk_id for c in rag.retrieve(QUESTION).chunks])


def _metadata_only(store: str | Path) -> None:
    spy, emb = Spy(), counting()
    with _engine(store, spy, emb) as rag:
        rag.insert(Document(id="d", title="Scientists", text=TEXT,
                            metadata={"source": "/a/d.txt", "v": 1}))
        rag.insert(Document(id="e", text="Niels Bohr met Lise Meitner in Copenhagen."))
        before, calls = _state(rag), spy.calls
        assert calls >= 4
        emb.texts.clear()
        new = Document(id="d", title="Scientists", text=TEXT,
                       metadata={"source": "/b/d.txt", "v": 2})
        report = rag.insert(new)
        assert (report.documents_replaced, report.metadata_updated) == (1, 1)
        assert "1 replaced (1 only their metadata)" in report.summary()
        assert spy.calls == calls and emb.texts == [] and report.chunks == 0
        assert _state(rag) == before
        assert rag.store.get_document("d").metadata == {"source": "/b/d.txt", "v": 2}
        assert {(c.metadata["v"], c.metadata["title"]) for c in rag.store.chunks()
                if c.doc_id == "d"} == {(2, "Scientists")}
        hit = next(c for c in rag.retrieve(QUESTION).chunks if c.doc_id == "d")
        assert hit.metadata["source"] == "/b/d.txt"
        assert rag.insert(new).documents_skipped == 1  # the new hash is stored
        assert rag.store.check() == []


def test_only_new_metadata_is_written_in_place(tmp_path: Path) -> None:
    _metadata_only(tmp_path / "s")


def test_postgres_writes_it_in_place_too(pg_url: str) -> None:
    _metadata_only(pg_url)


@pytest.mark.parametrize("change", [
    {"text": TEXT.replace("Max", "Hans") + "\n\nMax Born studied in Breslau."},
    {"title": "Physicists"},
    {"metadata": {"title": "Physicists"}},  # an untitled document's title in its metadata
])
def test_a_new_text_or_title_is_extracted_again(tmp_path: Path, change: dict[str, Any]
                                                 ) -> None:
    spy = Spy()
    with _engine(tmp_path / "s", spy) as rag:
        rag.insert(Document(id="d", text=TEXT))
        calls = spy.calls
        report = rag.insert(Document(**{"id": "d", "text": TEXT, **change}))
        assert (report.documents_replaced, report.metadata_updated) == (1, 0)
        assert spy.calls > calls and report.chunks > 0


class Tagged(Spy):
    """An extractor that reads the chunks' ``tags`` (and says so)."""

    metadata_keys = ("tags",)


class Unsaid(Spy):
    """An extractor that does not say which metadata it reads: it may read any."""

    metadata_keys = None


@pytest.mark.parametrize(("extractor", "key", "in_place"), [
    (Tagged, "tags", False), (Tagged, "source", True), (Unsaid, "source", False),
])
def test_metadata_an_extractor_reads_is_extracted_again(
        tmp_path: Path, extractor: type[Spy], key: str, in_place: bool) -> None:
    spy = extractor()
    with _engine(tmp_path / "s", spy) as rag:
        rag.insert(Document(id="d", text=TEXT, metadata={"tags": "a", "source": "/a"}))
        calls = spy.calls
        report = rag.insert(Document(id="d", text=TEXT, metadata={
            "tags": "a", "source": "/a", key: "changed"}))
        assert report.documents_replaced == 1
        assert report.metadata_updated == int(in_place)
        assert (spy.calls == calls) == in_place


def test_the_store_refuses_anything_but_metadata(tmp_path: Path) -> None:
    with _engine(tmp_path / "s", Spy()) as rag:
        doc = Document(id="d", title="Scientists", text=TEXT)
        rag.insert(doc)
        store = rag.store
        stored_hash = store.document_hash("d")
        chunks = chunk_document(doc, 300, 0)
        tagged = doc.model_copy(update={"metadata": {"v": 2}})
        other_text = Document(id="d", title="Scientists", text=TEXT + " More.")
        moved = [c.model_copy(update={"start": c.start + 1}) for c in chunks]
        for new, new_chunks in [(other_text, chunk_document(other_text, 300, 0)),
                                (tagged, chunks[:-1]), (tagged, moved),
                                (Document(id="x", text=TEXT), chunk_document(
                                    Document(id="x", text=TEXT), 300, 0))]:
            assert store.update_metadata(new, new_chunks) is False
        assert store.document_hash("d") == stored_hash and store.document_hash("x") is None
        assert store.update_metadata(tagged, chunks) is True
        assert store.document_hash("d") == tagged.hash


def test_wrappers_update_metadata_in_place(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """LlamaIndex ``refresh_ref_docs`` (whole documents, and nodes of a splitter with an
    ``id_func``) and a LangChain vector store's ``add_documents`` with known ids."""
    from langchain_core.documents import Document as LCDocument
    from langchain_core.embeddings import DeterministicFakeEmbedding
    from llama_index.core import Document as LIDocument
    from llama_index.core import MockEmbedding
    from llama_index.core.node_parser import SentenceSplitter

    from vizrag_langchain import VizRAGVectorStore
    from vizrag_llamaindex import VizRAGIndex

    calls: list[str] = []
    original = HeuristicExtractor.extract_text

    def counted(self: HeuristicExtractor, text: str, *args: Any, **kw: Any) -> Any:
        calls.append(text)
        return original(self, text, *args, **kw)

    monkeypatch.setattr(HeuristicExtractor, "extract_text", counted)
    splitter = SentenceSplitter(chunk_size=64, chunk_overlap=0,
                                id_func=lambda i, doc: f"{doc.id_}-{i}")
    for n, kw in enumerate([{"chunk_size": 300, "chunk_overlap": 0},
                            {"transformations": [splitter]}]):
        index = VizRAGIndex.from_documents(
            [LIDocument(text=TEXT, id_="sci", metadata={"v": 1})],
            embed_model=MockEmbedding(embed_dim=16), store_dir=tmp_path / f"li{n}",
            show_progress=False, **kw)
        stored = index.engine.store.chunks()
        assert calls and stored
        calls.clear()
        assert index.refresh_ref_docs([LIDocument(text=TEXT, id_="sci",
                                                  metadata={"v": 2})]) == [True]
        assert calls == []  # nothing extracted again
        assert [(c.id, c.metadata["v"]) for c in index.engine.store.chunks()] == [
            (c.id, 2) for c in stored]
        index.close()
    with VizRAGVectorStore(tmp_path / "vs", DeterministicFakeEmbedding(size=16)) as vs:
        vs.add_documents([LCDocument(page_content=TEXT, metadata={"v": 1})], ids=["sci"])
        calls.clear()
        vs.add_documents([LCDocument(page_content=TEXT, metadata={"v": 2})], ids=["sci"])
        assert calls == [] and vs.get_by_ids(["sci"])[0].metadata["v"] == 2
