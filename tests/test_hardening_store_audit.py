"""Store audit fixes (SQLite side and the store CLI commands).

Before the fixes:

* ``vizrag migrate`` read a whole vector space and the whole theme table per document
  (``vectors(space, ids)`` / ``themes(chunk_ids)`` filtered in Python): 3 min 55 s for the
  1,890-passage MuSiQue store;
* a theme's vector was not re-embedded when a later document renamed one of its members (its
  embedding text holds the names), so batch and one-by-one writes differed with a
  case-sensitive embedder;
* ``query_generation()`` repeated after the connection's own delete + add (same
  ``data_version``, document count and last sequence number): a lazy retriever served stale
  results;
* "database or disk is full", "disk I/O error" and "unable to open database file" were
  reported as a damaged store;
* migrating a store made before compact vectors always reported COUNTS DIFFER (the
  ``hyperedge`` space, which a new store does not keep);
* ``export``, ``import-hyperrag`` and ``migrate`` printed tracebacks on a damaged store and on
  Ctrl-C;
* two documents with the same chunk id raised a raw ``sqlite3.IntegrityError``;
* ``PRAGMA integrity_check`` rows of several lines counted as one problem.
"""

from __future__ import annotations

import hashlib
import re
import sqlite3
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
from cli_helpers import one_line_error, run_cli
from interop_fakes import HYPERRAG_DIR
from rag_fakes import demo_documents, fresh_copy, store_with

import hyperviz_core.rag.store.transfer as transfer
from hyperviz_core.model import Entity
from hyperviz_core.rag import Document, Indexer, VizRAG
from hyperviz_core.rag.store import DocumentInput, HypergraphStore, StoreError, open_store
from hyperviz_core.rag.store.sqlite import schema
from hyperviz_core.rag.store.sqlite.check import check_store
from hyperviz_core.rag.store.sqlite.schema import classify_error
from hyperviz_core.rag.types import Chunk, ChunkExtraction, ChunkTheme


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_with(tmp_path_factory.mktemp("audit") / "store", demo_documents(0, 30))


@pytest.fixture
def store(pristine: Path, tmp_path: Path) -> Path:
    return fresh_copy(pristine, tmp_path)


def _garble(db: Path) -> None:
    """Garbage over the middle half of the file (the meta page stays readable)."""
    data = bytearray(db.read_bytes())
    lo, hi = len(data) // 4, 3 * len(data) // 4
    data[lo:hi] = (bytes(range(7, 250, 3)) * (1 + (hi - lo) // 81))[: hi - lo]
    db.write_bytes(bytes(data))


class CaseEmbedder:
    """A case-sensitive embedder: a vector from the SHA-256 of the exact text."""

    name, dim = "case", 8

    def embed(self, texts: list[str]) -> npt.NDArray[np.float32]:
        rows = [np.frombuffer(hashlib.sha256(t.encode()).digest()[:8], dtype=np.uint8)
                for t in texts]
        return np.asarray(rows, dtype=np.float32).reshape(len(texts), self.dim) + 1


def _renaming_items() -> list[DocumentInput]:
    """Document a names "paris" (its key) in a theme; document b names "Paris" (the merged
    entity is renamed to it)."""
    a = DocumentInput(
        doc=Document(id="a", text="x"), chunks=[Chunk(id="ca", doc_id="a", text="x")],
        extractions=[ChunkExtraction(chunk_id="ca", entities=[Entity(name="paris")])],
        themes=[ChunkTheme(chunk_id="ca", theme="cities", key_entities=["paris"])])
    b = DocumentInput(
        doc=Document(id="b", text="y"), chunks=[Chunk(id="cb", doc_id="b", text="y")],
        extractions=[ChunkExtraction(chunk_id="cb", entities=[Entity(name="Paris")])])
    return [a, b]


# ------------------------------------------------------------------ 1: linear migrate
def test_copy_reads_each_document_by_id(store: Path, tmp_path: Path) -> None:
    src = HypergraphStore(store, read_only=True)
    seen: list[str] = []
    src._conn.set_trace_callback(seen.append)
    with open_store(tmp_path / "dst") as dst:
        report = transfer.copy_store(src, dst, show_progress=False)
    src._conn.set_trace_callback(None)
    assert report.verified and report.documents_copied == 30
    whole_space = [s for s in seen if "FROM embeddings WHERE space" in s and " IN (" not in s]
    whole_themes = [s for s in seen if re.search(r"FROM (themes|key_entities) ORDER BY", s)]
    assert whole_space == [] and whole_themes == []
    src.close()


def test_reads_by_id_keep_order_and_batch(store: Path) -> None:
    with HypergraphStore(store, read_only=True) as s:
        all_ids, matrix = s.vectors("entity")
        wanted = [*reversed(all_ids), "missing", all_ids[0]] * 3  # > 500 ids with repeats
        ids, mat = s.vectors("entity", wanted)
        order = list(dict.fromkeys(i for i in wanted if i in set(all_ids)))
        assert ids == order
        assert np.array_equal(mat, matrix[[all_ids.index(i) for i in order]])
        themes = s.themes()
        cids = [t.chunk_id for t in reversed(themes)] + ["nope"]
        assert s.themes(cids) == list(reversed(themes))
        docs = s.documents()
        assert s.documents([docs[2].id, "nope", docs[0].id]) == [docs[2], docs[0]]


# ------------------------------------------------------------------ 3: renamed members
def test_theme_vector_follows_a_renamed_member(tmp_path: Path) -> None:
    batch, single = HypergraphStore(tmp_path / "b"), HypergraphStore(tmp_path / "s")
    batch.add_documents(_renaming_items(), embedder=CaseEmbedder())
    for item in _renaming_items():
        single.add_documents([item], embedder=CaseEmbedder())
    assert single.bottom().entities["paris"].name == "Paris"
    for space in ("entity", "theme", "chunk"):
        (i1, m1), (i2, m2) = batch.vectors(space), single.vectors(space)
        assert i1 == i2 and np.array_equal(m1, m2), space
    batch.close()
    single.close()


def test_copy_takes_the_source_vector_of_a_renamed_theme(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with HypergraphStore(tmp_path / "src") as src:
        for item in _renaming_items():
            src.add_documents([item], embedder=CaseEmbedder())
        monkeypatch.setattr(transfer, "BATCH_DOCUMENTS", 1)  # the rename is a later batch
        with open_store(tmp_path / "dst") as dst:
            report = transfer.copy_store(src, dst, show_progress=False)
            assert report.verified, report.mismatches
            for space in ("entity", "theme", "chunk"):
                (i1, m1), (i2, m2) = src.vectors(space), dst.vectors(space)
                assert i1 == i2 and np.array_equal(m1, m2), space


# ------------------------------------------------------------------ 4: query generation
def test_generation_moves_after_own_delete_and_add(tmp_path: Path) -> None:
    def item(i: str) -> DocumentInput:
        return DocumentInput(doc=Document(id=i, text=f"text {i}"),
                             chunks=[Chunk(id=f"c{i}", doc_id=i, text=f"text {i}")])

    with HypergraphStore(tmp_path / "s") as s:
        s.add_documents([item("a"), item("b")])
        g0 = s.query_generation()
        s.delete_document("b")
        s.add_documents([item("c")])  # same count, same last sequence number
        g1 = s.query_generation()
        assert g1 != g0
        assert s.query_generation() == g1  # stable while nothing is written
        s.compact()  # may renumber rowids
        assert s.query_generation() != g1


def test_lazy_retriever_sees_own_delete_and_add(tmp_path: Path) -> None:
    q = "Who sings opera in Vienna?"
    with VizRAG(tmp_path / "s", show_progress=False, lazy=True) as rag:
        rag.insert([Document(id="a", title="Acme", text="Alice Smith founded Acme in Boston."),
                    Document(id="b", title="Bob", text="Bob Jones plays guitar in Denver.")])
        rag.retrieve(q, mode="text")
        rag.store.delete_document("b")
        Indexer(rag.store, show_progress=False).index(
            [Document(id="c", title="Carol", text="Carol White sings opera in Vienna.")])
        top = rag.retrieve(q, mode="text").chunks[0]
        assert rag.store.chunks([top.chunk_id])[0].doc_id == "c"


# ------------------------------------------------------------------ 5: error messages
@pytest.mark.parametrize(("message", "needles"), [
    ("database or disk is full", ("disk is full", "free some space", "nothing committed")),
    ("disk I/O error", ("disk I/O error", "re-run", "vizrag check")),
    ("unable to open database file", ("cannot open store", "permissions")),
])
def test_os_level_errors_are_not_called_damage(message: str, needles: tuple[str, ...]) -> None:
    text = str(classify_error(Path("/x/vizrag.sqlite"), sqlite3.OperationalError(message)))
    assert "damaged" not in text and "not a usable" not in text
    assert "/x/vizrag.sqlite" in text
    for n in needles:
        assert n in text, (n, text)


def test_migrate_to_a_full_disk_names_the_destination(
        store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    dst = tmp_path / "full"
    real = schema._prepare_writable

    def tight(conn: sqlite3.Connection, path: Path, version: str) -> None:
        real(conn, path, version)
        if path.parent == dst:  # the destination file may not grow beyond a few pages
            pages = conn.execute("PRAGMA page_count").fetchone()[0]
            conn.execute(f"PRAGMA max_page_count = {pages + 8}")

    monkeypatch.setattr(schema, "_prepare_writable", tight)
    line = one_line_error(run_cli(["migrate", "--from", str(store), "--to", str(dst),
                                 "--no-progress"]), "disk is full", str(dst / "vizrag.sqlite"))
    assert "damaged" not in line
    monkeypatch.setattr(schema, "_prepare_writable", real)
    assert check_store(dst).ok  # what was committed is intact


# ------------------------------------------------------------------ 7: older stores
def test_migrate_a_store_made_before_compact_vectors(tmp_path: Path) -> None:
    old = tmp_path / "old"
    HypergraphStore(old).close()
    with sqlite3.connect(old / "vizrag.sqlite") as conn:
        conn.execute("DELETE FROM meta WHERE key IN ('vector_spaces', 'vector_dtype')")
    with HypergraphStore(old) as s:
        Indexer(s, show_progress=False).index(demo_documents(0, 6))
        assert s.stats().vectors["hyperedge"] > 0
    code, out, err = run_cli(["migrate", "--from", str(old), "--to", str(tmp_path / "new"),
                           "--no-progress"])
    assert code == 0, (out, err)
    assert "counts verified" in out and "not copied: hyperedge vectors" in out


# ------------------------------------------------------------------ 8: CLI errors, Ctrl-C
def test_export_import_migrate_on_a_damaged_store(store: Path, tmp_path: Path) -> None:
    db = store / "vizrag.sqlite"
    _garble(db)
    one_line_error(run_cli(["export", "--store", str(store), "--hif", str(tmp_path / "o.json")]),
                    str(db), "vizrag check")
    assert not (tmp_path / "o.json").exists()
    one_line_error(run_cli(["import-hyperrag", str(HYPERRAG_DIR), "--store", str(store),
                          "--no-progress"]), str(db))
    one_line_error(run_cli(["migrate", "--from", str(store), "--to", str(tmp_path / "d"),
                          "--no-progress"]), str(db), "vizrag check")


def test_migrate_interrupted_then_resumed(store: Path, tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    dst = tmp_path / "dst"
    real = HypergraphStore.add_documents
    calls = {"n": 0}

    def flaky(self: HypergraphStore, items: Any, **kw: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        return real(self, items, **kw)

    monkeypatch.setattr(transfer, "BATCH_DOCUMENTS", 4)
    monkeypatch.setattr(HypergraphStore, "add_documents", flaky)
    code, out, err = run_cli(["migrate", "--from", str(store), "--to", str(dst), "--no-progress"])
    assert code == 130 and "Traceback" not in err
    assert "interrupted" in err and "8 documents committed" in err and "again" in err
    monkeypatch.setattr(HypergraphStore, "add_documents", real)
    code, out, err = run_cli(["migrate", "--from", str(store), "--to", str(dst), "--no-progress"])
    assert code == 0 and "copied 22 documents (8 already there)" in out, (out, err)


def test_migrate_into_a_store_of_other_documents_is_refused_before_writing(
        store: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    with HypergraphStore(other) as s:
        Indexer(s, show_progress=False).index([Document(id="mine", text="Ada Lovelace wrote "
                                                                        "notes.")])
        before = s.stats()
    line = one_line_error(run_cli(["migrate", "--from", str(store), "--to", str(other),
                                   "--no-progress"]), "1 document(s) the source lacks",
                          "'mine'", "nothing was written")
    assert str(other) in line
    with HypergraphStore(other, read_only=True) as s:
        assert s.stats() == before and [d.id for d in s.documents()] == ["mine"]


def test_migrate_interrupted_while_closing_says_the_copy_is_done(
        store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Ctrl-C after the copy, while a store closes: exit 130 saying every document is
    copied (it used to say the copy had not started and nothing was written)."""
    dst = tmp_path / "dst"
    real = HypergraphStore.close
    calls = {"n": 0}

    def interrupted(self: HypergraphStore) -> None:
        real(self)
        calls["n"] += 1
        if calls["n"] == 1:
            raise KeyboardInterrupt

    monkeypatch.setattr(HypergraphStore, "close", interrupted)
    code, out, err = run_cli(["migrate", "--from", str(store), "--to", str(dst), "--no-progress"])
    assert code == 130 and "Traceback" not in err
    assert "every document is copied" in err and "nothing was written" not in err
    monkeypatch.setattr(HypergraphStore, "close", real)
    code, out, err = run_cli(["migrate", "--from", str(store), "--to", str(dst), "--no-progress"])
    assert code == 0 and "copied 0 documents (30 already there)" in out, (out, err)


def test_export_and_import_interrupted(store: Path, tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    import hyperviz_core.interop.hyperrag_import as importer
    import hyperviz_core.interop.store_export as exporter

    def stop(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(exporter, "store_hypergraph", stop)
    code, _, err = run_cli(["export", "--store", str(store), "--hif", str(tmp_path / "o.json")])
    assert code == 130 and "interrupted" in err and "Traceback" not in err
    assert list(tmp_path.glob("o.json*")) == []
    monkeypatch.setattr(importer, "import_workdir", stop)
    code, _, err = run_cli(["import-hyperrag", str(HYPERRAG_DIR), "--store", str(store),
                         "--no-progress"])
    assert code == 130 and "interrupted" in err and "30 documents committed" in err


# ------------------------------------------------------------------ 10: chunk id collision
def test_chunk_id_held_by_another_document(tmp_path: Path) -> None:
    def item(doc_id: str) -> DocumentInput:
        return DocumentInput(doc=Document(id=doc_id, text=doc_id),
                             chunks=[Chunk(id=f"own-{doc_id}", doc_id=doc_id, text="x"),
                                     Chunk(id="shared", doc_id=doc_id, text=doc_id)])

    with HypergraphStore(tmp_path / "s") as s:
        s.add_documents([item("d1")])
        with pytest.raises(StoreError, match=r"document 'd2': chunk id 'shared' is already "
                                             r"used by document 'd1'"):
            s.add_documents([item("d2")])
        assert [d.id for d in s.documents()] == ["d1"] and s.check() == []
        assert s.chunk_ids() == ["own-d1", "shared"]


# ------------------------------------------------------------------ 12: integrity lines
def test_integrity_rows_are_split_into_lines() -> None:
    from hyperviz_core.rag.store.sqlite.check import integrity_problems

    rows = [("*** in database main ***\nOn tree page 4 cell 0: bad\nOn tree page 4 cell 1: "
             "bad",), ("Page 9: never used",)]
    assert integrity_problems(rows) == [
        "SQLite integrity check: On tree page 4 cell 0: bad",
        "SQLite integrity check: On tree page 4 cell 1: bad",
        "SQLite integrity check: Page 9: never used"]
    assert integrity_problems([("ok",)]) == []
    many = integrity_problems([("\n".join(f"Page {i}: x" for i in range(150)),)])
    assert len(many) == 101 and many[-1] == "... and 50 more SQLite integrity problems"


def test_check_lists_each_integrity_problem(store: Path) -> None:
    _garble(store / "vizrag.sqlite")
    report = check_store(store)
    assert not report.ok
    assert all("\n" not in p for p in report.problems)
    assert sum(p.startswith("SQLite integrity check:") for p in report.problems) > 1


def test_check_reports_non_finite_vectors(tmp_path: Path) -> None:
    import sqlite3

    import numpy as np

    from hyperviz_core.rag import Document, VizRAG
    from hyperviz_core.rag.store.sqlite.check import check_store

    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="a", text="Marie Curie worked in Paris with Pierre Curie.")])
    assert check_store(tmp_path / "s").problems == []
    con = sqlite3.connect(tmp_path / "s" / "vizrag.sqlite")
    space, key, blob = con.execute(
        "SELECT space, id, vector FROM embeddings ORDER BY space, id LIMIT 1").fetchone()
    bad = np.frombuffer(blob, dtype=np.float16).copy()
    bad[0] = np.inf
    con.execute("UPDATE embeddings SET vector = ? WHERE space = ? AND id = ?",
                (bad.tobytes(), space, key))
    con.commit()
    con.close()
    assert check_store(tmp_path / "s").problems == [
        f"vector '{space}/{key}' holds NaN or an infinity"]


def test_migrate_refuses_the_same_store_as_destination(tmp_path: Path) -> None:
    store = store_with(tmp_path / "s", demo_documents(0, 3))
    for to in (str(store), str(store / "vizrag.sqlite")):
        one_line_error(run_cli(["migrate", "--from", str(store), "--to", to,
                                "--no-progress"]), "name the same store")
    url = "postgresql://alice:s3cretPW@db.invalid/kb"
    code, out, err = run_cli(["migrate", "--from", url, "--to", url, "--no-progress"])
    assert code == 2 and "name the same store" in err and "s3cretPW" not in out + err
