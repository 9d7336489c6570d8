"""``--limit N`` keeps the first N documents, also under ``--on-duplicate replace`` (a
review, 2026-12-04: the replaced document moved to its later version's place and the
limit dropped it, so `--limit 1` stored p2 instead of p1)."""

from __future__ import annotations

import json
from pathlib import Path

from hyperviz_core.cli import main
from hyperviz_core.rag.store import open_store


def test_limit_counts_a_replaced_document_where_its_id_first_came(tmp_path: Path) -> None:
    corpus = tmp_path / "dup.json"
    corpus.write_text(json.dumps([
        {"id": "p1", "text": "Alice lives in Paris."}, {"id": "p2", "text": "Bob lives in Rome."},
        {"id": "p1", "text": "Alice lives in Lyon."}, {"id": "p2", "text": "Bob lives in Rome."},
    ]), encoding="utf-8")
    store = tmp_path / "store"
    assert main(["index", str(corpus), "--store", str(store), "--on-duplicate", "replace",
                 "--limit", "1", "--no-progress"]) == 0
    st = open_store(store)
    try:
        assert [(d.id, d.text) for d in st.documents()] == [("p1", "Alice lives in Lyon.")]
    finally:
        st.close()
