"""Stored vectors read back (:func:`hyperviz_core.rag.store.compact.decode`): a store of one
width is converted in one step, a store mixing float16 and float32 rows (written before and
after the compact format) row by row; both give what each row decodes to on its own. The
normalised columns a search keeps of a space are the same when made block by block from the
stored rows (``unit_columns_from``, the SQLite store's ``unit_vectors``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from hyperviz_core.demo import demo_documents
from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.store.compact import decode, encode
from hyperviz_core.rag.vectors import unit_columns, unit_columns_from


def _rows(n: int, dim: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def _one_by_one(blobs: list[bytes], dim: int) -> np.ndarray:
    return np.stack([np.frombuffer(b, dtype=np.float16 if len(b) == 2 * dim
                                   else np.float32).astype(np.float32) for b in blobs])


@pytest.mark.parametrize("kinds", ["float16", "float32", "mixed"])
def test_decode_equals_each_row_decoded_alone(kinds: str) -> None:
    dim = 12
    rows = _rows(50, dim, 1)
    widths = (["float16"] * 50 if kinds == "float16" else ["float32"] * 50
              if kinds == "float32" else ["float16", "float32", "float32"] * 16 + ["float16"] * 2)
    blobs = [encode(r, w) for r, w in zip(rows, widths, strict=True)]
    got = decode(blobs, dim)
    assert got.dtype == np.float32 and got.shape == (50, dim) and got.flags.writeable
    assert np.array_equal(got, _one_by_one(blobs, dim))
    if kinds == "float32":
        assert np.array_equal(got, rows)


def test_decode_infers_the_dimension_and_refuses_a_wrong_length() -> None:
    rows = _rows(3, 4, 2)
    blobs = [encode(r, "float32") for r in rows]
    assert np.array_equal(decode(blobs, 0), rows)
    assert decode([], 4).shape == (0, 4)
    with pytest.raises(ValueError):
        decode([*blobs, b"\x00" * 6], 4)


@pytest.mark.parametrize("block", [1, 3, 4096])
def test_unit_columns_from_blocks_equal_the_whole_matrix(block: int) -> None:
    rows = _rows(10, 6, 3)
    rows[4] = 0.0  # a zero row stays zero
    blobs = [encode(r, "float16" if i % 3 else "float32") for i, r in enumerate(rows)]
    want = unit_columns(decode(blobs, 6))
    got = unit_columns_from(10, 6, lambda lo, hi: decode(blobs[lo:hi], 6), block)
    assert got.flags.c_contiguous and np.array_equal(got, want)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_store_unit_vectors_equal_the_unit_columns_of_its_vectors(
        tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> None:
    """What a search keeps of a space, read by the store block by block."""
    where = tmp_path / "s" if backend == "sqlite" else request.getfixturevalue("pg_url")
    rag = VizRAG(where, show_progress=False)
    rag.insert(demo_documents()[:12])
    store = rag.store
    for space in ("entity", "theme", "chunk"):
        ids, cols = store.unit_vectors(space)  # type: ignore[attr-defined]
        want_ids, mat = store.vectors(space)
        assert ids == want_ids and len(ids) > 0
        assert np.array_equal(cols, unit_columns(mat))
    ids, cols = store.unit_vectors("hyperedge")  # type: ignore[attr-defined]
    assert ids == [] and cols.shape == (store.vectors("hyperedge")[1].shape[1], 0)
    rag.close()
