"""Offline model defaults: a hashed n-gram embedder and shared text utilities.

Everything here works with no network and no model weights, and is deterministic across
processes and machines (features are hashed with CRC-32, never Python's salted ``hash()``).

:class:`HashingEmbedder` is a *lexical* embedder: cosine similarity between two vectors
approximates TF-weighted overlap of words, word bigrams and character n-grams. It catches
shared names, spelling variants and inflections ("Copenhagen" / "Copenhagen's",
"physicist" / "physics") but knows no synonyms ("car" vs "automobile" score ~0) and no
world knowledge. It is a fine default for retrieval over named entities and keywords, and a
poor one for paraphrase-heavy queries; plug in a real embedder for those.
"""

from __future__ import annotations

import itertools
import math
import re
import zlib
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ..function_words import function_word
from ..scripts import CJK_ANY, letters_alike, marked, marked_word, paired_words

__all__ = [
    "STOPWORDS", "HashingEmbedder", "content_words", "exact_cosine", "word_pattern", "word_tokens",
]

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)

_STOP_TEXT = """a about above after again against all also am an and any are aren't as at be because
    been before being below between both but by can can't cannot could couldn't did didn't do
    does doesn't doing don't down during each either else etc ever every few for from further
    had hadn't has hasn't have haven't having he he'd he'll he's her here here's hers herself
    him himself his how how's however i i'd i'll i'm i've if in into is isn't it it's its itself
    just let's like many may me might more most much must mustn't my myself neither no nor not
    now of off on once one only or other ought our ours ourselves out over own per same shall
    shan't she she'd she'll she's should shouldn't since so some such than that that's the their
    theirs them themselves then there there's these they they'd they'll they're they've this
    those though through thus to too under until up upon us very via was wasn't we we'd we'll
    we're we've were weren't what what's when when's where where's whether which while who
    who's whom whose why why's will with within without won't would wouldn't yet you you'd
    you'll you're you've your yours yourself yourselves also among amongst around became become
    becomes whereas whose known called named later well still"""
#: English stop words (function words, auxiliaries, pronouns, question words).
STOPWORDS: frozenset[str] = frozenset(_STOP_TEXT.split())


def word_tokens(text: str, *, marks: bool = True, pairs: bool = True) -> list[str]:
    """Lower-cased word tokens (letters/digits, inner apostrophes kept). A word keeps its
    combining marks (``दिल्ली``, ``சென்னை``: :func:`~hyperviz_core.rag.scripts.marked_word`),
    and a run of a script written without spaces between words gives its overlapping pairs
    of characters (kana, Han, Hangul) or clusters (Thai, Lao, Myanmar, Khmer), the tokens
    BM25 reads (:func:`~hyperviz_core.rag.scripts.paired_words`). ``pairs=False`` reads such
    a run as :class:`HashingEmbedder` ``hashing-v2`` did (a run of Han as one word, Thai cut
    at its marks); ``marks=False`` also cuts words at their marks, as ``hashing-v1`` did.

    >>> word_tokens("Ada's dog, O’Brien"), word_tokens("दिल्ली भारत")
    (["ada's", 'dog', "o'brien"], ['दिल्ली', 'भारत'])
    >>> word_tokens("東京の首都"), word_tokens("東京の首都", pairs=False)
    (['東京', '京の', 'の首', '首都'], ['東京の首都'])
    >>> word_tokens("दिल्ली", marks=False)
    ['द', 'ल', 'ल']
    """
    if text.isascii():  # same tokens, one C call: casefold is lower() on ASCII, no '’'
        return _WORD.findall(text.lower())
    if pairs and marks and CJK_ANY.search(text):
        words = paired_words(text)
    else:
        words = word_pattern(text, marks=marks).findall(text)
    return [w.casefold().replace("’", "'") for w in words]


def word_pattern(text: str, *, marks: bool = True) -> re.Pattern[str]:
    """The pattern :func:`word_tokens` reads the words of ``text`` with, as written, when it
    has no run of a script written without spaces (or ``pairs=False``)."""
    return marked_word() if marks and marked(text) else _WORD


def content_words(text: str, *, min_len: int = 3) -> list[str]:
    """Word tokens that are not stop words (English's; since stop 65 also the function words
    of Arabic, Hebrew, Persian, Urdu and Hindi: :func:`~..function_words.function_word`),
    not pure numbers and at least ``min_len`` long; a pair of a run without spaces
    (``首都``, :func:`word_tokens`) counts whatever its length.

    >>> content_words("The capital of Japan: 東京は首都")
    ['capital', 'japan', '東京', '京は', 'は首', '首都']
    >>> content_words("تقع القاهرة على ضفاف النيل") == ["تقع", "القاهرة", "ضفاف", "النيل"]
    True
    """
    return [
        w
        for w in word_tokens(text)
        if (len(w) >= min_len or CJK_ANY.match(w)) and w not in STOPWORDS and not w.isdigit()
        and not function_word(w)
    ]


#: Texts summed per ``bincount`` call (bounds its float64 scratch to 256 KiB at dim 512).
_BLOCK = 64


class HashingEmbedder:
    """Deterministic hashed bag-of-features embedder (no weights, no network).

    Features per text: words (stop words dropped unless the text has nothing else; a run of
    kana, Han, Hangul, Thai ... gives its overlapping pairs as words: :func:`word_tokens`),
    word bigrams, and character n-grams (``char_ngrams``, default 3–4) of each word padded
    with ``<``/``>``. Each feature is hashed with CRC-32 into ``dim`` signed buckets; counts get
    sublinear TF weighting ``1 + log(tf)`` and the row is L2-normalised. A text with no
    features (empty, or only punctuation) yields an all-zero row.

    Args:
        dim: vector length (≥ 16).
        char_ngrams: inclusive (min, max) character n-gram sizes; ``(0, 0)`` disables them.
        char_weight: weight of character n-gram features relative to whole words.
        bigram_weight: weight of word-bigram features.
        marks: whether a word keeps its combining marks (:func:`word_tokens`); ``False``
            cuts words at them as ``hashing-v1`` did, and reads runs without spaces as
            ``pairs=False`` does.
        pairs: whether a run of kana, Han, Hangul, Thai, Lao, Myanmar or Khmer gives its
            overlapping pairs of characters or clusters (:func:`word_tokens`; since
            ``hashing-v3``); ``False`` reads such a run as ``hashing-v2`` did (a run of Han
            one word, Thai cut at its marks).
        alike: whether Hebrew and the Arabic script are read as BM25 reads them
            (:func:`~hyperviz_core.rag.scripts.letters_alike`: without points and harakat,
            Arabic's ``ي`` and ``ك`` as Persian's ``ی`` and ``ک``, hamza'd alef as alef,
            ``ة`` as ``ه``; the name says ``hashing-v4``); ``False`` reads them as
            ``hashing-v3`` did. A store embedded with v1, v2, v3 or v4 is queried and
            extended with the embedder it recorded (:func:`~.spec.store_embedder`).
        cantillation: whether Hebrew's cantillation marks are dropped too (the Bible's text
            as published writes one on almost every word; since ``hashing-v5``); ``False``
            keeps them in their words as ``hashing-v4`` did.
        cache_words: how many distinct words keep their hashed features (computed once,
            then read; a long-lived service's query words fill it: at the default 200,000
            it holds about 145 MB at most; 0: no cache); a tenth as many keep their
            features by name (:meth:`exact_features`: about 34 MB at most).

    Example:
        >>> e = HashingEmbedder(dim=256)
        >>> v = e.embed(["Marie Curie won the Nobel Prize", "Nobel Prize winner Marie Curie"])
        >>> v.shape, v.dtype.name, round(float(v[0] @ v[1]), 2) > 0.5
        ((2, 256), 'float32', True)
    """

    def __init__(
        self,
        dim: int = 512,
        *,
        char_ngrams: tuple[int, int] = (3, 4),
        char_weight: float = 0.35,
        bigram_weight: float = 0.5,
        marks: bool = True,
        pairs: bool = True,
        alike: bool = True,
        cantillation: bool = True,
        cache_words: int = 200_000,
    ) -> None:
        if dim < 16:
            raise ValueError(f"dim must be >= 16, got {dim}")
        lo, hi = char_ngrams
        if lo < 0 or hi < lo:
            raise ValueError(f"bad char_ngrams {char_ngrams!r}")
        self.dim = int(dim)
        self.char_ngrams = (int(lo), int(hi))
        self.char_weight = float(char_weight)
        self.bigram_weight = float(bigram_weight)
        self.marks = bool(marks)
        self.pairs = self.marks and bool(pairs)
        self.alike = self.pairs and bool(alike)
        self.cantillation = self.alike and bool(cantillation)
        self.version = (5 if self.cantillation else 4 if self.alike else 3 if self.pairs
                        else 2 if self.marks else 1)
        self.name = f"hashing-v{self.version}-d{self.dim}-c{lo}{hi}"
        if isinstance(cache_words, bool) or not isinstance(cache_words, int) or cache_words < 0:
            raise ValueError(f"cache_words must be a whole number >= 0, got {cache_words!r}")
        self.cache_words = cache_words
        self._word_cache: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]] = {}
        #: a word's features by name and their squared norm (:meth:`exact_features`), for
        #: ``cache_words // 10`` words at most
        self._exact_cache: dict[str, tuple[dict[str, float], float]] = {}

    # ------------------------------------------------------------------ features
    def _word_features(
        self, word: str
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        cached = self._word_cache.get(word)
        if cached is not None:
            return cached
        features, weight = self._word_strings(word)
        crc = zlib.crc32
        h = np.fromiter((crc(f.encode()) for f in features), dtype=np.int64,
                        count=len(features))
        scale = np.full(len(features), weight)
        scale[0] = 1.0  # the word itself; its n-grams share ``weight``
        sign = np.where((h >> 31) & 1, 1.0, -1.0)  # bucket h % dim, sign: the top CRC bit
        out = (h % self.dim, (sign * scale).astype(np.float32))
        if len(self._word_cache) < self.cache_words:
            self._word_cache[word] = out
        return out

    def _word_strings(self, word: str) -> tuple[list[str], float]:
        """The features of one word before hashing — ``w:`` the word (weight 1), then its
        ``c:`` character n-grams — and the weight of each n-gram."""
        features = ["w:" + word]
        weight = 1.0
        lo, hi = self.char_ngrams
        if lo > 0 and self.char_weight > 0:
            padded = f"<{word}>"
            grams = [
                padded[i : i + n] for n in range(lo, hi + 1) for i in range(len(padded) - n + 1)
            ]
            if grams:
                # normalise so a word's n-grams together weigh ``char_weight``
                weight = self.char_weight / math.sqrt(len(grams))
                features += ["c:" + g for g in grams]
        return features, weight

    def _word_exact(self, word: str) -> tuple[dict[str, float], float]:
        """A word's features by name (a repeated n-gram summed) and their squared norm."""
        found = self._exact_cache.get(word)
        if found is None:
            features, weight = self._word_strings(word)
            named = {features[0]: 1.0}
            for f in features[1:]:
                named[f] = named.get(f, 0.0) + weight
            found = named, sum(v * v for v in named.values())
            if len(self._exact_cache) < self.cache_words // 10:  # 1.7 KB a word
                self._exact_cache[word] = found
        return found

    def _words(self, text: str) -> list[str]:
        """The words of ``text`` this version reads (stop words dropped unless it has
        nothing else)."""
        tokens = word_tokens(letters_alike(text, self.cantillation) if self.alike else text,
                             marks=self.marks, pairs=self.pairs)
        return [t for t in tokens if t not in STOPWORDS] or tokens

    def _exact_words(self, text: str) -> tuple[Counter[str], Counter[tuple[str, str]]]:
        words = self._words(text)
        pairs = Counter(itertools.pairwise(words)) if self.bigram_weight > 0 else Counter()
        return Counter(words), pairs

    def exact_features(self, text: str) -> dict[str, float]:
        """The features :meth:`embed` hashes, by name, as a unit vector: no two of them
        share a bucket, so the cosine of two (:func:`exact_cosine`) is the overlap that
        :meth:`embed`'s cosine approximates, without its hash collisions (at ``dim`` 512 a
        word shares its bucket and sign with about one word in a thousand).

        >>> e = HashingEmbedder()
        >>> v = e.embed(["Iron Maiden", "Ada"])
        >>> round(float(v[0] @ v[1]), 2)  # "w:iron" and "w:ada" share bucket 381
        0.61
        >>> exact_cosine(e.exact_features("Iron Maiden"), e.exact_features("Ada"))
        0.0
        """
        words, pairs = self._exact_words(text)
        out: dict[str, float] = {}
        for word, tf in words.items():
            boost = 1.0 + math.log(tf)
            for f, w in self._word_exact(word)[0].items():
                out[f] = out.get(f, 0.0) + w * boost
        for (a, b), tf in pairs.items():
            out[f"b:{a} {b}"] = self.bigram_weight * (1.0 + math.log(tf))
        norm = math.sqrt(sum(v * v for v in out.values()))
        return {f: v / norm for f, v in out.items()} if norm > 0 else out

    def cosine_to(self, query: dict[str, float], text: str) -> float:
        """The cosine of ``text`` with ``query`` (an :meth:`exact_features` vector), without
        hash collisions, faster than :func:`exact_cosine` of the two: ``text``'s norm leaves
        out n-grams shared by two of its words (under 1% of it in ordinary text).

        >>> e = HashingEmbedder()
        >>> q = e.exact_features("Marie Curie")
        >>> text = "Marie Curie: physicist, the first woman to win a Nobel Prize"
        >>> round(e.cosine_to(q, text), 3), round(exact_cosine(q, e.exact_features(text)), 3)
        (0.49, 0.488)
        """
        words, pairs = self._exact_words(text)
        dot = square = 0.0
        keys, known = query.keys(), self._exact_cache.get
        for word, tf in words.items():
            named, norm2 = known(word) or self._word_exact(word)
            boost = 1.0 if tf == 1 else 1.0 + math.log(tf)
            square += boost * boost * norm2
            if not keys.isdisjoint(named):
                dot += boost * sum(v * query.get(f, 0.0) for f, v in named.items())
        for (a, b), tf in pairs.items():
            weight = self.bigram_weight * (1.0 + math.log(tf))
            square += weight * weight
            dot += weight * query.get(f"b:{a} {b}", 0.0)
        return dot / math.sqrt(square) if square > 0 else 0.0

    def _features(
        self, text: str, bigram_hashes: list[int], bigram_weights: list[float]
    ) -> tuple[list[npt.NDArray[np.int64]], list[npt.NDArray[np.float32]]]:
        """The hashed word features of one text (buckets, signed weights) in summation
        order; its word bigrams' CRC-32s and weights are appended to the two lists."""
        words = self._words(text)
        idx_parts: list[npt.NDArray[np.int64]] = []
        val_parts: list[npt.NDArray[np.float32]] = []
        cache = self._word_cache
        for word, tf in Counter(words).items():
            i, v = cache.get(word) or self._word_features(word)
            idx_parts.append(i)
            # tf == 1 weighs 1 + log(1) = 1.0: the multiplication would return v unchanged
            val_parts.append(v if tf == 1 else v * np.float32(1.0 + math.log(tf)))
        bw = self.bigram_weight
        if bw > 0 and len(words) > 1:
            crc = zlib.crc32
            for (a, b2), tf in Counter(itertools.pairwise(words)).items():
                bigram_hashes.append(crc(f"b:{a} {b2}".encode()))
                bigram_weights.append(bw if tf == 1 else bw * (1.0 + math.log(tf)))
        return idx_parts, val_parts

    # ------------------------------------------------------------------ protocol
    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Embed ``texts`` into an ``(n, dim)`` float32 matrix of unit (or zero) rows."""
        if isinstance(texts, str):
            raise TypeError("embed() takes a sequence of strings, not a single string")
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for lo in range(0, len(texts), _BLOCK):
            self._embed_block(texts[lo : lo + _BLOCK], out[lo : lo + _BLOCK])
        return out

    def _embed_block(self, texts: Sequence[str], out: npt.NDArray[np.float32]) -> None:
        """Embed a block of texts into ``out`` with one ``bincount`` over row-offset
        buckets. A row's buckets are its own, and its features enter in the order a text
        embedded alone adds them (words, then bigrams), so every row is exactly what it
        would be alone."""
        n, dim = len(texts), self.dim
        idx_all: list[npt.NDArray[np.int64]] = []
        val_all: list[npt.NDArray[np.float32]] = []
        offsets: list[int] = []
        lengths: list[int] = []
        hashes: list[int] = []
        weights: list[float] = []
        per_row: list[int] = []
        for row, text in enumerate(texts):
            before = len(hashes)
            idx_parts, val_parts = self._features(str(text), hashes, weights)
            per_row.append(len(hashes) - before)
            for i in idx_parts:
                offsets.append(row * dim)
                lengths.append(len(i))
            idx_all += idx_parts
            val_all += val_parts
        if not idx_all:
            return
        idx = np.concatenate(idx_all)
        idx += np.repeat(np.asarray(offsets, dtype=np.int64), lengths)
        val = np.concatenate(val_all)
        if hashes:  # the bigrams of every row, after all word features (rows are disjoint)
            h = np.asarray(hashes, dtype=np.int64)
            rows = np.repeat(np.arange(n, dtype=np.int64) * dim, per_row)
            sign = np.where((h >> 31) & 1, 1.0, -1.0)
            idx = np.concatenate([idx, h % dim + rows])
            val = np.concatenate([val, (sign * np.asarray(weights)).astype(np.float32)])
        summed = np.bincount(idx, weights=val, minlength=n * dim)
        out[:] = summed.reshape(n, dim)
        # each row's norm exactly as np.linalg.norm computes it for that row alone
        norms = np.ones(n, dtype=np.float32)
        for row in range(n):
            norm = np.linalg.norm(out[row])
            if norm > 0:
                norms[row] = norm
        out /= norms[:, None]

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """Async twin of :meth:`embed` (CPU-bound and fast; runs inline)."""
        return self.embed(texts)

    def __repr__(self) -> str:
        flags = {5: "", 4: ", cantillation=False", 3: ", alike=False", 2: ", pairs=False",
                 1: ", marks=False"}[self.version]
        return f"HashingEmbedder(dim={self.dim}, char_ngrams={self.char_ngrams}{flags})"


def exact_cosine(a: dict[str, float], b: dict[str, float]) -> float:
    """The cosine of two :meth:`HashingEmbedder.exact_features` vectors.

    >>> e = HashingEmbedder()
    >>> round(exact_cosine(e.exact_features("Marie Curie"), e.exact_features("Curie")), 2)
    0.68
    """
    if len(b) < len(a):
        a, b = b, a
    return sum((v * b[f] for f, v in a.items() if f in b), 0.0)
