"""Lazy retrieval (issue 17): a query reads only what it needs, with the full path's results.

The reference is the full in-memory path (``Retriever.lazy = False``: both layers, every
chunk, ``bm25s`` over all of them); the lazy path must return the same ranked chunks (ids,
scores, evidence, supporting entities), entities, hyperedges and anchors — and never load a
whole layer, every chunk or every document.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hyperviz_core.rag import Document, HypergraphStore, VizRAG
from hyperviz_core.rag.retrieve.chunk_index import ChunkIndex
from hyperviz_core.rag.retrieve.layer_index import IndexedLayer
from hyperviz_core.rag.retrieve.lazy import CorpusView, LazyCorpus
from hyperviz_core.rag.retrieve.lazy_layer import StoreLayer
from hyperviz_core.rag.retrieve.lexical import bm25_scores, passage_tokens, query_tokens
from hyperviz_core.rag.retrieve.state import Corpus
from hyperviz_core.rag.retrieve.subgraph import expand, induced

QUESTIONS = [
    "How many Publix stores are in the state that borders the east of the state where "
    "Hello Love's performer lived in when he died?",
    "Who is the wife of Kim Jong-chul?",
    "What is the capital of Tennessee?",
    "When was the singer of Hello Love born?",
    "Which river forms the western border of the state?",
    "the of and",  # stop words only: no BM25 candidate at all
]
MODES = ["vizrag", "hyper-lite", "naive", "text"]
DATA = Path(__file__).parent / "data"


class NoWholeReads(HypergraphStore):
    """A store that fails a query reading a whole layer, every chunk or every document."""

    def bottom(self) -> Any:
        raise AssertionError("a query loaded the whole bottom layer")

    def top(self) -> Any:
        raise AssertionError("a query loaded the whole top layer")

    def chunks(self, ids: Any = None) -> Any:
        if ids is None:
            raise AssertionError("a query read every chunk")
        return super().chunks(ids)

    def documents(self, ids: Any = None) -> Any:
        raise AssertionError("a query read every document")

    def document_titles(self, ids: Any = None) -> Any:
        raise AssertionError("a query read every document title")


def _docs(data_dir: Path, untitled: bool = False) -> list[Document]:
    passages = json.loads((data_dir / "musique_sample.json").read_text())
    return [Document(id=f"p{p['idx']:04d}", text=p["text"],
                     title="" if untitled else p["title"]) for p in passages]


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("lazy") / "store"
    VizRAG(path, show_progress=False).insert(_docs(DATA))
    return path


def _key(res: Any) -> dict[str, Any]:
    return {
        "chunks": [(c.chunk_id, c.score, c.evidence, c.entities, c.title, c.text)
                   for c in res.chunks],
        "entities": [(e.key, e.score, e.role, e.visual_id, e.layer) for e in res.entities],
        "hyperedges": [(h.id, h.score, h.members, h.visual_id) for h in res.hyperedges],
        "anchors": res.anchors, "keywords": res.keywords, "located": res.located,
    }


def _compare(store: Any, questions: list[str], modes: list[str]) -> int:
    full = VizRAG(store, show_progress=False)
    full.retriever.lazy = False
    lazy = VizRAG(store, show_progress=False)
    compared = 0
    for mode in modes:
        for q in questions:
            want = _key(full.retrieve(q, mode=mode, render=False))
            got = _key(lazy.retrieve(q, mode=mode, render=False))
            assert got == want, (mode, q)
            compared += 1
    assert isinstance(lazy.retriever.query_corpus(), LazyCorpus)
    return compared


def test_lazy_equals_full_every_mode(store_dir: Path) -> None:
    assert _compare(store_dir, QUESTIONS, MODES) == len(QUESTIONS) * len(MODES)


def test_lazy_equals_full_untitled_and_top_k(tmp_path: Path, data_dir: Path) -> None:
    """Untitled passages (homes inferred from the opening entity) and a top-k larger than
    the chunks with any evidence (zero-score chunks fill by id, as in the full index)."""
    rag = VizRAG(tmp_path / "s", show_progress=False)
    rag.insert(_docs(data_dir, untitled=True)[:12])
    full = VizRAG(tmp_path / "s", show_progress=False)
    full.retriever.lazy = False
    for q in QUESTIONS:
        for top_k in (3, 30):
            want = _key(full.retrieve(q, top_k=top_k, render=False))
            assert _key(rag.retrieve(q, top_k=top_k, render=False)) == want
    n_chunks = len(rag.store.chunk_ids())
    assert len(rag.retrieve(QUESTIONS[-1], top_k=30, render=False).chunks) == min(30, n_chunks)


def test_query_never_loads_whole_layers(store_dir: Path) -> None:
    store = NoWholeReads(store_dir)
    rag = VizRAG(store, show_progress=False)
    for mode in MODES:
        for q in QUESTIONS:
            res = rag.retrieve(q, mode=mode, render=False)
            assert res.chunks or q == QUESTIONS[-1]
    store.close()


def test_bm25_over_candidates_is_bitwise_the_full_index(data_dir: Path) -> None:
    docs = _docs(data_dir)
    texts = [f"{d.title}\n{d.text}" for d in docs]
    from hyperviz_core.rag.types import Chunk

    index = ChunkIndex([Chunk(id=d.id, doc_id=d.id, text=d.text) for d in docs],
                       {d.id: d.title for d in docs}, None, link_names=False)
    toks = passage_tokens([index.passage_text(i) for i in range(len(index))])
    avg = sum(map(len, toks)) / len(toks)
    for q in QUESTIONS:
        full = index.bm25(q)
        cand = [i for i, t in enumerate(toks) if set(t) & set(query_tokens(q))]
        part = bm25_scores(query_tokens(q), [toks[i] for i in cand], len(toks), avg)
        mine = np.zeros(len(toks))
        mine[cand] = part
        assert np.array_equal(mine, full), q
    assert texts  # the passages were non-empty


def test_layers_by_lookup_expand_like_the_loaded_layer(store_dir: Path) -> None:
    """``expand``/``induced`` over the SQL-only layer (StoreLayer) and the integer-array
    layer (IndexedLayer) equal those over the loaded layer, hubs included (small caps)."""
    store = HypergraphStore(store_dir, read_only=True)
    bottom, top = store.bottom(), store.top()
    view = CorpusView(store)
    rng = np.random.default_rng(3)
    for layer_name, full in (("bottom", bottom), ("top", top)):
        keys = sorted(full.entities)
        for _ in range(15):
            seeds = {str(k): float(rng.random()) for k in rng.choice(keys, 4, replace=False)}
            for hops, cap in ((1, 3), (1, 8), (2, 30)):
                want = expand(full, seeds, hops, cap)
                for lazy in (StoreLayer(store, layer_name),  # type: ignore[arg-type]
                             IndexedLayer(view.layer_index(layer_name), store)):
                    got = expand(lazy, seeds, hops, cap)
                    assert got == want
                    assert list(got[0]) == list(want[0])  # same order too
                    assert induced(lazy, got[0]).to_hif() == induced(full, got[0]).to_hif()
    store.close()


def test_writes_keep_the_text_index_in_sync(tmp_path: Path, data_dir: Path) -> None:
    docs = _docs(data_dir)
    rag = VizRAG(tmp_path / "s", show_progress=False)
    rag.insert(docs[:10])
    q = "What is the capital of Tennessee?"
    rag.retrieve(q, render=False)  # builds the full-text index
    rag.insert(docs[10:])  # the triggers index the new chunks
    rag.delete(docs[0].id)
    replaced = docs[1].model_copy(update={"text": docs[1].text + " Tennessee capital."})
    rag.insert([replaced])  # same id, new text: replaced in one transaction
    full = VizRAG(tmp_path / "s", show_progress=False)
    full.retriever.lazy = False
    for question in QUESTIONS:
        assert _key(rag.retrieve(question, render=False)) == _key(
            full.retrieve(question, render=False))
    conn = sqlite3.connect(tmp_path / "s" / "vizrag.sqlite")
    n_fts = conn.execute("SELECT COUNT(*) FROM vizrag_chunk_fts").fetchone()[0]
    n_chunks = conn.execute("SELECT COUNT(*) FROM chunks").fetchone()[0]
    conn.close()
    assert n_fts == n_chunks


def test_dropped_index_is_rebuilt_and_read_only_falls_back(tmp_path: Path,
                                                           data_dir: Path) -> None:
    rag = VizRAG(tmp_path / "s", show_progress=False)
    rag.insert(_docs(data_dir)[:8])
    q = QUESTIONS[2]
    first = _key(rag.retrieve(q, render=False))
    rag.close()
    conn = sqlite3.connect(tmp_path / "s" / "vizrag.sqlite")
    conn.execute("DROP TABLE vizrag_chunk_fts_inst")
    conn.execute("DROP TABLE vizrag_chunk_fts")
    conn.commit()
    conn.close()
    ro = HypergraphStore(tmp_path / "s", read_only=True)
    fallback = VizRAG(ro, show_progress=False)
    assert isinstance(fallback.retriever.query_corpus(), Corpus)  # no index: full path
    assert _key(fallback.retrieve(q, render=False)) == first
    ro.close()
    again = VizRAG(tmp_path / "s", show_progress=False)
    assert isinstance(again.retriever.query_corpus(), LazyCorpus)  # rebuilt on first use
    assert _key(again.retrieve(q, render=False)) == first
