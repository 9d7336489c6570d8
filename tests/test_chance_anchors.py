"""A query that shares no word with any entity anchors nothing by chance (vizrag mode).

Offline, the locate step anchors I_top's most important entities. When none of them shares a
word with the query (a Hebrew or Arabic question over a store whose extractor found entities
only in the German and English texts), that importance is centrality alone and the themes
were reached by a faint hashed-vector likeness: their graph evidence, scaled to the best,
used to outrank the only passage BM25 matches.
"""

from __future__ import annotations

from pathlib import Path

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.types import Document

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
