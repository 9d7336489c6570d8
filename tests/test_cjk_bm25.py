"""Offline BM25 of Chinese / Japanese text (character bigrams) and of Turkish dotted ``İ``.

A run of Han characters or kana has no spaces between its words: BM25 reads it as its
overlapping character bigrams (a lone character as itself), so a query ``北京`` finds the
passage ``北京是中国的首都``; Hangul too (``서울`` finds ``서울에서``), and full-width ASCII and
half-width katakana read as their usual forms (``2021`` finds ``２０２１年``). ``İ`` lower-cases
to ``i`` + a combining dot: BM25 reads it as ``i``, so ``İstanbul``, ``ISTANBUL``,
``Istanbul`` and ``istanbul`` are one token. All hold on the loaded path (``ChunkIndex``) and
on the lazy one (SQLite FTS5 candidates, substrings of the passages for the pieces of a Han
run, the few tokens neither finds stored beside them), also on a store whose derived index
an older version made.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.bm25_import import bm25s
from hyperviz_core.rag import Document, HypergraphStore, VizRAG
from hyperviz_core.rag.retrieve.chunk_index import ChunkIndex
from hyperviz_core.rag.retrieve.lazy import LazyCorpus
from hyperviz_core.rag.retrieve.lexical import query_tokens, tokens
from hyperviz_core.rag.retrieve.lexicon import vocabulary_of
from hyperviz_core.rag.retrieve.state import Corpus
from hyperviz_core.rag.store.sqlite.fts import FTS_TABLE, LENGTHS, TERMS
from hyperviz_core.rag.types import Chunk

DOCS = [  # untitled (a title would name the document); the first by id matches no query
    ("a0", "", "The weather was mild and the harbour was quiet that spring."),
    ("b1", "", "上海是中国最大的城市，也是重要的港口。"),
    ("c2", "", "北京是中国的首都，有很多名胜古迹。"),
    ("d3", "", "私は毎日コンピューターで仕事をします。"),
    ("e4", "", "İSTANBUL Boğazı iki kıtayı ayırır."),
    ("f5", "", "ANKARA is the capital of Turkey; Izmir lies on the coast."),
    ("g6", "", "서울에서 한강을 따라 걸었다."),
    ("h7", "", "２０２１年にＡＢＣ社がｶﾀｶﾅの看板を出した。"),
]
QUERIES = {  # query → the document it names (the only one holding its tokens)
    "北京": "c2", "首都": "c2", "上海的港口": "b1", "コンピューター": "d3",
    "Istanbul": "e4", "istanbul": "e4", "ISTANBUL": "e4", "İstanbul": "e4",
    "İzmir": "f5", "İZMİR coast": "f5",
    "서울": "g6", "한강": "g6", "2021": "h7", "ABC": "h7", "カタカナ": "h7", "２０２１年": "h7",
}
ENGLISH = [
    "The _erica vagans_ -- the lovely Cornish heath, and snake_case names!",
    "Zürich, Straße, naïve café; KØBENHAVN 1999 x y z",
    "Hank Snow was a Canadian singer (1914-1999) & songwriter.",
    "Ὀδυσσεύς ΣΊΣΥΦΟΣ Ölçek ılık",
]


@pytest.fixture(autouse=True)
def _always_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    """These stores are small: make the default (auto) read lazily from the first chunk."""
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)


def _store(path: Path) -> Path:
    rag = VizRAG(path, show_progress=False)
    rag.insert([Document(id=i, text=text, title=title) for i, title, text in DOCS])
    rag.close()
    return path


def _doc_of(rag: VizRAG, query: str) -> str:
    res = rag.retrieve(query, mode="vizrag", render=False)
    assert res.chunks, query
    return str(res.chunks[0].doc_id)


def _check(path: Path, *, lazy: bool, **open_args: Any) -> None:
    store = HypergraphStore(path, **open_args) if open_args else path
    rag = VizRAG(store, show_progress=False)
    rag.retriever.lazy = lazy
    for query, doc in QUERIES.items():
        assert _doc_of(rag, query) == doc, (query, lazy)
    corpus = rag.retriever.query_corpus()
    assert isinstance(corpus, LazyCorpus if lazy else Corpus)
    rag.close()


def test_english_tokens_are_bm25s_tokens() -> None:
    """Text without kana, Han or ``İ`` tokenizes exactly as ``bm25s`` (English figures do
    not move)."""
    want = bm25s().tokenize([t.replace("_", " ") for t in ENGLISH], stopwords="en",
                            show_progress=False, return_ids=False)
    assert [tokens(t) for t in ENGLISH] == want


def test_cjk_runs_give_character_bigrams() -> None:
    assert tokens("北京是中国的首都") == ["北京", "京是", "是中", "中国", "国的", "的首", "首都"]
    assert tokens("コンピューター") == ["コン", "ンピ", "ピュ", "ュー", "ータ", "ター"]
    assert tokens("iPhone手机, 水 and Beijing北京") == ["iphone", "手机", "水", "beijing", "北京"]
    assert tokens("東京・大阪") == ["東京", "大阪"]  # punctuation ends a run
    assert tokens("서울은 한국의 수도") == ["서울", "울은", "한국", "국의", "수도"]  # Hangul too
    assert tokens("２０２１年 ＡＢＣ ｶﾀｶﾅ") == ["2021", "年", "abc", "カタ", "タカ", "カナ"]


def test_dotted_capital_i_folds_to_i() -> None:
    variants = ["İstanbul", "ISTANBUL", "Istanbul", "istanbul", "İSTANBUL", "I\u0307stanbul"]
    assert {tuple(query_tokens(v)) for v in variants} == {("istanbul",)}
    assert "istanbul" in vocabulary_of(["İstanbul Boğazı"])


def test_names_link_across_dotted_capital_i() -> None:
    """``İzmir`` / ``İZMİR`` in a chunk or a query names the title entity ``Izmir``."""
    from hyperviz_core.model import normalize_key
    from hyperviz_core.rag.providers.offline import word_tokens
    from hyperviz_core.rag.retrieve.names import NameLinker

    names = NameLinker()
    names.add(tuple(word_tokens(normalize_key("Izmir"))), normalize_key("Izmir"))
    assert names.find(word_tokens("from İzmir")) == ["izmir"]
    assert names.find(word_tokens("İZMİR, Turkey")) == ["izmir"]


def test_loaded_chunk_index_finds_cjk_and_turkish() -> None:
    chunks = [Chunk(id=i, doc_id=i, text=text, metadata={"title": title})
              for i, title, text in DOCS]
    index = ChunkIndex(chunks)
    for query, doc in QUERIES.items():
        scores = index.bm25(query)
        assert scores.max() > 0, query
        assert index.chunk_at(int(scores.argmax())).doc_id == doc, query


def test_engine_finds_cjk_and_turkish_loaded_and_lazy(tmp_path: Path) -> None:
    path = _store(tmp_path / "s")
    _check(path, lazy=False)
    _check(path, lazy=True)
    conn = sqlite3.connect(path / "vizrag.sqlite")
    terms = conn.execute(f"SELECT t.term, c.doc_id FROM {TERMS} t JOIN chunks c "
                         "ON c.rowid = t.chunk ORDER BY t.term").fetchall()
    exact = dict(conn.execute(f"SELECT rowid, exact FROM {LENGTHS}").fetchall())
    conn.close()
    # only the tokens neither FTS5 nor a substring finds are kept: İstanbul's istanbul and
    # the full-width passage's 2021, abc and the pieces with half-width katakana (no Han
    # or Hangul bigram: those are found as substrings)
    assert terms == [("2021", "h7"), ("abc", "h7"), ("istanbul", "e4"), ("がカ", "h7"),
                     ("カタ", "h7"), ("カナ", "h7"), ("タカ", "h7"), ("ナの", "h7")]
    assert sorted(exact.values()) == [0, 0, 0, 0, 0, 0, 1, 1]


def test_lazy_reads_postings_a_read_only_store_could_not_keep(tmp_path: Path) -> None:
    """A read-only store whose index lacks the postings: the query computes them."""
    path = _store(tmp_path / "s")
    _check(path, lazy=True)
    conn = sqlite3.connect(path / "vizrag.sqlite")
    conn.execute(f"DELETE FROM {LENGTHS}")
    conn.execute(f"DELETE FROM {TERMS}")
    conn.commit()
    conn.close()
    _check(path, lazy=True, read_only=True)


_V3 = (  # the derived objects of the previous version (a Han run one token, no postings)
    "CREATE VIRTUAL TABLE vizrag_chunk_fts_v3 USING fts5("
    "body, tokenize = \"unicode61 remove_diacritics 0\")",
    "CREATE VIRTUAL TABLE vizrag_chunk_fts_v3_inst USING fts5vocab(vizrag_chunk_fts_v3, "
    "'instance')",
    "CREATE TABLE vizrag_chunk_bm25_v3 (rowid INTEGER PRIMARY KEY, dl INTEGER NOT NULL, "
    "exact INTEGER NOT NULL)",
    "CREATE TRIGGER vizrag_chunk_fts_v3_ai AFTER INSERT ON chunks BEGIN "
    "INSERT INTO vizrag_chunk_fts_v3(rowid, body) VALUES (new.rowid, new.text); END",
    "INSERT INTO vizrag_chunk_fts_v3(rowid, body) SELECT rowid, text FROM chunks",
    "INSERT INTO vizrag_chunk_bm25_v3 SELECT rowid, 1, 1 FROM chunks",
)


def test_index_of_the_previous_version_is_rebuilt(tmp_path: Path) -> None:
    """A store whose derived index the previous version made (no bigram postings) gets it
    replaced by the first query: CJK queries find their passages, nothing re-indexed."""
    path = tmp_path / "s"
    rag = VizRAG(path, show_progress=False)
    rag.insert([Document(id=i, text=text, title=title) for i, title, text in DOCS])
    rag.close()
    db = path / "vizrag.sqlite"
    conn = sqlite3.connect(db)
    names = [r[0] for r in conn.execute(
        "SELECT name FROM sqlite_master WHERE name LIKE 'vizrag_chunk_%' AND type = 'table'")]
    for name in names:  # only what the older version had
        conn.execute(f"DROP TABLE IF EXISTS {name}")
    for statement in _V3:
        conn.execute(statement)
    conn.execute("CREATE TABLE vizrag_chunk_terms_v4 (term TEXT, chunk INTEGER, tf INTEGER)")
    before = conn.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()
    conn.commit()
    conn.close()
    _check(path, lazy=True)
    _check(path, lazy=False)
    conn = sqlite3.connect(db)
    names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
    after = conn.execute("SELECT id, text FROM chunks ORDER BY id").fetchall()
    n_fts = conn.execute(f"SELECT COUNT(*) FROM {FTS_TABLE}").fetchone()[0]
    conn.close()
    assert not [n for n in names if "_v3" in n or "_v4" in n]  # an earlier build's too
    assert after == before and n_fts == len(DOCS)


def assert_lazy_equals_loaded(path: Path, queries: list[str]) -> None:
    """The lazy path ranks the store at ``path`` as the loaded one: the same chunks and
    scores for each query."""
    with VizRAG(path, show_progress=False) as full, VizRAG(path, show_progress=False) as lazy:
        full.retriever.lazy = False
        for query in queries:
            want = full.retrieve(query, mode="vizrag", render=False)
            got = lazy.retrieve(query, mode="vizrag", render=False)
            assert [(c.chunk_id, c.score) for c in got.chunks] == [
                (c.chunk_id, c.score) for c in want.chunks], query
        assert isinstance(lazy.retriever.query_corpus(), LazyCorpus)


def test_lazy_equals_loaded_on_cjk(tmp_path: Path) -> None:
    """The lazy path ranks the CJK corpus as the loaded one: the same chunks and scores."""
    assert_lazy_equals_loaded(_store(tmp_path / "s"), [*QUERIES, "中国的城市", "名胜"])


def test_postgres_postings_read_cjk_and_turkish(pg_url: str,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The PostgreSQL store's postings (the ranking's tokens) find them too, also in a store
    whose postings the previous version made (a Han run one token): their tables have the
    previous version's names, and the query makes and fills those of this version."""
    import re

    from hyperviz_core.rag.retrieve.lexical import STOPWORDS
    from hyperviz_core.rag.store.postgres import lexical as pg_lexical

    def old_tokens(text: str) -> list[str]:
        low = text.replace("_", " ").lower()
        return [t for t in re.findall(r"(?u)\b\w\w+\b", low) if t not in STOPWORDS]

    monkeypatch.setattr(pg_lexical, "_ranking_tokens", lambda: old_tokens)
    rag = VizRAG(pg_url, show_progress=False)
    rag.insert([Document(id=i, text=text, title=title) for i, title, text in DOCS])
    monkeypatch.undo()

    def rename(c: Any) -> None:  # this version's tables → the previous version's names
        for table in (pg_lexical.TERMS, pg_lexical.LEX):
            if table.endswith("_v1"):  # the previous version itself: nothing to rename
                continue
            for (index,) in c.execute("SELECT indexname FROM pg_indexes WHERE tablename = ?",
                                      (table,)).fetchall():
                c.execute(f"ALTER INDEX {index} RENAME TO {index.replace(table, 'old_' + table)}")
            c.execute(f"ALTER TABLE {table} RENAME TO {re.sub('_v[0-9]+$', '_v1', table)}")

    rag.store._pool.write(rename)
    rag.close()
    _check_url(pg_url, lazy=True)
    _check_url(pg_url, lazy=False)


def _check_url(url: str, *, lazy: bool) -> None:
    rag = VizRAG(url, show_progress=False)
    rag.retriever.lazy = lazy
    for query, doc in QUERIES.items():
        assert _doc_of(rag, query) == doc, (query, lazy)
    assert isinstance(rag.retriever.query_corpus(), LazyCorpus if lazy else Corpus)
    rag.close()


JOINED = [  # a Latin word or a number written against CJK: one word to FTS5, two to BM25
    ("j0", "Python入門は2021年に出版された。"),
    ("j1", "iPhone을 샀다. 서울에서 샀다."),
    ("j2", "COVID-19疫情在2020年开始。"),
    ("j3", "The meeting of 2021 was in Python."),
]


def test_words_written_against_cjk_are_found_lazily_as_loaded(tmp_path: Path) -> None:
    rag = VizRAG(tmp_path / "s", show_progress=False)
    rag.insert([Document(id=i, text=text) for i, text in JOINED])
    rag.close()
    got = {}
    for lazy in (False, True):
        rag = VizRAG(tmp_path / "s", show_progress=False)
        rag.retriever.lazy = lazy
        got[lazy] = {q: [(c.doc_id, c.score) for c in rag.retrieve(q, render=False).chunks]
                     for q in ("Python", "2021", "iPhone", "2020", "2021 meeting")}
        rag.close()
    assert got[True] == got[False]
    assert {d for d, s in got[True]["iPhone"] if s > 0} == {"j1"}
    assert {d for d, s in got[True]["2020"] if s > 0} == {"j2"}
    assert {d for d, s in got[True]["Python"] if s > 0} >= {"j0", "j3"}
