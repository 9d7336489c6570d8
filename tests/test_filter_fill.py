"""A filtered ranking is filled up as an unfiltered one is: passing chunks that score 0 come
after the matching ones (in id order), and a query nothing matched returns arbitrary passing
passages with the result's "unmatched" warning.

A reviewer found a LlamaIndex retriever with a filter returned nothing for a query that
matched no passing passage, silently, where LlamaIndex's own vector store returns the
passing nodes and VizRAG without a filter returns ``top_k`` passages marked unmatched.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.result import UNMATCHED_WARNING
from hyperviz_core.rag.retrieve.filters import FILL_LIMIT

DOCS = [
    Document(id="curie", text="Marie Curie studied radioactivity in Paris.",
             metadata={"author": "Alice"}),
    Document(id="darwin", text="Charles Darwin sailed on the Beagle to the Galapagos.",
             metadata={"author": "Carol"}),
    Document(id="newton", text="Isaac Newton described gravity and optics.",
             metadata={"author": "Carol"}),
    Document(id="turing", text="Alan Turing broke codes at Bletchley Park.",
             metadata={"author": "Carol"}),
]
CAROL = {"filters": [{"key": "author", "value": "Carol"}]}


@pytest.mark.parametrize("mode", ["vizrag", "naive", "text"])
@pytest.mark.parametrize("author", ["Carol", "Alice"])
def test_a_query_no_passing_passage_matches_returns_arbitrary_ones_and_says_so(
        tmp_path: Path, mode: str, author: str) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(DOCS)
        flt = {"filters": [{"key": "author", "value": author}]}
        res = rag.retrieve("xyzzy plugh", mode=mode, top_k=2, render=False, filters=flt)
        passing = sorted(c.id for c in rag.store.chunks() if c.metadata["author"] == author)
        assert [c.chunk_id for c in res.chunks] == passing[:2]  # chunk-id order, as unfiltered
        assert all(c.score == 0 for c in res.chunks)
        assert res.unmatched and UNMATCHED_WARNING in res.warnings


def test_matching_passages_come_first_then_zero_scores_fill_up(tmp_path: Path) -> None:
    """The best match first, then the other passing chunks by score (ties, and chunks
    scoring 0, by chunk id: see the test above); a Carol chunk nothing of the query reaches
    comes last."""
    lone = Document(id="zz", text="Qwerty zxcvb plonk.", metadata={"author": "Carol"})
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([*DOCS, lone])
        res = rag.retrieve("Where did Alan Turing break codes?", top_k=4, render=False,
                           filters=CAROL)
        got = [(c.doc_id, c.score, c.chunk_id) for c in res.chunks]
        assert got[0][0] == "turing" and got[-1][0] == "zz"
        assert [g[0] for g in got] == [g[0] for g in sorted(got, key=lambda g: (-g[1], g[2]))]
        assert sorted(g[0] for g in got) == ["darwin", "newton", "turing", "zz"]
        assert res.chunks[0].score > 0 and not res.unmatched
        assert UNMATCHED_WARNING not in res.warnings


def test_lazy_fills_up_as_loaded_and_reads_no_further_than_the_first_chunks(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The fill comes from the first :data:`FILL_LIMIT` chunks by id: passing chunks beyond
    them that nothing matched are not read (a lazily read store stays unread)."""
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    docs = [Document(id=f"n{i:05d}", text=f"Note {i} about item {i}.")
            for i in range(FILL_LIMIT + 40)]
    VizRAG(tmp_path / "s", show_progress=False).insert(docs)
    loaded = VizRAG(tmp_path / "s", show_progress=False)
    loaded.retriever.lazy = False
    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)
    lazy = VizRAG(tmp_path / "s", show_progress=False)
    ids = sorted(c.id for c in loaded.store.chunks())
    early, late = ids[7:FILL_LIMIT:100], ids[FILL_LIMIT + 5:]

    def key(res: Any) -> list[tuple[str, float]]:
        return [(c.chunk_id, c.score) for c in res.chunks]

    for chosen, query, mode in ((early, "zzzz qqqq", "naive"), (late, "zzzz qqqq", "naive"),
                                (early, "zzzz qqqq", "vizrag"), (late, "Note 1", "vizrag")):
        flt = {"filters": [{"key": "chunk_id", "op": "in", "value": chosen}]}
        got = [v.retrieve(query, mode=mode, top_k=5, render=False, filters=flt)
               for v in (loaded, lazy)]
        assert key(got[0]) == key(got[1]), (query, mode)
        assert all(c.chunk_id in chosen for c in got[0].chunks)
        if chosen is early:
            assert len(got[0].chunks) == 5
        else:  # only what the query reached: no passage of the unread part fills up
            assert all(c.score > 0 for c in got[0].chunks)


def test_llamaindex_retriever_returns_the_passing_nodes(tmp_path: Path) -> None:
    from llama_index.core import Document as LIDocument
    from llama_index.core.vector_stores import MetadataFilter, MetadataFilters

    from vizrag_llamaindex import VizRAGIndex

    index = VizRAGIndex.from_documents(
        [LIDocument(id_=d.id, text=d.text, metadata=d.metadata) for d in DOCS],
        store_dir=str(tmp_path / "li"))
    mf = MetadataFilters(filters=[MetadataFilter(key="author", value="Carol")])
    nodes = index.as_retriever(top_k=2, filters=mf, include_image=False).retrieve("xyzzy")
    assert [n.node.ref_doc_id for n in nodes] == ["darwin", "newton"]
