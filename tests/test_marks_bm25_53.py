"""Offline BM25 of words written with combining marks (stop 53): Devanagari, Bengali,
Tamil, Hebrew points ...

Their vowel signs and viramas are no word characters to ``re``: ``bm25s``'s ``\\w\\w+`` cut
``दिल्ली`` (Delhi) into ``द``, ``ल``, ``ल`` and dropped them all as one-letter words, so BM25
held no token of it and the query ``दिल्ली`` found nothing offline; ``भारत`` was ``रत``. A word
now keeps its marks, on the loaded path, on the lazy one (SQLite FTS5 with marks as token
characters) and in PostgreSQL's postings, also in a store whose derived index the previous
version (v7) made. Text without such marks is read as before.
"""

from __future__ import annotations

from pathlib import Path

import bm25s
from lexical_stores import (  # always_lazy: an autouse fixture
    always_lazy,  # noqa: F401
    assert_older_index_rebuilt,
    check_queries,
    insert_docs,
)
from test_cjk_bm25 import assert_lazy_equals_loaded

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.retrieve.lexical import tokens

DOCS = [  # untitled; the first by id matches no query
    ("a0", "The weather was mild and the harbour was quiet that spring."),
    ("b1", "दिल्ली भारत की राजधानी है और यमुना नदी के किनारे बसी है।"),  # Delhi, on the Yamuna
    ("c2", "मुंबई महाराष्ट्र का सबसे बड़ा शहर है।"),  # Mumbai, Maharashtra's largest city
    ("d3", "சென்னை தமிழ்நாட்டின் தலைநகரம் ஆகும்."),  # Chennai, capital of Tamil Nadu
    ("e4", "ঢাকা বাংলাদেশের বৃহত্তম শহর।"),  # Dhaka, Bangladesh's largest city
    ("f5", "יְרוּשָׁלַיִם הִיא עִיר עַתִּיקָה."),  # Jerusalem is an old city (pointed)
]
QUERIES = {  # query → the document it names (the only one holding its tokens)
    "दिल्ली": "b1", "यमुना": "b1", "मुंबई": "c2", "महाराष्ट्र": "c2", "சென்னை": "d3",
    "தமிழ்நாட்டின்": "d3", "ঢাকা": "e4", "বাংলাদেশের": "e4", "יְרוּשָׁלַיִם": "f5",
}


def _insert(rag: VizRAG) -> None:
    insert_docs(rag, DOCS)


def _check(store: str | Path, *, lazy: bool) -> None:
    check_queries(store, QUERIES, lazy=lazy)


def test_a_word_keeps_its_marks() -> None:
    assert tokens("दिल्ली भारत") == ["दिल्ली", "भारत"]  # were [] and ["रत"]
    assert tokens("சென்னை") == ["சென்னை"] and tokens("ঢাকা") == ["ঢাকা"]
    assert tokens("दिल्ली 北京 Delhi") == ["दिल्ली", "北京", "delhi"]  # beside Han
    for text in ("Zürich and Ærøskøbing, naïve café", "Москва — столица", "مصر والسودان",
                 "The 2021 snake_case census"):  # no combining marks: bm25s's tokens
        # (an Arabic text without the letters read as others since stop 64, ة of القاهرة)
        want = bm25s.tokenize([text.replace("_", " ")], stopwords="en", return_ids=False,
                              show_progress=False)[0]
        assert tokens(text) == want, text


def test_engine_finds_them_loaded_and_lazy(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        _insert(rag)
    _check(path, lazy=False)
    _check(path, lazy=True)
    assert_lazy_equals_loaded(path, [*QUERIES, "राजधानी शहर", "शहर"])


def test_index_of_the_previous_version_is_rebuilt(tmp_path: Path) -> None:
    """A store whose derived objects are v7 (FTS5 cut words at their marks) gets them
    dropped and v8 made by the first query; nothing is re-indexed."""
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        _insert(rag)
    assert_older_index_rebuilt(path, 7, QUERIES, tokenizer=" categories 'L* N* Co M*'")


def test_postgres_postings_read_them(pg_url: str) -> None:
    with VizRAG(pg_url, show_progress=False) as rag:
        _insert(rag)
    _check(pg_url, lazy=True)
    _check(pg_url, lazy=False)


def test_offline_answer_quotes_the_passage_found(tmp_path: Path) -> None:
    """The extractive answer quotes the top passage's sentence holding the query's words:
    it had said that no passage shared a word with a Hindi or Tamil question."""
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        _insert(rag)
        for query, doc in (("दिल्ली", "b1"), ("சென்னை", "d3"), ("ঢাকা", "e4")):
            res = rag.query(query)
            first = res.answer.splitlines()[1] if res.answer else ""
            assert first.startswith("- ") and first.endswith("[1]"), (query, res.answer)
            assert first[2:10] in dict(DOCS)[doc], (query, first)
