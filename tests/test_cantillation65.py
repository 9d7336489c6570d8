"""Hebrew's cantillation marks, read as absent offline (stop 65).

The Hebrew Bible as published (the Masoretic text with te'amim: Sefaria's and Wikisource's
Tanakh) writes a cantillation mark on almost every word (``בְּרֵאשִׁ֖ית בָּרָ֣א``). Stop 64
dropped the points (niqqud) but kept these marks inside their words, so BM25 read
``בראש֖ית``, which no question ever types: nothing of such a text was found offline, and
the hashed embedder gave Genesis 1:1 against its unmarked words a cosine of 0.14. They are
now dropped with the points (``rag.scripts.letters_alike``): BM25 loaded and lazy (SQLite's
derived objects v10; their side postings hold the marked words' tokens), PostgreSQL's
postings v8, the hashed embedder ``hashing-v5`` (a store embedded with v4 is queried and
extended with v4), and the viewer's search (``unitext.search_fold`` mirrors it).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from lexical_stores import (  # always_lazy: an autouse fixture
    always_lazy,  # noqa: F401
    assert_older_embedder_kept,
    assert_older_index_rebuilt,
    check_dense,
    check_embedder_flag,
    check_new_store,
    check_queries,
    insert_docs,
)
from test_cjk_bm25 import assert_lazy_equals_loaded

from hyperviz_core.rag import HashingEmbedder, VizRAG
from hyperviz_core.rag.providers.spec import store_embedder
from hyperviz_core.rag.retrieve.lexical import plain_missed, tokens
from hyperviz_core.rag.scripts import CANTILLATION, letters_alike, letters_swapped
from hyperviz_core.rag.store.sqlite import fts
from hyperviz_core.unitext import search_fold

GENESIS = "בְּרֵאשִׁ֖ית בָּרָ֣א אֱלֹהִ֑ים אֵ֥ת הַשָּׁמַ֖יִם וְאֵ֥ת הָאָֽרֶץ׃"  # Genesis 1:1
DOCS = [  # untitled; the first matches no query
    ("a0", "The weather was mild and the harbour was quiet that spring."),
    ("b1", GENESIS),
    # Genesis 12:1: and the LORD said to Abram, go from your land
    ("c2", "וַיֹּ֤אמֶר יְהוָה֙ אֶל־אַבְרָ֔ם לֶךְ־לְךָ֛ מֵאַרְצְךָ֥"),
    ("d3", "ירושלים היא עיר עתיקה."),  # Jerusalem is an old city (unpointed)
]
QUERIES = {"בראשית ברא": "b1", "השמים": "b1", "אלהים": "b1", "אברם": "c2", "ויאמר": "c2",
           "ירושלים": "d3"}
#: the BM25 tokens of the marked words, which the index holds with their marks
MARKED = {"בראשית", "ברא", "אלהים", "את", "השמים", "ואת", "הארץ", "ויאמר", "יהוה", "אל",
          "אברם", "לך", "מארצך"}


def test_tokens_drop_the_marks() -> None:
    assert tokens(GENESIS) == tokens("בראשית ברא אלהים את השמים ואת הארץ")
    assert tokens("בָּרָ֣א") == ["ברא"]
    assert len(CANTILLATION) == 33 and all(0x0591 <= ord(c) <= 0x05C5 for c in CANTILLATION)
    assert letters_alike("בָּרָ֣א", cantillation=False) == "בר\u05a3א"  # as v4 read it
    for text in ("Zürich", "ירושלים", "مُحَمَّد", "दिल्ली"):  # as before
        assert letters_alike(text) == letters_alike(text, cantillation=False)


def test_engine_finds_them_loaded_and_lazy(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        insert_docs(rag, DOCS)
    check_queries(path, QUERIES, lazy=False)
    check_queries(path, QUERIES, lazy=True)
    assert_lazy_equals_loaded(path, [*QUERIES, "הארץ ירושלים"])
    conn = sqlite3.connect(path / "vizrag.sqlite")
    terms = {t for (t,) in conn.execute(f"SELECT term FROM {fts.TERMS}")}
    conn.close()
    assert terms == MARKED  # the index holds them marked; their tokens go beside it
    assert plain_missed(GENESIS, letters_swapped(GENESIS)) == {
        t: 1 for t in ("בראשית", "ברא", "אלהים", "את", "השמים", "ואת", "הארץ")}


def test_index_of_the_previous_version_is_rebuilt(tmp_path: Path) -> None:
    """A store whose derived objects are v9 (no side postings for marked words) gets them
    dropped and v10 made by the first query; nothing is re-indexed."""
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        insert_docs(rag, DOCS)
    assert fts._VERSION == 10
    assert_older_index_rebuilt(path, 9, QUERIES)


def test_postgres_postings_read_them(pg_url: str) -> None:
    check_new_store(pg_url, DOCS, QUERIES)


def test_hashed_embedder_v5_drops_them() -> None:
    plain = "בראשית ברא אלהים את השמים ואת הארץ"
    texts = ["Marie Curie won the Nobel Prize", "יְרוּשָׁלַיִם", "مُحَمَّد كرمان", "東京は首都"]
    check_embedder_flag(HashingEmbedder(cantillation=False),  # texts: no cantillation mark
                        ("hashing-v5-d512-c34", "hashing-v4-d512-c34"), "cantillation",
                        [GENESIS, plain], 0.2, texts)


def test_dense_retrieval_finds_them(tmp_path: Path) -> None:
    check_dense(tmp_path / "s", DOCS, "hashing-v5-d512-c34",
                {"בראשית ברא אלהים": "b1", "ויאמר יהוה אל אברם": "c2"})


@pytest.mark.filterwarnings("ignore")
def test_a_v4_store_is_queried_with_v4(tmp_path: Path) -> None:
    assert store_embedder(("hashing-v4-d256-c34", 256)).cantillation is False
    assert store_embedder(("hashing-v5-d256-c34", 256)).cantillation is True
    assert_older_embedder_kept(tmp_path / "old", HashingEmbedder(cantillation=False), DOCS,
                               ("e4", "חיפה היא עיר נמל."), "חיפה")  # Haifa is a port city


def test_the_viewer_search_mirror_drops_them() -> None:
    assert search_fold(GENESIS) == search_fold("בראשית ברא אלהים את השמים ואת הארץ׃")
