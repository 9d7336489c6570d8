"""A core ``Document``'s metadata is made JSON-safe as a framework document's is (a set
failed the document at insert with json's "Object of type set is not JSON serializable",
naming no field)."""

from __future__ import annotations

import datetime
from pathlib import Path

from hyperviz_core.rag import Document, VizRAG


def test_a_set_and_a_date_in_metadata_are_stored_as_json(tmp_path: Path) -> None:
    doc = Document(id="m", text="Marie Curie discovered radium.",
                   metadata={"tags": {"b", "a"}, "when": datetime.date(1898, 12, 21)})
    assert doc.metadata == {"tags": ["a", "b"], "when": "1898-12-21"}
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        report = rag.insert([doc])
        assert report.documents_failed == 0, report.errors
        assert rag.store.get_document("m").metadata == {"tags": ["a", "b"],  # type: ignore
                                                        "when": "1898-12-21"}
        hits = rag.retrieve("radium", filters={"tags": {"$contains": "a"}}, render=False)
    assert [c.doc_id for c in hits.chunks] == ["m"]
