"""The batched HashingEmbedder returns exactly what its per-text definition gives.

`HashingEmbedder.embed` sums every text of a block with one ``bincount``; stores written
before that change hold vectors made one text at a time, so the two must agree bit for
bit (a changed vector would silently re-rank every stored store). `_reference` below is
the per-text algorithm as it was written before the change.
"""

from __future__ import annotations

import itertools
import math
import re
import zlib
from collections import Counter

import numpy as np
import pytest

from hyperviz_core.rag import HashingEmbedder
from hyperviz_core.rag.providers.offline import STOPWORDS, word_tokens

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)

TEXTS = [
    "Marie Curie won the Nobel Prize in Physics in 1903 and Chemistry in 1911.",
    "",
    "!!! ... ???",
    "the of and",  # only stop words: they are kept
    "Karel Purkyně died in Prague; the astronomical clock was built in 1410.",
    "İstanbul Straße’s café naïve ﬁnance ǅ",  # casefold changes length / ligatures
    "a a a a b b b c",  # term frequencies above one
    "Copenhagen's physicist " * 40,
    "VIENNA WALZER ORCHESTRA<SEP>Johann Strauss II conducted it.",
]


def _bucket(feature: str, dim: int) -> tuple[int, float]:
    h = zlib.crc32(feature.encode("utf-8"))
    return h % dim, (1.0 if (h >> 31) & 1 else -1.0)


def _reference(text: str, dim: int) -> np.ndarray:
    """One text, as HashingEmbedder computed it before batching (char n-grams 3-4)."""
    tokens = [m.group(0).casefold().replace("’", "'") for m in _WORD.finditer(text)]
    words = [t for t in tokens if t not in STOPWORDS] or tokens
    if not words:
        return np.zeros(dim, dtype=np.float32)
    idx: list[np.ndarray] = []
    val: list[np.ndarray] = []
    for word, tf in Counter(words).items():
        wi, wv = [], []
        b, s = _bucket("w:" + word, dim)
        wi.append(b)
        wv.append(s)
        padded = f"<{word}>"
        grams = [padded[i : i + n] for n in range(3, 5) for i in range(len(padded) - n + 1)]
        w = 0.35 / math.sqrt(len(grams))
        for g in grams:
            b, s = _bucket("c:" + g, dim)
            wi.append(b)
            wv.append(s * w)
        idx.append(np.asarray(wi, dtype=np.int64))
        val.append(np.asarray(wv, dtype=np.float32) * np.float32(1.0 + math.log(tf)))
    if len(words) > 1:
        bi, bv = [], []
        for (a, c), tf in Counter(itertools.pairwise(words)).items():
            k, s = _bucket(f"b:{a} {c}", dim)
            bi.append(k)
            bv.append(s * 0.5 * (1.0 + math.log(tf)))
        idx.append(np.asarray(bi, dtype=np.int64))
        val.append(np.asarray(bv, dtype=np.float32))
    vec = np.bincount(np.concatenate(idx), weights=np.concatenate(val),
                      minlength=dim).astype(np.float32)
    norm = float(np.linalg.norm(vec))
    return vec / norm if norm > 0 else vec


@pytest.mark.parametrize("dim", [512, 64])
def test_batched_embedding_equals_the_per_text_definition(dim: int) -> None:
    texts = TEXTS * 30  # more than one block of the batched path
    got = HashingEmbedder(dim=dim).embed(texts)
    want = np.stack([_reference(t, dim) for t in texts])
    assert got.dtype == np.float32 and got.shape == (len(texts), dim)
    assert got.tobytes() == want.tobytes()


def test_a_row_does_not_depend_on_the_other_texts() -> None:
    emb = HashingEmbedder()
    together = emb.embed(TEXTS)
    for n, text in enumerate(TEXTS):
        assert emb.embed([text]).tobytes() == together[n : n + 1].tobytes()
    assert emb.embed([]).shape == (0, 512)


def test_word_tokens_fast_path_matches_the_general_one() -> None:
    for text in [*TEXTS, "Don't STOP me now", "O’Brien's", "x_y z9 3.14"]:
        slow = [m.group(0).casefold().replace("’", "'") for m in _WORD.finditer(text)]
        assert word_tokens(text) == slow


def test_the_word_cache_is_bounded_by_cache_words() -> None:
    """A service's query words fill the per-embedder cache (up to ~145 MB at 200,000):
    ``cache_words`` bounds it, 0 turns it off, and the vectors never change."""
    texts = [f"word{i} other{i} Marie Curie" for i in range(50)]
    full = HashingEmbedder().embed(texts)
    for limit in (0, 7):
        small = HashingEmbedder(cache_words=limit)
        assert np.array_equal(small.embed(texts), full)
        assert len(small._word_cache) == limit
    assert HashingEmbedder().name == HashingEmbedder(cache_words=3).name  # stores still match
    with pytest.raises(ValueError, match="cache_words"):
        HashingEmbedder(cache_words=-1)
