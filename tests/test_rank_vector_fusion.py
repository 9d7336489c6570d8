"""Fusion of chunk-vector cosines with BM25 and graph evidence in ``rank_chunks``: the
cosines are min-max scaled over the chunks the vector search returned (relative-score
fusion), so the last of the vector top-k adds nothing over a chunk the search missed."""

from __future__ import annotations

import pytest

from hyperviz_core.rag.retrieve.chunk_index import ChunkIndex
from hyperviz_core.rag.retrieve.rank import RankWeights, rank_chunks
from hyperviz_core.rag.types import Chunk

CHUNKS = [
    Chunk(id="c1", doc_id="d1", text="The rabbit left the rabbit warren at dawn."),
    Chunk(id="c2", doc_id="d2", text="A fox waited by the hedge."),
    Chunk(id="c3", doc_id="d3", text="An owl watched the barn all night long."),
    Chunk(id="c4", doc_id="d4", text="Far away, beyond the hills and the river and the old "
          "mill, a rabbit was seen once by the miller's youngest daughter."),
]
# what a vector search with chunk_vector_k = 3 returned (MiniLM-like bunched cosines)
COSINES = {"c1": 0.60, "c2": 0.55, "c3": 0.50}


def _ranked(weights: RankWeights, query: str = "rabbit") -> dict[str, tuple[int, dict[str, float]]]:
    index = ChunkIndex(CHUNKS, {}, None)
    out = rank_chunks(index, query, vector_scores=COSINES, weights=weights, top_k=4)
    return {index.chunks[sc.index].id: (rank, sc.parts) for rank, sc in enumerate(out)}


def test_fused_cosines_are_min_max_scaled_over_the_returned_chunks() -> None:
    got = _ranked(RankWeights(vector=1.0, graph=0.0))
    assert got["c1"][1]["vector"] == 1.0
    assert got["c2"][1]["vector"] == pytest.approx(0.5)
    assert got["c3"][1]["vector"] == 0.0  # the last returned = not returned
    assert got["c4"][1]["vector"] == 0.0


def test_lexical_evidence_beats_the_tail_of_the_vector_top_k() -> None:
    got = _ranked(RankWeights(vector=1.0, graph=0.0))
    assert got["c4"][1]["bm25"] > 0
    # scaled by the maximum only, c3 would score 0.5 / 0.6 = 0.83 and pass c4's weaker BM25
    assert got["c4"][0] < got["c3"][0]
    assert next(c for c, (r, _) in got.items() if r == 0) == "c1"


def test_vector_only_ranking_keeps_max_scaling() -> None:
    got = _ranked(RankWeights(bm25=0.0, vector=1.0, graph=0.0, feedback=0.0))
    assert got["c3"][1]["vector"] == pytest.approx(0.5 / 0.6, abs=1e-6)
    assert [c for c, _ in sorted(got.items(), key=lambda kv: kv[1][0])][:3] == ["c1", "c2", "c3"]


def test_equal_cosines_all_count_fully() -> None:
    index = ChunkIndex(CHUNKS, {}, None)
    out = rank_chunks(index, "owl", vector_scores={"c2": 0.4, "c3": 0.4},
                      weights=RankWeights(vector=1.0, graph=0.0), top_k=4)
    parts = {index.chunks[sc.index].id: sc.parts["vector"] for sc in out}
    assert parts["c2"] == parts["c3"] == 1.0


def test_max_scaling_is_the_ablation() -> None:
    got = _ranked(RankWeights(vector=1.0, graph=0.0, vector_scaling="max"))
    assert got["c3"][1]["vector"] == pytest.approx(0.5 / 0.6, abs=1e-6)
    assert got["c3"][0] < got["c4"][0]  # the tail of the vector top-k jumps the BM25 hit
