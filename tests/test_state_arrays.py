"""Query arrays kept in the store file (``vizrag_state_arrays_v1``) and query-ready writers.

A lazy query on a writable SQLite store keeps the layers' incidence arrays, the mention
pairs, the query-repair vocabulary and the chunk catalogue in the store, for its state (the
walk's two-step matrix too: ``test_walk_kept.py``); a later process — a
read-only one included — reads them back instead of computing them, and gets the same
results as the full in-memory path. A write of any kind (add, delete, compaction) makes them
stale: they are then never used. ``vizrag index`` / ``vizrag delete`` make a store read
lazily query-ready before they close it, so a read-only ``vizrag query`` starts from them.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import Document, HypergraphStore, VizRAG
from hyperviz_core.rag.retrieve.lazy import LazyCorpus
from hyperviz_core.rag.store.kept import pack_arrays, unpack_arrays
from hyperviz_core.rag.store.sqlite import lookups as lookups_module
from hyperviz_core.rag.store.sqlite import state_arrays
from hyperviz_core.rag.store.sqlite.fts import FTS_TABLE, fts_ready
from hyperviz_core.rag.store.sqlite.state_arrays import STATE_TABLE

DATA = Path(__file__).parent / "data"
QUESTIONS = ["Who is the wife of Kim Jong-chul?", "When was the singer of Hello Love born?",
             "What is the capital of Tennessee?", "Which river is the western border?"]


@pytest.fixture(autouse=True)
def _always_lazy(monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 0)


def _docs(n: int | None = None) -> list[Document]:
    passages = json.loads((DATA / "musique_sample.json").read_text())[:n]
    return [Document(id=f"p{p['idx']:04d}", text=p["text"], title=p["title"])
            for p in passages]


def _key(res: Any) -> list[Any]:
    return [(c.chunk_id, c.score, c.evidence, c.entities) for c in res.chunks] + [
        (e.key, e.score, e.role) for e in res.entities] + [
        (h.id, h.members) for h in res.hyperedges] + [res.anchors]


def _answers(store: Any, lazy: bool = True, *, close: bool = False) -> list[Any]:
    rag = VizRAG(store, show_progress=False)
    rag.retriever.lazy = lazy
    out = [_key(rag.retrieve(q, render=False)) for q in QUESTIONS]
    if lazy:
        assert isinstance(rag.retriever.query_corpus(), LazyCorpus)
    if close:
        rag.close()
    return out


def _kept(path: Path) -> dict[str, str]:
    conn = sqlite3.connect(path / "vizrag.sqlite")
    try:
        return dict(conn.execute(f"SELECT name, state FROM {STATE_TABLE}").fetchall())
    except sqlite3.OperationalError:
        return {}
    finally:
        conn.close()


class _Counting:
    """Counts the kept arrays computed (not read back) while installed."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.names: list[str] = []
        real = state_arrays.kept_arrays

        def counting(conn: Any, name: str, compute: Any, **options: Any) -> Any:
            def counted() -> Any:
                self.names.append(name)
                return compute()
            return real(conn, name, counted, **options)

        monkeypatch.setattr(lookups_module, "kept_arrays", counting)


def test_kept_then_read_back_by_a_read_only_process(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "s"
    VizRAG(path, show_progress=False).insert(_docs(40))
    full = _answers(HypergraphStore(path), lazy=False)
    counting = _Counting(monkeypatch)
    assert _answers(HypergraphStore(path)) == full  # computes and keeps them
    assert sorted(counting.names) == ["catalogue", "layer:relation", "layer:theme", "mentions",
                                      "strings:vocabulary"]
    assert sorted(_kept(path)) == sorted(counting.names)
    counting.names.clear()
    ro = HypergraphStore(path, read_only=True)
    assert _answers(ro) == full  # a new, read-only process: read back, nothing computed
    assert counting.names == []


@pytest.mark.parametrize("write", ["add", "delete", "compact"])
def test_a_write_makes_them_stale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  write: str) -> None:
    path = tmp_path / "s"
    docs = _docs(40)
    VizRAG(path, show_progress=False).insert(docs[:30])
    _answers(HypergraphStore(path))  # keeps them
    before = _kept(path)
    rag = VizRAG(path, show_progress=False)
    if write == "add":
        rag.insert(docs[30:])
    elif write == "delete":
        rag.delete(docs[0].id)
    else:
        rag.store.compact()  # type: ignore[attr-defined]
    rag.close()
    counting = _Counting(monkeypatch)
    ro = HypergraphStore(path, read_only=True)  # cannot keep new ones: computes each time
    assert _answers(ro) == _answers(HypergraphStore(path, read_only=True), lazy=False)
    assert "layer:relation" in counting.names and "mentions" in counting.names
    assert _kept(path) == before  # stale rows are left for a writer to replace
    counting.names.clear()
    _answers(HypergraphStore(path))  # a writable process replaces them
    assert _kept(path) != before and len(counting.names) == 5


def test_unreadable_row_is_computed_again(tmp_path: Path, caplog: pytest.LogCaptureFixture
                                          ) -> None:
    path = tmp_path / "s"
    VizRAG(path, show_progress=False).insert(_docs(20))
    want = _answers(HypergraphStore(path))
    conn = sqlite3.connect(path / "vizrag.sqlite")
    with conn:
        conn.execute(f"UPDATE {STATE_TABLE} SET data = X'00FF' WHERE name = 'mentions'")
    conn.close()
    assert _answers(HypergraphStore(path, read_only=True)) == want
    assert "unreadable" in caplog.text


def test_a_locked_store_is_not_waited_for(tmp_path: Path) -> None:
    """A writer holding the lock: the query does not wait for it (the busy timeout is
    60 s otherwise), answers, and keeps nothing."""
    path = tmp_path / "s"
    VizRAG(path, show_progress=False).insert(_docs(20))
    want = _answers(HypergraphStore(path), lazy=False)
    assert HypergraphStore(path).lexical_ready()  # the full-text index: made beforehand
    writer = sqlite3.connect(path / "vizrag.sqlite", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        assert _answers(HypergraphStore(path)) == want
        assert _kept(path) == {}
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_query_does_not_wait_for_a_writer_to_make_the_full_text_index(
        tmp_path: Path) -> None:
    """A store written through the Python API has no full-text index yet; a query while
    another process holds the write lock does not wait the 60 s busy timeout to make it:
    it answers from the loaded store (same results), and a later query makes the index."""
    path = tmp_path / "s"
    VizRAG(path, show_progress=False).insert(_docs(20))
    want = _answers(HypergraphStore(path), lazy=False)
    probe = sqlite3.connect(path / "vizrag.sqlite")
    assert not fts_ready(probe)
    writer = sqlite3.connect(path / "vizrag.sqlite", isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    try:
        rag = VizRAG(HypergraphStore(path), show_progress=False)
        t0 = time.monotonic()
        got = [_key(rag.retrieve(q, render=False)) for q in QUESTIONS]
        assert time.monotonic() - t0 < 30  # not one 60 s wait
        assert got == want
        assert not isinstance(rag.retriever.query_corpus(), LazyCorpus)
        assert not fts_ready(probe)
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert _answers(HypergraphStore(path)) == want  # lock gone: the lazy path, same answers
    assert fts_ready(probe)
    probe.close()


def test_pack_round_trip() -> None:
    big = np.array([0, 2**40, -5], dtype=np.int64)
    arrays, strings = unpack_arrays(pack_arrays(
        {"big": big, "empty": np.zeros(0, dtype=np.int64)},
        {"words": ["", "ß", "日本", "a\x00b"], "none": []}))
    assert arrays["big"].tolist() == big.tolist() and arrays["big"].dtype == np.int64
    assert arrays["empty"].size == 0
    assert strings == {"words": ["", "ß", "日本", "a\x00b"], "none": []}


# ---------------------------------------------------------------------------- the CLI
def _corpus(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps({"id": d.id, "title": d.title, "text": d.text}) + "\n"
                              for d in _docs(30)))
    return corpus


def _objects(path: Path) -> set[str]:
    conn = sqlite3.connect(path / "vizrag.sqlite")
    try:
        return {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    finally:
        conn.close()


def test_cli_index_and_delete_leave_the_store_query_ready(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    store = tmp_path / "store"
    assert main(["index", str(_corpus(tmp_path)), "--store", str(store), "--no-progress"]) == 0
    assert "query-ready: text index, BM25 lengths and query arrays" in capsys.readouterr().out
    assert {FTS_TABLE, STATE_TABLE} <= _objects(store) and len(_kept(store)) == 5
    counting = _Counting(monkeypatch)
    assert main(["query", "Who is the wife of Kim Jong-chul?", "--store", str(store),
                 "--json"]) == 0
    assert counting.names == []  # the read-only query read everything back
    got = json.loads(capsys.readouterr().out)
    want = VizRAG(HypergraphStore(store, read_only=True), show_progress=False)
    want.retriever.lazy = False
    ref = want.retrieve("Who is the wife of Kim Jong-chul?", render=False)
    assert [c["chunk_id"] for c in got["chunks"]] == [c.chunk_id for c in ref.chunks]
    before = _kept(store)
    assert main(["delete", _docs(1)[0].id, "--store", str(store)]) == 0
    assert "query-ready" in capsys.readouterr().out
    assert _kept(store) != before  # kept again for the new state


def test_cli_index_no_prepare_and_small_stores(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus(tmp_path)
    assert main(["index", str(corpus), "--store", str(tmp_path / "a"), "--no-progress",
                 "--no-prepare", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["query_ready_seconds"] is None
    assert STATE_TABLE not in _objects(tmp_path / "a")
    from hyperviz_core.rag.retrieve import retriever as retriever_module

    monkeypatch.setattr(retriever_module, "LAZY_MIN_CHUNKS", 4_000)  # the default
    assert main(["index", str(corpus), "--store", str(tmp_path / "b"), "--no-progress"]) == 0
    assert "query-ready" not in capsys.readouterr().out  # a small store loads: nothing kept
    assert STATE_TABLE not in _objects(tmp_path / "b")


def test_cli_import_hyperrag_leaves_the_store_query_ready(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from interop_fakes import HYPERRAG_DIR

    store = tmp_path / "store"
    assert main(["import-hyperrag", str(HYPERRAG_DIR), "--store", str(store),
                 "--no-progress"]) == 0
    assert "query-ready" in capsys.readouterr().out
    assert {FTS_TABLE, STATE_TABLE} <= _objects(store) and len(_kept(store)) == 5
    assert main(["import-hyperrag", str(HYPERRAG_DIR), "--store", str(store), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["query_ready_seconds"] >= 0


def test_cli_migrate_leaves_the_destination_query_ready(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A copy made by ``vizrag migrate`` is query-ready like an indexed store: a read-only
    query of a new process reads every array back (before, the first query of each process
    built them all: a read-only one cannot keep them); ``--no-prepare`` skips the step."""
    src = tmp_path / "src"
    assert main(["index", str(_corpus(tmp_path)), "--store", str(src), "--no-progress",
                 "--no-prepare"]) == 0
    capsys.readouterr()
    assert main(["migrate", "--from", str(src), "--to", str(tmp_path / "bare"), "--no-prepare",
                 "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["query_ready_seconds"] is None
    assert STATE_TABLE not in _objects(tmp_path / "bare")
    dst = tmp_path / "dst"
    assert main(["migrate", "--from", str(src), "--to", str(dst), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "counts verified" in out and "query-ready: text index" in out
    assert {FTS_TABLE, STATE_TABLE} <= _objects(dst) and len(_kept(dst)) == 5
    counting = _Counting(monkeypatch)
    assert _answers(HypergraphStore(dst, read_only=True)) == _answers(
        HypergraphStore(src, read_only=True), lazy=False)
    assert counting.names == []  # the read-only queries read everything back
    assert main(["migrate", "--from", str(src), "--to", str(dst), "--no-progress",
                 "--json"]) == 0  # a re-run copies nothing and finds the copy ready
    assert json.loads(capsys.readouterr().out)["query_ready_seconds"] >= 0


def test_cli_migrate_interrupted_while_making_the_copy_query_ready(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C in the query-ready step: exit 130 with one line saying so, after the copy's
    report; every document is copied (a re-run makes the copy ready)."""
    from hyperviz_core.cli import ready

    src, dst = tmp_path / "src", tmp_path / "dst"
    assert main(["index", str(_corpus(tmp_path)), "--store", str(src), "--no-progress"]) == 0

    def interrupted(store: Any, command: str) -> float | None:
        raise KeyboardInterrupt

    real = ready.make_query_ready
    monkeypatch.setattr(ready, "make_query_ready", interrupted)
    capsys.readouterr()
    assert main(["migrate", "--from", str(src), "--to", str(dst), "--no-progress"]) == 130
    out, err = capsys.readouterr()
    assert "counts verified: equal to the source" in out
    assert "interrupted while making the destination query-ready" in err
    assert HypergraphStore(dst, read_only=True).stats().documents == 30
    monkeypatch.setattr(ready, "make_query_ready", real)
    assert main(["migrate", "--from", str(src), "--to", str(dst), "--no-progress"]) == 0
    assert "query-ready" in capsys.readouterr().out


def test_kept_catalogue_equals_the_computed_one(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The chunk catalogue read back equals the one read from the tables: titled chunks
    without metadata, untitled ones with theirs (a title in the metadata included)."""
    path = tmp_path / "s"
    docs = [*_docs(8), Document(id="u1", text="Untitled text naming Oslo and Lima twice."),
            Document(id="u2", text="Text whose title is in its metadata.",
                     metadata={"title": "Meta Title"})]
    VizRAG(path, show_progress=False).insert(docs)
    conn = sqlite3.connect(path / "vizrag.sqlite")  # the rows as the tables hold them
    computed = [(num, cid, doc, idx, title or "", meta if not title else None)
                for num, cid, doc, idx, title, meta in conn.execute(
                    "SELECT c.rowid, c.id, c.doc_id, c.idx, d.title, c.metadata FROM chunks c "
                    "JOIN documents d ON d.id = c.doc_id ORDER BY c.id")]
    conn.close()
    with HypergraphStore(path, read_only=True) as ro:
        assert ro.chunk_catalogue() == computed  # no table yet: nothing kept
    assert _kept(path) == {}
    assert {r[5] is None for r in computed} == {True, False}
    assert any('"Meta Title"' in (r[5] or "") for r in computed)
    with HypergraphStore(path) as rw:
        assert rw.chunk_catalogue() == computed
    assert list(_kept(path)) == ["catalogue"]
    counting = _Counting(monkeypatch)
    with HypergraphStore(path, read_only=True) as ro:
        assert ro.chunk_catalogue() == computed
    assert counting.names == []  # read back
