"""The walk's dense two-step matrix kept in the store per state (``floats:walk-two-steps``).

On a graph of few entities and many facts the walk multiplies by the dense entity × entity
matrix ``S`` (:mod:`hyperviz_core.rag.retrieve.walk`). Computing it was most of a new query
process's start on a 50 MB store; the store now keeps its upper triangle (the half BLAS
``symv`` reads) like the other query arrays, so a later process — a read-only one included —
reads it back. The walk built from the kept triangle gives the same PageRank, bit for bit.
"""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_state_arrays import _answers, _kept
from test_walk_halves import _dense_hypergraph, _random_hypergraph

from hyperviz_core.model import Hypergraph
from hyperviz_core.rag import Document, HypergraphStore, VizRAG
from hyperviz_core.rag.retrieve import walk as walk_module
from hyperviz_core.rag.retrieve.transition import symmetric, upper_triangle
from hyperviz_core.rag.retrieve.walk import TWO_STEPS, EntityWalk

KEPT_ROW = f"floats:{TWO_STEPS}"
NAMES = ["Ada Moor", "Ben Kray", "Cal Dunn", "Dee Ash", "Eli Fenn", "Fay Gold"]
PLACES = ["Oslo", "Lima", "Kyiv"]


@pytest.fixture(autouse=True)
def _always_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)


def dense_docs(n: int = 30, seed: int = 3) -> list[Document]:
    """Letters among six people in three towns: 9 entities, many facts (a dense walk)."""
    rnd = random.Random(seed)
    docs = []
    for i in range(n):
        a, b, c = rnd.sample(NAMES, 3)
        docs.append(Document(id=f"d{i:02d}", text=(
            f"{a} met {b} in {rnd.choice(PLACES)}. {b} wrote to {c} from "
            f"{rnd.choice(PLACES)}. {c} and {a} sailed to {rnd.choice(PLACES)}.")))
    return docs


def _arrays(hg: Hypergraph) -> tuple[list[str], int, tuple[Any, Any]]:
    keys = sorted(hg.entities)
    pos = {k: i for i, k in enumerate(keys)}
    rows, cols = [], []
    for j, hid in enumerate(sorted(hg.hyperedges)):
        for m in sorted(set(hg.hyperedges[hid].members)):
            rows.append(pos[m])
            cols.append(j)
    return keys, len(hg.hyperedges), (np.asarray(rows, dtype=np.int64),
                                      np.asarray(cols, dtype=np.int64))


def _walk(hg: Hypergraph, kept: Callable[..., Any] | None = None) -> EntityWalk:
    keys, n_h, inc = _arrays(hg)
    none = np.zeros(0, dtype=np.int64)
    return EntityWalk.from_arrays(keys, n_h, inc, (none, none), 0, kept=kept)


class _Kept:
    """A store's ``kept_floats`` in a dict; counts what it had to compute."""

    def __init__(self) -> None:
        self.rows: dict[str, np.ndarray] = {}
        self.computed: list[str] = []

    def __call__(self, name: str, compute: Callable[[], np.ndarray]) -> np.ndarray:
        if name not in self.rows:
            self.computed.append(name)
            self.rows[name] = compute()
        return self.rows[name]


@pytest.mark.parametrize("seed", range(6))
def test_walk_from_the_kept_triangle_equals_the_computed_walk(seed: int) -> None:
    hg = _dense_hypergraph(seed)
    plain = _walk(hg)
    assert plain._two_steps is not None
    kept = _Kept()
    first, again = _walk(hg, kept), _walk(hg, kept)
    assert kept.computed == [TWO_STEPS]  # computed once, read back by the second walk
    n = len(plain.keys)
    assert kept.rows[TWO_STEPS].shape == (n * (n + 1) // 2,)
    rnd = random.Random(seed)
    for _ in range(5):
        seeds = {k: rnd.random() for k in rnd.sample(plain.keys, 3)}
        want = plain.pagerank(seeds)
        assert np.array_equal(first.pagerank(seeds), want)
        assert np.array_equal(again.pagerank(seeds), want)
        assert np.array_equal(again.pagerank(seeds, 0.7, 7), plain.pagerank(seeds, 0.7, 7))


def test_a_kept_array_of_another_size_is_computed_again() -> None:
    hg = _dense_hypergraph(2)
    wrong = _Kept()
    wrong.rows[TWO_STEPS] = np.ones(5)  # not this graph's triangle
    seeds = {"entity 1": 1.0, "entity 4": 0.5}
    assert np.array_equal(_walk(hg, wrong).pagerank(seeds), _walk(hg).pagerank(seeds))


def test_a_sparse_walk_keeps_nothing() -> None:
    kept = _Kept()
    walk = _walk(_random_hypergraph(1), kept)
    assert walk._two_steps is None and kept.computed == []
    assert float(walk.pagerank({"entity 3": 1.0}).sum()) > 0


def test_triangle_round_trip() -> None:
    rng = np.random.default_rng(0)
    m = rng.random((7, 7))
    upper = upper_triangle(m)
    assert upper.shape == (28,)
    back = symmetric(upper, 7)
    assert back.flags.f_contiguous
    iu = np.triu_indices(7)
    assert np.array_equal(back[iu], m[iu]) and np.array_equal(back, back.T)
    assert symmetric(upper_triangle(np.zeros((0, 0))), 0).shape == (0, 0)
    with pytest.raises(ValueError, match="not the upper triangle of a 6 x 6"):
        symmetric(upper, 6)


# ------------------------------------------------------------------ a SQLite store
def _computed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the two-step triangles computed (not read back) while installed."""
    calls: list[int] = []
    real = walk_module.upper_triangle

    def counting(matrix: np.ndarray) -> np.ndarray:
        calls.append(matrix.shape[0])
        return real(matrix)

    monkeypatch.setattr(walk_module, "upper_triangle", counting)
    return calls


def test_kept_in_the_store_and_read_back_by_a_read_only_process(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s"
    VizRAG(path, show_progress=False).insert(dense_docs())
    full = _answers(HypergraphStore(path), lazy=False)
    computed = _computed(monkeypatch)
    assert _answers(HypergraphStore(path)) == full
    assert computed == [9] and KEPT_ROW in _kept(path)
    assert _answers(HypergraphStore(path, read_only=True)) == full
    assert computed == [9]  # read back: not computed again


def test_a_write_makes_the_kept_matrix_stale(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s"
    docs = dense_docs(40)
    VizRAG(path, show_progress=False).insert(docs[:30])
    _answers(HypergraphStore(path))
    before = _kept(path)[KEPT_ROW]
    VizRAG(path, show_progress=False).insert(docs[30:])
    want = _answers(HypergraphStore(path, read_only=True), lazy=False)
    computed = _computed(monkeypatch)
    assert _answers(HypergraphStore(path, read_only=True)) == want
    assert computed == [9]  # the kept one is stale: computed (and not kept: read-only)
    assert _answers(HypergraphStore(path)) == want
    assert computed == [9, 9]  # a writable process computes it once more and keeps it
    assert _kept(path)[KEPT_ROW] != before


def test_an_unreadable_kept_matrix_is_computed_again(tmp_path: Path,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "s"
    VizRAG(path, show_progress=False).insert(dense_docs())
    want = _answers(HypergraphStore(path))
    conn = sqlite3.connect(path / "vizrag.sqlite")
    with conn:
        conn.execute("UPDATE vizrag_state_arrays_v1 SET data = X'00FF' WHERE name = ?",
                     (KEPT_ROW,))
    conn.close()
    assert _answers(HypergraphStore(path, read_only=True)) == want
    assert "unreadable" in caplog.text
