"""benchmarks/ann_bench.py: the measuring core on a tiny set (correctness only, no timings)."""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks" / "ann_bench.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vizrag_ann_bench", BENCH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses resolve their module by name
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def vectors(bench: ModuleType) -> tuple[np.ndarray, np.ndarray]:
    texts = [t for t, _ in itertools.islice(bench.paragraphs(400_000, 3), 520)]
    mat = bench.embed(texts, False)
    return mat[:500], mat[500:]


def _installed(module: str) -> bool:
    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def test_rows_per_installed_library(bench: ModuleType,
                                    vectors: tuple[np.ndarray, np.ndarray]) -> None:
    base, queries = vectors
    assert base.shape == (500, 512) and queries.shape[0] == 20
    p = bench.Params(m=8, ef_construction=32, ef_search=(16, 32), repeat=1)
    m = bench.measure(base, queries, p, questions=10)
    libs = {r.library for r in m.rows}
    expected = {"exact"} | {cls.library for cls, _ in bench.BACKENDS if _installed(cls.module)}
    assert libs == expected
    assert len(m.skipped) == len({cls.library for cls, _ in bench.BACKENDS} - expected)
    for r in m.rows:
        assert 0.0 <= r.recall <= 1.0 and 0.0 <= r.recall_questions <= 1.0
        assert r.p50_ms <= r.p95_ms and r.disk_mib > 0
        assert (r.ef_search is None) == (r.library == "exact")
    exact = [r for r in m.rows if r.library == "exact"]
    assert len(exact) == 1 and exact[0].recall == exact[0].recall_questions == 1.0
    # 500 vectors, ef 32 >= k: every HNSW index finds most true neighbours
    assert all(r.recall > 0.5 for r in m.rows if r.ef_search == 32)
    lines = bench.table(m.rows, p).splitlines()
    assert len(lines) == 2 + len(m.rows)
    for lib in expected:
        assert any(line.startswith(f"| {lib} |") for line in lines[2:])
    assert bench.conclusion(m.rows).startswith("Conclusion: ")


def test_recall_can_fail(bench: ModuleType, vectors: tuple[np.ndarray, np.ndarray],
                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A backend returning the worst rows scores recall 0 (the metric is not vacuous)."""
    base, queries = vectors

    class Worst(bench.Backend):  # type: ignore[name-defined]
        library = "worst"

        def search(self, q: np.ndarray) -> list[int]:
            return [int(i) for i in np.argsort(base @ q[0])[: self.p.k]]

    monkeypatch.setattr(bench, "BACKENDS", ((bench.Backend, "f32"), (Worst, "f32")))
    m = bench.measure(base, queries, bench.Params(ef_search=(16,), repeat=1))
    recall = {r.library: r.recall for r in m.rows}
    assert recall == {"exact": 1.0, "worst": 0.0}
    assert "worst f32 ef=16" in bench.conclusion(m.rows)
