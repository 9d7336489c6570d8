"""A lone piece's passages are scanned for once per query term list, not once per pair
(stop 58): the query ``猫`` is read as ``猫`` and the stored pairs holding it (``小猫``,
``猫是`` ...), and a passage holds one of them only if it holds ``猫``, so the lazy SQLite
path's substring scan looks for the shortest ones alone (``fts._shortest``; timings in
README: ``benchmarks/lone_piece_bench.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_cjk_bm25 import assert_lazy_equals_loaded

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.store.sqlite.fts import _shortest

_CHARS = st.text(alphabet="小猫是狗熊a", min_size=0, max_size=4)


@settings(max_examples=300, deadline=None)
@given(st.lists(_CHARS, max_size=8), st.text(alphabet="小猫是狗熊a\n", max_size=30))
def test_a_text_holds_a_substring_exactly_when_it_holds_a_shortest_one(
        substrings: list[str], text: str) -> None:
    kept = _shortest(substrings)
    assert any(s in text for s in substrings if s) == any(s in text for s in kept)
    assert kept == sorted(set(kept)) and set(kept) <= set(substrings)


def test_lone_pieces_rank_alike_lazily_and_loaded(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A piece held in a title only, in a passage only, in pairs of both kinds: the lazy
    path (the scan) ranks as the loaded store does."""
    docs = [Document(id="t", title="小猫的故事", text="这是一个关于动物的故事。"),
            Document(id="p", text="熊猫住在山里，吃竹子。"),
            Document(id="q", text="猫是很可爱的动物，小狗也是。"),
            Document(id="r", text="The cat sat on the mat.")]
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)  # lazy from the first chunk
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(docs)
    assert_lazy_equals_loaded(tmp_path / "s", ["猫", "狗", "故", "猫 狗", "熊 cat"])
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.retriever.lazy = True
        found = rag.retrieve("猫", mode="vizrag", render=False)
    assert {c.doc_id for c in found.chunks if "猫" in c.text or c.doc_id == "t"} >= {
        "t", "p", "q"}
