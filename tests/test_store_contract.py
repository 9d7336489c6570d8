"""The store contract, run against both backends: SQLite (embedded) and PostgreSQL + pgvector.

Every test gets a fresh store of each backend (``store_spec``); the PostgreSQL server is
started by the test suite (``tests/pg_server.py``). The same corpus indexed into either
backend must give identical stores (stats, both layers entity by entity, vectors, retrieval),
a killed writer leaves no partial document, and several writer processes at once end with
exactly what a sequential run writes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hyperviz_core.rag import Chunk, Document, HashingEmbedder, Indexer, VizRAG
from hyperviz_core.rag.conformance import store_contents
from hyperviz_core.rag.store import StoreError, StoreProtocol, open_store

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).parent / "data" / "musique_sample.json"
BACKENDS = ("sqlite", "postgres")


def _docs(n: int | None = None) -> list[Document]:
    rows = json.loads(DATA.read_text())
    return [Document(text=p["text"], title=p["title"]) for p in rows][:n]


def _index(store: StoreProtocol, docs: list[Document]) -> Any:
    return Indexer(store, show_progress=False, concurrency=2, chunk_size=300,
                   chunk_overlap=40).index(docs)


#: everything observable of a store's contents (no timings, no paths)
_snapshot = store_contents


@pytest.fixture(params=BACKENDS)
def store_spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh store location of each backend: a directory or a PostgreSQL database URL."""
    if request.param == "postgres":
        return str(request.getfixturevalue("pg_url"))
    return str(tmp_path / "store")


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The corpus indexed sequentially into SQLite: what every backend must reproduce."""
    with open_store(tmp_path_factory.mktemp("ref") / "ref") as store:
        _index(store, _docs())
        return _snapshot(store)


def test_open_store_selects_backend(store_spec: str) -> None:
    with open_store(store_spec) as store:
        assert isinstance(store, StoreProtocol)
        assert type(store).__name__ == ("PostgresStore" if "://" in store_spec
                                        else "HypergraphStore")
        assert store.stats().documents == 0
        assert store.check() == []


def test_same_contents_as_reference(store_spec: str, reference: dict[str, Any]) -> None:
    with open_store(store_spec) as store:
        report = _index(store, _docs())
        assert report.documents_added == len(_docs())
        got = _snapshot(store)
    for key in reference:
        assert got[key] == reference[key], key


def test_reinsert_is_noop_and_delete_restores(store_spec: str) -> None:
    docs = _docs(12)
    with open_store(store_spec) as store:
        _index(store, docs[:6])
        before = _snapshot(store)
        assert _index(store, docs[:6]).documents_skipped == 6
        assert _snapshot(store) == before
        _index(store, docs[6:])
        for d in docs[6:]:
            assert store.delete_document(d.id, embedder=HashingEmbedder())["documents"] == 1
        assert _snapshot(store) == before
        assert store.delete_document("no-such-doc")["documents"] == 0
        assert store.check() == []


def test_replace_writes_an_unchanged_document_again(store_spec: str) -> None:
    """``DocumentInput.replace``: the same text with another extraction is written (what a
    Hyper-RAG re-import does when a description was rewritten); without it, skipped."""
    from hyperviz_core.model import Entity
    from hyperviz_core.rag import ChunkExtraction
    from hyperviz_core.rag.store import DocumentInput

    doc = Document(id="d", text="Ada met Babbage.")
    chunk = Chunk(id="c", doc_id="d", text="Ada met Babbage.")

    def item(description: str, replace: bool) -> DocumentInput:
        ex = ChunkExtraction(chunk_id="c", entities=[Entity(name="Ada",
                                                            description=description)])
        return DocumentInput(doc=doc, chunks=[chunk], extractions=[ex], replace=replace)

    with open_store(store_spec) as store:
        emb = HashingEmbedder()
        assert store.add_documents([item("old", False)], embedder=emb).writes[0].status == \
            "added"
        assert store.add_documents([item("new", False)], embedder=emb).writes[0].status == \
            "skipped"
        assert store.bottom().entities["ada"].description == "old"
        assert store.add_documents([item("new", True)], embedder=emb).writes[0].status == \
            "replaced"
        assert store.bottom().entities["ada"].description == "new"
        assert store.check() == []


def test_deleted_text_is_never_retrieved(store_spec: str) -> None:
    docs = _docs(20)
    with open_store(store_spec) as store:
        rag = VizRAG(store, show_progress=False)
        rag.insert(docs)
        victim = docs[3]
        question = f"What about {victim.title}?"
        assert victim.id in {c.doc_id for c in rag.retrieve(question, render=False).chunks}
        rag.delete(victim.id)
        for mode in ("vizrag", "hyper-lite", "naive"):
            got = rag.retrieve(question, mode=mode, render=False)
            assert victim.id not in {c.doc_id for c in got.chunks}, mode


def test_retrieval_identical_across_backends(pg_url: str, tmp_path: Path) -> None:
    docs = _docs()
    results = []
    for spec in (str(tmp_path / "s"), pg_url):
        with open_store(spec) as store:
            rag = VizRAG(store, show_progress=False)
            rag.insert(docs)
            results.append([
                [(c.chunk_id, round(c.score, 6)) for c in
                 rag.retrieve(q, mode=mode, render=False).chunks]
                for q in ("Who founded the band?", "Where was the film released?")
                for mode in ("vizrag", "text", "hyper-lite", "naive")])
    assert results[0] == results[1]


def test_cache_and_vectors(store_spec: str) -> None:
    with open_store(store_spec) as store:
        assert store.cache_get("k") is None
        store.cache_put("k", "v1", model="m")
        store.cache_put("k", "v2", model="m")
        assert store.cache_get("k") == "v2" and store.cache_size() == 1
        _index(store, _docs(5))
        ids, mat = store.vectors("chunk")
        assert len(ids) == mat.shape[0] == store.stats().chunks
        hits = store.search("chunk", mat[0], 3)
        assert hits[0][0] == ids[0] and abs(hits[0][1] - 1.0) < 1e-5
        with pytest.raises(StoreError, match="dimension"):
            store.check_embedder("other", 7)
        with pytest.raises(StoreError, match="unknown vector space"):
            store.vectors("nope")


def test_write_with_another_dimension_is_refused_alike(store_spec: str) -> None:
    """A write whose embedder makes vectors of another dimension is refused with the same
    message by both backends (the store, both embedders and "Use the same embedder"), and
    the store keeps what it held."""
    with open_store(store_spec) as store:
        _index(store, _docs(3))
        before = _snapshot(store)
        doc = Document(text="Paris is the capital of France.", title="Paris")
        chunk = Chunk(id="paris-0", doc_id=doc.id, text=doc.text)
        refused = (r"holds 512-dimensional vectors from embedder 'hashing-v5-d512[^']*'; "
                   r"embedder 'hashing-v5-d64[^']*' makes 64-dimensional ones\. Use the same "
                   r"embedder or a new store")
        with pytest.raises(StoreError, match=refused):  # the indexer asks first
            Indexer(store, embedder=HashingEmbedder(dim=64), show_progress=False).index([doc])
        with pytest.raises(StoreError, match=refused):  # the store's own check in the write
            store.add_document(doc, [chunk], embedder=HashingEmbedder(dim=64))
        assert _snapshot(store) == before


def test_hnsw_path_for_large_spaces(pg_url: str) -> None:
    """Above ``exact_limit`` search goes through pgvector's HNSW index inside PostgreSQL."""
    from hyperviz_core.rag.store.postgres import PostgresStore
    from hyperviz_core.rag.store.postgres.vectors import PgVectorIndex

    with PostgresStore(pg_url, exact_limit=10) as store:
        _index(store, _docs(15))
        idx = store.vector_index("entity")
        assert isinstance(idx, PgVectorIndex)
        ids, mat = store.vectors("entity")
        exact = {i for i, _ in open_exact(ids, mat).search(mat[4], 5)}
        approx = {i for i, _ in idx.search(mat[4], 5)}
        assert ids[4] in approx and len(exact & approx) >= 4
        with pytest.raises(StoreError):
            idx.add(["x"], mat[:1])


def open_exact(ids: list[str], mat: Any) -> Any:
    from hyperviz_core.rag import ExactVectorIndex

    idx = ExactVectorIndex()
    idx.add(ids, mat)
    return idx


def test_bad_urls_are_clear(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no 'mysql' store backend"):
        open_store("mysql://u@h/db")
    assert not (Path.cwd() / "mysql:").exists()
    with pytest.raises(StoreError) as err:
        open_store(f"postgresql://alice:s3cret@/nodb?host={tmp_path}&connect_timeout=2")
    assert "s3cret" not in str(err.value) and "cannot connect" in str(err.value)


def test_foreign_database_is_refused(pg_url: str) -> None:
    import psycopg

    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("CREATE TABLE documents (id int)")
    with pytest.raises(StoreError, match="not a VizRAG store"):
        open_store(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # an application's own table
        conn.execute("DROP TABLE documents")
        conn.execute("CREATE TABLE entities (id int)")
    with pytest.raises(StoreError, match=r"already holds tables named as a VizRAG store's "
                                         r"\('entities'\) but is not a VizRAG store"):
        open_store(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:  # nothing of ours was created
        assert [r[0] for r in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            "current_schema()").fetchall()] == ["entities"]


# ---------------------------------------------------------------- processes
CHILD = r"""
import json, sys
from hyperviz_core.rag import Document, Indexer
from hyperviz_core.rag.store import open_store
spec, data, part, parts = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
docs = [Document(text=p["text"], title=p["title"]) for p in json.load(open(data))]
store = open_store(spec)
orig = store.add_documents  # every write (add_document too) is one add_documents call
def add(*a, **kw):
    print("writing", flush=True)
    return orig(*a, **kw)
store.add_documents = add
mine = docs[part::parts] if parts > 1 else docs
# the killed writer: one document per transaction; concurrent writers: batched commits
Indexer(store, show_progress=False, concurrency=2, chunk_size=300, chunk_overlap=40,
        max_batch_documents=1 if parts == 1 else 64).index(mine)
store.close()
print("done", flush=True)
"""


def _child(spec: str, part: int = 0, parts: int = 1) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-c", CHILD, spec, str(DATA), str(part),
                             str(parts)], stdout=subprocess.PIPE, text=True, env=env, cwd=ROOT)


@pytest.mark.parametrize("seed", [1, 2])
def test_killed_writer_leaves_no_partial_document(
    store_spec: str, seed: int, reference: dict[str, Any]
) -> None:
    rng = random.Random(seed)
    proc = _child(store_spec)
    assert proc.stdout is not None
    kill_after, writes = rng.randint(2, 25), 0
    try:
        for line in proc.stdout:
            if line.startswith("writing"):
                writes += 1
                if writes == kill_after:
                    time.sleep(rng.uniform(0.0, 0.02))
                    proc.send_signal(signal.SIGKILL)
                    break
    finally:
        proc.wait(timeout=120)
    assert proc.returncode == -signal.SIGKILL
    with open_store(store_spec) as store:
        n = store.stats().documents
        assert kill_after - 1 <= n < len(_docs())
        assert store.check() == []
        for doc in store.documents():  # every stored document is whole
            assert store.chunk_ids(doc.id), doc.id
        report = _index(store, _docs())
        assert report.documents_skipped == n
        got = _snapshot(store)
    for key in reference:
        assert got[key] == reference[key], key


def test_concurrent_writers_equal_sequential(pg_url: str, reference: dict[str, Any]) -> None:
    """Four writer processes at once (documents sharing entities) → the sequential store."""
    procs = [_child(pg_url, part, 4) for part in range(4)]
    for p in procs:
        out, _ = p.communicate(timeout=300)
        assert p.returncode == 0 and "done" in out
    with open_store(pg_url) as store:
        got = _snapshot(store)
        assert store.check() == []
    for key in ("stats", "bottom", "top", "chunks", "themes", "entity_vectors", "theme_chunks"):
        assert got[key] == reference[key], key
    assert sorted(d["id"] for d in got["documents"]) == sorted(
        d["id"] for d in reference["documents"])


def test_migrate_both_ways(pg_url: str, tmp_path: Path, reference: dict[str, Any]) -> None:
    """``vizrag migrate`` SQLite → PostgreSQL → SQLite keeps everything, verified."""
    from hyperviz_core.cli import main

    src = tmp_path / "src"
    with open_store(src) as store:
        _index(store, _docs())
        store.cache_put("call-1", "cached answer", model="m")
    assert main(["migrate", "--from", str(src), "--to", pg_url, "--no-progress"]) == 0
    back = tmp_path / "back"
    assert main(["migrate", "--from", pg_url, "--to", str(back), "--no-progress"]) == 0
    assert main(["migrate", "--from", pg_url, "--to", str(back), "--no-progress"]) == 0
    for spec in (pg_url, str(back)):
        with open_store(spec) as store:
            got = _snapshot(store)
            assert store.cache_get("call-1") == "cached answer"
        for key in reference:
            if key == "stats":
                assert {**got[key], "llm_cache_entries": 0} == reference[key]
            else:
                assert got[key] == reference[key], (spec, key)


def test_migrate_errors_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.cli import main

    assert main(["migrate", "--from", str(tmp_path / "missing"), "--to",
                 str(tmp_path / "x")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "missing" in err[0]


def test_vizrag_check_on_both_backends(store_spec: str, capsys: pytest.CaptureFixture[str]
                                       ) -> None:
    from hyperviz_core.cli import main

    with open_store(store_spec) as store:
        _index(store, _docs(4))
    assert main(["check", "--store", store_spec]) == 0
    assert capsys.readouterr().out.startswith("ok: ")


def test_a_document_of_whitespace_only_is_no_check_problem(
        store_spec: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Chunking drops text of whitespace only (newlines, tabs, no-break spaces, not just
    spaces); the check must not call such a document damaged."""
    blank = Document(id="blank", text="\n\t\u00a0 \u3000\n")
    with open_store(store_spec) as store:
        report = _index(store, [*_docs(2), blank])
        assert report.empty_documents == ["blank"] and store.check() == []
    from hyperviz_core.cli import main

    assert main(["check", "--store", store_spec]) == 0
    assert capsys.readouterr().out.startswith("ok: ")
