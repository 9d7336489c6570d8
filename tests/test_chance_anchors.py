"""A query that shares no word with any entity anchors nothing by chance (vizrag mode).

Offline, the locate step anchors I_top's most important entities. When none of them shares a
word with the query (a Hebrew or Arabic question over a store whose extractor found entities
only in the German and English texts), that importance is centrality alone and the themes
were reached by a faint hashed-vector likeness: their graph evidence, scaled to the best,
used to outrank the only passage BM25 matches.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hyperviz_core import Entity, Hyperedge
from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.types import ChunkExtraction, Document

DOCS = [
    Document(id="de1", text="Die Müller Großhandel GmbH hat ihren Sitz in Köln. "
             "Geschäftsführerin ist Anna Schmidt aus München."),
    Document(id="de2", text="Jürgen Weissmann gründete die Stiftung in Berlin. "
             "Später zog Jürgen Weissmann nach Hamburg."),
    Document(id="en1", text="Ada Lovelace worked with Charles Babbage in London on the "
             "Analytical Engine."),
    Document(id="he1", text="דוד כהן עובד בטכניון בחיפה."),
    Document(id="ar1", text="أحمد حسن يعمل في مركز النيل للأبحاث في القاهرة."),
]


def test_a_query_naming_no_entity_ranks_its_bm25_passage_first(tmp_path: Path) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(DOCS)
        for query, want in (("דוד כהן", "he1"), ("أحمد حسن", "ar1")):
            res = rag.retrieve(query, top_k=3, render=False)
            assert res.chunks[0].doc_id == want, [(c.doc_id, c.score) for c in res.chunks]
            assert res.located == [] and res.anchors == []
            assert all(c.evidence.get("graph", 0.0) == 0.0 for c in res.chunks)
        # a query that names an entity still anchors the located ones and uses the graph
        res = rag.retrieve("Where did Ada Lovelace work?", top_k=3, render=False)
        assert res.chunks[0].doc_id == "en1"
        assert res.located and res.chunks[0].evidence["graph"] > 0


def test_misspelt_or_inflected_names_keep_their_anchors(tmp_path: Path) -> None:
    """The chance test reads the query as ranking does: a spelling repair (``Lovelase``)
    or a word form (``Turings``) names the entity, and the view anchors it."""
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([*DOCS, Document(id="tu", text="Alan Turing broke the Enigma code at "
                                                  "Bletchley Park.")])
        for query, key, doc in (("Where did Lovelase work?", "ada lovelace", "en1"),
                                ("Where was Turings codebreaking?", "alan turing", "tu")):
            res = rag.retrieve(query, top_k=2, render=False)
            assert key in res.anchors, (query, res.anchors)
            assert res.chunks[0].doc_id == doc


class _DictExtractor:
    """Finds the listed Chinese names in a chunk (what a model would extract)."""

    name = "dict-extractor-v1"
    names = ("居里夫人", "巴黎", "图灵", "恩尼格玛", "布莱切利园", "达尔文", "加拉帕戈斯群岛")

    def extract(self, chunk: Any) -> ChunkExtraction:
        found = [Entity(name=n, description=chunk.text, source_ids=[chunk.id])
                 for n in self.names if n in chunk.text]
        edges = ([Hyperedge(members=[e.name for e in found], source_ids=[chunk.id])]
                 if len(found) > 1 else [])
        return ChunkExtraction(chunk_id=chunk.id, entities=found, hyperedges=edges)

    async def aextract(self, chunk: Any) -> ChunkExtraction:
        return self.extract(chunk)


def test_a_name_in_a_script_without_spaces_is_found_inside_the_query(tmp_path: Path) -> None:
    """A Chinese query is one run of characters (one BM25 "word"): the entity named inside
    it still anchors the view and ranks its passage first."""
    docs = [Document(id="curie", text="居里夫人在巴黎发现了镭。"),
            Document(id="turing", text="图灵在布莱切利园破解了恩尼格玛。"),
            Document(id="darwin", text="达尔文乘船到达加拉帕戈斯群岛。")]
    with VizRAG(tmp_path / "s", extractor=_DictExtractor(), show_progress=False) as rag:
        rag.insert(docs)
        res = rag.retrieve("图灵在哪里工作？", top_k=3, render=False)
    assert "图灵" in res.anchors and res.chunks[0].doc_id == "turing"


def test_the_chance_check_and_ranking_repair_the_query_once(
        tmp_path: Path, monkeypatch: Any) -> None:
    """On the chance path the check reads the query repaired, and ranking repairs it too:
    the second asks for the same answer, so the unknown words are looked up once."""
    from hyperviz_core.rag.retrieve import lexicon

    asked: list[str] = []
    unknown = lexicon.QueryLexicon.unknown

    def counted(self: lexicon.QueryLexicon, word: str) -> bool:
        asked.append(word)
        return unknown(self, word)

    monkeypatch.setattr(lexicon.QueryLexicon, "unknown", counted)
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(DOCS)
        res = rag.retrieve("Where did Zorblax Quenting work?", top_k=2, render=False)
        assert res.anchors == []  # the chance path: the view anchored nothing
        assert asked.count("zorblax") == 1, asked
        asked.clear()
        rag.retrieve("Where did Zorblax Quenting work?", top_k=2, render=False)
        assert asked.count("zorblax") == 0  # the same query again: the same repair
        res = rag.retrieve("Where did Lovelase work?", top_k=2, render=False)
        assert res.anchors and res.chunks[0].doc_id == "en1"  # a new query is repaired
