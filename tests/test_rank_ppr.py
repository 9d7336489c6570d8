"""Hypergraph ranking beyond titles: PPR over the entity–hyperedge incidence graph
(:class:`EntityWalk`), its fusion in ``rank_chunks`` and lead-entity homes of untitled
documents."""

from __future__ import annotations

import numpy as np
import pytest

from hyperviz_core.model import Entity, Hyperedge, Hypergraph
from hyperviz_core.rag.retrieve.chunk_index import ChunkIndex
from hyperviz_core.rag.retrieve.rank import RankWeights, rank_chunks
from hyperviz_core.rag.retrieve.walk import EntityWalk
from hyperviz_core.rag.types import Chunk

# A 3-hop chain with no titles: the song's passage names the singer; the singer's passage
# names his town; the town's passage holds the answer but shares no word with the question
# except "Ontario", which a distractor repeats.
CHUNKS = [
    Chunk(id="c1", doc_id="d1", text="Hello Love is a country song recorded by Hank Snow."),
    Chunk(id="c2", doc_id="d2", text="Hank Snow grew up in Brooklyn, Nova Scotia."),
    Chunk(id="c3", doc_id="d3", text="Brooklyn, Nova Scotia lies on the Atlantic coast; "
          "its mill closed in 1971."),
    Chunk(id="c4", doc_id="d4", text="A mill in Ontario closed when the song of the mill "
          "workers was recorded; the mill town of Ontario."),
    Chunk(id="c5", doc_id="d5", text="The United States has many songs and many mills."),
    Chunk(id="c6", doc_id="d6", text="every singer dreams of fame, and a singer sings."),
]


def _bottom() -> Hypergraph:
    ents = [Entity(name="Hello Love", type="work", source_ids=["c1"]),
            Entity(name="Hank Snow", type="person", source_ids=["c1", "c2"]),
            Entity(name="Brooklyn, Nova Scotia", type="location", source_ids=["c2", "c3"]),
            Entity(name="1971", type="date", source_ids=["c3"]),
            Entity(name="Ontario", type="location", source_ids=["c4"]),
            Entity(name="United States", type="location", source_ids=["c5"])]
    edges = [Hyperedge(members=["hello love", "hank snow"], source_ids=["c1"]),
             Hyperedge(members=["hank snow", "brooklyn, nova scotia"], source_ids=["c2"]),
             Hyperedge(members=["brooklyn, nova scotia", "1971"], source_ids=["c3"])]
    return Hypergraph(entities=ents, hyperedges=edges)


def _walk() -> tuple[EntityWalk, ChunkIndex]:
    index = ChunkIndex(CHUNKS, {}, _bottom())
    assert index.walk is not None
    return index.walk, index


def test_link_names_every_entity_not_only_titles() -> None:
    walk, index = _walk()
    assert walk.link("When did the mill close in the hometown of Hello Love's singer?") == [
        "hello love"]
    assert walk.link("Hank Snow and BROOKLYN, Nova Scotia") == [
        "brooklyn, nova scotia", "hank snow"]
    assert walk.link("in 1971") == []  # bare numbers are never linked
    assert index.link("Hello Love") == ["hello love"]  # lead homes are linked like titles
    assert ChunkIndex(CHUNKS, {}, _bottom(), infer_homes=False).link("Hello Love") == []


def test_pagerank_spreads_along_facts_and_is_deterministic() -> None:
    walk, _ = _walk()
    p = walk.pagerank({"hello love": 1.0})
    assert p.shape == (len(walk.keys),)
    by_key = dict(zip(walk.keys, p.tolist(), strict=True))
    # hello love -> hank snow -> brooklyn -> 1971: mass decays with distance
    assert by_key["hank snow"] > by_key["brooklyn, nova scotia"] > by_key["1971"] > 0
    assert by_key["ontario"] == 0 and by_key["united states"] == 0  # not connected
    np.testing.assert_array_equal(p, walk.pagerank({"hello love": 1.0}))
    scores = walk.chunk_scores({"hello love": 1.0})
    assert scores.shape == (len(CHUNKS),) and scores[2] > 0 and scores[3] == 0


def test_pagerank_without_seeds_or_unknown_seeds_is_zero() -> None:
    walk, _ = _walk()
    assert not walk.pagerank({}).any()
    assert not walk.pagerank({"nobody": 1.0, "hank snow": 0.0}).any()


def test_hub_seed_is_damped() -> None:
    ents = [Entity(name="Hub", source_ids=["c1"])] + [
        Entity(name=f"Leaf {i}", source_ids=["c1"]) for i in range(9)] + [
        Entity(name="Rare", source_ids=["c2"]), Entity(name="Other", source_ids=["c2"])]
    edges = [Hyperedge(members=["hub", f"leaf {i}"], source_ids=["c1"]) for i in range(9)]
    edges.append(Hyperedge(members=["rare", "other"], source_ids=["c2"]))
    walk = EntityWalk(Hypergraph(entities=ents, hyperedges=edges),
                      {"hub": [0], "rare": [1]}, 2)
    p = dict(zip(walk.keys, walk.pagerank({"hub": 1.0, "rare": 1.0}).tolist(), strict=True))
    assert p["rare"] > p["hub"]  # the seed of a 9-fact hub weighs 1/3 of a 1-fact entity


def test_ppr_lifts_the_untitled_bridge_passage() -> None:
    _, index = _walk()
    q = "Where did the singer of Hello Love grow up?"  # c2 shares no word with it
    only = {"home": 0.0, "mention": 0.0, "hyperedge": 0.0, "feedback": 0.0}
    flat = rank_chunks(index, q, weights=RankWeights(ppr=0.0, **only), top_k=6)
    walked = rank_chunks(index, q, weights=RankWeights(ppr=3.0, **only), top_k=6)

    def order(ranked: list) -> list[str]:
        return [index.chunks[s.index].id for s in ranked]

    assert order(flat).index("c2") > order(flat).index("c6")  # lexical distractor first
    ppr = {index.chunks[s.index].id: s.parts["ppr"] for s in walked}
    assert ppr["c1"] == 1.0  # scaled to [0, 1]
    # hello love -> hank snow (c2) -> brooklyn (c3); unconnected chunks get nothing
    assert ppr["c1"] > ppr["c2"] > ppr["c3"] > 0
    assert ppr["c4"] == ppr["c5"] == ppr["c6"] == 0.0
    assert all(s.parts["ppr"] == 0.0 for s in flat)
    gain = {index.chunks[s.index].id: s.score for s in walked}
    base = {index.chunks[s.index].id: s.score for s in flat}
    assert gain["c2"] > base["c2"] and gain["c6"] == base["c6"]
    fused = rank_chunks(index, q, top_k=6)  # default weights: ppr with the other evidence
    assert order(fused)[:2] == ["c1", "c2"]
    assert fused == rank_chunks(index, q, top_k=6)  # deterministic


def test_graph_weight_zero_switches_ppr_off() -> None:
    _, index = _walk()
    flat = rank_chunks(index, "Hello Love", weights=RankWeights(graph=0.0), top_k=5)
    assert all(s.parts["ppr"] == 0.0 and s.score == s.parts["bm25"] for s in flat)


def test_no_bottom_layer_means_no_walk() -> None:
    index = ChunkIndex(CHUNKS, {}, None)
    assert index.walk is None
    assert rank_chunks(index, "Hello Love", top_k=2)[0].parts["ppr"] == 0.0


def test_lead_entity_is_the_home_of_an_untitled_document() -> None:
    _, index = _walk()
    assert index.home["hello love"] == [0]
    assert index.home["hank snow"] == [1]
    assert index.home["brooklyn, nova scotia"] == [2]
    assert "1971" not in index.home  # dates and quantities never become homes
    titled = ChunkIndex(CHUNKS, {"d2": "Hank Snow (singer)"}, _bottom())
    assert titled.home["hank snow"] == [1]  # from the title
    assert "hello love" in titled.home  # the untitled ones still get a lead home
    off = ChunkIndex(CHUNKS, {}, _bottom(), infer_homes=False)
    assert off.home == {}


@pytest.mark.parametrize("damping", [0.0, 0.5, 0.9])
def test_damping_bounds(damping: float) -> None:
    walk, _ = _walk()
    p = walk.pagerank({"hello love": 1.0}, damping=damping)
    assert p.min() >= 0 and p.sum() <= 1.0 + 1e-9
    if damping == 0.0:
        assert np.count_nonzero(p) == 1  # no walk: the seed only
