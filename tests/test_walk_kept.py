"""The walk's dense two-step matrix kept in the store per state (``floats:walk-two-steps``).

On a graph of few entities and many facts the walk multiplies by the dense entity × entity
matrix ``S`` (:mod:`hyperviz_core.rag.retrieve.walk`). Computing it was most of a new query
process's start on a 50 MB store; the store now keeps its upper triangle (the half BLAS
``symv`` reads) like the other query arrays, so a later process — a read-only one included —
reads it back. The walk built from the kept triangle gives the same PageRank, bit for bit.
"""

from __future__ import annotations

import math
import random
import sqlite3
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import scipy.sparse as sp
from test_state_arrays import _answers, _kept
from test_walk_halves import _dense_hypergraph, _random_hypergraph

from hyperviz_core.model import Hypergraph
from hyperviz_core.rag import Document, HypergraphStore, VizRAG
from hyperviz_core.rag.retrieve import walk as walk_module
from hyperviz_core.rag.retrieve.transition import symmetric, upper_triangle
from hyperviz_core.rag.retrieve.view import CorpusView
from hyperviz_core.rag.retrieve.walk import TWO_STEPS, EntityWalk
from hyperviz_core.rag.store.kept import pack_arrays

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

    def __call__(self, name: str, compute: Callable[[], np.ndarray],
                 valid: Callable[[np.ndarray], bool]) -> np.ndarray:
        if name not in self.rows or not valid(self.rows[name]):
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
    assert kept.rows[TWO_STEPS].shape == (5 + n * (n + 1) // 2,)  # what it is made from first
    rnd = random.Random(seed)
    for _ in range(5):
        seeds = {k: rnd.random() for k in rnd.sample(plain.keys, 3)}
        want = plain.pagerank(seeds)
        assert np.array_equal(first.pagerank(seeds), want)
        assert np.array_equal(again.pagerank(seeds), want)
        assert np.array_equal(again.pagerank(seeds, 0.7, 7), plain.pagerank(seeds, 0.7, 7))


@pytest.mark.parametrize("wrong", ["size", "inputs"])
def test_a_kept_array_of_other_inputs_is_computed_again(wrong: str) -> None:
    """A kept matrix made from other incidences — another size, or the same size from
    other pairs — is refused, computed again and replaced."""
    hg = _dense_hypergraph(2)
    kept = _Kept()
    if wrong == "size":
        kept.rows[TWO_STEPS] = np.ones(5)
    else:
        other = _dense_hypergraph(3)  # the same entities, other facts
        assert sorted(other.entities) == sorted(hg.entities)
        _walk(other, kept)
        kept.computed.clear()
    stale = kept.rows[TWO_STEPS]
    seeds = {"entity 1": 1.0, "entity 4": 0.5}
    assert np.array_equal(_walk(hg, kept).pagerank(seeds), _walk(hg).pagerank(seeds))
    assert kept.computed == [TWO_STEPS] and not np.array_equal(kept.rows[TWO_STEPS], stale)
    kept.computed.clear()
    assert np.array_equal(_walk(hg, kept).pagerank(seeds), _walk(hg).pagerank(seeds))
    assert kept.computed == []  # the replacement is read back


def _old_dense_pagerank(hg: Hypergraph, seeds: dict[str, float], damping: float = 0.5,
                        iterations: int = 12) -> np.ndarray:
    """The dense two-step walk as it was computed before the matrix was kept (degrees from
    the incidence matrix's sums, S from the sparse product, BLAS symv on the full S)."""
    from scipy.linalg.blas import dsymv

    keys, n_h, (rows, cols) = _arrays(hg)
    n_e = len(keys)
    inc = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n_e, n_h))
    deg = np.concatenate([np.asarray(inc.sum(axis=1)).ravel(),
                          np.asarray(inc.sum(axis=0)).ravel()]).astype(np.float64)
    inv = np.divide(1.0, deg, out=np.zeros_like(deg), where=deg > 0)
    two = (sp.csr_matrix(inc.multiply(inv[n_e:][None, :])) @ inc.T).toarray().T
    full = np.zeros(n_e + n_h)
    for key, value in sorted(seeds.items()):
        i = keys.index(key)
        full[i] = max(full[i], value / math.sqrt(max(deg[i], 1.0)))
    s = full[:n_e] / float(full.sum())
    restart = (1.0 - damping) * s
    p = restart.copy() if iterations % 2 else s
    for _ in range(iterations // 2):
        p = restart + dsymv(damping * damping, two, inv[:n_e] * p)
    return p


@pytest.mark.parametrize("seed", range(8))
def test_dense_walk_equals_the_construction_before_it_was_kept(seed: int) -> None:
    hg = _dense_hypergraph(seed)
    kept = _Kept()
    _walk(hg, kept)  # keeps it
    rnd = random.Random(seed)
    for iterations in (1, 2, 7, 12):
        seeds = {k: rnd.random() for k in rnd.sample(sorted(hg.entities), 3)}
        want = _old_dense_pagerank(hg, seeds, 0.5, iterations)
        assert np.array_equal(_walk(hg).pagerank(seeds, 0.5, iterations), want)
        assert np.array_equal(_walk(hg, kept).pagerank(seeds, 0.5, iterations), want)


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


def test_a_matrix_made_before_a_write_is_not_used_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A query reads the walk's incidences, another process writes, then the query
    computes the matrix from what it read and keeps it under the new state. A later process
    at that state sees that the matrix was made from other incidences than its own: it
    computes it again (a writable one replaces it), and answers as the full path does."""
    path = tmp_path / "s"
    docs = dense_docs(40)
    VizRAG(path, show_progress=False).insert(docs[:30])
    store = HypergraphStore(path)
    assert store.lexical_ready()  # the full-text index (kept up to date by later writes)
    view = CorpusView(store)
    view.layer_index("bottom")  # read at the first state
    real = store._kept_set

    def overtaken(name: str, compute: Callable[[], Any], valid: Any = None) -> Any:
        def then_a_write() -> Any:
            out = compute()
            if name == "mentions":  # another process commits while they are read
                VizRAG(path, show_progress=False).insert(docs[30:])
            return out
        return real(name, then_a_write, valid)

    monkeypatch.setattr(store, "_kept_set", overtaken)
    assert view.walk is not None and KEPT_ROW in _kept(path)
    store.close()
    full = _answers(HypergraphStore(path, read_only=True), lazy=False)
    computed = _computed(monkeypatch)
    assert _answers(HypergraphStore(path, read_only=True)) == full
    assert computed == [9]  # refused: computed again
    assert _answers(HypergraphStore(path)) == full
    assert _answers(HypergraphStore(path, read_only=True)) == full
    assert computed == [9, 9]  # replaced by the writable process, then read back


def test_the_store_is_not_locked_while_the_matrix_is_computed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s"
    VizRAG(path, show_progress=False).insert(dense_docs())
    store = HypergraphStore(path)
    waited: list[bool] = []
    real = walk_module.upper_triangle

    def meanwhile(matrix: np.ndarray) -> np.ndarray:
        other = threading.Thread(target=store.entity_catalogue)  # takes the store's lock
        other.start()
        other.join(timeout=5)
        waited.append(other.is_alive())
        return real(matrix)

    monkeypatch.setattr(walk_module, "upper_triangle", meanwhile)
    assert CorpusView(store).walk is not None
    assert waited == [False]  # another thread used the store meanwhile
    store.close()


@pytest.mark.parametrize("damage", ["unreadable", "without its matrix"])
def test_a_damaged_kept_matrix_is_computed_again(tmp_path: Path, damage: str,
                                                 caplog: pytest.LogCaptureFixture) -> None:
    path = tmp_path / "s"
    VizRAG(path, show_progress=False).insert(dense_docs())
    want = _answers(HypergraphStore(path))
    data = (b"\x00\xff" if damage == "unreadable"
            else pack_arrays({"other": np.arange(3)}, {}))
    conn = sqlite3.connect(path / "vizrag.sqlite")
    with conn:
        conn.execute("UPDATE vizrag_state_arrays_v1 SET data = ? WHERE name = ?",
                     (data, KEPT_ROW))
    conn.close()
    assert _answers(HypergraphStore(path, read_only=True)) == want
    assert ("unreadable" in caplog.text) == (damage == "unreadable")
