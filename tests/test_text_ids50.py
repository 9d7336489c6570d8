"""Without rendering (what a text-only model reads), the bottom layer's IDs put the ranked
passages' facts and their members first, then the rest by retrieval score; the answer
prompt lists and describes items by ID, so those facts are described first (stop 50:
:func:`hyperviz_core.rag.retrieve.drawing.text_ids`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from rag_fakes import demo_documents

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.answer import knowledge_listings
from hyperviz_core.rag.prompts import id_number
from hyperviz_core.rag.result import RetrievalResult

Q = "Where did the band form that made the live album Maiden Japan?"


@pytest.fixture(scope="module")
def result(tmp_path_factory: pytest.TempPathFactory) -> RetrievalResult:
    path: Path = tmp_path_factory.mktemp("text-ids")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(0, 40))
        res = rag.retrieve(Q, mode="vizrag", render=False, top_k=2)
    assert res.bottom_view is None and res.top_view is None
    return res


def _ranked(res: RetrievalResult) -> set[str]:
    return {c.chunk_id for c in res.chunks}


def test_ranked_facts_get_the_first_hyperedge_ids_then_by_score(
        result: RetrievalResult) -> None:
    facts = [h for h in result.hyperedges if h.kind != "theme"]
    assert all(h.visual_id for h in facts)
    facts.sort(key=lambda h: id_number(h.visual_id or ""))
    ranked = [bool(_ranked(result) & set(h.source_ids)) for h in facts]
    assert 0 < sum(ranked) < len(ranked)  # both kinds: the order is tested
    assert ranked == sorted(ranked, reverse=True)  # every ranked fact before any other
    for group in (True, False):
        scores = [h.score for h, r in zip(facts, ranked, strict=True) if r is group]
        assert scores == sorted(scores, reverse=True)


def test_members_of_ranked_facts_get_the_first_entity_ids(result: RetrievalResult) -> None:
    members = {m for h in result.hyperedges if h.kind != "theme"
               and _ranked(result) & set(h.source_ids) for m in h.members}
    bottom = sorted((e for e in result.entities if e.layer == "bottom"),
                    key=lambda e: id_number(e.visual_id or ""))
    first = [e.key in members for e in bottom]
    assert 0 < sum(first) < len(first)
    assert first == sorted(first, reverse=True)
    for group in (True, False):
        scores = [e.score for e, f in zip(bottom, first, strict=True) if f is group]
        assert scores == sorted(scores, reverse=True)


def test_the_listing_describes_the_ranked_facts_first(result: RetrievalResult) -> None:
    _, listing = knowledge_listings(result, budget=900)
    lines = listing.splitlines()
    described = [line.split(" ", 1)[0] for line in lines if "]: " in line]
    headed = [line.split(" ", 1)[0] for line in lines if "]: " not in line]
    assert described and headed  # the budget ran out: some facts are named only
    by_id = {h.visual_id: h for h in result.hyperedges if h.visual_id}
    assert all(_ranked(result) & set(by_id[v].source_ids) for v in described)
