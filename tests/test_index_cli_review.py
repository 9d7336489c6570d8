"""``vizrag index`` after review: a store another process is creating, the store a failed run
leaves (removed only when it holds nothing, kept with the model answers the run paid for),
a provider stop whose "none was stored" became false, the stop's wording, a model that
ignores the output format, and the progress bar's MB without a known total.

The provider is a local fake OpenAI-compatible server (:mod:`provider_fakes`, 127.0.0.1);
no network.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from provider_fakes import FakeOpenAI, completion, dead_url

from hyperviz_core.cli import main

FAIL: tuple[int, Any, dict[str, str]] = (500, {"error": {"message": "boom"}}, {})


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


def _docs(tmp_path: Path, n: int, slow: int | None = None) -> Path:
    """``n`` one-line text files (``slow``: the index of one whose text says "Slowpoke")."""
    folder = tmp_path / "docs"
    folder.mkdir()
    for i in range(n):
        who = "Slowpoke" if i == slow else f"Person{i}"
        (folder / f"d{i:02d}.txt").write_text(f"Marie Curie met {who} in Paris.",
                                              encoding="utf-8")
    return folder


def _index(docs: Path, store: Path, *extra: str) -> int:
    return main(["index", str(docs), "--store", str(store), "--no-progress", *extra])


class _ThemeFails(FakeOpenAI):
    """Extraction answers (paid for, cached in the store), every other chat call a 500
    while :attr:`failing`."""

    failing = True

    def answer(self, kind: str, req: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        prompt = str(req.get("messages", [{}])[-1].get("content", ""))
        if self.failing and kind == "chat" and "extract" not in prompt.lower():
            with self._lock:
                self.calls[kind] += 1
            return FAIL
        return super().answer(kind, req)


class _OnlySlowpoke(FakeOpenAI):
    """Chat calls about "Slowpoke" answer after a while; every other chat call is a 500."""

    def answer(self, kind: str, req: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        if kind == "chat" and "Slowpoke" not in json.dumps(req):
            return FAIL
        if kind == "chat":
            time.sleep(0.6)  # the other documents fail (and trip the breaker) meanwhile
        return super().answer(kind, req)


class _Prose(FakeOpenAI):
    """A model that ignores the output format: prose for every chat call."""

    def answer(self, kind: str, req: dict[str, Any]) -> tuple[int, Any, dict[str, str]]:
        if kind == "chat":
            return 200, completion("Sure! The text talks about some people in a city."), {}
        return super().answer(kind, req)


# 1. a store another process is creating ---------------------------------------------------
def test_an_empty_file_or_schema_less_database_is_a_store_being_created(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.cli.index import recorded_embedder

    empty = tmp_path / "s.sqlite"
    empty.touch()  # what the other process's open made an instant ago
    assert recorded_embedder(str(empty)) is None
    folder = tmp_path / "s"
    folder.mkdir()
    conn = sqlite3.connect(folder / "vizrag.sqlite")  # an SQLite database, no schema yet
    conn.execute("CREATE TABLE t (x)")
    conn.execute("DROP TABLE t")
    conn.commit()
    conn.close()
    assert (folder / "vizrag.sqlite").stat().st_size > 0
    assert recorded_embedder(str(folder)) is None
    docs = _docs(tmp_path, 2)
    for store in (empty, folder):  # the creating open gives it its schema
        assert _index(docs, store, "--json") == 0
        assert json.loads(capsys.readouterr().out)["documents_added"] == 2


def test_a_file_that_is_not_a_store_is_still_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    other = tmp_path / "notes.sqlite"
    other.write_text("my notes, not a database")
    assert _index(_docs(tmp_path, 1), other) == 2
    assert "vizrag index: error:" in capsys.readouterr().err
    assert other.read_text() == "my notes, not a database"


# 2. the store a failed run created --------------------------------------------------------
def test_a_stopped_run_keeps_the_new_store_with_the_answers_it_paid_for(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs, store = _docs(tmp_path, 5), tmp_path / "s"
    fake = _ThemeFails()
    with fake:
        llm = f"openai:gpt-x@{fake.url}"
        assert _index(docs, store, "--llm", llm, "--max-retries", "0", "--concurrency", "1",
                      "--json") == 2
        out = capsys.readouterr()
        first = json.loads(out.out)
        assert first["documents_added"] == 0 and first["stopped"] is not None
        paid = first["llm_calls"] - first["cache_hits"]  # the extraction answers (themes fail)
        assert paid >= 3 and store.exists()
        assert f"kept the store {store}" in out.err and f"the {paid} model answers" in out.err
        assert "removed the empty store" not in out.err
        fake.failing = False  # the same command again: the extraction answers are cached
        before = fake.calls["chat"]
        assert _index(docs, store, "--llm", llm, "--json") == 0
        again = json.loads(capsys.readouterr().out)
        assert again["documents_added"] == 5 and again["cache_hits"] == paid
        assert fake.calls["chat"] - before == again["llm_calls"]  # the others: cache hits


def test_a_small_run_that_stored_nothing_leaves_no_empty_store(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs, store = _docs(tmp_path, 2), tmp_path / "s"
    assert _index(docs, store, "--llm", f"openai:gpt-x@{dead_url()}", "--max-retries", "0",
                  "--json") == 1  # 2 failures: not the breaker's stop, per-document ones
    err = capsys.readouterr().err
    assert f"removed the empty store {store}" in err and not store.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docs"]


# 3. a document stored after the breaker tripped -------------------------------------------
def test_a_document_stored_after_the_stop_makes_none_was_stored_false() -> None:
    from hyperviz_core.rag.index.breaker import StartBreaker
    from hyperviz_core.rag.providers.protocols import ProviderError

    b = StartBreaker()
    for _ in range(3):
        b.failure(ProviderError("HTTP 500: boom"))
    assert b.reason is not None and "none was stored" in b.reason
    b.success()
    assert b.reason is not None and "none was stored" not in b.reason
    assert "1 document in flight then was stored" in b.reason


def test_a_late_success_exits_1_not_2(tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    docs, store = _docs(tmp_path, 5, slow=4), tmp_path / "s"
    with _OnlySlowpoke() as fake:
        rc = _index(docs, store, "--llm", f"openai:gpt-x@{fake.url}", "--max-retries", "0",
                    "--json")
    out = capsys.readouterr()
    report = json.loads(out.out)
    assert report["documents_added"] == 1 and report["documents_failed"] == 4
    assert rc == 1
    assert "none was stored" not in out.err
    assert "1 document in flight then was stored after all" in report["stopped"]


# 4. the text report of a stopped run ------------------------------------------------------
def test_the_text_report_of_a_stopped_run_says_what_happened(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs, store = _docs(tmp_path, 10), tmp_path / "s"
    assert _index(docs, store, "--llm", f"openai:gpt-x@{dead_url()}", "--max-retries",
                  "0") == 2
    out = capsys.readouterr()
    head = out.out.splitlines()[0]
    failed = int(out.out.splitlines()[1].split(" failed;")[0].rsplit(" ", 1)[1])
    assert not head.startswith("indexed")
    assert f"{failed} of 10 documents: 0 stored" in head and "removed the store" in head
    assert ("stopped after reading" in head) == (failed < 10)
    assert "stopped before reading the other documents" not in out.err
    assert "indexing stopped:" not in out.err  # the indexer's log of the stop: said once
    assert not store.exists()


# 5. a model that ignores the output format -------------------------------------------------
def test_a_model_whose_answers_hold_no_entity_is_warned_about(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs, store = _docs(tmp_path, 3), tmp_path / "s"
    with _Prose() as fake:
        assert _index(docs, store, "--llm", f"openai:gpt-x@{fake.url}") == 0
    out = capsys.readouterr()
    assert "3 added" in out.out and "0 entity mentions" in out.out
    assert "skipped 3 malformed model records" in out.out
    assert ("vizrag index: warning: the model's answers held no entity in the expected format "
            "(3 records skipped)") in out.err
    assert out.err.count("held no entity") == 1  # the indexer's own log of it is not doubled
    with FakeOpenAI() as fake:  # a model that answers in the format: no warning
        assert _index(docs, tmp_path / "good", "--llm", f"openai:gpt-x@{fake.url}") == 0
    out = capsys.readouterr()
    assert "warning" not in out.err and "malformed" not in out.out


# 6. the progress bar without a total -------------------------------------------------------
def test_the_progress_bar_rounds_mb_without_a_total() -> None:
    from hyperviz_core.rag.index.report import progress

    bar = progress(None, disable=False)
    try:
        bar.update(1.0016789999999998)
        bar.update(0.0043809999999999995)
        text = str(bar)
    finally:
        bar.close()
    assert "1.01 MB" in text and "1.006" not in text and "1.0060" not in text


def test_a_list_given_to_insert_gives_the_bar_its_total(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]
                                                        ) -> None:
    """``VizRAG.insert([...])``: the bar knows the list's size (a percentage and an ETA), as
    ``vizrag index`` does; a stream's size is not known ahead."""
    from hyperviz_core.rag import Document, VizRAG
    from hyperviz_core.rag.index.report import known_size

    docs = [Document(id=f"d{i}", text="Ada Lovelace met Charles Babbage. " * 20)
            for i in range(3)]
    assert known_size(docs, None) == 3 * len(docs[0].text.encode())
    assert known_size(iter(docs), None) is None and known_size(docs, 7) == 7
    with VizRAG(tmp_path / "s", show_progress=True) as rag:
        rag.insert(docs)
    assert "100%" in capsys.readouterr().err
