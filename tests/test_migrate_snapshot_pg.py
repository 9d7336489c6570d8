"""``copy_store`` from a PostgreSQL source that another writer changes while the copy runs
copies the source as it was when the copy began (every read of the source in one read
transaction held open for the copy, ``PostgresStore.read_snapshot``). The server is started by the test suite
(``tests/pg_server.py``)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from test_migrate_snapshot import DOCS

import hyperviz_core.rag.store.transfer as transfer
from hyperviz_core.rag import Document, Indexer
from hyperviz_core.rag.store import open_store
from hyperviz_core.rag.store.transfer import copy_store


def test_copy_of_a_postgres_source_is_one_state(pg_url: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    with open_store(pg_url) as s:
        Indexer(s, show_progress=False).index(DOCS)
        before = {d.id: d.hash for d in s.documents()}
        stats_before = s.stats()
    monkeypatch.setattr(transfer, "BATCH_DOCUMENTS", 1)
    with open_store(pg_url) as src, open_store(tmp_path / "dst") as dst:
        real = dst.add_documents
        batches = 0

        def add_then_write(items: Any, **kw: Any) -> Any:
            nonlocal batches
            out = real(items, **kw)
            batches += 1
            if batches == 1:  # another writer changes the source mid-copy
                with open_store(pg_url) as other:
                    other.delete_document("c")
                    Indexer(other, show_progress=False).index([
                        Document(id="b", title="Grace", text="Grace Hopper wrote the first "
                                 "compiler, A-0."),
                        Document(id="d", title="Edsger", text="Edsger Dijkstra lived in "
                                 "Austin.")])
            return out

        monkeypatch.setattr(dst, "add_documents", add_then_write)
        report = copy_store(src, dst, show_progress=False)
        assert report.verified, report.mismatches
        assert report.documents_copied == 3
        assert {d.id: d.hash for d in dst.documents()} == before
        assert report.source.model_dump(exclude={"path"}) == stats_before.model_dump(
            exclude={"path"})
        assert dst.check() == []
    with open_store(pg_url) as s:  # the writer's changes did land
        assert sorted(d.id for d in s.documents()) == ["a", "b", "d"]
