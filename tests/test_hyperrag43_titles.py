"""Imported Hyper-RAG documents are titled as they state it, and their passages carry the
document's metadata, as indexed ones do.

A reviewer found ``--filter '{"source": "hyper-rag"}'`` matched nothing (the chunks held
Hyper-RAG's ``tokens`` only) and every imported passage shown by its ``doc-<md5>`` id,
though each document opens with its title line ("Aschenbrödel\\n...").
"""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_fakes import HYPERRAG_DIR

from hyperviz_core.interop import hyperrag_map, import_hyperrag
from hyperviz_core.interop.hyperrag_map import HYPERRAG_SOURCE, document_title
from hyperviz_core.rag import HypergraphStore, VizRAG


@pytest.fixture(scope="module")
def imported(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("store")
    import_hyperrag(HYPERRAG_DIR, store, show_progress=False)
    return store


def test_documents_are_titled_and_chunks_carry_their_metadata(imported: Path) -> None:
    with HypergraphStore(imported) as store:
        docs = store.documents()
        titles = {d.title for d in docs}
        assert {"Vienna Walzer Orchestra", "Aschenbrödel", "Arnold Schwarzenegger"} <= titles
        assert all(d.text.startswith(d.title) for d in docs if d.title)
        by_doc = {d.id: d for d in docs}
        for chunk in store.chunks():
            doc = by_doc[chunk.doc_id]
            assert chunk.metadata["source"] == HYPERRAG_SOURCE
            assert chunk.metadata.get("title", "") == doc.title
            assert isinstance(chunk.metadata["tokens"], int)


def test_a_source_filter_finds_imported_passages(imported: Path) -> None:
    with VizRAG(imported, show_progress=False) as rag:
        res = rag.retrieve("Vienna", top_k=3, render=False,
                           filters={"key": "source", "value": HYPERRAG_SOURCE})
        assert len(res.chunks) == 3
        titled = rag.retrieve("Who wrote the ballet Aschenbrödel?", top_k=1, render=False)
        assert titled.chunks[0].title == "Aschenbrödel"


def test_an_older_import_gets_the_metadata_on_reimport(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A store imported before (chunks with ``tokens`` only) is rewritten by the next import,
    also for a document whose own record did not change."""
    now = hyperrag_map._chunks

    def older(doc: hyperrag_map.Document, rows: list[hyperrag_map.ChunkRow]
              ) -> list[hyperrag_map.Chunk]:
        return [c.model_copy(update={"metadata": {"tokens": c.metadata["tokens"]}})
                for c in now(doc, rows)]

    with monkeypatch.context() as m:
        m.setattr(hyperrag_map, "_chunks", older)
        import_hyperrag(HYPERRAG_DIR, tmp_path / "s", show_progress=False)
    with HypergraphStore(tmp_path / "s") as store:
        assert all("source" not in c.metadata for c in store.chunks())
    rep = import_hyperrag(HYPERRAG_DIR, tmp_path / "s", show_progress=False)
    assert rep.documents_replaced == 28 and rep.documents_skipped == 0
    with HypergraphStore(tmp_path / "s") as store:
        assert all(c.metadata["source"] == HYPERRAG_SOURCE for c in store.chunks())
    again = import_hyperrag(HYPERRAG_DIR, tmp_path / "s", show_progress=False)
    assert again.documents_skipped == 28  # and then nothing to do


@pytest.mark.parametrize(("text", "title"), [
    ("Vienna Walzer Orchestra\nThe orchestra plays.", "Vienna Walzer Orchestra"),
    ("# Leopold Museum\n\nThe museum ...", "Leopold Museum"),
    ("  Oklahoma!\nA musical.", "Oklahoma!"),
    ("It rained all day.\nThen it snowed.", ""),
    ("Dear Sir,\nI write ...", ""),
    ("Only one line", ""),
    ("1883\nA year.", ""),
    (" ".join(["word"] * 13) + "\nmore", ""),
])
def test_document_title(text: str, title: str) -> None:
    assert document_title(text) == title


def test_a_reimport_that_writes_nothing_says_it_embedded_nothing(tmp_path: Path) -> None:
    first = import_hyperrag(HYPERRAG_DIR, tmp_path / "s", show_progress=False)
    assert first.embeddings == "embedded" and first.themes == 29
    again = import_hyperrag(HYPERRAG_DIR, tmp_path / "s", show_progress=False)
    assert again.embeddings == "none" and again.themes == 0
    assert again.store_stats is not None and again.store_stats.theme_hyperedges == 29
