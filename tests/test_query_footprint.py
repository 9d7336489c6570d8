"""What a query process loads and keeps (issue 17, MuSiQue query targets).

* the package ``__init__``s import the renderer, layouts, metrics and conversions on first
  use, yet every name of their ``__all__`` still imports;
* a query without rendering never imports matplotlib, shapely, graphviz, networkx or PIL;
* exact vector search keeps one copy of a space (the SQLite store's own in-memory index is
  not loaded) and a replaced index is still the one asked;
* the faster helpers (cached :class:`FullLayer`, :func:`kth_largest`, the retrieval's
  :func:`entity_importance`) return what the code they replaced returned; the results
  equal the lazy path's (``tests/test_lazy_query.py`` compares every mode).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.prune import entity_importance as prune_importance
from hyperviz_core.rag import Document, ExactVectorIndex, HashingEmbedder, VizRAG
from hyperviz_core.rag.retrieve.blas import one_blas_thread
from hyperviz_core.rag.retrieve.importance import entity_importance
from hyperviz_core.rag.retrieve.search import kth_largest, search, unit_columns
from hyperviz_core.rag.retrieve.subgraph import FullLayer, expand, induced, trim_descriptions
from hyperviz_core.rag.vectors import normalize_rows

HEAVY = ("matplotlib", "shapely", "graphviz", "networkx", "PIL", "hypernetx", "pandas")


def _run(code: str) -> str:
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, check=False, timeout=120)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    data = Path(__file__).parent / "data" / "musique_sample.json"
    docs = [Document(id=f"p{p['idx']:04d}", text=p["text"], title=p["title"])
            for p in json.loads(data.read_text())]
    path = tmp_path_factory.mktemp("footprint") / "store"
    VizRAG(path, show_progress=False).insert(docs)
    return path


@pytest.mark.parametrize("package", ["hyperviz_core", "hyperviz_core.rag"])
def test_every_public_name_imports(package: str) -> None:
    out = _run(f"""
        import importlib, sys
        mod = importlib.import_module({package!r})
        names = list(mod.__all__)
        for name in names:
            exec(f"from {package} import {{name}}")
            assert getattr(mod, name) is not None, name
        missing = sorted(set(names) - set(dir(mod)))
        assert not missing, missing
        try:
            mod.no_such_name
        except AttributeError as exc:
            assert "no_such_name" in str(exc)
        else:
            raise AssertionError("unknown attribute did not raise")
        print(len(names))
        """)
    assert int(out.split()[-1]) > 10


def test_prune_stays_the_function_after_the_engine_imports_its_module() -> None:
    out = _run("""
        import hyperviz_core.rag, hyperviz_core.prune
        from hyperviz_core import prune, HyperViz
        print(callable(prune), type(prune).__name__, HyperViz.__name__)
        """)
    assert out.split() == ["True", "function", "HyperViz"]


def test_query_without_rendering_imports_no_renderer(store_dir: Path) -> None:
    out = _run(f"""
        import sys
        from hyperviz_core.rag import VizRAG
        rag = VizRAG({str(store_dir)!r}, show_progress=False)
        for lazy in (False, True):
            rag.retriever.lazy = lazy
            rag.retriever.refresh()
            res = rag.retrieve("Who performed Hello Love?", render=False)
            assert res.chunks
        print(" ".join(sorted(m for m in {HEAVY!r} if m in sys.modules)) or "-")
        rag.retrieve("Who performed Hello Love?", render=True)   # rendering still works
        print("matplotlib" in sys.modules)
        """)
    loaded, rendered = out.split()[-2:]
    assert loaded == "-"
    assert rendered == "True"


def test_exact_search_keeps_one_copy_of_a_space(store_dir: Path) -> None:
    rag = VizRAG(store_dir, show_progress=False, lazy=False)
    res = rag.retrieve("Who performed Hello Love?", render=False)
    assert res.chunks and res.entities
    corpus = rag.retriever.corpus()
    assert {"theme", "entity"} <= set(corpus.matrices)
    # the store's own in-memory ExactVectorIndex (a second copy) was never loaded
    assert not rag.store._indexes  # type: ignore[attr-defined]
    queries = HashingEmbedder().embed(["Hank Snow", "Hello Love", "Tennessee"])
    got = search(rag.store, corpus, "entity", queries, 5)
    index = rag.store.vector_index("entity")  # loads it now, for the comparison
    for row, hits in zip(queries, got, strict=True):
        want = index.search(row, 5)
        assert [i for i, _ in hits] == [i for i, _ in want]
        assert [s for _, s in hits] == pytest.approx([s for _, s in want], abs=1e-6)


class RecordingIndex:
    """A replaced (non-exact) vector index: exact answers, every search recorded."""

    def __init__(self) -> None:
        self.inner = ExactVectorIndex()
        self.calls = 0

    def add(self, ids: Any, matrix: Any) -> None:
        self.inner.add(ids, matrix)

    def remove(self, ids: Any) -> None:
        self.inner.remove(ids)

    def search(self, query_vec: Any, k: int) -> list[tuple[str, float]]:
        self.calls += 1
        return self.inner.search(query_vec, k)

    def __len__(self) -> int:
        return len(self.inner)


def test_a_replaced_index_is_still_asked(store_dir: Path, tmp_path: Path) -> None:
    import shutil

    copy = tmp_path / "store"
    shutil.copytree(store_dir, copy)
    rag = VizRAG(copy, show_progress=False, lazy=False)
    custom = RecordingIndex()
    rag.store.set_vector_index("entity", custom)
    res = rag.retrieve("Who performed Hello Love?", render=False)
    assert custom.calls > 0 and res.entities
    assert "entity" not in rag.retriever.corpus().matrices


@pytest.mark.parametrize("lazy", [False, True])
def test_an_index_set_after_queries_is_asked(store_dir: Path, tmp_path: Path,
                                             lazy: bool) -> None:
    """The search's copy of a space, made by earlier queries, gives way to an index set
    later with ``set_vector_index`` (it used to be searched on, the index never asked)."""
    import shutil

    copy = tmp_path / "store"
    shutil.copytree(store_dir, copy)
    rag = VizRAG(copy, show_progress=False, lazy=lazy)
    before = rag.retrieve("Who performed Hello Love?", render=False)
    copies = rag.retriever.query_corpus().matrices
    assert "entity" in copies
    theme = copies["theme"]
    custom = RecordingIndex()
    rag.store.set_vector_index("entity", custom)
    after = rag.retrieve("Who performed Hello Love?", render=False)
    assert custom.calls > 0
    assert "entity" not in rag.retriever.query_corpus().matrices
    assert rag.retriever.query_corpus().matrices["theme"] is theme  # other spaces kept
    assert [c.chunk_id for c in after.chunks] == [c.chunk_id for c in before.chunks]


def test_unit_columns_are_the_normalised_rows_transposed() -> None:
    rng = np.random.default_rng(2)
    mat = rng.standard_normal((1000, 48)).astype(np.float32)
    mat[[3, 517]] = 0.0  # zero rows stay zero
    kept = mat.copy()
    want = np.ascontiguousarray(normalize_rows(mat).T)
    for block in (1, 7, 256, 4096):
        got = unit_columns(mat, block)
        assert got.flags.c_contiguous and got.dtype == np.float32
        assert np.array_equal(got, want)
    assert np.array_equal(mat, kept)  # the input is not normalised in place
    assert unit_columns(np.zeros((0, 4), dtype=np.float32)).shape == (4, 0)


@pytest.mark.parametrize("layout", ["fortran", "strided"])
def test_unit_columns_do_not_depend_on_the_input_layout(layout: str) -> None:
    """Rows in Fortran order or a strided view normalise to the values of the same rows in
    C order, whatever the block size (a last block of one row included)."""
    rng = np.random.default_rng(5)
    mat = (rng.standard_normal((9, 1024)) * 10).astype(np.float32)
    other = (np.asfortranarray(mat) if layout == "fortran"
             else np.repeat(mat, 2, axis=1)[:, ::2])
    assert np.array_equal(other, mat) and not other.flags.c_contiguous
    for block in (1, 4, 8, 4096):
        assert np.array_equal(unit_columns(other, block), unit_columns(mat, block))


def _reference_kth(row: npt.NDArray[np.float32], k: int) -> float:
    """The cutoff the search computed before :func:`kth_largest`."""
    part = np.argpartition(-row, k - 1)[:k] if k < len(row) else np.arange(len(row))
    return float(row[part].min())


def test_kth_largest_is_the_argpartition_cutoff() -> None:
    rng = np.random.default_rng(11)
    rows = [rng.standard_normal(n).astype(np.float32) for n in (1, 5, 40, 321, 2000, 14356)]
    rows.append(np.round(rng.standard_normal(5000), 1).astype(np.float32))  # many ties
    rows.append(np.zeros(3000, dtype=np.float32))
    spiky = np.zeros(4000, dtype=np.float32)
    spiky[rng.choice(4000, 7, replace=False)] = 1.0  # fewer big values than k
    rows.append(spiky)
    for row in rows:
        for k in (1, 2, 3, 10, 16, 50, len(row), len(row) + 5):
            assert float(kth_largest(row, k)) == _reference_kth(row, k), (len(row), k)


def _random_layer(seed: int) -> Hypergraph:
    rng = np.random.default_rng(seed)
    names = [f"e{i:03d}" for i in range(120)]
    hg = Hypergraph(entities=[Entity(name=n) for n in names])
    for j in range(260):
        size = int(rng.integers(2, 7))
        hub = [names[0]] if j % 3 == 0 else []  # e000 is a hub
        members = hub + [str(m) for m in rng.choice(names[1:], size, replace=True)]
        hg.add_hyperedge(Hyperedge(id=f"h{j:03d}", members=members))
    return hg


def _reference_inside(hg: Hypergraph, keys: set[str]) -> list[str]:
    cand = sorted({hid for key in sorted(keys) for hid in hg.neighbors(key)})
    return [h for h in cand if all(m in keys for m in hg.hyperedges[h].members)]


def test_cached_full_layer_answers_like_the_hypergraph() -> None:
    hg = _random_layer(5)
    layer = FullLayer(hg)  # one layer reused by every call, as the loaded corpus does
    rng = np.random.default_rng(7)
    keys = sorted(hg.entities)
    for _ in range(40):
        picked = {str(k) for k in rng.choice(keys, int(rng.integers(1, 60)), replace=False)}
        assert layer.inside(picked) == _reference_inside(hg, picked)
        for key in sorted(picked)[:5]:
            assert layer.neighbors(key) == hg.neighbors(key)
            size = {h: len(hg.hyperedges[h].members) for h in hg.neighbors(key)}
            for n in (1, 3, 40):
                want = sorted(hg.neighbors(key), key=lambda h: (size[h], h))[:n]
                assert layer.smallest_edges(key, n) == want
        seeds = {k: float(rng.random()) for k in sorted(picked)[:4]}
        for hops, cap in ((1, 3), (2, 12), (2, 40)):
            got = expand(layer, seeds, hops, cap)
            want = expand(hg, seeds, hops, cap)  # a fresh FullLayer every call
            assert got == want and list(got[0]) == list(want[0])
            assert induced(layer, got[0]).to_hif() == induced(hg, got[0]).to_hif()


def test_one_blas_thread_nests_and_restores() -> None:
    a = np.ones((64, 5000), dtype=np.float32)
    q = np.ones(64, dtype=np.float32)
    want = q @ a
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        threadpool_info = None
    before = threadpool_info() if threadpool_info else None
    with one_blas_thread():
        with one_blas_thread():
            inner = q @ a
        if threadpool_info:
            assert all(i["num_threads"] == 1 for i in threadpool_info()
                       if i["user_api"] == "blas")
        again = q @ a
    assert np.array_equal(inner, want) and np.array_equal(again, want)
    if threadpool_info:
        assert threadpool_info() == before


_WORDS = ["radium", "the", "of", "Snow", "snow", "snake_case", "_erica", "vagans_", "Ünïcode",
          "straße", "a", "I", "x1", "42", "Hank", "and", "it's", "co-op", "ΑΒΓ", "日本語", "__"]


def test_importance_equals_prune_bit_for_bit() -> None:
    """Random entities (underscores, unicode, stop-word-only and token-less texts, empty
    types, repeated query words) and the sample store's top views."""
    import random

    rng = random.Random(3)
    compared = 0
    for _ in range(400):
        ents, seen = [], set()
        for i in range(rng.randint(1, 12)):
            name = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(1, 3))) + f" {i}"
            desc = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 40)))
            ent = Entity(name=name, description=desc,
                         type=rng.choice(["entity", "person", "", "the"]))
            if ent.key not in seen:
                seen.add(ent.key)
                ents.append(ent)
        keys = sorted(seen)
        edges = [Hyperedge(id=f"h{j}", members=rng.sample(keys, min(len(keys), 3)))
                 for j in range(rng.randint(0, 5))]
        hg = Hypergraph(entities=ents, hyperedges=edges)
        query = " ".join(rng.choice(_WORDS) for _ in range(rng.randint(0, 6)))
        want = prune_importance(hg, query)
        got = entity_importance(hg, query)
        assert got == want and list(got) == list(want)
        short = prune_importance(trim_descriptions(hg, 20), query)
        assert entity_importance(hg, query, description_chars=20) == short
        compared += 1
    assert compared == 400


def test_top_view_importance_on_a_store(store_dir: Path) -> None:
    import hyperviz_core.rag.retrieve.stages as stages

    seen: list[tuple[dict[str, float], dict[str, float]]] = []
    real = stages.entity_importance

    def both(hg: Hypergraph, query: str, **kw: Any) -> dict[str, float]:
        got = real(hg, query, **kw)
        seen.append((got, prune_importance(trim_descriptions(hg), query)))
        return got

    stages.entity_importance = both  # type: ignore[assignment]
    try:
        rag = VizRAG(store_dir, show_progress=False, lazy=False)
        for q in ("Who performed Hello Love?", "What is the capital of Tennessee?",
                  "Where did Hank Snow die?", "the of and"):
            rag.retrieve(q, render=False)
    finally:
        stages.entity_importance = real
    assert len(seen) == 4 and any(got for got, _ in seen)
    assert all(got == want for got, want in seen)
