"""``vizrag index`` / ``vizrag query`` against a misbehaving OpenAI-compatible server (a local
fake, :mod:`provider_fakes`; no network): one-line errors, retries, --timeout/--max-retries,
documents that fail instead of being committed empty."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from provider_fakes import FakeOpenAI, completion, dead_url

from hyperviz_core.cli import main

DOCS = {"a.txt": "Marie Curie worked with Pierre Curie in Paris on Polonium.",
        "b.txt": "Ada Lovelace wrote notes on the Analytical Engine of Charles Babbage."}


@pytest.fixture(autouse=True)
def _key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def index(docs: Path, store: Path, *extra: str) -> int:
    return main(["index", str(docs), "--store", str(store), "--no-progress", "--json", *extra])


def test_provider_down_during_the_dimension_probe_is_one_line_and_writes_nothing(
        docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s"
    url = dead_url()
    assert index(docs, store, "--embed", f"openai:emb-x@{url}", "--max-retries", "0") == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("vizrag index: error: model provider: connection error")
    assert "\n" not in err and "Traceback" not in err and url in err
    assert not store.exists()  # the probe runs before the store is created

    good = tmp_path / "good"
    assert index(docs, good) == 0
    capsys.readouterr()
    assert main(["query", "Who is Curie?", "--store", str(good), "--embed",
                 f"openai:bge-x@{url}", "--max-retries", "0"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("vizrag query: error: model provider: connection error")
    assert "\n" not in err


def test_embedding_429s_are_retried(docs: Path, tmp_path: Path,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    def limited(kind: str, n: int) -> Any:
        if kind == "emb" and n <= 2:
            return 429, {"error": {"message": "rate limited"}}, {"Retry-After": "0.01"}
        return None

    with FakeOpenAI(faults=limited) as fake:
        assert index(docs, tmp_path / "s", "--embed", f"openai:emb-x@{fake.url}") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["documents_added"] == 2 and report["documents_failed"] == 0
    assert fake.calls["emb"] >= 4  # 2 refused + the probe + the documents

    with FakeOpenAI(faults=limited) as fake:  # --max-retries 0: the probe fails, one line
        assert index(docs, tmp_path / "t", "--embed", f"openai:emb-x@{fake.url}",
                     "--max-retries", "0") == 2
    assert "HTTP 429" in capsys.readouterr().err


def test_short_embedding_responses_fail_the_document(docs: Path, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    def short(kind: str, n: int) -> Any:
        if kind == "emb" and n > 1:  # the probe is fine, every later answer is empty
            return 200, {"object": "list", "data": [], "model": "m"}, {}
        return None

    store = tmp_path / "s"
    with FakeOpenAI(faults=short) as fake:
        assert index(docs, store, "--embed", f"openai:emb-x@{fake.url}") == 1
    report = json.loads(capsys.readouterr().out)
    assert report["documents_failed"] == 2 and report["documents_added"] == 0
    assert any("got 0 embeddings for 1 inputs" in e for e in report["errors"])
    assert report["store"]["documents"] == 0


def test_an_answer_without_choices_fails_the_document_and_a_rerun_extracts_it(
        docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s"
    with FakeOpenAI(faults=lambda k, n: (200, completion(None, choices=False), {})
                    if k == "chat" else None) as fake:
        assert index(docs, store, "--llm", f"openai:gpt-x@{fake.url}", "--max-retries", "0") == 1
    first = json.loads(capsys.readouterr().out)
    assert first["documents_failed"] == 2 and first["documents_added"] == 0
    with FakeOpenAI() as fake:
        assert index(docs, store, "--llm", f"openai:gpt-x@{fake.url}") == 0
    again = json.loads(capsys.readouterr().out)
    assert again["documents_added"] == 2 and again["documents_skipped"] == 0
    assert again["entities"] > 0


def test_query_llm_is_retried(tmp_path: Path, docs: Path,
                              capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "s"
    assert index(docs, store) == 0
    capsys.readouterr()

    def limited(kind: str, n: int) -> Any:
        if kind == "chat" and n <= 2:
            return 429, {"error": {"message": "rate limited"}}, {"Retry-After": "0.01"}
        return None

    with FakeOpenAI(faults=limited) as fake:
        assert main(["query", "Who discovered Polonium?", "--store", str(store), "--llm",
                     f"openai:gpt-x@{fake.url}", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert not [w for w in out["warnings"] if "failed" in w]  # no stage fell back
    assert out["answer_kind"] == "llm" and fake.calls["chat"] >= 3


def test_timeout_option_reaches_the_provider(docs: Path, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    def slow(kind: str, n: int) -> Any:
        time.sleep(3)
        return None

    with FakeOpenAI(faults=slow) as fake:
        t0 = time.monotonic()
        assert index(docs, tmp_path / "s", "--embed", f"openai:emb-x@{fake.url}",
                     "--timeout", "0.3", "--max-retries", "0") == 2
        assert time.monotonic() - t0 < 2.5
    assert "within 0.3 s" in capsys.readouterr().err
    for command in (["index", str(docs), "--store", str(tmp_path / "t")],
                    ["query", "q", "--store", str(tmp_path / "t")]):
        with pytest.raises(SystemExit) as info:
            main([*command, "--timeout", "0"])
        assert info.value.code == 2
    assert "--timeout: must be a positive number of seconds" in capsys.readouterr().err


def _many(tmp_path: Path, n: int = 30) -> Path:
    folder = tmp_path / "many"
    folder.mkdir()
    for i in range(n):
        (folder / f"d{i:02d}.txt").write_text(f"Marie Curie met Person {i} in Paris.",
                                              encoding="utf-8")
    return folder


def test_a_provider_that_fails_every_document_from_the_start_stops_the_run(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    many, store = _many(tmp_path), tmp_path / "s"
    assert index(many, store, "--llm", f"openai:gpt-x@{dead_url()}", "--max-retries", "0",
                 "--concurrency", "1") == 2
    out = capsys.readouterr()
    report = json.loads(out.out)
    # the third failure stops the reading; the two documents already running still fail
    assert 3 <= report["documents_failed"] <= 5 and report["documents_added"] == 0
    assert report["stopped"].startswith("the provider failed the first 3 documents")
    last = out.err.strip().splitlines()[-2:]
    assert last[0].startswith("vizrag index: the provider failed")
    assert last[1].startswith("vizrag index: removed the empty store") and not store.exists()
    with FakeOpenAI() as fake:  # the server is up: the same command indexes everything
        assert index(many, store, "--llm", f"openai:gpt-x@{fake.url}") == 0
    again = json.loads(capsys.readouterr().out)
    assert again["documents_added"] == 30 and again["stopped"] is None


@pytest.mark.parametrize("name", ["s.sqlite", "existing"])
def test_a_stopped_run_removes_only_the_empty_store_it_created(
        tmp_path: Path, name: str, capsys: pytest.CaptureFixture[str]) -> None:
    many, store = _many(tmp_path, 4), tmp_path / name
    keep = tmp_path / "s.sqlite.notes"  # beside the store, not the run's: never touched
    keep.write_text("mine")
    if name == "existing":
        store.mkdir()  # a folder the user made: left as it is, store and all
    assert index(many, store, "--llm", f"openai:gpt-x@{dead_url()}", "--max-retries", "0",
                 "--concurrency", "1") == 2
    err = capsys.readouterr().err
    assert ("removed the empty store" in err) == (name != "existing")
    assert store.exists() == (name == "existing") and keep.read_text() == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["many", keep.name, *(["existing"] if name == "existing" else [])])


def test_provider_failures_after_a_stored_document_are_per_document(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    many, store = _many(tmp_path, 8), tmp_path / "s"

    def after_first(kind: str, n: int) -> Any:  # 3 calls a document, 2 documents in flight
        return (401, {"error": {"message": "key revoked"}}, {}) if kind == "chat" and n > 6 \
            else None

    with FakeOpenAI(faults=after_first) as fake:
        assert index(many, store, "--llm", f"openai:gpt-x@{fake.url}", "--max-retries", "0",
                     "--concurrency", "1") == 1
    report = json.loads(capsys.readouterr().out)
    assert report["documents_added"] >= 1 and report["stopped"] is None
    assert report["documents_added"] + report["documents_failed"] == 8  # every one was tried
