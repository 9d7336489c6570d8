"""A chat model whose extraction answers hold no entity is warned about by the library
itself (logged by the indexer), so ``VizRAG.insert`` and the framework wrappers say it too,
not only ``vizrag index``."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from rag_fakes import ParrotChat

from hyperviz_core.rag.engine import VizRAG
from hyperviz_core.rag.types import Document

DOC = Document(id="d1", text="Marie Curie worked with Pierre Curie in Paris.")


def test_a_model_whose_answers_hold_no_entity_is_logged(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING), VizRAG(tmp_path / "s", chat=ParrotChat(),
                                                  show_progress=False) as rag:
        report = rag.insert(DOC)  # ParrotChat answers extraction prompts in prose
    assert report.documents_added == 1 and report.entities == 0
    said = [r for r in caplog.records if "held no entity" in r.getMessage()]
    assert len(said) == 1 and said[0].levelno == logging.WARNING
    assert said[0].name == "hyperviz_core.rag.index.indexer"


def test_offline_extraction_is_not_warned_about(tmp_path: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    """Without a chat model nothing is warned about, even a text with no entity."""
    with caplog.at_level(logging.WARNING), VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(Document(id="d1", text="nothing here at all, in lower case."))
    assert "held no entity" not in caplog.text
