"""Store audit fixes on PostgreSQL (the server is started by the test suite:
``tests/pg_server.py``).

Before the fixes:

* ``PostgresStore.check()`` skipped invariants the SQLite check enforces (a hyperedge with no
  member, a theme naming an unknown hyperedge, a vector of the wrong length);
* a document whose text held NUL (``\\x00``) failed inside the write with "PostgreSQL text
  fields cannot contain NUL (0x00) bytes", naming no document — and aborted ``vizrag
  migrate`` the same way;
* a chunk id already held by another document gave a bare "duplicate key" error;
* a theme's vector was not re-embedded when a later document renamed one of its members.
"""

from __future__ import annotations

import io
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import psycopg
import pytest
from rag_fakes import demo_documents
from test_hardening_store_audit import CaseEmbedder, _renaming_items

import hyperviz_core.rag.store.transfer as transfer
from hyperviz_core.cli import main
from hyperviz_core.model import Entity
from hyperviz_core.rag import Document, Indexer
from hyperviz_core.rag.store import DocumentInput, HypergraphStore, StoreError, open_store
from hyperviz_core.rag.types import Chunk, ChunkExtraction


def _item(doc_id: str, text: str, chunk_id: str | None = None) -> DocumentInput:
    return DocumentInput(doc=Document(id=doc_id, text=text),
                         chunks=[Chunk(id=chunk_id or f"c-{doc_id}", doc_id=doc_id, text=text)])


def test_check_runs_the_sqlite_invariants(pg_url: str) -> None:
    with open_store(pg_url) as store:
        Indexer(store, show_progress=False).index(demo_documents(0, 4))
        assert store.check() == []
    with psycopg.connect(pg_url, autocommit=True) as c:
        hid = c.execute("SELECT id FROM hyperedges WHERE kind = 'relation' ORDER BY id "
                        "LIMIT 1").fetchone()[0]
        c.execute("DELETE FROM incidences WHERE hid = %s", (hid,))
        cid = c.execute("SELECT min(chunk_id) FROM themes").fetchone()[0]
        c.execute("UPDATE themes SET hid = 'gone' WHERE chunk_id = %s", (cid,))
        c.execute("ALTER TABLE embeddings ALTER COLUMN vector TYPE halfvec")
        c.execute("UPDATE embeddings SET vector = '[1,2,3]' WHERE space = 'entity' AND id = "
                  "(SELECT min(id) FROM embeddings WHERE space = 'entity')")
        key = c.execute("SELECT min(id) FROM embeddings WHERE space = 'entity'").fetchone()[0]
    with open_store(pg_url) as store:
        problems = store.check()
    assert f"hyperedge {hid!r} has no member" in problems
    assert f"theme of chunk {cid!r} names an unknown hyperedge" in problems
    assert f"vector {'entity/' + key!r} has the wrong length" in problems


def test_nul_is_refused_naming_the_document(pg_url: str) -> None:
    named = DocumentInput(
        doc=Document(id="e", text="ok"), chunks=[Chunk(id="ce", doc_id="e", text="ok")],
        extractions=[ChunkExtraction(chunk_id="ce", entities=[Entity(name="Bob\x00")])])
    with open_store(pg_url) as store:
        store.add_documents([_item("ok", "fine")])
        with pytest.raises(StoreError, match=r"document 'n1': doc\.text holds a NUL"):
            store.add_documents([_item("a", "fine too"), _item("n1", "bad \x00 text")])
        with pytest.raises(StoreError, match=r"document 'e': extractions\[0\]\.entities\[0\]"
                                             r"\.name holds a NUL"):
            store.add_documents([named])
        assert [d.id for d in store.documents()] == ["ok"]  # nothing of either batch
        assert store.check() == []


def test_migrate_names_the_document_with_nul(pg_url: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    src = tmp_path / "src"
    with HypergraphStore(src) as s:
        s.add_documents([_item("a", "alpha"), _item("n1", "nul \x00 here"), _item("z", "zeta")])
    monkeypatch.setattr(transfer, "BATCH_DOCUMENTS", 1)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(["migrate", "--from", str(src), "--to", pg_url, "--no-progress"])
    lines = err.getvalue().strip().splitlines()
    assert code == 2 and len(lines) == 1, err.getvalue()
    assert "document 'n1'" in lines[0] and "NUL" in lines[0]
    with open_store(pg_url) as dst:
        assert [d.id for d in dst.documents()] == ["a"]  # the batch before it is kept


def test_chunk_id_held_by_another_document(pg_url: str) -> None:
    with open_store(pg_url) as store:
        store.add_documents([_item("d1", "one", "shared")])
        with pytest.raises(StoreError, match=r"document 'd2': chunk id 'shared' is already "
                                             r"used by document 'd1'"):
            store.add_documents([_item("d2", "two", "shared")])
        assert [d.id for d in store.documents()] == ["d1"] and store.check() == []


def test_theme_vector_follows_a_renamed_member(pg_url: str, tmp_path: Path) -> None:
    with HypergraphStore(tmp_path / "batch") as ref, open_store(pg_url) as pg:
        ref.add_documents(_renaming_items(), embedder=CaseEmbedder())
        for item in _renaming_items():
            pg.add_documents([item], embedder=CaseEmbedder())
        for space in ("entity", "theme", "chunk"):
            (i1, m1), (i2, m2) = ref.vectors(space), pg.vectors(space)
            assert i1 == i2 and np.array_equal(m1, m2), space


def test_copy_into_postgres_takes_the_source_vector_of_a_renamed_theme(
        pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with HypergraphStore(tmp_path / "src") as src, open_store(pg_url) as pg:
        for item in _renaming_items():
            src.add_documents([item], embedder=CaseEmbedder())
        monkeypatch.setattr(transfer, "BATCH_DOCUMENTS", 1)  # the rename is a later batch
        assert transfer.copy_store(src, pg, show_progress=False).verified
        for space in ("entity", "theme", "chunk"):
            (i1, m1), (i2, m2) = src.vectors(space), pg.vectors(space)
            assert i1 == i2 and np.array_equal(m1, m2), space
