"""``--limit N`` keeps the first N documents, also under ``--on-duplicate replace`` (a
review, 2026-12-04: the replaced document moved to its later version's place and the
limit dropped it, so `--limit 1` stored p2 instead of p1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

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


def test_a_file_changed_between_the_passes_is_named_and_drops_no_other(tmp_path: Path) -> None:
    """The second pass matched documents by their place in the whole input: a text file
    that grew by a part between the passes shifted every later file, and ``b`` was left out
    of a run that reported success. Now the changed file is named when met."""
    from hyperviz_core.rag.index.loaders import LoaderError
    from hyperviz_core.rag.index.stream import DocumentStream

    para = "Alice met Bob in Paris near the Eiffel Tower with Carol. " * 30 + "\n"
    (tmp_path / "a.txt").write_text(para * 80, encoding="utf-8")  # two parts
    (tmp_path / "b.txt").write_text("Zed the zebra lives in Zanzibar.\n", encoding="utf-8")
    stream = DocumentStream([tmp_path], part_bytes=64_000)
    assert [d.id for d in stream] == ["a#part00001", "a#part00002", "b"]
    for grown in (400, 20):  # more parts; one document (no part)
        (tmp_path / "a.txt").write_text(para * grown, encoding="utf-8")
        with pytest.raises(LoaderError, match=r"a\.txt: changed while it was being indexed"):
            list(stream)
    (tmp_path / "a.txt").write_text(para.replace("Alice", "Alicia") * 80, encoding="utf-8")
    assert [d.id for d in stream] == ["a#part00001", "a#part00002", "b"]  # same parts: read
    first = DocumentStream([tmp_path], part_bytes=64_000)
    (tmp_path / "b.txt").write_text("Zed.\n", encoding="utf-8")  # the last file: its text
    assert [d.text for d in first][-1] == "Zed.\n"
