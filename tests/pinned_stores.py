"""A store a query is changed under: the documents, a hook that commits through a second
store object whenever a ``rank`` stage starts, and the ``changing_store`` fixture (SQLite and
PostgreSQL, read lazily). Used by the pinned-retry tests (stops 44 and 49)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve import retriever as retriever_module
from hyperviz_core.rag.store import open_store

DOCS = [Document(id=f"d{i}", text=f"Marie Curie met person {i} in Paris in {1890 + i}.")
        for i in range(12)]


def committing_writer(spec: str) -> tuple[tuple[Any, Any], list[int]]:
    """``((hook, other store), ranks)``: the hook commits a new document through a second
    store object (another connection, as another process would) whenever a ``rank`` stage
    starts; ``ranks`` counts those starts."""
    other = open_store(spec)
    if "://" not in spec:  # a write the reader's lock blocks fails at once, not in 60 s
        other._conn.execute("PRAGMA busy_timeout = 200")
    ranks: list[int] = []

    def hook(name: str, phase: str, payload: dict[str, Any]) -> None:
        if name == "rank" and phase == "start":
            ranks.append(1)
            n = len(ranks)
            VizRAG(other, show_progress=False).insert(
                [Document(id=f"new{n}", text=f"Pierre Curie wrote note {n} in Lyon.")])

    return (hook, other), ranks


@pytest.fixture(params=["sqlite", "postgres"])
def changing_store(request: pytest.FixtureRequest, tmp_path: Path,
                   monkeypatch: pytest.MonkeyPatch) -> str:
    """A store (path or URL) holding :data:`DOCS`, read lazily whatever its size."""
    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)
    where = (str(request.getfixturevalue("pg_url")) if request.param == "postgres"
             else str(tmp_path / "s"))
    with VizRAG(where, show_progress=False) as rag:
        rag.insert(DOCS)
    return where
