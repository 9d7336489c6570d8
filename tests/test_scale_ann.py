"""Issue 17 ANN index: exact below its threshold (no dependency), HNSW (usearch) above it
with recall measured against exact search on a small random set; persistence; use in a
store."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from rag_fakes import demo_documents

from hyperviz_core.rag import AnnVectorIndex, ExactVectorIndex, VizRAG
from hyperviz_core.rag.ann import usearch_available


def _data(n: int = 3000, dim: int = 48, seed: int = 5) -> tuple[list[str], np.ndarray]:
    rng = np.random.default_rng(seed)
    centers = rng.normal(size=(30, dim))
    mat = centers[rng.integers(0, 30, n)] + 0.6 * rng.normal(size=(n, dim))
    return [f"v{i:05d}" for i in range(n)], mat.astype(np.float32)


def test_small_indexes_are_exact_and_persist(tmp_path: Path) -> None:
    ids, mat = _data(300)
    ann, exact = AnnVectorIndex(exact_below=1000), ExactVectorIndex()
    ann.add(ids, mat)
    exact.add(ids, mat)
    ann.remove(ids[:10])
    exact.remove(ids[:10])
    assert not ann.approximate and len(ann) == 290
    for q in mat[:20]:
        assert ann.search(q, 7) == exact.search(q, 7)
    ann.save(tmp_path / "entity.usearch")
    back = AnnVectorIndex.load(tmp_path / "entity.usearch")
    assert len(back) == 290 and back.search(mat[50], 5) == ann.search(mat[50], 5)


@pytest.mark.skipif(not usearch_available(), reason="optional package usearch not installed")
def test_hnsw_recall_against_exact_and_updates(tmp_path: Path) -> None:
    ids, mat = _data()
    ann, exact = AnnVectorIndex(exact_below=500), ExactVectorIndex()
    ann.add(ids, mat)
    exact.add(ids, mat)
    assert ann.approximate and len(ann) == len(ids)
    rng = np.random.default_rng(1)
    queries = mat[rng.choice(len(ids), 100, replace=False)] + 0.1
    hits = sum(len({i for i, _ in ann.search(q, 10)} & {i for i, _ in exact.search(q, 10)})
               for q in queries)
    assert hits / (10 * len(queries)) >= 0.95
    first = exact.search(queries[0], 1)[0][0]
    ann.remove([first])
    assert first not in {i for i, _ in ann.search(queries[0], 10)}
    ann.add([first], mat[ids.index(first)][None, :])
    assert ann.search(mat[ids.index(first)], 1)[0][0] == first
    ann.save(tmp_path / "e.usearch")
    back = AnnVectorIndex.load(tmp_path / "e.usearch")
    assert back.approximate and back.search(queries[3], 5) == ann.search(queries[3], 5)


def test_a_store_can_search_through_it(tmp_path: Path) -> None:
    with VizRAG(tmp_path, show_progress=False) as rag:
        rag.insert(demo_documents(0, 6))
        before = rag.retrieve("Where did the band form?")
        rag.store.set_vector_index("entity", AnnVectorIndex(exact_below=10**6))
        rag.store.set_vector_index("theme", AnnVectorIndex(exact_below=10**6))
        rag.retriever.refresh()
        after = rag.retrieve("Where did the band form?")
    assert [c.chunk_id for c in after.chunks] == [c.chunk_id for c in before.chunks]
