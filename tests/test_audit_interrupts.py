"""Crash audit: a store's failure stops a run once, Ctrl-C ends commands with one line.

- a full disk (or a lock held past the wait) fails every document the same way: the run stops
  at the first, says so once (:attr:`IndexReport.stopped`) and retries nothing;
- extraction workers leave Ctrl-C to the parent (no traceback from each worker);
- ``vizrag`` ends with one line and exit code 130 on Ctrl-C; a query batch says how far it
  got, an interrupted compaction prints the run's report (every document is committed);
- a new store that cannot be opened is removed again, unless another process holds its lock.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli

from hyperviz_core.rag import HeuristicExtractor, HeuristicThemeExtractor, Indexer
from hyperviz_core.rag.index.failures import is_lock_error, store_wide_error
from hyperviz_core.rag.index.workers import ExtractionPool
from hyperviz_core.rag.store import HypergraphStore
from hyperviz_core.rag.types import Chunk, Document

TEXTS = [f"Marie Curie worked in Paris with Pierre Curie on radium sample {i}." for i in range(6)]


def _docs() -> list[Document]:
    return [Document(id=f"d{i}", text=t) for i, t in enumerate(TEXTS)]


def _inputs(tmp_path: Path) -> Path:
    src = tmp_path / "in"
    src.mkdir()
    for i, t in enumerate(TEXTS):
        (src / f"d{i}.txt").write_text(t, encoding="utf-8")
    return src


# ------------------------------------------------------------------ the store's failure
def test_store_wide_errors_are_told_from_a_documents_own() -> None:
    full = store_wide_error(sqlite3.OperationalError("database or disk is full"), "s.sqlite")
    assert full is not None and "disk is full" in str(full)
    assert store_wide_error(sqlite3.OperationalError("database is locked"), "s") is not None
    assert store_wide_error(sqlite3.IntegrityError("UNIQUE constraint failed: x.id"), "s") \
        is None
    assert store_wide_error(ValueError("bad document"), "s") is None
    assert is_lock_error(sqlite3.OperationalError("database is locked"))
    assert not is_lock_error(ValueError("database is locked"))  # not the store's error


def test_a_full_disk_stops_the_run_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                        ) -> None:
    store = HypergraphStore(tmp_path / "s.sqlite")
    Indexer(store, concurrency=1).index(_docs()[:1])  # one document committed before
    calls: list[int] = []

    def full(items: Any, **_: Any) -> Any:
        calls.append(len(items))
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(store, "add_documents", full)
    report = Indexer(store, concurrency=1, max_batch_documents=1).index(_docs()[1:])
    assert report.stopped is not None and "disk is full" in report.stopped
    assert report.errors == []  # the store's failure is said once, as the stop
    assert report.documents_added == 0
    # stopped at the first failure: not one attempt per document, no per-document retry
    assert len(calls) <= 2, calls
    monkeypatch.undo()
    assert [d.id for d in store.documents()] == ["d0"]  # what was committed stays
    store.close()


def test_a_documents_own_failure_does_not_stop_the_run(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    store = HypergraphStore(tmp_path / "s.sqlite")
    real = store.add_documents

    def picky(items: Any, **kw: Any) -> Any:
        if any(i.doc.id == "d2" for i in items):
            raise sqlite3.IntegrityError("CHECK constraint failed: d2")
        return real(items, **kw)

    monkeypatch.setattr(store, "add_documents", picky)
    report = Indexer(store, concurrency=2).index(_docs())
    assert report.stopped is None
    assert report.documents_failed == 1 and report.documents_added == 5
    assert len(report.errors) == 1 and report.errors[0].startswith("d2:")
    store.close()


def test_cli_full_disk_is_one_line_and_keeps_the_store(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    src = _inputs(tmp_path)
    s = tmp_path / "store"
    assert run_cli(["index", str(src / "d0.txt"), "--store", str(s), "--no-progress"])[0] == 0

    def full(self: Any, items: Any, **_: Any) -> Any:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(HypergraphStore, "add_documents", full)
    code, _, err = run_cli(["index", str(src), "--store", str(s), "--no-progress"])
    assert code == 2, err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1 and "disk is full" in lines[0], err  # said once
    assert "Traceback" not in err
    monkeypatch.undo()
    with HypergraphStore(s) as st:
        assert [d.id for d in st.documents()] == ["d0"]


# ------------------------------------------------------------------ Ctrl-C
def test_extraction_workers_ignore_ctrl_c() -> None:
    pool = ExtractionPool(HeuristicExtractor(), HeuristicThemeExtractor(), workers=1)
    try:
        chunk = Chunk(id="c", doc_id="d", text=TEXTS[0], index=0)
        first = pool.run([chunk])
        pids = list(pool._pool._processes)  # the started worker
        assert pids
        for pid in pids:
            os.kill(pid, signal.SIGINT)  # what a terminal's Ctrl-C sends the whole group
        assert pool.run([chunk]) == first  # the same worker, still alive
        assert list(pool._pool._processes) == pids
    finally:
        pool.close()


def test_ctrl_c_is_one_line_and_exit_130(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    src = _inputs(tmp_path)
    s = str(tmp_path / "store")
    assert run_cli(["index", str(src), "--store", s, "--no-progress"])[0] == 0
    monkeypatch.setattr("hyperviz_core.cli.index._print_stats", interrupted)
    code, _, err = run_cli(["stats", "--store", s])
    assert code == 130
    assert err.strip() == "vizrag stats: interrupted"


def test_ctrl_c_in_a_query_batch_says_how_far_it_got(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    src = _inputs(tmp_path)
    s = str(tmp_path / "store")
    assert run_cli(["index", str(src), "--store", s, "--no-progress"])[0] == 0
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps({"id": f"q{i}", "question": q}) + "\n" for i, q in
                                 enumerate(["Who worked in Paris?", "What is radium?",
                                            "Who is Pierre Curie?"])))
    from hyperviz_core.rag import VizRAG

    real = VizRAG.query
    asked: list[str] = []

    def query(self: Any, question: str, *a: Any, **kw: Any) -> Any:
        asked.append(question)
        if len(asked) == 2:
            raise KeyboardInterrupt
        return real(self, question, *a, **kw)

    monkeypatch.setattr(VizRAG, "query", query)
    code, out, err = run_cli(["query", "--questions", str(questions), "--store", s,
                              "--json", "--no-render"])
    assert code == 130, err
    assert "interrupted after 1 of 3 questions" in err
    assert "Traceback" not in err
    assert len([x for x in out.splitlines() if x.startswith("{")]) == 1


def test_ctrl_c_while_compacting_keeps_every_document(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupted(*_: Any, **__: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("hyperviz_core.cli.index_store.compact_store", interrupted)
    src = _inputs(tmp_path)
    s = tmp_path / "store"
    code, out, err = run_cli(["index", str(src), "--store", str(s), "--no-progress"])
    assert code == 130, err
    assert "interrupted while compacting" in err and "committed" in err
    assert "Traceback" not in err
    assert "6" in out  # the run's report is printed
    with HypergraphStore(s) as st:
        assert len(list(st.documents())) == len(TEXTS)


# ------------------------------------------------------------------ a new store's files
@pytest.mark.parametrize(("error", "removed"), [
    ("database or disk is full", True),  # this run created it: nothing left behind
    ("database is locked", False),  # may be another process's store, created a moment ago
])
def test_a_new_store_that_fails_to_open(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        error: str, removed: bool) -> None:
    def failing(self: Any) -> Any:
        raise sqlite3.OperationalError(error)

    monkeypatch.setattr(HypergraphStore, "stats", failing)
    src = _inputs(tmp_path)
    s = tmp_path / "new-store"
    code, _, err = run_cli(["index", str(src), "--store", str(s), "--no-progress"])
    assert code == 2, err
    assert "Traceback" not in err
    assert s.exists() is not removed


def test_indexing_into_a_read_only_store_is_refused_at_once(tmp_path: Path) -> None:
    """Not one 'is open read-only' failure per document: one error before any is read."""
    from hyperviz_core.rag import VizRAG
    from hyperviz_core.rag.store import StoreError

    path = tmp_path / "s"
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(_docs()[:1])
    read: list[str] = []

    def docs() -> Any:
        for d in _docs()[1:]:
            read.append(d.id)
            yield d

    with VizRAG(HypergraphStore(path, read_only=True), show_progress=False) as rag:
        with pytest.raises(StoreError, match="read-only"):
            rag.insert(_docs()[1:])
        with pytest.raises(StoreError, match="read-only"):
            Indexer(rag.store).index(docs())  # a stream: not one document read
    assert read == []
    with HypergraphStore(path) as st:
        assert [d.id for d in st.documents()] == ["d0"]
