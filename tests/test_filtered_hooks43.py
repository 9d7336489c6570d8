"""Under a filter, the ``themes`` stage event names only themes all of whose chunks pass,
and the ``top_view`` event counts what the view may show. A reviewer found the themes
event listed 7 theme ids, 5 of them of other tenants' chunks only, and ``top_view``
reported the unfiltered 40 entities and 11 hyperedges beside a view of 11 and 4."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hyperviz_core.rag import Document, VizRAG

DOCS = [
    Document(id="a1", title="Falcon Robotics", text="Falcon Robotics acquired Nightshade Labs "
             "for $900 million in 2021. Falcon Robotics CEO Veronica Stahl announced the "
             "Zephyrine project in Berlin.", metadata={"tenant": "acme"}),
    Document(id="a2", title="Nightshade Labs", text="Nightshade Labs was founded by Veronica "
             "Stahl in Berlin. Nightshade Labs built the Zephyrine chip.",
             metadata={"tenant": "acme"}),
    Document(id="g1", title="Falcon Robotics", text="Falcon Robotics builds warehouse robots "
             "in Ohio. Falcon Robotics sells robots to Walmart and Target.",
             metadata={"tenant": "globex"}),
    Document(id="g2", title="Ohio", text="Ohio is a state in the Midwest. Columbus is the "
             "capital of Ohio. Falcon Robotics has a plant in Columbus.",
             metadata={"tenant": "globex"}),
]


def test_theme_and_view_events_show_only_the_passing_tenant(tmp_path: Path) -> None:
    events: list[tuple[str, str, dict[str, Any]]] = []
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(DOCS)
        tenant_of = {d.id: d.metadata["tenant"] for d in rag.store.documents()}
        doc_of = rag.store.chunk_doc_ids()
        theme_chunks = rag.store.theme_hyperedge_chunks()
        res = rag.retrieve("What did Nightshade Labs build in Berlin?", render=True,
                           filters={"tenant": "globex"},
                           hooks=[lambda n, p, pl: events.append((n, p, pl))])
        unfiltered: list[str] = []
        rag.retrieve("What did Nightshade Labs build in Berlin?", render=False, hooks=[
            lambda n, p, pl: unfiltered.extend(pl["themes"]) if n == "themes" and p == "end"
            else None])
    themes = next(pl["themes"] for n, p, pl in events if n == "themes" and p == "end")
    assert {tenant_of[doc_of[c]] for t in themes for c in theme_chunks[t]} <= {"globex"}
    assert any(tenant_of[doc_of[c]] == "acme" for t in unfiltered for c in theme_chunks[t])
    top = next(pl for n, p, pl in events if n == "top_view" and p == "end")
    assert res.top_view is not None
    assert top["entities"] == len(res.top_view.export["entities"])
    assert top["hyperedges"] == len(res.top_view.export["hyperedges"])
    assert top["render_hyperedges_limited"] is False  # 4 themes: no limit reached
