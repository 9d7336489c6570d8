"""A document id holding a NUL character is refused (the document fails alone): no command
line can hold it, so `vizrag delete` could never name such a document once stored."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.index.guards import check_document


def test_check_document_refuses_a_nul_in_the_id() -> None:
    with pytest.raises(ValueError, match=r"'n\\x00ul': its id holds a NUL character at "
                                         r"character 2"):
        check_document(Document(id="n\x00ul", text="Marie Curie."))
    check_document(Document(id="n ul", text="Marie Curie.", title="t\x00"))  # ids only


def test_the_document_fails_alone(tmp_path: Path) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        report = rag.insert([Document(id="n\x00ul", text="Marie Curie."),
                             Document(id="ok", text="Pierre Curie.")])
        assert report.documents_failed == 1 and "NUL character" in report.errors[0]
        assert [d.id for d in rag.store.documents()] == ["ok"]
