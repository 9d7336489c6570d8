"""Retrieval pipeline (paper §4.2): stages, fakes that record images, modes, edge cases."""

from __future__ import annotations

import hashlib
import logging
import re
from pathlib import Path

import pytest
from rag_fakes import PNG_MAGIC, ParrotChat, demo_documents

from hyperviz_core.model import Entity, Hyperedge, Hypergraph
from hyperviz_core.rag.engine import VizRAG
from hyperviz_core.rag.result import RetrievalResult
from hyperviz_core.rag.retrieve import MODES, UnknownModeError
from hyperviz_core.rag.retrieve.chunk_index import ChunkIndex, title_keys
from hyperviz_core.rag.retrieve.rank import RankWeights, rank_chunks
from hyperviz_core.rag.retrieve.subgraph import expand
from hyperviz_core.rag.types import Chunk

Q = "Where did the band form that made the live album Maiden Japan?"
GOLD = {"m1264", "m1267"}  # Maiden Japan, Iron Maiden


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("store")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(0, 20))
    return path


def _ids_in(text: str) -> set[str]:
    return set(re.findall(r"\bE\d+\b", text))


def test_offline_vizrag_returns_ranked_chunks_and_two_renderings(store_dir: Path) -> None:
    with VizRAG(store_dir, show_progress=False) as rag:
        res = rag.retrieve(Q, render=True)
    assert res.mode == "vizrag" and len(res.chunks) == 5
    assert [c.rank for c in res.chunks] == [1, 2, 3, 4, 5]
    assert [c.score for c in res.chunks] == sorted((c.score for c in res.chunks), reverse=True)
    assert {c.doc_id for c in res.chunks[:3]} >= GOLD
    assert res.top_view is not None and res.bottom_view is not None
    assert res.top_view.png.startswith(PNG_MAGIC) and res.bottom_view.png.startswith(PNG_MAGIC)
    assert res.located, "the offline locator names rendered entities"
    assert set(res.located) <= set(res.top_view.id_map().values())
    for stage in ("load", "keywords", "themes", "top_view", "locate", "bottom_entities",
                  "bottom_view", "rank", "total"):
        assert stage in res.timings
    assert res.prompts == [] and res.answer is None
    bottom_ids = {e["id"] for e in res.bottom_view.export["entities"]}
    assert {e.visual_id for e in res.entities if e.layer == "bottom" and e.visual_id} \
        <= bottom_ids


def test_parrot_sees_i_top_as_png_and_ids_match_the_idmap(store_dir: Path) -> None:
    chat = ParrotChat()
    with VizRAG(store_dir, chat=chat, show_progress=False) as rag:
        res = rag.retrieve(Q)
    assert [c["stage"] for c in chat.calls] == ["keywords", "locate"]
    assert chat.by_stage("keywords")[0]["images"] == []
    assert res.keywords == ["Where", "Maiden Japan"] or "Maiden Japan" in res.keywords
    locate = chat.by_stage("locate")[0]
    assert len(locate["images"]) == 1 and locate["images"][0].startswith(PNG_MAGIC)
    assert res.top_view is not None
    assert locate["images"][0] == res.top_view.png
    sha = hashlib.sha256(locate["images"][0]).hexdigest()
    assert res.prompts[1].images == [sha] == [res.top_view.sha256]
    id_map = res.top_view.id_map()
    named = _ids_in(locate["prompt"])
    assert named and named <= set(id_map)
    first_two = re.findall(r"\bE\d+\b", locate["prompt"].split("Themes and entities shown:")[1])
    expected = [id_map[v] for v in list(dict.fromkeys(first_two))[:2]]
    assert res.located == expected
    assert set(expected) <= set(res.anchors)


def test_locate_answer_with_unknown_ids_is_filtered_and_logged(
    store_dir: Path, caplog: pytest.LogCaptureFixture
) -> None:
    chat = ParrotChat(locate_answer='{"entities": ["E999", "E1", "H2", "E4242"]}')
    with caplog.at_level(logging.WARNING), VizRAG(store_dir, chat=chat,
                                                  show_progress=False) as rag:
        res = rag.retrieve(Q)
    assert res.top_view is not None
    assert res.located == [res.top_view.id_map()["E1"]]
    assert any("E999" in w and "E4242" in w for w in res.warnings)
    assert "E999" in caplog.text


@pytest.mark.parametrize("garbage", ["no idea, sorry", "", "{\"entities\": [", "E", "[[[]]]",
                                     "E999 [1]"])
def test_garbage_locate_answer_falls_back_to_offline_locator(store_dir: Path,
                                                             garbage: str) -> None:
    """An answer naming no entity ID of I_top is treated like a failed model: the offline
    locator picks the entities (anchoring on none would lose the located anchors)."""
    from hyperviz_core.cli.query import locator_note

    with VizRAG(store_dir, chat=ParrotChat(fail_stage="locate"), show_progress=False) as rag:
        offline = rag.retrieve(Q)
    with VizRAG(store_dir, chat=ParrotChat(locate_answer=garbage), show_progress=False) as rag:
        res = rag.retrieve(Q)
    assert res.located == offline.located and res.located
    assert any("no known entity ID" in w for w in res.warnings)
    assert locator_note(res)["kind"] == "offline-structural"
    assert "named no entity ID" in locator_note(res)["description"]
    assert [c.chunk_id for c in res.chunks] == [c.chunk_id for c in offline.chunks]


def test_locate_answer_ids_beside_a_citation_are_read(store_dir: Path) -> None:
    """A JSON-looking citation (``[1]``) beside the IDs does not hide them."""
    with VizRAG(store_dir, chat=ParrotChat(locate_answer="E1 and E3 [1]"),
                show_progress=False) as rag:
        res = rag.retrieve(Q)
    assert res.top_view is not None
    ids = res.top_view.id_map()
    assert res.located == [ids["E1"], ids["E3"]]
    assert not any("no known entity ID" in w for w in res.warnings)


def test_provider_failure_falls_back_to_offline_stages(store_dir: Path) -> None:
    with VizRAG(store_dir, chat=ParrotChat(fail_stage="keywords"), show_progress=False) as rag:
        res = rag.retrieve(Q, render=False)
    assert "Maiden Japan" in res.keywords
    assert any("keyword model failed" in w for w in res.warnings)
    assert res.chunks and [p.stage for p in res.prompts] == ["locate"]
    with VizRAG(store_dir, chat=ParrotChat(fail_stage="locate"), show_progress=False) as rag:
        res = rag.retrieve(Q, render=False)
    assert any("locate model failed" in w for w in res.warnings)
    assert res.located, "the offline locator steps in"


def test_text_mode_sends_no_images_anywhere(store_dir: Path) -> None:
    chat = ParrotChat()
    with VizRAG(store_dir, chat=chat, show_progress=False) as rag:
        res = rag.query(Q, mode="text")
    assert [c["stage"] for c in chat.calls] == ["keywords", "locate", "answer"]
    assert all(c["images"] == [] for c in chat.calls)
    assert res.top_view is None and res.bottom_view is None
    assert "hypergraph drawing" not in chat.calls[1]["prompt"]
    assert res.located and res.answer_kind == "llm"
    assert all(p.images == [] for p in res.prompts)


def test_hyper_lite_and_naive_modes(store_dir: Path) -> None:
    with VizRAG(store_dir, show_progress=False) as rag:
        lite = rag.retrieve(Q, mode="hyper-lite", render=True)  # offline: opt-in render
        naive = rag.retrieve(Q, mode="naive", top_k=3)
    assert lite.top_view is None and lite.bottom_view is not None and lite.anchors == []
    assert lite.chunks and any(e.role == "related" for e in lite.entities)
    assert len(naive.chunks) == 3 and naive.entities == [] and naive.keywords == []
    assert all(c.evidence["bm25"] == 0.0 or c.evidence["vector"] > 0 for c in naive.chunks)


def test_unknown_mode_is_a_clear_error(store_dir: Path) -> None:
    with VizRAG(store_dir, show_progress=False) as rag, \
            pytest.raises(UnknownModeError) as err:
        rag.retrieve(Q, mode="hyper")
    for mode in MODES:
        assert mode in str(err.value)
    with pytest.raises(UnknownModeError):
        VizRAG(store_dir, mode="graph")


def test_empty_store_and_empty_query(tmp_path: Path) -> None:
    with VizRAG(tmp_path / "empty", show_progress=False) as rag:
        res = rag.retrieve(Q)
        assert res.chunks == [] and res.warnings == [
            "the store is empty (nothing indexed; VizRAG(path) creates a store where none is: "
            "pass must_exist=True to refuse a path without one)"]
        assert rag.query(Q).answer_kind == "extractive"
    with VizRAG(tmp_path / "empty", chat=ParrotChat(), show_progress=False) as rag:
        assert rag.retrieve("   ").warnings == ["empty query"]


def test_result_json_round_trip(store_dir: Path) -> None:
    with VizRAG(store_dir, chat=ParrotChat(), show_progress=False) as rag:
        res = rag.query(Q)
    text = res.model_dump_json()
    back = RetrievalResult.model_validate_json(text)
    assert back == res
    assert back.bottom_view is not None and back.bottom_view.png.startswith(PNG_MAGIC)
    assert back.to_json() == res.to_json()


def test_switches_change_the_renderings(store_dir: Path) -> None:
    with VizRAG(store_dir, show_progress=False) as rag:
        single = rag.retrieve(Q, dual_view=False, render=True)
        no_render = rag.retrieve(Q, render=False)
    assert single.bottom_view is not None and single.bottom_view.layouts == ["set-force"]
    assert no_render.top_view is None and no_render.bottom_view is None
    assert [c.chunk_id for c in no_render.chunks][:2] == [c.chunk_id for c in single.chunks][:2]


async def test_async_retrieve_matches_sync(store_dir: Path) -> None:
    with VizRAG(store_dir, chat=ParrotChat(), show_progress=False) as rag:
        a = await rag.aretrieve(Q, render=False)
        b = rag.retrieve(Q, render=False)
    assert [c.chunk_id for c in a.chunks] == [c.chunk_id for c in b.chunks]
    assert a.located == b.located


def test_expand_is_bounded_and_deterministic() -> None:
    ents = [Entity(name=f"n{i}") for i in range(30)]
    edges = [Hyperedge(id=f"h{i}", members=["n0", f"n{i}", f"n{(i + 1) % 30}"])
             for i in range(1, 30)]
    hg = Hypergraph(entities=ents, hyperedges=edges)
    e1, h1 = expand(hg, {"n0": 1.0}, hops=2, max_entities=7)
    e2, h2 = expand(hg, {"n0": 1.0}, hops=2, max_entities=7)
    assert e1 == e2 and h1 == h2
    assert len(e1) <= 7 and "n0" in e1
    assert all(all(m in e1 for m in hg.hyperedges[h].members) for h in h1)


def test_rank_home_evidence_lifts_the_bridge_passage() -> None:
    chunks = [Chunk(id="c1", doc_id="d1", text="Hello Love is a song by Hank Snow."),
              Chunk(id="c2", doc_id="d2", text="He was a country singer who died in Madison."),
              Chunk(id="c3", doc_id="d3", text="Goodbye is a song; hello is a word.")]
    titles = {"d1": "Hello Love (song)", "d2": "Hank Snow", "d3": "Goodbye"}
    hg = Hypergraph(entities=[Entity(name="Hello Love", source_ids=["c1"]),
                              Entity(name="Hank Snow", source_ids=["c1"])],
                    hyperedges=[Hyperedge(members=["hello love", "hank snow"],
                                          source_ids=["c1"])])
    index = ChunkIndex(chunks, titles, hg)
    assert title_keys("Hello Love (song)") == ["hello love (song)", "hello love"]
    q = "Where did the performer of Hello Love die?"
    flat = rank_chunks(index, q, weights=RankWeights(graph=0.0), top_k=3)
    assert [index.chunks[s.index].id for s in flat][1] == "c3"
    fused = rank_chunks(index, q, query_entities=index.link(q), top_k=3)
    assert [index.chunks[s.index].id for s in fused][:2] == ["c1", "c2"]
    assert fused[1].parts["graph"] > 0 and "hank snow" in fused[1].entities
