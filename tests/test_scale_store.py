"""Issue 17 store side: per-query lookups by index equal the in-memory layers; compact
vectors (float16, only the spaces retrieval reads) read back faithfully; old stores still
read."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from rag_fakes import demo_documents

from hyperviz_core.model import Hypergraph
from hyperviz_core.rag import HashingEmbedder, Indexer, LocalReads
from hyperviz_core.rag.retrieve.subgraph import expand, induced
from hyperviz_core.rag.store import HypergraphStore
from hyperviz_core.rag.store.compact import decode, encode


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> HypergraphStore:
    path = tmp_path_factory.mktemp("scale-store")
    s = HypergraphStore(path)
    Indexer(s, show_progress=False).index(demo_documents(0, 30))
    return s


def _distances(hg: Hypergraph, seeds: list[str], hops: int) -> dict[str, int]:
    dist = {k: 0 for k in seeds if k in hg.entities}
    frontier = set(dist)
    for d in range(1, hops + 1):
        nxt = {m for k in frontier for h in hg.neighbors(k) for m in hg.hyperedges[h].members}
        nxt -= dist.keys()
        dist.update(dict.fromkeys(nxt, d))
        frontier = nxt
    return dist


def _shape(hg: Hypergraph) -> tuple[list[str], dict[str, list[str]]]:
    return sorted(hg.entities), {h: list(e.members) for h, e in sorted(hg.hyperedges.items())}


@pytest.mark.parametrize("layer", ["bottom", "top"])
@pytest.mark.parametrize("hops", [0, 1, 2])
def test_neighbourhood_equals_the_in_memory_layer(store: HypergraphStore, layer: str,
                                                  hops: int) -> None:
    assert isinstance(store, LocalReads)
    full = store.bottom() if layer == "bottom" else store.top()
    rng = random.Random(hops)
    keys = sorted(full.entities)
    for trial in range(6):
        seeds = [*rng.sample(keys, 1 + trial % 3), "no such entity"]
        local = store.neighbourhood(seeds, hops=hops, layer=layer)  # type: ignore[arg-type]
        dist = _distances(full, seeds, hops)
        assert set(dist) <= set(local.entities)
        for key in dist:  # every entity within reach has its full incidence
            assert sorted(local.neighbors(key)) == sorted(full.neighbors(key))
            assert local.entities[key] == full.entities[key]
        for hid, edge in local.hyperedges.items():
            assert edge == full.hyperedges[hid]
        scores = {k: 1.0 - 0.1 * i for i, k in enumerate(seeds) if k in full.entities}
        assert expand(local, scores, hops, 40) == expand(full, scores, hops, 40)
        keep = sorted(dist)[:25]
        assert _shape(induced(local, keep)) == _shape(induced(full, keep))


def test_entity_chunks_and_titles_by_index(store: HypergraphStore) -> None:
    bottom = store.bottom()
    keys = sorted(bottom.entities)[:50]
    got = store.entity_chunks([*keys, "not an entity"])
    assert "not an entity" not in got
    for key in keys:
        assert got[key] == sorted(set(bottom.entities[key].source_ids))
    titles = {d.id: d.title for d in store.documents()}
    assert store.document_titles() == titles
    some = sorted(titles)[:3]
    assert store.document_titles([*some, "nope"]) == {i: titles[i] for i in some}


def test_new_stores_keep_float16_vectors_of_the_read_spaces(store: HypergraphStore) -> None:
    assert store.vector_spaces() == ("entity", "theme", "chunk")
    s = store.stats()
    assert s.vectors["hyperedge"] == 0 and s.vectors["entity"] == s.entities
    blob_len = store._q("SELECT length(vector) FROM embeddings LIMIT 1")[0][0]
    assert blob_len == 2 * HashingEmbedder().dim  # float16
    ids, mat = store.vectors("chunk")
    chunks = {c.id: c for c in store.chunks(ids[:20])}
    emb = HashingEmbedder()
    texts = [f"{chunks[i].metadata['title']}\n{chunks[i].text}" for i in ids[:20]]
    exact = emb.embed(texts)
    assert mat.dtype == np.float32
    assert np.abs(mat[:20] - exact).max() < 2e-3  # float16 rounding only
    assert store.check() == []


def test_a_store_made_before_keeps_float32_and_every_space(tmp_path: Path) -> None:
    path = tmp_path / "old"
    with HypergraphStore(path) as s:
        s._conn.execute("DELETE FROM meta WHERE key IN ('vector_spaces', 'vector_dtype')")
        Indexer(s, show_progress=False).index(demo_documents(0, 3))
        stats = s.stats()
        assert stats.vectors["hyperedge"] == stats.relation_hyperedges > 0
        assert s.check() == []
    conn = sqlite3.connect(path / "vizrag.sqlite")
    (n,) = conn.execute("SELECT length(vector) FROM embeddings LIMIT 1").fetchone()
    conn.close()
    assert n == 4 * HashingEmbedder().dim


def test_decode_reads_both_widths() -> None:
    rows = np.array([[0.25, -0.5, 1.0], [0.1, 0.2, 0.3]], dtype=np.float32)
    blobs = [encode(rows[0], "float16"), encode(rows[1], "float32")]
    assert [len(b) for b in blobs] == [6, 12]
    back = decode(blobs, 3)
    assert back[0].tolist() == [0.25, -0.5, 1.0] and np.allclose(back[1], rows[1])
    assert decode([], 3).shape == (0, 3)
