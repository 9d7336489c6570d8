"""A custom extractor returning anything but a ChunkExtraction is a TypeError naming it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.extract.heuristic import HeuristicThemeExtractor
from hyperviz_core.rag.index.workers import extract_chunks
from hyperviz_core.rag.types import Chunk, ChunkExtraction, Document


class BadExtractor:
    def __init__(self, reply: object) -> None:
        self.reply = reply

    def extract(self, chunk: Chunk) -> ChunkExtraction:
        return self.reply  # type: ignore[return-value]  # the bug under test


@pytest.mark.parametrize("reply", [{"chunk_id": "x", "entities": []}, None])
def test_bad_extraction_fails_the_document_by_name(tmp_path: Path, reply: object) -> None:
    store = tmp_path / "st"
    VizRAG(store, show_progress=False).insert(
        [Document(id="kept", text="Marie Curie discovered radium in Paris.")])
    before = VizRAG(store, show_progress=False).stats()
    rag = VizRAG(store, extractor=BadExtractor(reply), show_progress=False)
    report = rag.insert([Document(id="kept", text="Pierre Curie taught in Paris."),
                         Document(id="new", text="Albert Einstein visited Brussels.")])
    assert len(report.errors) == 2, report.errors
    for err in report.errors:
        assert "TypeError" in err and "BadExtractor" in err and "ChunkExtraction" in err, err
        assert type(reply).__name__ in err
    after = rag.stats()  # nothing stored was lost, nothing half-written
    assert (after.documents, after.entities) == (before.documents, before.entities)
    assert "marie curie" in rag.store.bottom().entities


def test_bad_extraction_in_worker_helper() -> None:
    chunk = Chunk(id="c1", doc_id="d", text="Marie Curie discovered radium.", index=0)
    with pytest.raises(TypeError, match=r"BadExtractor.*dict.*ChunkExtraction"):
        extract_chunks(BadExtractor({}), HeuristicThemeExtractor(), [chunk])
