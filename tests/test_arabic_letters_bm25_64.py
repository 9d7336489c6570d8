"""Persian and Urdu typed with Arabic's letters, found offline either way (stop 64).

Older sites and Arabic keyboards type Arabic's yeh ``ي`` and kaf ``ك`` for Persian's (and
Urdu's) ``ی`` and ``ک``. The two look alike but are different
characters, so BM25 and the hashed embeddings read ``كرمان`` and ``کرمان`` (Kerman) as two
words and a question typed one way found nothing typed the other. They now read them alike
(:func:`~hyperviz_core.rag.scripts.letters_alike`): on the loaded path, the lazy one (the
SQLite FTS5 index holds the passages with the letters written as Persian's, objects v9),
PostgreSQL's postings (v7), the hashed embedder (``hashing-v4``; a store embedded with v3
is still queried with v3), the names a query links and the offline answer's quotes. Text
without these letters is read as before, and Arabic only has two letters renamed (alef
maksura ``ى`` stays apart: ``على`` "on" is no ``علي`` Ali).
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
from hyperviz_core.rag.retrieve.names import NameLinker
from hyperviz_core.rag.scripts import ARABIC_TYPED, letters_alike, letters_swapped
from hyperviz_core.rag.store.sqlite import fts

DOCS = [  # untitled; the first by id matches no query
    ("a0", "The weather was mild and the harbour was quiet that spring."),
    # Kerman is one of Iran's large cities: typed with Arabic's kaf and yeh
    ("b1", "كرمان يكي از شهرهاي بزرگ ايران است."),
    # Tabriz is the centre of the province of East Azerbaijan: typed with Persian's letters
    ("c2", "تبریز مرکز استان آذربایجان شرقی است."),
    # Karachi is Pakistan's largest city (Urdu, its own letters)
    ("d3", "کراچی پاکستان کا سب سے بڑا شہر ہے۔"),
    # Arabic: the city of Cairo lies on the banks of the Nile
    ("e4", "تقع مدينة القاهرة على ضفاف النيل."),
    # Ahmad Shawqi wrote a poem about Muhammad (hamza on alef, teh marbuta, harakat)
    ("f5", "كتب أحمد شوقي قصيدة عن مُحَمَّد."),
    ("g6", "יְרוּשָׁלַיִם הִיא עִיר עַתִּיקָה."),  # Jerusalem is an old city (pointed)
]
QUERIES = {  # query → the document it names (the only one holding its tokens)
    "کرمان": "b1", "یکی شهرهای": "b1", "كرمان": "b1",
    "تبريز": "c2", "شرقي": "c2", "آذربايجان": "c2",
    "كراچي": "d3", "پاكستان": "d3",
    "النیل": "e4", "مدینة": "e4",
    "احمد": "f5", "قصيده": "f5", "محمد": "f5", "شوقی": "f5",
    "ירושלים": "g6", "עתיקה": "g6",
}
#: the BM25 tokens of the pointed words, which the index holds with their points
POINTED = {"محمد", "ירושלים", "היא", "עיר", "עתיקה"}


def test_tokens_read_the_letters_alike() -> None:
    assert tokens("كرمان يكي") == tokens("کرمان یکی") == ["کرمان", "یکی"]
    assert tokens("على علي") == ["على", "علی"]  # alef maksura is no yeh
    assert tokens("مُحَمَّد أحمد إلى آدم مدرسة") == ["محمد", "احمد", "الى", "ادم", "مدرسه"]
    assert tokens("יְרוּשָׁלַיִם") == tokens("ירושלים") == ["ירושלים"]


def test_only_spellings_arabic_varies_in_become_one() -> None:
    """Hamza on alef, teh marbuta and harakat are written or left out at will (as Lucene's
    Arabic normalizer reads them); alef maksura is no yeh, so ``على`` "on" stays apart from
    ``علي`` Ali, and ``في`` from ``فى``."""
    alike = [("إلى", "الى"), ("مدرسة", "مدرسه"), ("مُحَمَّد", "محمد"), ("أحمد", "احمد"),
             ("كتاب", "کتاب"), ("ـقاهرة", "قاهره")]
    assert all(letters_alike(a) == letters_alike(b) for a, b in alike)
    apart = [("على", "علي"), ("في", "فى"), ("ملكي", "ملكى"), ("كتب", "كتاب")]
    assert all(letters_alike(a) != letters_alike(b) for a, b in apart)
    for text in ("Zürich", "Москва", "القاهره", "दिल्ली", "北京", "کرمان", "İstanbul"):
        assert letters_alike(text) == text and tokens(text) == tokens(text.lower()), text
    assert ARABIC_TYPED[0::2] == "يىك" and ARABIC_TYPED[1::2] == "ییک"


def test_the_plain_index_body_holds_the_letters_as_read() -> None:
    """The SQLite index holds ``letters_swapped`` of the passage: its words are the BM25
    tokens, so nothing goes to the side postings, but for a pointed word (the index keeps
    the points, BM25 drops them) and what ``İ`` gives."""
    text = dict(DOCS)["b1"]
    assert plain_missed(text, letters_swapped(text)) == {}
    both = f"İstanbul {text} مُحَمَّد أحمد"
    assert plain_missed(both, letters_swapped(both)) == {"istanbul": 1, "محمد": 1}


def test_engine_finds_them_loaded_and_lazy(tmp_path: Path) -> None:
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        insert_docs(rag, DOCS)
    check_queries(path, QUERIES, lazy=False)
    check_queries(path, QUERIES, lazy=True)
    assert_lazy_equals_loaded(path, [*QUERIES, "شهر", "مرکز ایران"])
    conn = sqlite3.connect(path / "vizrag.sqlite")
    bodies = dict(conn.execute(f"SELECT rowid, body FROM {fts.FTS_TABLE}").fetchall())
    terms = {t for (t,) in conn.execute(f"SELECT term FROM {fts.TERMS}")}
    conn.close()
    assert sorted(bodies.values()) == sorted(letters_swapped(t) for _, t in DOCS)
    assert terms == POINTED  # every other BM25 token is a word of the index


def test_index_of_the_previous_version_is_rebuilt(tmp_path: Path) -> None:
    """A store whose derived objects are v8 (the bodies as typed) gets them dropped and v9
    made by the first query; nothing is re-indexed."""
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        insert_docs(rag, DOCS)
    assert_older_index_rebuilt(path, 8, QUERIES)


def test_a_document_edited_later_is_indexed_as_read(tmp_path: Path) -> None:
    """The triggers write the edited passage with the letters read alike too."""
    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        insert_docs(rag, DOCS)
        assert rag.retrieve("کرمان", mode="vizrag", render=False).chunks[0].doc_id == "b1"
        insert_docs(rag, [("b1", "يزد شهري در مركز ايران است.")])  # Yazd, replacing Kerman
    check_queries(path, {"یزد": "b1", "مرکز": "b1"}, lazy=True)
    with VizRAG(path, show_progress=False) as rag:
        assert rag.retrieve("کرمان", mode="vizrag", render=False).unmatched  # none holds it


def test_postgres_postings_read_them(pg_url: str) -> None:
    check_new_store(pg_url, DOCS, QUERIES)


def test_hashed_embedder_v4_reads_them_alike() -> None:
    texts = ["Marie Curie won the Nobel Prize", "दिल्ली भारत", "東京は首都", "کرمان القاهره"]
    check_embedder_flag(HashingEmbedder(alike=False),  # texts: none of the letters
                        ("hashing-v5-d512-c34", "hashing-v3-d512-c34"), "alike",
                        ["كرمان", "کرمان"], 0.5, texts)


def test_dense_retrieval_finds_them(tmp_path: Path) -> None:
    check_dense(tmp_path / "s", DOCS, "hashing-v5-d512-c34",
                {"کرمان": "b1", "تبريز": "c2", "كراچي": "d3"})


@pytest.mark.filterwarnings("ignore")
def test_a_v3_store_is_queried_with_v3(tmp_path: Path) -> None:
    assert store_embedder(("hashing-v3-d256-c34", 256)).alike is False
    assert store_embedder(("hashing-v4-d256-c34", 256)).alike is True
    assert_older_embedder_kept(tmp_path / "old", HashingEmbedder(alike=False), DOCS,
                               ("f5", "شیراز شهر شعر و گل است."), "شیراز")  # city of poetry


def test_names_link_either_way() -> None:
    names = NameLinker()
    names.add(("كرمان",), "كرمان")
    names.add(("تبریز",), "تبریز")
    assert names.find(["شهر", "کرمان"]) == ["كرمان"]
    assert names.find(["تبريز"]) == ["تبریز"]
    assert names.find(["kerman"]) == []


def test_names_link_both_entities_of_one_name_typed_two_ways() -> None:
    """Two keys written apart only in these letters (one entity from text typed each way)
    are both named by the words read alike; keys apart otherwise keep the first."""
    names = NameLinker()
    names.add(("علي", "رضايي"), "علي رضايي")
    names.add(("علی", "رضایی"), "علی رضایی")
    names.add(("علی", "رضایی"), "علی رضایی")  # again: once
    names.add(("st", "louis"), "st louis")
    names.add(("st", "louis"), "st. louis")  # apart otherwise: the first keeps them
    assert names.find(["آقای", "علی", "رضایی"]) == ["علي رضايي", "علی رضایی"]
    assert names.find(["علي", "رضايي"]) == ["علي رضايي", "علی رضایی"]
    assert names.find(["st", "louis"]) == ["st louis"]


PEOPLE = [  # one man named after a title, in text typed with each keyboard
    ("a0", "The weather was mild and the harbour was quiet that spring."),
    ("b1", "آقای علی رضایی گفت که کتاب تازه‌اش در تهران چاپ شد."),  # his new book, Tehran
    ("c2", "دكتر علي رضايي در كنفرانس پزشکی گفت که درمان تازه است."),  # a medical conference
]


def test_a_query_anchors_the_entity_of_each_typing(tmp_path: Path) -> None:
    """The offline extractor keeps each text's letters in the name, so the man is two
    entities; a question typed either way anchors both and ranks both passages first (it
    anchored only the entity typed as it is, and ranked the other passage below the English
    one)."""
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        insert_docs(rag, PEOPLE)
        for query in ("علی رضایی", "علي رضايي"):
            res = rag.retrieve(query, mode="vizrag", render=False)
            assert {c.doc_id for c in res.chunks[:2]} == {"b1", "c2"}, query
            anchors = sorted(e.key for e in res.entities if e.role == "anchor")
            assert anchors == ["علي رضايي", "علی رضایی"], query


def test_offline_answer_quotes_the_passage_found(tmp_path: Path) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        insert_docs(rag, DOCS)
        res = rag.query("کرمان یکی از شهرهای ایران")
        first = res.answer.splitlines()[1] if res.answer else ""
        assert first.startswith("- ") and first.endswith("[1]"), res.answer
        assert "كرمان" in first, first  # quoted as typed


def test_letters_bench_on_a_small_store(capsys: pytest.CaptureFixture[str]) -> None:
    """``benchmarks/letters_bench.py`` at its edge (200 passages; no timing asserted): every
    retyped query finds its word, and the lazy path's settings are put back after it."""
    from bench_import import bench_module

    from hyperviz_core.rag.retrieve import retriever as retriever_module

    before = retriever_module.LAZY_MIN_CHUNKS
    retriever_module.LAZY_MIN_CHUNKS = 10_000  # what the test module's fixture set aside
    try:
        bench_module("letters_bench").main(["--docs", "200"])
        assert retriever_module.LAZY_MIN_CHUNKS == 10_000
    finally:
        retriever_module.LAZY_MIN_CHUNKS = before
    out = capsys.readouterr().out
    assert "retyped 40/40, as typed 40/40" in out
    assert f"side postings ({fts.TERMS}): 0 rows" in out
