"""Lazy retrieval on the PostgreSQL store: the loaded path's results from indexed lookups.

As ``test_lazy_query.py`` for SQLite: the reference is the full in-memory path
(``lazy = False``), and the lazy path must return the same ranked chunks, scores, evidence,
entities, hyperedges and anchors, without loading a whole layer or every chunk. Here the
BM25 candidates come from the derived postings tables (:mod:`hyperviz_core.rag.store.
postgres.lexical`), filled with the ranking's tokenizer by the query and emptied by the
writers' cascades. A real server (``pg_url``, see ``pg_server.py``).
"""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

import pytest
from test_lazy_query import MODES, QUESTIONS, WholeReadsFail, _docs, _key, query_every_mode

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve.lazy import LazyCorpus
from hyperviz_core.rag.retrieve.state import Corpus
from hyperviz_core.rag.store import StoreError
from hyperviz_core.rag.store.postgres import lexical
from hyperviz_core.rag.store.postgres.lexical import LEX, TERMS
from hyperviz_core.rag.store.postgres.store import PostgresStore

DATA = Path(__file__).parent / "data"


@pytest.fixture(autouse=True)
def _always_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    """These stores are small: make the default (auto) read lazily from the first chunk."""
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)


@pytest.fixture(scope="module")
def pg_store(pg_server: str) -> str:
    """A PostgreSQL store holding the bundled MuSiQue sample (one per module)."""
    import psycopg
    from pg_server import database_url

    with psycopg.connect(pg_server, autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS vizrag_lazy_pg")
        conn.execute("CREATE DATABASE vizrag_lazy_pg")
    url = database_url(pg_server, "vizrag_lazy_pg")
    rag = VizRAG(url, show_progress=False)
    rag.insert(_docs(DATA))
    rag.store.close()
    return url


def _full(store: Any) -> VizRAG:
    full = VizRAG(store, show_progress=False)
    full.retriever.lazy = False
    return full


def _count(store: PostgresStore, sql: str) -> int:
    return int(store._q(sql)[0][0])


class NoWholeReads(WholeReadsFail, PostgresStore):
    """The PostgreSQL store, failing a query that reads a whole layer or every chunk."""


def test_pg_lazy_equals_full_and_sqlite_every_mode(pg_store: str, tmp_path: Path) -> None:
    lazy = VizRAG(pg_store, show_progress=False)
    full = _full(pg_store)
    sqlite = VizRAG(tmp_path / "s", show_progress=False)
    sqlite.insert(_docs(DATA))
    for mode in MODES:
        for q in QUESTIONS:
            got = _key(lazy.retrieve(q, mode=mode, render=False))
            assert got == _key(full.retrieve(q, mode=mode, render=False)), (mode, q)
            assert got == _key(sqlite.retrieve(q, mode=mode, render=False)), (mode, q)
    assert isinstance(lazy.retriever.query_corpus(), LazyCorpus)
    assert isinstance(sqlite.retriever.query_corpus(), LazyCorpus)
    store = lazy.store
    assert isinstance(store, PostgresStore)
    n_chunks = _count(store, "SELECT COUNT(*) FROM chunks")
    assert _count(store, f"SELECT COUNT(*) FROM {LEX}") == n_chunks > 0
    assert _count(store, f"SELECT COUNT(*) FROM {TERMS}") > n_chunks


def test_pg_query_never_loads_whole_layers(pg_store: str) -> None:
    query_every_mode(NoWholeReads(pg_store))


def test_pg_writes_keep_the_postings_in_sync(pg_url: str) -> None:
    docs = _docs(DATA)
    rag = VizRAG(pg_url, show_progress=False)
    rag.insert(docs[:10])
    q = "What is the capital of Tennessee?"
    rag.retrieve(q, render=False)  # makes the tables and the postings of 10 documents
    rag.insert(docs[10:])  # chunks without postings: the next query tokenizes them
    rag.delete(docs[0].id)  # its chunks' postings go by cascade
    replaced = docs[1].model_copy(update={"text": docs[1].text + " Tennessee capital."})
    rag.insert([replaced])  # same id, new text: new chunk rows, postings made again
    full = _full(pg_url)
    for question in QUESTIONS:
        assert _key(rag.retrieve(question, render=False)) == _key(
            full.retrieve(question, render=False))
    store = rag.store
    assert isinstance(store, PostgresStore)
    assert _count(store, f"SELECT COUNT(*) FROM {LEX}") == _count(
        store, "SELECT COUNT(*) FROM chunks")
    assert _count(store, f"SELECT COUNT(*) FROM {TERMS} t WHERE NOT EXISTS (SELECT 1 FROM "
                         f"{LEX} l WHERE l.num = t.num)") == 0
    capital = store.lexical_postings(["capital"])["capital"]
    numbers = store.chunk_rowids(c.id for c in store.chunks() if c.doc_id == docs[1].id)
    assert numbers and set(numbers.values()) <= set(capital[0].tolist())


def test_pg_non_ascii_and_underscore_tokens(pg_url: str, tmp_path: Path) -> None:
    """Tokens FTS5 would split differently count exactly here (the ranking's tokenizer
    made the postings), and equal the SQLite store's and the loaded path's."""
    docs = [
        Document(id="z", title="Zürich", text="Zürich is the largest city of Switzerland; "
                 "its straße names are long. The Limmat flows through Zürich."),
        Document(id="k", title="Kelvin", text="The K sign (U+212A) and İstanbul differ; "
                 "snake_case words and _italic_ text are split at underscores."),
        Document(id="n", title="Naïve", text="A naïve café in Zürich serves crème brûlée."),
    ]
    rag = VizRAG(pg_url, show_progress=False)
    rag.insert(docs)
    sqlite = VizRAG(tmp_path / "s", show_progress=False)
    sqlite.insert(docs)
    full = _full(pg_url)
    for q in ("Which river flows through Zürich?", "café crème", "snake case italic",
              "İstanbul K sign", "naïve straße"):
        got = _key(rag.retrieve(q, render=False))
        assert got == _key(full.retrieve(q, render=False)), q
        assert got == _key(sqlite.retrieve(q, render=False)), q
        assert got["chunks"], q


def test_pg_writers_keep_the_postings_and_queries_fill_stragglers(pg_url: str) -> None:
    """Opening the store makes the tables; each write gives its chunks their postings in
    its own transaction (no query needed); chunks without them (written by a version that
    did not write postings) get theirs from the next query."""
    docs = _docs(DATA)
    rag = VizRAG(pg_url, show_progress=False)
    rag.insert(docs[:12])
    store = rag.store
    assert isinstance(store, PostgresStore)
    n_chunks = _count(store, "SELECT COUNT(*) FROM chunks")
    assert _count(store, f"SELECT COUNT(*) FROM {LEX}") == n_chunks > 0
    with store._pool.connection() as conn:  # an older writer's chunks: no postings
        conn.execute(f"DELETE FROM {LEX} WHERE chunk_id IN (SELECT id FROM chunks c WHERE "
                     "c.doc_id = ANY(%s))", ([docs[3].id, docs[7].id],))
    assert _count(store, f"SELECT COUNT(*) FROM {LEX}") < n_chunks
    q = "What is the capital of Tennessee?"
    assert _key(rag.retrieve(q, render=False)) == _key(_full(pg_url).retrieve(q, render=False))
    assert _count(store, f"SELECT COUNT(*) FROM {LEX}") == n_chunks


def test_pg_write_during_the_postings_fill_is_not_missed(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another process commits a document right after a query filled the postings: its
    chunks have none, and the query's store generation (read before the fill) has moved,
    so the query runs again and its next fill covers them — the new document is found."""
    from hyperviz_core.rag.store.postgres import lookups

    docs = _docs(DATA)
    rag = VizRAG(pg_url, show_progress=False)
    rag.insert(docs[:10])
    other = VizRAG(pg_url, show_progress=False)
    pending = [docs[10]]
    real = lookups.ensure_lexical

    def fill_then_write(pool: Any, tokenize: Any) -> bool:
        ok = real(pool, tokenize)
        if pending:
            other.insert([pending.pop()])
        return ok

    monkeypatch.setattr(lookups, "ensure_lexical", fill_then_write)
    q = f"What is {docs[10].title}?"
    got = _key(rag.retrieve(q, render=False))
    assert got == _key(_full(pg_url).retrieve(q, render=False))
    assert got["chunks"][0][4] == docs[10].title


def test_pg_refused_postings_fall_back_to_the_loaded_corpus(
        pg_url: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """A database that refuses the derived tables (e.g. a role without CREATE) still
    answers every query, from the loaded corpus, and says why in the log."""
    def refuse(c: Any) -> None:
        raise StoreError("PostgreSQL store x: permission denied for schema public")

    monkeypatch.setattr(lexical, "_create", refuse)
    rag = VizRAG(pg_url, show_progress=False)
    rag.insert(_docs(DATA)[:8])  # no postings tables: the writer writes no postings
    fresh = VizRAG(pg_url, show_progress=False)
    with caplog.at_level("WARNING"):
        res = fresh.retrieve(QUESTIONS[2], render=False)
    assert isinstance(fresh.retriever.query_corpus(), Corpus)
    assert _key(res) == _key(_full(pg_url).retrieve(QUESTIONS[2], render=False))
    assert "permission denied" in caplog.text and "load the whole store" in caplog.text


def test_pg_concurrent_first_queries_make_each_posting_once(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two processes' first queries (two stores, two connection pools, small pages) fill
    the postings at once: every chunk gets one row and its tokens once."""
    VizRAG(pg_url, show_progress=False).insert(_docs(DATA))
    monkeypatch.setattr(lexical, "PAGE", 3)
    stores = [PostgresStore(pg_url) for _ in range(2)]
    results: list[Any] = []
    errors: list[BaseException] = []

    def query(store: PostgresStore) -> None:
        try:
            results.append(_key(VizRAG(store, show_progress=False).retrieve(
                QUESTIONS[0], render=False)))
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=query, args=(s,)) for s in stores]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert results[0] == results[1] == _key(_full(pg_url).retrieve(QUESTIONS[0], render=False))
    s = stores[0]
    assert _count(s, f"SELECT COUNT(*) FROM {LEX}") == _count(s, "SELECT COUNT(*) FROM chunks")
    assert _count(s, f"SELECT COUNT(*) FROM (SELECT chunk_id FROM {LEX} GROUP BY chunk_id "
                     "HAVING COUNT(*) > 1) AS d") == 0
    for store in stores:
        store.close()


def test_pg_reader_process_sees_consistent_snapshots(pg_url: str) -> None:
    """A process querying lazily while another commits 150 documents one by one (each
    with its postings): every query answers (a query the writer changed the store under
    runs again), and the store ends with every document and every chunk's postings."""
    from rag_fakes import demo_documents
    from test_hardening_concurrency import race

    with VizRAG(pg_url, show_progress=False) as rag:
        rag.insert(demo_documents(0, 5))
    loops, errors = race(pg_url, True, timeout=90)
    assert loops >= 3
    assert errors == [], f"{len(errors)} of {loops} queries failed, first: {errors[0]}"
    with PostgresStore(pg_url) as store:
        assert store.stats().documents == 155
        assert _count(store, f"SELECT COUNT(*) FROM {LEX}") == _count(
            store, "SELECT COUNT(*) FROM chunks")


def test_pg_token_longer_than_an_index_entry(pg_url: str, tmp_path: Path) -> None:
    """A long query token is kept by digest (a B-tree entry holds about 2.7 kB): the
    document indexes, and a query holding it finds it, as on SQLite and on the loaded path.
    (A run of Han characters is read as its bigrams since 2026-12-05; the query's 1,100
    characters also make SQLite look for 1,099 substrings at once.)"""
    rng = random.Random(7)  # characters that do not compress
    blob = "".join(chr(rng.randrange(0x4E00, 0x9FA5)) for _ in range(1100))
    docs = [Document(id="seq", title="Sequence", text=f"The note {blob} maps to chromosome 7."),
            Document(id="other", title="Other", text="Chromosome 7 holds many genes.")]
    rag = VizRAG(pg_url, show_progress=False)
    rag.insert(docs)
    sqlite = VizRAG(tmp_path / "s", show_progress=False)
    sqlite.insert(docs)
    for q in (f"Where does {blob} map?", "chromosome 7 genes"):
        got = _key(rag.retrieve(q, render=False))
        assert got == _key(_full(pg_url).retrieve(q, render=False))
        assert got == _key(sqlite.retrieve(q, render=False))
    found = rag.retrieve(f"Where does {blob} map?", render=False).chunks[0]
    assert found.title == "Sequence" and found.evidence["bm25"] > 0


def test_pg_tables_dropped_under_a_running_process(pg_url: str) -> None:
    """Dropping the postings tables loses nothing, even for a process that already
    queried: its store generation includes the tables' identity, so its next query reads
    the remade tables instead of numbers that no longer exist."""
    docs = _docs(DATA)
    rag = VizRAG(pg_url, show_progress=False)
    rag.insert(docs[:12])
    full = _full(pg_url)
    for q in QUESTIONS[:3]:
        assert _key(rag.retrieve(q, render=False)) == _key(full.retrieve(q, render=False))
    store = rag.store
    assert isinstance(store, PostgresStore)
    with store._pool.connection() as conn:
        conn.execute(f"DROP TABLE {TERMS}, {LEX}")
    PostgresStore(pg_url).close()  # another process opens the store: the tables come back
    for q in QUESTIONS[:3]:
        assert _key(rag.retrieve(q, render=False)) == _key(full.retrieve(q, render=False))
    assert _count(store, f"SELECT COUNT(*) FROM {LEX}") == _count(
        store, "SELECT COUNT(*) FROM chunks")


def _app_role(url: str, name: str) -> str:
    """A login role granted what an application role typically holds (DML on the tables
    existing now, sequences), but nothing on the postings tables; its URL."""
    import psycopg

    with psycopg.connect(url, autocommit=True) as c:
        c.execute(f"DROP ROLE IF EXISTS {name}")
        c.execute(f"CREATE ROLE {name} LOGIN")
        c.execute(f"GRANT USAGE ON SCHEMA public TO {name}")
        c.execute(f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {name}")
        c.execute(f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {name}")
        c.execute(f"REVOKE ALL ON {LEX}, {TERMS} FROM {name}")
        c.execute(f"REVOKE CREATE ON SCHEMA public FROM {name}, PUBLIC")
    user = url.split("://", 1)[1].split("@", 1)[0]
    return url.replace(f"//{user}@", f"//{name}@", 1)


def test_pg_role_without_rights_on_the_postings_still_writes(
        pg_url: str, caplog: pytest.LogCaptureFixture) -> None:
    """An application role granted its rights before the postings tables existed writes
    documents without postings (it used to write before them); its queries load the store
    and say why once, not on every query; a query of the owner fills the postings."""
    docs = _docs(DATA)
    owner = VizRAG(pg_url, show_progress=False)
    owner.insert(docs[:5])
    app = VizRAG(_app_role(pg_url, "vizrag_app"), show_progress=False)
    app.insert(docs[5:7])
    assert app.store.stats().documents == 7
    with caplog.at_level("INFO", logger="hyperviz_core.rag.store.postgres"):
        for q in QUESTIONS[:4]:
            assert _key(app.retrieve(q, render=False)) == _key(
                _full(pg_url).retrieve(q, render=False))
    warned = [r for r in caplog.records if "lazy retrieval unavailable" in r.getMessage()]
    assert [r.levelname for r in warned] == ["WARNING"]
    assert isinstance(app.retriever.query_corpus(), Corpus)
    q = QUESTIONS[0]
    assert _key(owner.retrieve(q, render=False)) == _key(_full(pg_url).retrieve(q, render=False))
    store = owner.store
    assert isinstance(store, PostgresStore)
    assert _count(store, f"SELECT COUNT(*) FROM {LEX}") == _count(
        store, "SELECT COUNT(*) FROM chunks")
    app.store.close()


def test_pg_non_ascii_query_reads_no_passage_texts(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The postings count non-ASCII tokens exactly, so a query holding one scores from the
    postings alone (SQLite re-reads and re-tokenizes the candidates' texts for it)."""
    docs = [Document(id="z", title="Zürich", text="Zürich lies on the Limmat river."),
            Document(id="b", title="Basel", text="Basel lies on the Rhine river.")]
    rag = VizRAG(pg_url, show_progress=False)
    rag.insert(docs)
    store = rag.store
    assert isinstance(store, PostgresStore)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a query re-read passage texts to count its tokens")

    monkeypatch.setattr(store, "lexical_passages", refuse)
    monkeypatch.setattr(store, "lexical_candidates", refuse)
    got = _key(rag.retrieve("Which river flows through Zürich?", render=False))
    assert got["chunks"][0][4] == "Zürich"
    monkeypatch.undo()
    assert got == _key(_full(pg_url).retrieve("Which river flows through Zürich?",
                                              render=False))


def test_pg_exact_search_keeps_one_copy_of_a_space(pg_store: str) -> None:
    """A space searched exactly is read once, as the search's unit columns: the store's own
    exact index (a second copy, which cost a fresh process's first query 1.8 s at 50 MB) is
    never loaded. A replaced index and a space above ``exact_limit`` (HNSW) are still
    asked."""
    from test_query_footprint import RecordingIndex

    from hyperviz_core.rag.store.postgres.vectors import PgVectorIndex

    rag = VizRAG(pg_store, show_progress=False)
    res = rag.retrieve(QUESTIONS[0], render=False)
    assert res.chunks and res.entities
    assert not rag.store._indexes  # type: ignore[attr-defined]
    assert rag.store.replaced_vector_index("entity") is None  # type: ignore[attr-defined]
    rag.close()
    rag = VizRAG(pg_store, show_progress=False)
    custom = RecordingIndex()
    rag.store.set_vector_index("entity", custom)
    assert rag.retrieve(QUESTIONS[0], render=False).entities and custom.calls > 0
    rag.close()
    small = PostgresStore(pg_store, exact_limit=5)
    try:
        assert isinstance(small.replaced_vector_index("entity"), PgVectorIndex)
    finally:
        small.close()
