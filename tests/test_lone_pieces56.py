"""A query's lone character or cluster of a script written without spaces (stop 56).

BM25 reads such a run as its overlapping pairs (``上海的港口`` gives ``的港``, ``港口``), so a
query of one character — Chinese ``港`` (harbour), Korean ``강`` (river) between spaces,
Thai ``ที่`` — was a token no passage held, and BM25 found nothing. Now such a piece also
queries the stored pairs holding it (``港口``), as an index of single characters would, on
the loaded path, the lazy one (SQLite: the passages holding it as a substring) and in
PostgreSQL's postings (the terms holding it), with the same scores.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from lexical_stores import always_lazy, check_queries, insert_docs  # noqa: F401
from test_cjk_bm25 import assert_lazy_equals_loaded

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.retrieve.chunk_index import ChunkIndex
from hyperviz_core.rag.retrieve.lexical import holds_piece, lone_pieces, query_tokens
from hyperviz_core.rag.types import Chunk

DOCS = [  # untitled; the first by id matches no query
    ("a0", "The weather was mild and the harbour was quiet that spring."),
    ("b1", "上海是中国最大的城市，也是重要的港口。"),  # Shanghai ... an important harbour
    ("c2", "北京是中国的首都，有很多名胜古迹。"),  # Beijing is China's capital
    ("d3", "서울에서 한강을 따라 걸었다."),  # I walked along the Han river in Seoul
    ("e4", "เชียงใหม่มีวัดเก่าแก่มากมาย"),  # Chiang Mai has many old temples
]
QUERIES = {  # a lone piece → the only document holding it
    "港": "b1", "港 harbour": "b1", "城": "b1", "都": "c2", "강": "d3", "걸": "d3", "วั": "e4",
}


def test_a_lone_piece_queries_the_pairs_holding_it() -> None:
    assert lone_pieces(query_tokens("港 和 강")) == ["和", "港", "강"]
    assert lone_pieces(query_tokens("港口 harbour")) == []
    assert holds_piece("港口", "港") and not holds_piece("港", "港")
    assert holds_piece("วัด", "วั") and not holds_piece("วัด", "ว")  # whole clusters only
    index = ChunkIndex([Chunk(id=i, doc_id=i, text=t) for i, t in DOCS], {}, None)
    for query, doc in QUERIES.items():
        scores = index.bm25(query)
        best = int(np.argmax(scores))
        assert scores[best] > 0 and DOCS[best][0] == doc, query
    assert not index.bm25("猫").any()  # a piece no passage holds still finds nothing


def _store(path: Path) -> Path:
    rag = VizRAG(path, show_progress=False)
    insert_docs(rag, DOCS)
    rag.close()
    return path


def test_lone_pieces_lazily_as_loaded(tmp_path: Path) -> None:
    path = _store(tmp_path / "s")
    check_queries(path, QUERIES, lazy=False)
    check_queries(path, QUERIES, lazy=True)
    assert_lazy_equals_loaded(path, [*QUERIES, "猫", "中国 城"])


def test_postgres_terms_hold_the_piece(pg_url: str) -> None:
    rag = VizRAG(pg_url, show_progress=False)
    insert_docs(rag, DOCS)
    assert rag.store.lexical_terms(["港", "강"]) == {"港": ["港口", "的港"],
                                                     "강": ["강을", "한강"]}
    rag.close()
    check_queries(pg_url, QUERIES, lazy=True)
    check_queries(pg_url, QUERIES, lazy=False)


def test_a_piece_held_by_too_many_pairs_is_left_as_it_is(tmp_path: Path) -> None:
    """A common character (``的``) held by more than ``MAX_PIECE_TERMS`` stored pairs is not
    read as them: the query would be thousands of tokens; loaded and lazy agree."""
    from hyperviz_core.rag.retrieve.lexical import MAX_PIECE_TERMS

    many = "，".join(chr(0x4E00 + 2 * i) + "的" for i in range(MAX_PIECE_TERMS))
    docs = [*DOCS, ("f5", many), ("g6", "我的猫很可爱。")]  # my cat is cute
    index = ChunkIndex([Chunk(id=i, doc_id=i, text=t) for i, t in docs], {}, None)
    assert len(index._piece_terms()["的"]) > MAX_PIECE_TERMS
    assert not index.bm25("的").any()  # not expanded: no passage holds the lone token
    assert index.bm25("猫")[-1] > 0  # a rare piece still is
    rag = VizRAG(tmp_path / "s", show_progress=False)
    insert_docs(rag, docs)
    rag.close()
    assert_lazy_equals_loaded(tmp_path / "s", ["的", "猫", "的 猫"])
