"""Each drawn view carries the text of its hyperedges' source chunks, so the HTML viewer
shows the evidence of every hyperedge clicked. A reviewer found I_top's themes never had
it and a third of I_bot's facts showed "(chunk text not included in this export)": only
the ranked passages were given."""

from __future__ import annotations

from pathlib import Path

from rag_fakes import demo_documents

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve.evidence import EVIDENCE_CHUNKS


def test_every_drawn_hyperedge_has_its_evidence(tmp_path: Path) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(demo_documents(0, 30))
        res = rag.retrieve("Where was LaserDisc developed?", render=True)
        texts = {c.id: c.text for c in rag.store.chunks()}
    for view in (res.top_view, res.bottom_view):
        assert view is not None
        given = view.export["chunks"]
        sources = {s for h in view.export["hyperedges"] for s in h["source_ids"]}
        assert sources and len(sources) <= EVIDENCE_CHUNKS
        assert sources <= set(given)
        assert all(given[c] == texts[c] for c in given)
    assert {c.chunk_id for c in res.chunks} <= set(res.bottom_view.export["chunks"])


def test_a_filtered_view_carries_no_excluded_text(tmp_path: Path) -> None:
    docs = [Document(id="a", text="Ada Lovelace met Charles Babbage in London in 1833.",
                     metadata={"team": "a"}),
            Document(id="b", text="Ada Lovelace sold the secret Zephyr plans in London.",
                     metadata={"team": "b"})]
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(docs)
        res = rag.retrieve("Ada Lovelace London", render=True,
                           filters={"key": "team", "value": "a"})
    for view in (res.top_view, res.bottom_view):
        if view is not None:
            assert "Zephyr" not in str(view.export.get("chunks", {}))
