"""Stored vectors read back (:func:`hyperviz_core.rag.store.compact.decode`): a store of one
width is converted in one step, a store mixing float16 and float32 rows (written before and
after the compact format) row by row; both give what each row decodes to on its own."""

from __future__ import annotations

import numpy as np
import pytest

from hyperviz_core.rag.store.compact import decode, encode


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
