"""BM25 of candidate passages with the corpus statistics — equal to ``bm25s`` over all.

:class:`~.chunk_index.ChunkIndex` indexes every chunk with ``bm25s`` (Lucene variant,
``k1 = 1.5``, ``b = 0.75``, English stop words, the tokens of :func:`tokens`) and scores
all of them. A chunk without a query token scores 0, so scoring only the
chunks that hold one gives the same numbers, provided the statistics are the corpus's:
``N`` (chunks), the average passage length (tokens over all chunks) and each query token's
document frequency (counted over the candidates, which are *all* chunks holding it).
The arithmetic follows ``bm25s`` step by step (float32 idf and scores, summed per query
token in query order), so the scores are bit-identical.

Example:
    >>> texts = ["Hank Snow was a singer", "Snow fell", "Nothing here"]
    >>> toks = passage_tokens(texts)
    >>> avg = sum(map(len, toks)) / 3
    >>> [round(float(s), 4) for s in bm25_scores(query_tokens("Hank Snow?"), toks, 3, avg)]
    [0.5142, 0.2009, 0.0]
"""

from __future__ import annotations

import functools
import math
import re
import unicodedata
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from ..scripts import CJK as _CJK
from ..scripts import CJK_ANY as _CJK_ANY
from ..scripts import SEA as _SEA
from ..scripts import SEG as _SEG
from ..scripts import (
    cjk_grams,
    clusters,
    letters_alike,
    letters_swapped,
    lone_piece,
    mark_class,
    marked,
    pointed,
    sea_grams,
)
from .lexicon import lexical_text, undot

__all__ = [
    "MAX_PIECE_TERMS", "STOPWORDS", "bm25_from_counts", "bm25_scores", "bm25_values", "cjk_grams",
    "cjk_token", "holds_piece", "lone_pieces", "marked", "passage_tokens", "piece_terms",
    "plain_missed", "query_tokens", "sea_grams", "segmented", "tokens", "with_pieces",
]

K1 = 1.5
B = 0.75


def _stopwords() -> frozenset[str]:
    from ...bm25_import import bm25s

    STOPWORDS_EN = bm25s().stopwords.STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


#: the stop words ``bm25s.tokenize(..., stopwords="en")`` removes
STOPWORDS: frozenset[str] = _stopwords()


#: ``bm25s.tokenize``'s default token pattern (applied to the lower-cased text)
_TOKEN = re.compile(r"(?u)\b\w\w+\b")

#: full-width ASCII and half-width katakana, read as their usual forms (NFKC): ２０２１ is 2021
_WIDTH = re.compile("[\uff01-\uff5e\uff65-\uff9f]+")
#: a letter or digit against a character of those scripts: one word to a plain full-text
#: index (``python入門``, ``2021年``), two BM25 tokens (``python``, ``入門``)
_JOINED = re.compile(f"[^\\W{_SEG}][{_SEG}]|[{_SEG}][^\\W{_SEG}]")


class _MarkPatterns(NamedTuple):
    """The patterns of :func:`tokens` that read combining marks (:func:`_mark_patterns`)."""

    #: a word with the combining marks within and after it (``दिल्ली``, ``சென்னை``): what
    #: ``\w\w+`` reads of text without marks, and SQLite's ``unicode61`` with marks as token
    #: characters (:mod:`~hyperviz_core.rag.store.sqlite.fts`)
    word: re.Pattern[str]
    #: a run of word characters of the CJK scripts, a run of a South-East Asian script (its
    #: marks included: they are no word characters to ``re``), or a run of other word
    #: characters and combining marks
    piece: re.Pattern[str]


@functools.cache
def _mark_patterns() -> _MarkPatterns:
    """The patterns that read combining marks (:func:`~hyperviz_core.rag.scripts.mark_class`),
    made on first use."""
    marks = mark_class()
    return _MarkPatterns(
        re.compile(f"[\\w{marks}]{{2,}}"),
        re.compile(f"((?:(?=\\w)[{_CJK}])+)|([{_SEA}]+)|((?:[^\\W{_SEG}]|[{marks}])+)"))


#: a decimal digit of another script (Arabic-Indic ٢, Devanagari २, Thai ๒ ...): read as ASCII
_NATIVE_DIGIT = re.compile(r"(?![0-9])\d")


def _folded_apart(text: str) -> bool:
    """Whether ``text`` has characters :func:`tokens` folds otherwise than ``str.lower``
    and the index's letter swaps (:func:`~hyperviz_core.rag.scripts.letters_swapped`): a
    dotted ``İ`` (or the combining dot its lower case leaves), full-width ASCII, half-width
    katakana, a digit of another script, Hebrew's points or Arabic's harakat."""
    return ("\u0130" in text or "\u0307" in text or _WIDTH.search(text) is not None
            or _NATIVE_DIGIT.search(text) is not None or pointed(text))


def _usual_width(text: str) -> str:
    return _WIDTH.sub(lambda m: unicodedata.normalize("NFKC", m.group(0)), text)


def _ascii_digits(text: str) -> str:
    return _NATIVE_DIGIT.sub(lambda m: str(unicodedata.decimal(m.group(0))), text)


def tokens(text: str) -> list[str]:
    """BM25 tokens of ``text`` in order, repeats kept: ``bm25s.tokenize(lexical_text(text),
    stopwords="en")`` without the vocabulary (underscores separate words), with four
    changes for text no space separates, ``\\w`` cuts or ``str.lower`` misreads. A word keeps
    its combining marks (``दिल्ली``, ``சென்னை``: :func:`marked`; ``\\w`` alone cut it into
    pieces of one letter, which BM25 drops). Runs of kana, Han and
    Hangul characters give their overlapping character bigrams (:func:`cjk_grams`), runs of
    Thai, Lao, Myanmar and Khmer the bigrams of their clusters (:func:`sea_grams`; these
    characters also end the word before them and start a new one after them); full-width
    ASCII and half-width katakana read as their usual forms, the digits of other scripts as
    ASCII ones (``๒๕๖๕`` and ``٢٠٢١`` are ``2565`` and ``2021``); Hebrew and the Arabic
    script without their points and harakat, with Arabic's ``ي`` and ``ك`` as Persian's
    ``ی`` and ``ک``, hamza'd alef as alef and ``ة`` as ``ه``
    (:func:`~hyperviz_core.rag.scripts.letters_alike`: Persian typed with either keyboard
    finds the other, ``احمد`` finds ``أحمد``); and the dotted capital ``İ`` (which
    lower-cases to ``i`` + combining dot) reads as ``i``. Text without these characters
    gives exactly ``bm25s``'s tokens.

    >>> tokens("the _erica vagans_ and snake_case")
    ['erica', 'vagans', 'snake', 'case']
    >>> tokens("北京是中国的首都 (Beijing)")
    ['北京', '京是', '是中', '中国', '国的', '的首', '首都', 'beijing']
    >>> tokens("İSTANBUL İstanbul Istanbul"), tokens("東京タワー")
    (['istanbul', 'istanbul', 'istanbul'], ['東京', '京タ', 'タワ', 'ワー'])
    >>> tokens("２０２１年 ＡＢＣ社 ｶﾀｶﾅ"), tokens("서울에서")
    (['2021', '年', 'abc', '社', 'カタ', 'タカ', 'カナ'], ['서울', '울에', '에서'])
    >>> tokens("ｓｎａｋｅ＿ｃａｓｅ"), tokens("ปี๒๕๖๕ सन् २०२१")
    (['snake', 'case'], ['ปี', '2565', 'सन्', '2021'])
    >>> tokens("آقاي دكتر") == tokens("آقای دکتر") == ["اقای", "دکتر"]  # آ read as ا too
    True
    """
    if not text.isascii():
        if _WIDTH.search(text):  # before underscores split: ＿ is one
            text = _usual_width(text)
        if _NATIVE_DIGIT.search(text):
            text = _ascii_digits(text)
        text = letters_alike(text)
    low = undot(lexical_text(text).lower())
    if low.isascii() or not _CJK_ANY.search(low):
        return [t for t in _plain_words(low) if t not in STOPWORDS]
    out: list[str] = []
    for run, sea, word in _mark_patterns().piece.findall(low):
        if run:
            out.extend(cjk_grams(run))
        elif sea:
            out.extend(sea_grams(sea))
        elif len(word) > 1 and word not in STOPWORDS:
            out.append(word)
    return out


def _plain_words(low: str) -> list[str]:
    """The words of lower-cased ``low`` (no kana, Han, Thai ...): ``bm25s``'s ``\\w\\w+``,
    with the combining marks of a word kept in it (``दिल्ली``: ``\\w`` alone cut it into
    one-letter pieces, and BM25 had no token of it)."""
    return _mark_patterns().word.findall(low) if marked(low) else _TOKEN.findall(low)


def segmented(text: str) -> bool:
    """Whether :func:`tokens` reads ``text`` otherwise than as its maximal runs of word
    characters, lower-cased (what a plain full-text index such as SQLite's ``unicode61``
    holds): it has kana, Han, Hangul, Thai, Lao, Myanmar or Khmer characters, full-width ASCII
    or half-width katakana, or a dotted capital ``İ``.

    >>> segmented("Hank Snow"), segmented("Zürich"), segmented("東京"), segmented("İzmir")
    (False, False, True, True)
    >>> segmented("กรุงเทพ")
    True
    """
    if text.isascii():
        return False
    return _CJK_ANY.search(text) is not None or _folded_apart(text)


def cjk_token(token: str) -> bool:
    """Whether ``token`` is a piece of a run of a script written without spaces (kana, Han,
    Hangul: :func:`cjk_grams`; Thai, Lao, Myanmar, Khmer: :func:`sea_grams`), which a
    plain full-text index cannot find (it holds the whole run as one word): its passages
    are found by the substring instead."""
    return _CJK_ANY.search(token) is not None


def plain_missed(text: str, body: str) -> Counter[str]:
    """The BM25 tokens of passage ``text`` (with their counts) that a plain full-text index
    of its ``body`` cannot select it by: not one of its plain words (maximal runs of word
    characters, lower-cased), nor a piece of a run without spaces found in ``body`` as it is
    (by substring, :func:`cjk_token`). The index holds the passage with Arabic's ``ي``
    and ``ك`` written as ``ی`` and ``ک`` ... (:func:`~hyperviz_core.rag.scripts.letters_swapped`,
    as :func:`tokens` reads them), so ``body`` is that. Only text :func:`segmented` reads
    otherwise has such tokens (a pointed Hebrew or Arabic word too, without its points):
    ``İstanbul`` (``istanbul``), ``２０２１`` (``2021``), half-width katakana, and a word
    written against such characters (``python`` of ``python入門``, ``2021`` of ``2021年``).

    >>> plain_missed("İstanbul 北京 ２０２１", "İstanbul 北京 ２０２１")
    Counter({'istanbul': 1, '2021': 1})
    >>> plain_missed("Python入門は2021年", "Python入門は2021年")
    Counter({'python': 1, '2021': 1})
    >>> plain_missed("北京是中国的首都", "北京是中国的首都")
    Counter()
    """
    held = letters_swapped(text)
    if body == held and not _folded_apart(text) and not _JOINED.search(text):
        return Counter()  # every piece of a run is in the passage, every other token a word
    plain = set(_plain_words(lexical_text(held).lower()))
    return Counter(t for t in tokens(text)
                   if t not in plain and not (cjk_token(t) and t in body))


def query_tokens(query: str) -> list[str]:
    """The query's BM25 tokens, in order, repeats kept (as ``ChunkIndex.bm25`` reads them)."""
    return tokens(query)


def lone_pieces(toks: Sequence[str]) -> list[str]:
    """The distinct tokens of ``toks`` that are a lone character or cluster of a script
    written without spaces (:func:`~hyperviz_core.rag.scripts.lone_piece`), sorted."""
    return sorted({t for t in toks if not t.isascii() and lone_piece(t)})


def holds_piece(term: str, piece: str) -> bool:
    """Whether the BM25 token ``term`` (a pair of a run) has ``piece`` as one of its
    characters or clusters (``小猫`` holds ``猫``; ``ที่นี่`` holds ``ที่``, not ``ท``)."""
    return term != piece and piece in term and piece in clusters(term)


def piece_terms(terms: Iterable[str], pieces: Collection[str] | None = None
                ) -> dict[str, list[str]]:
    """Each lone piece (of ``pieces``, else each one ``terms`` hold) → the distinct ``terms``
    holding it (:func:`holds_piece`), sorted: what :func:`with_pieces` reads a piece as, from
    a vocabulary, a set of passages' tokens or a store's postings.

    >>> piece_terms(["小猫", "猫是", "food", "猫"], ["猫", "狗"])
    {'猫': ['小猫', '猫是'], '狗': []}
    """
    found: dict[str, set[str]] = {}
    wanted = None if pieces is None else sorted(set(pieces))
    for term in set(terms):
        if wanted is not None and not any(piece in term for piece in wanted):
            continue  # the cheap test first: most of a passage's pairs hold no piece asked
        if term.isascii() or not cjk_token(term):
            continue
        for piece in clusters(term):
            if (pieces is None or piece in pieces) and holds_piece(term, piece):
                found.setdefault(piece, set()).add(term)
    keys = sorted(found) if pieces is None else pieces
    return {p: sorted(found.get(p, ())) for p in keys}


#: the most stored pairs a lone piece is read as: a piece more pairs hold (a common
#: character: ``的``, ``の``) tells little, and would make the query thousands of tokens
MAX_PIECE_TERMS = 64


def with_pieces(toks: Sequence[str], terms: Mapping[str, Sequence[str]]) -> list[str]:
    """``toks`` with each lone piece (``猫``, ``집``: :func:`lone_pieces`) followed by the
    stored tokens holding it (``terms[piece]``, sorted: :func:`holds_piece`), unless more
    than :data:`MAX_PIECE_TERMS` do. A passage holds such a piece only inside the pairs of
    a longer run, so the query ``猫`` (cat) matched no passage; now it scores the passages
    by those pairs, as an index of single characters would (``熊猫``, panda, holds it too:
    a single character is no word).

    >>> with_pieces(["猫", "food"], {"猫": ["小猫", "猫是"]})
    ['猫', '小猫', '猫是', 'food']
    """
    out: list[str] = []
    for t in toks:
        out.append(t)
        if len(held := terms.get(t, ())) <= MAX_PIECE_TERMS:
            out.extend(held)
    return out


def passage_tokens(texts: Sequence[str]) -> list[list[str]]:
    """BM25 tokens of each passage."""
    return [tokens(t) for t in texts]


def bm25_scores(query: Sequence[str], passages: Sequence[Sequence[str]], n_docs: int,
                avg_len: float) -> npt.NDArray[np.float32]:
    """BM25 of each passage (token lists) for the ``query`` tokens, given the corpus's
    ``n_docs`` and average length; ``passages`` must include every passage holding a query
    token (document frequencies are counted over them)."""
    wanted = set(query)
    counts = [Counter(t for t in doc if t in wanted) for doc in passages]
    lengths = np.asarray([len(doc) for doc in passages], dtype=np.int64)
    return bm25_from_counts(query, counts, lengths, n_docs, avg_len)


def bm25_values(tf: npt.NDArray[np.int64], lengths: npt.NDArray[np.int64], df: int,
                n_docs: int, avg_len: float) -> npt.NDArray[np.float32]:
    """Score of one token in each passage holding it (``tf`` times, passage ``lengths``),
    with the token in ``df`` of ``n_docs`` passages — ``bm25s``'s float32 arithmetic."""
    idf = np.float32(math.log(1 + (n_docs - df + 0.5) / (df + 0.5)))
    tf32 = np.asarray(tf, dtype=np.float32)
    tfc = tf32 / (K1 * ((1 - B) + B * lengths / np.float64(avg_len)) + tf32)
    out: npt.NDArray[np.float32] = (idf * tfc).astype(np.float32)
    return out


def bm25_from_counts(query: Sequence[str], counts: Sequence[Mapping[str, int]],
                     lengths: npt.NDArray[np.int64], n_docs: int, avg_len: float
                     ) -> npt.NDArray[np.float32]:
    """:func:`bm25_scores` from each candidate's query-token counts (positive only) and
    BM25 length."""
    scores = np.zeros(len(counts), dtype=np.float32)
    if not query or not len(counts) or n_docs <= 0 or avg_len <= 0:
        return scores
    values: dict[str, tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]] = {}
    for tok in sorted(set(query)):
        idx = np.asarray([i for i, c in enumerate(counts) if c.get(tok, 0) > 0],
                         dtype=np.int64)
        if not idx.size:
            continue
        tf = np.asarray([counts[i][tok] for i in idx.tolist()], dtype=np.int64)
        values[tok] = idx, bm25_values(tf, lengths[idx], int(idx.size), n_docs, avg_len)
    for tok in query:  # bm25s: one np.add.at per query token, repeats included
        if tok in values:
            idx, vals = values[tok]
            np.add.at(scores, idx, vals)
    return scores
