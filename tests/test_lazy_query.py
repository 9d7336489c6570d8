"""Lazy retrieval (issue 17): a query reads only what it needs, with the full path's results.

The reference is the full in-memory path (``Retriever.lazy = False``: both layers, every
chunk, ``bm25s`` over all of them); the lazy path must return the same ranked chunks (ids,
scores, evidence, supporting entities), entities, hyperedges and anchors — and never load a
whole layer, every chunk or every document.
"""

from __future__ import annotations

import asyncio
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
from hyperviz_core.rag.retrieve.lexical import bm25_scores, passage_tokens, query_tokens
from hyperviz_core.rag.retrieve.state import Corpus
from hyperviz_core.rag.retrieve.subgraph import expand, induced
from hyperviz_core.rag.store.sqlite.fts import FTS_TABLE, LENGTHS

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


class WholeReadsFail:
    """Mixed into a store class: a query reading a whole layer, every chunk or every
    document fails (both backends' tests)."""

    def bottom(self) -> Any:
        raise AssertionError("a query loaded the whole bottom layer")

    def top(self) -> Any:
        raise AssertionError("a query loaded the whole top layer")

    def chunks(self, ids: Any = None) -> Any:
        if ids is None:
            raise AssertionError("a query read every chunk")
        return super().chunks(ids)  # type: ignore[misc]

    def documents(self, ids: Any = None) -> Any:
        raise AssertionError("a query read every document")

    def document_titles(self, ids: Any = None) -> Any:
        raise AssertionError("a query read every document title")


class NoWholeReads(WholeReadsFail, HypergraphStore):
    """The SQLite store, failing a query that reads a whole layer or every chunk."""


@pytest.fixture(autouse=True)
def _always_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    """These stores are small: make the default (auto) read lazily from the first chunk."""
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)


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


def query_every_mode(store: Any) -> None:
    """Ask every question in every mode (a :class:`WholeReadsFail` store fails a query that
    reads a whole layer or every chunk); every question but the stop words finds chunks."""
    rag = VizRAG(store, show_progress=False)
    for mode in MODES:
        for q in QUESTIONS:
            res = rag.retrieve(q, mode=mode, render=False)
            assert res.chunks or q == QUESTIONS[-1]
    store.close()


def test_query_never_loads_whole_layers(store_dir: Path) -> None:
    query_every_mode(NoWholeReads(store_dir))


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
    """``expand``/``induced`` over the integer-array layer (IndexedLayer) equal those over
    the loaded layer, hubs included (small caps)."""
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
                lazy = IndexedLayer(view.layer_index(layer_name), store)
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
    n_fts = conn.execute(f"SELECT COUNT(*) FROM {FTS_TABLE}").fetchone()[0]
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
    conn.execute(f"DROP TABLE {FTS_TABLE}_inst")
    conn.execute(f"DROP TABLE {FTS_TABLE}")
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


# Passages of a book (from tests/test_novel_rank_lexicon.py): the questions below misspell
# names ("Hypseus", "Aschenbrodel"), inflect a word differently ("apprenticed") or ask for
# words only ``_italic_`` markup holds ("vagans"): query repair and the underscore split
# must act the same on both paths.
BOOK = [
    "Creüsa was a Naïad, the mother of Hypseas, king of the Lapithae, by Peneus.",
    "The father of the hero was a king; his father and his father's father ruled Thessaly.",
    "Louis is only an apprentice to old Carbut the baker, who owns the store.",
    "Louis played at the table; Louis lost, and Louis went home to Louis's wife.",
    "Its vegetation includes nothing bigger than the _erica vagans_, the Cornish heath "
    "(plant_list).",
    "Erica said the plant was common; Erica knew every plant and every common name.",
    "_Aschenbrödel_ is an opera; Aschenbrödel was first staged in Vienna.",
    "The composer of the opera was a citizen of the country, a composer of note.",
]
BOOK_QUESTIONS = {  # question -> the passage that answers it
    "Who was the father of Hypseus?": 0,
    "Whom was Louis apprenticed to?": 2,
    "What is the vagans?": 4,
    "Where was Aschenbrodel staged?": 6,
    "Who composed the _Aschenbrödel_ opera?": 6,
}


def test_lazy_equals_full_with_query_repair_and_underscores(tmp_path: Path) -> None:
    rag = VizRAG(tmp_path / "s", show_progress=False)
    rag.insert([Document(id=f"p{i}", text=t, title="") for i, t in enumerate(BOOK)])
    assert _compare(tmp_path / "s", list(BOOK_QUESTIONS), ["vizrag", "hyper-lite"]) == 10
    for q, answer in BOOK_QUESTIONS.items():
        assert rag.retrieve(q, render=False).chunks[0].text == BOOK[answer], q
    full = VizRAG(tmp_path / "s", show_progress=False)
    full.retriever.lazy = False
    lazy_index = rag.retriever.query_corpus().rank_index()
    full_index = full.retriever.query_corpus().rank_index()
    lazy_lex, full_lex = lazy_index.lexicon(), full_index.lexicon()
    assert lazy_lex.vocabulary == full_lex.vocabulary
    assert "vagans" in lazy_lex.vocabulary and "hypseus" not in lazy_lex.vocabulary
    assert lazy_lex.repair("Hypseus Aschenbrodel apprenticed") == full_lex.repair(
        "Hypseus Aschenbrodel apprenticed")
    assert lazy_lex.repair("Hypseus").entities == ["hypseas"]
    assert rag.retriever.query_corpus().rank_index().lexicon() is lazy_lex  # per store state
    lazy_index.require(lexical_query="vagans")
    scores = lazy_index.bm25("vagans")
    hits = [lazy_index.chunk_at(i).text for i in np.flatnonzero(scores)]
    assert hits == [BOOK[4]]  # "_erica vagans_" holds the token "vagans"
    want = full_index.bm25("vagans")
    assert scores[np.flatnonzero(scores)].tolist() == want[np.flatnonzero(want)].tolist()
    rag.insert([Document(id="p9", text="Hypseus ruled after Hypseas.", title="")])
    assert rag.retriever.query_corpus().rank_index().lexicon() is not lazy_lex
    assert "hypseus" in rag.retriever.query_corpus().rank_index().lexicon().vocabulary


_V2 = (  # the derived objects of the previous version (underscores inside tokens)
    "CREATE VIRTUAL TABLE vizrag_chunk_fts USING fts5(body, "
    "tokenize = \"unicode61 remove_diacritics 0 tokenchars '_'\")",
    "CREATE VIRTUAL TABLE vizrag_chunk_fts_inst USING fts5vocab(vizrag_chunk_fts, 'instance')",
    "CREATE TABLE vizrag_chunk_bm25 (rowid INTEGER PRIMARY KEY, dl INTEGER NOT NULL, "
    "exact INTEGER NOT NULL)",
    "CREATE TRIGGER vizrag_chunk_fts_v2_ai AFTER INSERT ON chunks BEGIN "
    "INSERT INTO vizrag_chunk_fts(rowid, body) VALUES (new.rowid, new.text); END",
    "INSERT INTO vizrag_chunk_fts(rowid, body) SELECT rowid, text FROM chunks",
    "INSERT INTO vizrag_chunk_bm25 SELECT rowid, 1, 1 FROM chunks",
)


def test_index_of_an_older_version_is_rebuilt(tmp_path: Path) -> None:
    """A store whose full-text index and length table were made by the previous version
    (tokens kept underscores) gets them replaced by the first query that can write; a
    read-only one falls back to the full path."""
    rag = VizRAG(tmp_path / "s", show_progress=False)
    rag.insert([Document(id=f"p{i}", text=t, title="") for i, t in enumerate(BOOK)])
    rag.close()
    db = tmp_path / "s" / "vizrag.sqlite"
    conn = sqlite3.connect(db)
    for statement in _V2:
        conn.execute(statement)
    conn.commit()
    conn.close()
    ro = HypergraphStore(tmp_path / "s", read_only=True)
    assert isinstance(VizRAG(ro, show_progress=False).retriever.query_corpus(), Corpus)
    ro.close()
    assert _compare(tmp_path / "s", list(BOOK_QUESTIONS), ["vizrag"]) == 5  # rebuilt
    again = VizRAG(tmp_path / "s", show_progress=False)
    again.insert([Document(id="p9", text="Hypseus ruled after _Hypseas_.", title="")])
    assert _compare(tmp_path / "s", list(BOOK_QUESTIONS), ["vizrag"]) == 5
    conn = sqlite3.connect(db)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    n_fts = conn.execute(f"SELECT COUNT(*) FROM {FTS_TABLE}").fetchone()[0]
    n_len = conn.execute(f"SELECT COUNT(*) FROM {LENGTHS}").fetchone()[0]
    conn.close()
    assert not names & {"vizrag_chunk_fts", "vizrag_chunk_fts_inst", "vizrag_chunk_bm25",
                        "vizrag_chunk_fts_v2_ai"}
    assert n_fts == n_len == len(BOOK) + 1


def test_store_changing_under_a_query_reruns_it(store_dir: Path, monkeypatch: Any) -> None:
    """When the store's generation moves during a lazy query (another process committed),
    the query runs again on the new state: ``retrieve`` and (since stop 49) ``aretrieve``
    once, in the store's read snapshot; on a store without one, after LAZY_ATTEMPTS lazy
    tries once on the loaded corpus. The result always comes from one store state."""
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    full = VizRAG(store_dir, show_progress=False)
    full.retriever.lazy = False
    want = _key(full.retrieve(QUESTIONS[0], render=False))
    rag = VizRAG(store_dir, show_progress=False)
    store = rag.retriever.store
    real = store.query_generation
    ticks = iter(range(1, 10_000))
    monkeypatch.setattr(store, "query_generation", lambda: (*real(), next(ticks)))
    starts: list[str] = []
    real_begin = retriever_module.begin

    def counting_begin(r: Any, query: str, overrides: Any, lazy: bool = True) -> Any:
        st = yield from real_begin(r, query, overrides, lazy)
        starts.append(type(st.corpus).__name__)
        return st

    monkeypatch.setattr(retriever_module, "begin", counting_begin)
    assert _key(rag.retrieve(QUESTIONS[0], render=False)) == want
    assert starts == ["LazyCorpus"] * 2  # the second in one read snapshot
    starts.clear()
    assert _key(asyncio.run(rag.aretrieve(QUESTIONS[0], render=False))) == want
    assert starts == ["LazyCorpus"] * 2  # async too: the second in one read snapshot
    starts.clear()
    monkeypatch.setattr(store, "read_snapshot", None)  # a store without snapshots
    assert _key(asyncio.run(rag.aretrieve(QUESTIONS[0], render=False))) == want
    lazy_tries = retriever_module.LAZY_ATTEMPTS
    assert starts == ["LazyCorpus"] * lazy_tries + ["Corpus"]
    assert rag.retriever._corpus is not None and store._bottom is not None  # the fallback
    monkeypatch.setattr(store, "query_generation", real)  # a quiet store: one lazy try
    starts.clear()
    assert _key(rag.retrieve(QUESTIONS[0], render=False)) == want
    assert starts == ["LazyCorpus"]
    # the lazy query let the fallback's loaded corpus and the store's layers go
    assert rag.retriever._corpus is None and store._bottom is None and store._top is None


def test_auto_reads_lazily_only_big_stores(store_dir: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``lazy=None`` (the default) loads a small store and reads a big one lazily;
    True/False force either."""
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    chunks = HypergraphStore(store_dir).stats().chunks
    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", chunks + 1)
    assert isinstance(VizRAG(store_dir, show_progress=False).retriever.query_corpus(), Corpus)
    assert isinstance(VizRAG(store_dir, show_progress=False, lazy=True).retriever.query_corpus(),
                      LazyCorpus)
    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", chunks)
    assert isinstance(VizRAG(store_dir, show_progress=False).retriever.query_corpus(),
                      LazyCorpus)
    assert isinstance(VizRAG(store_dir, show_progress=False, lazy=False).retriever.query_corpus(),
                      Corpus)


def test_auto_reads_a_loaded_store_lazily_once_it_was_written(
        store_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A long-lived reader of a small store another process writes: each write made the
    loaded path load the whole store again (1.4 s per query on MuSiQue, one small write a
    second); from the first write on it reads lazily, with the loaded path's results."""
    import shutil

    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 10**9)  # small: loaded
    store = tmp_path / "s"
    shutil.copytree(store_dir, store)
    reader = VizRAG(store, show_progress=False)
    before = _key(reader.retrieve(QUESTIONS[0], render=False))
    assert isinstance(reader.retriever.query_corpus(), Corpus)  # small: loaded
    with VizRAG(store, show_progress=False) as writer:  # another process would do the same
        writer.insert([Document(id="tick", text="Tick is a small note about clocks.")])
    after = reader.retrieve(QUESTIONS[0], render=False)
    assert isinstance(reader.retriever.query_corpus(), LazyCorpus)
    with VizRAG(store, show_progress=False, lazy=False) as loaded:
        assert _key(after) == _key(loaded.retrieve(QUESTIONS[0], render=False))
    assert _key(after) != before  # the write is seen (its entities move the graph scores)
    reader.close()
    own = VizRAG(store, show_progress=False)  # this process's own write, the same
    own.retrieve(QUESTIONS[0], render=False)
    assert isinstance(own.retriever.query_corpus(), Corpus)
    own.insert([Document(id="tock", text="Tock is another small note.")])
    own.retrieve(QUESTIONS[0], render=False)
    assert isinstance(own.retriever.query_corpus(), LazyCorpus)
    own.close()


def test_lazy_results_do_not_depend_on_the_mentions_read_order(
        store_dir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The walk's matrices sort the mention pairs, whatever order a backend reads them in
    (PostgreSQL's joins give none)."""
    want = {q: _key(VizRAG(store_dir, show_progress=False).retrieve(q, render=False))
            for q in QUESTIONS}
    original = HypergraphStore.mention_rowids

    def shuffled(self: Any) -> Any:
        out = original(self)
        return out[np.random.default_rng(3).permutation(len(out))]

    monkeypatch.setattr(HypergraphStore, "mention_rowids", shuffled)
    got = {q: _key(VizRAG(store_dir, show_progress=False).retrieve(q, render=False))
           for q in QUESTIONS}
    assert got == want


def test_a_non_ascii_query_word_reads_only_its_own_chunks(tmp_path: Path) -> None:
    """A token the postings cannot count (``aschenbrödel``) is counted from the text of the
    chunks holding it, not of every chunk holding any query word (a large store's query
    re-read thousands of passages); the scores stay the full path's."""
    rag = VizRAG(tmp_path / "s", show_progress=False)
    rag.insert([Document(id=f"p{i}", text=t, title="") for i, t in enumerate(BOOK)])
    q = "Which composer staged the opera Aschenbrödel in Vienna, a citizen of the country?"
    assert _compare(tmp_path / "s", [q], ["vizrag", "hyper-lite", "naive"]) == 3
    lazy = VizRAG(tmp_path / "s", show_progress=False)
    store = lazy.retriever.store
    read: list[int] = []
    real = store.lexical_passages

    def counting(rowids: Any) -> Any:
        rowids = list(rowids)
        read.extend(rowids)
        return real(rowids)

    store.lexical_passages = counting  # type: ignore[method-assign]
    index = lazy.retriever.query_corpus().rank_index()
    index.require(lexical_query=q)
    index.bm25(q)
    assert len(set(read)) == 1  # the Aschenbrödel passage (2 hold a query word: both read)
