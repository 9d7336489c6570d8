"""best_first equals the full lexsort it replaces, ties included."""

from __future__ import annotations

import numpy as np
import pytest

from hyperviz_core.rag.retrieve.topk import best_first


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [1, 5, 40, 700, 5000])
def test_best_first_equals_lexsort(seed: int, k: int) -> None:
    rng = np.random.default_rng(seed)
    n = 4000 + 997 * seed
    scores = rng.integers(0, 7, n).astype(np.float64) / 3.0  # many ties
    scores[rng.integers(0, n, 50)] = 0.0
    tiebreak = rng.permutation(n).astype(np.int64)
    if seed % 2:
        tiebreak[: n // 2] = 0  # ties of the key too: position decides
    want = np.lexsort((tiebreak, -scores))[:k]
    assert best_first(scores, tiebreak, k).tolist() == want.tolist()


def test_best_first_edges() -> None:
    assert best_first(np.zeros(0), np.zeros(0, dtype=np.int64), 3).size == 0
    assert best_first(np.ones(3), np.arange(3), 0).size == 0
    assert best_first(np.array([1.0, 3.0]), np.array([0, 1]), 9).tolist() == [1, 0]
