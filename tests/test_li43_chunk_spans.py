"""LlamaIndex review 43: a node of a chunk the engine cut from a whole document carries its
character span in that document (``start_char_idx``/``end_char_idx``), so that
``document.text[start:end] == node.text``; a node inserted already split keeps its own."""

from __future__ import annotations

import pytest

pytest.importorskip("llama_index.core")

from llama_index.core import Document
from llama_index.core.node_parser import SentenceSplitter
from llama_index.core.schema import TextNode

from hyperviz_core.rag import RankedChunk, RetrievalResult
from vizrag_llamaindex import VizRAGIndex
from vizrag_llamaindex.documents import to_engine_document
from vizrag_llamaindex.nodes import LAYOUT_KEY, chunk_nodes, node_layout

LONG = " ".join(["Marie Curie married Pierre Curie in Paris.",
                 "Charles Darwin sailed on HMS Beagle to the Galapagos Islands.",
                 "Ada Lovelace worked with Charles Babbage in London."] * 8)
CORE_SPANS = "start" in RankedChunk.model_fields


class SpannedChunk(RankedChunk):
    """A ranked chunk with the offsets the engine's ``Chunk`` holds (``start``/``end`` in
    the engine's text of its document)."""

    start: int
    end: int


def spans_of(document: Document, chunks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans of the nodes of ``document``'s engine chunks cut at ``chunks``."""
    engine_doc = to_engine_document(document)
    ranked = [SpannedChunk(chunk_id=f"chunk-{i}", doc_id=document.doc_id, score=1.0,
                           rank=i + 1, text=engine_doc.text[a:b], start=a, end=b,
                           metadata=dict(engine_doc.metadata))
              for i, (a, b) in enumerate(chunks)]
    nodes = chunk_nodes(RetrievalResult(query="q", mode="vizrag", chunks=ranked))
    assert len(nodes) == len(chunks)
    out = []
    for item in nodes:
        start, end = item.node.start_char_idx, item.node.end_char_idx  # type: ignore[attr-defined]
        assert start is not None and end is not None, "no span"
        assert document.text[start:end] == item.node.get_content()
        out.append((start, end))
    return out


def test_an_engine_chunk_node_has_its_span_in_the_document() -> None:
    doc = Document(text=LONG, id_="long")
    assert spans_of(doc, [(0, 43), (44, 105)]) == [(0, 43), (44, 105)]


def test_the_span_counts_the_front_matter_left_out() -> None:
    text = "---\ntitle: Atlas\n---\n" + LONG
    doc = Document(text=text, id_="atlas", metadata={"file_name": "atlas.md"})
    assert node_layout(doc, whole=True) == {"base": 21}
    assert spans_of(doc, [(0, 43)]) == [(21, 64)]


def test_no_span_when_the_engine_text_is_not_the_documents() -> None:
    """Normalised text (here a decomposed accent) has other offsets: none is given."""
    doc = Document(text="Zu\u0308rich. " + LONG, id_="zurich")
    assert node_layout(doc, whole=True) == {"base": None}
    engine_doc = to_engine_document(doc)
    ranked = [SpannedChunk(chunk_id="chunk-0", doc_id="zurich", score=1.0, rank=1,
                           text=engine_doc.text[:8], start=0, end=8,
                           metadata=dict(engine_doc.metadata))]
    node = chunk_nodes(RetrievalResult(query="q", mode="vizrag", chunks=ranked))[0].node
    assert node.start_char_idx is None and node.end_char_idx is None  # type: ignore[attr-defined]


def test_a_plain_document_stores_no_layout() -> None:
    """Base 0 is not stored: a document's stored metadata, so its hash, stays as it was."""
    assert LAYOUT_KEY not in to_engine_document(Document(text=LONG, id_="long")).metadata


def test_a_node_inserted_split_keeps_its_own_span() -> None:
    node = TextNode(id_="n1", text=LONG[44:105], start_char_idx=44, end_char_idx=105)
    engine_doc = to_engine_document(node)
    ranked = [SpannedChunk(chunk_id="n1", doc_id="n1", score=1.0, rank=1,
                           text=engine_doc.text, start=0, end=61,
                           metadata=dict(engine_doc.metadata))]
    out = chunk_nodes(RetrievalResult(query="q", mode="vizrag", chunks=ranked))[0].node
    assert (out.start_char_idx, out.end_char_idx) == (44, 105)  # type: ignore[attr-defined]


@pytest.mark.skipif(not CORE_SPANS, reason="needs RankedChunk.start/end from the core")
def test_retrieved_engine_chunks_have_their_spans() -> None:
    doc = Document(text=LONG, id_="long", metadata={"title": "Scientists"})
    index = VizRAGIndex.from_documents([doc], chunk_size=200, chunk_overlap=20)
    nodes = index.as_retriever(top_k=3, include_image=False).retrieve("Darwin Beagle")
    assert len(nodes) == 3
    for item in nodes:
        start, end = item.node.start_char_idx, item.node.end_char_idx  # type: ignore[attr-defined]
        assert start is not None and LONG[start:end] == item.node.get_content()


def test_retrieved_split_nodes_keep_their_spans() -> None:
    doc = Document(text=LONG, id_="long")
    index = VizRAGIndex.from_documents([doc], transformations=[
        SentenceSplitter(chunk_size=64, chunk_overlap=0)])
    nodes = index.as_retriever(top_k=3, include_image=False).retrieve("Darwin Beagle")
    assert nodes
    for item in nodes:
        start, end = item.node.start_char_idx, item.node.end_char_idx  # type: ignore[attr-defined]
        assert start is not None and LONG[start:end] == item.node.get_content()
