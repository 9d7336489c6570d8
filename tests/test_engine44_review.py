"""Review 44 (extending the engine): the indexer keeps a store's own ``summary_threshold``
(it set every store it indexed into to 4,000)."""

from __future__ import annotations

from pathlib import Path

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.index.indexer import Indexer
from hyperviz_core.rag.store import HypergraphStore

DOC = Document(id="a", text="Marie Curie discovered radium in Paris.")


def test_the_indexer_keeps_the_stores_summary_threshold(tmp_path: Path) -> None:
    """It set every store it indexed into to 4,000 (a read-only property: AttributeError)."""
    with HypergraphStore(tmp_path / "s", summary_threshold=50) as store:
        VizRAG(store, show_progress=False).insert([DOC])
        assert store.summary_threshold == 50
        Indexer(store, summary_threshold=120, show_progress=False)
        assert store.summary_threshold == 120


def test_a_store_with_a_read_only_threshold_indexes(tmp_path: Path) -> None:
    class Fixed(HypergraphStore):
        @property  # type: ignore[override]
        def summary_threshold(self) -> int:
            return 77

        @summary_threshold.setter
        def summary_threshold(self, value: int) -> None:
            if value != 77:
                raise AttributeError("summary_threshold is fixed")

    with Fixed(tmp_path / "s", summary_threshold=77) as store:
        report = VizRAG(store, show_progress=False).insert([DOC])
        assert report.documents_added == 1 and store.summary_threshold == 77
