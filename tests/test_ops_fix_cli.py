"""Operations review fixes of the ``vizrag`` command line.

- ``vizrag index --compact`` compacts whatever the run did; ``vizrag delete --compact``
  (also without ids) gives the space of deleted documents back;
- SIGTERM ends a command as Ctrl-C does (one line), exit code 143; workers shut down;
- ``vizrag migrate --upgrade --json`` prints JSON; an interrupted ``index --json`` too;
- ``--out`` that cannot be written: one line naming it, exit 2, a batch stops, the folders
  the command created and left empty are removed; a full disk names the output's path;
- ``-`` is standard output for ``export --hif`` and standard input for ``query``;
- a document's failure is said once, the removed store once, the model calls as answered
  and failed.
"""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli
from provider_fakes import dead_url

from hyperviz_core.rag.store import HypergraphStore

TEXTS = [f"Marie Curie worked in Paris with Pierre Curie on radium sample {i}." for i in range(6)]


def _inputs(tmp_path: Path, n: int = 6) -> Path:
    src = tmp_path / "in"
    src.mkdir()
    for i in range(n):
        (src / f"d{i}.txt").write_text(TEXTS[i % len(TEXTS)] + f" Note {i}.", encoding="utf-8")
    return src


def _store(tmp_path: Path) -> str:
    s = str(tmp_path / "store")
    code, _, err = run_cli(["index", str(_inputs(tmp_path)), "--store", s, "--no-progress"])
    assert code == 0, err
    return s


# ------------------------------------------------------------------ 2. compaction
def test_index_compact_compacts_a_run_that_added_nothing(tmp_path: Path) -> None:
    src = tmp_path / "big.json"
    src.write_text(json.dumps([{"id": f"p{i}", "title": f"Person {i}", "text":
                                f"Person {i} met Marie Curie in Paris in {1900 + i}. " * 20}
                               for i in range(60)]), encoding="utf-8")
    s = str(tmp_path / "store")
    assert run_cli(["index", str(src), "--store", s, "--no-progress"])[0] == 0
    assert run_cli(["delete", "--store", s, *[f"p{i}" for i in range(20, 60)]])[0] == 0
    code, out, err = run_cli(["index", str(src), "--store", s, "--no-progress", "--limit", "20",
                              "--compact", "--json"])  # p0..p19: unchanged, nothing added
    report = json.loads(out)
    assert code == 0, err
    assert report["documents_added"] == 0 and report["documents_skipped"] == 20
    assert report["compacted_bytes"] > 0  # the space of the deleted documents


def test_index_compact_runs_when_nothing_changed(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    s = _store(tmp_path)
    calls: list[int] = []
    monkeypatch.setattr(HypergraphStore, "compact", lambda self: calls.append(1) or 4096)
    code, out, _ = run_cli(["index", str(tmp_path / "in"), "--store", s, "--no-progress",
                            "--compact"])
    assert code == 0 and calls == [1]
    assert "6 unchanged" in out and "compacted:" in out
    calls.clear()  # the default: only a run that filled an empty store
    assert run_cli(["index", str(tmp_path / "in"), "--store", s, "--no-progress"])[0] == 0
    assert calls == []


def test_delete_compact_gives_the_space_back(tmp_path: Path) -> None:
    s = _store(tmp_path)
    code, out, err = run_cli(["delete", "--store", s, "d0", "d1", "d2", "--compact"])
    assert code == 0, err
    assert "deleted 3 documents" in out and "compacted " in out and "MiB freed" in out
    code, out, err = run_cli(["delete", "--store", s, "--compact"])  # compact alone
    assert code == 0, err
    assert out.startswith("compacted ") and "deleted" not in out
    with HypergraphStore(s) as st:
        assert st.stats().documents == 3
    code, _, err = run_cli(["delete", "--store", s])  # neither ids nor --compact
    assert code == 2 and "give the ids" in err


def test_a_failed_compaction_names_the_command_that_compacts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = _store(tmp_path)

    def full(self: object) -> int:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(HypergraphStore, "compact", full)
    code, _, err = run_cli(["delete", "--store", s, "d0", "--compact"])
    assert code == 0
    assert "vizrag delete: warning: compaction skipped (database or disk is full)" in err
    assert f"vizrag delete --store {Path(s) / 'vizrag.sqlite'} --compact" in err


# ------------------------------------------------------------------ 3. SIGTERM
def test_sigterm_is_an_interrupt_and_the_handlers_are_restored() -> None:
    from hyperviz_core.cli import sigterm_as_interrupt

    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)
    with sigterm_as_interrupt() as got, pytest.raises(KeyboardInterrupt):
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)  # the handler raises before this ends
    assert got == [signal.SIGTERM]
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGINT)) == before


def test_sigterm_ends_a_command_with_its_line_and_143(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    s = _store(tmp_path)

    def terminated(*_: Any, **__: Any) -> Any:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)

    class Unhandled(Exception):
        pass

    def unhandled(*_: Any) -> None:  # SIGTERM that the command did not handle
        raise Unhandled

    monkeypatch.setattr("hyperviz_core.cli.index._print_stats", terminated)
    previous = signal.signal(signal.SIGTERM, unhandled)
    try:
        code, _, err = run_cli(["stats", "--store", s])
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert code == 143
    assert err.strip() == "vizrag stats: interrupted"


def _corpus(tmp_path: Path, n: int = 6000) -> Path:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps([
        {"id": f"doc{i}", "title": f"Report {i}",
         "text": f"Marie Curie met Person {i} in Paris. Pierre Curie studied radium {i} with "
                 f"Albert Einstein at the Sorbonne in {1890 + i % 40}. " * 4}
        for i in range(n)]), encoding="utf-8")
    return path


def _stored(store: Path) -> int:
    """Documents committed in ``store`` so far (0 while it is being created)."""
    try:
        conn = sqlite3.connect(f"file:{store / 'vizrag.sqlite'}?mode=ro", uri=True, timeout=1)
        try:
            return int(conn.execute("SELECT count(*) FROM documents").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


@pytest.mark.parametrize(("workers", "sigint_ignored", "group"),
                         [("0", True, False), ("2", False, False), ("2", False, True)])
def test_sigterm_stops_vizrag_index_at_a_commit(tmp_path: Path, workers: str,
                                                sigint_ignored: bool, group: bool) -> None:
    """SIGTERM to the command (``timeout``, ``docker stop``), also as a background job of a
    script (SIGINT ignored), or to its whole process group (systemd), workers included."""
    store = tmp_path / "store"

    def child_setup() -> None:  # a background job of a script: SIGINT ignored
        if sigint_ignored:
            signal.signal(signal.SIGINT, signal.SIG_IGN)

    proc = subprocess.Popen(
        [sys.executable, "-m", "hyperviz_core", "index", str(_corpus(tmp_path)),
         "--store", str(store), "--no-progress", "--workers", workers, "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=child_setup,
        start_new_session=group)
    deadline = time.monotonic() + 120
    while _stored(store) == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the run ended before it could be stopped"
    if group:
        os.killpg(proc.pid, signal.SIGTERM)
    else:
        proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    text = err.decode()
    assert proc.returncode == 143, text
    lines = [x for x in text.splitlines() if x.strip()]
    assert len(lines) == 1 and lines[0].startswith(
        "vizrag index: interrupted; the store keeps its "), text
    assert "leaked" not in text and "Traceback" not in text
    report = json.loads(out)
    assert report["stopped"].startswith("interrupted; the store keeps its")
    done = _stored(store)
    assert 0 < done < 6000 and report["store"]["documents"] == done
    # the documents the store gained; the run's own counters are not known after a stop
    assert report["documents_added"] == done and report["chunks"] is None
    with HypergraphStore(store, read_only=True) as st:
        assert st.check() == []


# ------------------------------------------------------------------ 4./5. JSON
def test_migrate_upgrade_prints_json(tmp_path: Path) -> None:
    s = _store(tmp_path)
    code, out, err = run_cli(["migrate", "--upgrade", s, "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["upgraded"] is False and report["ok"] is True and report["problems"] == []
    assert report["schema"] == report["schema_before"]
    assert report["store"].endswith("vizrag.sqlite")


def test_an_interrupted_index_json_prints_the_report(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    s = _store(tmp_path)
    from hyperviz_core.rag.index.indexer import Indexer

    def interrupted(*_: Any, **__: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(Indexer, "index", interrupted)
    code, out, err = run_cli(["index", str(tmp_path / "in"), "--store", s, "--no-progress",
                              "--json"])
    assert code == 130
    assert err.strip().startswith("vizrag index: interrupted; the store keeps its 6 committed")
    report = json.loads(out)
    assert report["stopped"].startswith("interrupted; the store keeps its 6 committed")
    assert report["store"]["documents"] == 6 and report["documents_added"] == 0
    assert report["chunks"] is None and report["errors"] is None  # not counted
    assert report["input"]["read"] == 6


# ------------------------------------------------------------------ 6. --out
def _no_space(path: Any, data: bytes) -> Any:
    Path(path).parent.mkdir(parents=True, exist_ok=True)  # as the real write does
    raise OSError(errno.ENOSPC, "No space left on device")  # os.write names no file


def test_query_out_on_a_full_disk_stops_the_batch(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    s = _store(tmp_path)
    questions = tmp_path / "q.jsonl"
    questions.write_text("".join(json.dumps({"id": f"q{i}", "question": "Who is Marie Curie?"})
                                 + "\n" for i in range(3)))
    monkeypatch.setattr("hyperviz_core.viewer.files.atomic_write_bytes", _no_space)
    out_dir = tmp_path / "views" / "run1"
    code, out, err = run_cli(["query", "--questions", str(questions), "--store", s, "--json",
                              "--out", str(out_dir)])
    assert code == 2, err
    lines = [x for x in err.splitlines() if x.strip()]
    assert len(lines) == 1, err
    assert str(out_dir / "q0") in lines[0] and "No space left on device" in lines[0]
    assert "after 0 of 3 questions" in lines[0]
    assert out == ""  # no question answered, none failed on its own
    assert not (tmp_path / "views").exists()  # created by the command, left empty: removed
    code, _, err = run_cli(["query", "Who is Marie Curie?", "--store", s, "--out",
                            str(tmp_path / "one")])
    assert code == 2 and str(tmp_path / "one") in err and not (tmp_path / "one").exists()


def test_query_out_keeps_a_folder_that_was_there(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    s = _store(tmp_path)
    mine = tmp_path / "mine"
    mine.mkdir()
    monkeypatch.setattr("hyperviz_core.viewer.files.atomic_write_bytes", _no_space)
    code, _, err = run_cli(["query", "Who is Marie Curie?", "--store", s, "--out", str(mine)])
    assert code == 2 and str(mine) in err
    assert mine.is_dir()


def test_a_full_disk_names_the_output(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = _store(tmp_path)
    monkeypatch.setattr("hyperviz_core.cli.interop.atomic_write_bytes", _no_space)
    target = tmp_path / "out.hif.json"
    code, _, err = run_cli(["export", "--store", s, "--hif", str(target)])
    assert code == 2
    assert err.strip() == (f"vizrag export: error: cannot write the output (--hif {target}): "
                           "No space left on device [Errno 28]")
    from hyperviz_core.render import Rendering

    def full(self: Any, path: Any) -> Any:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Rendering, "save", full)
    hif = tmp_path / "g.hif.json"
    assert run_cli(["export", "--store", s, "--hif", "-"])[0] == 0  # stdout: not patched
    hif.write_text(run_cli(["export", "--store", s, "--hif", "-"])[1], encoding="utf-8")
    png = tmp_path / "v.png"
    code, _, err = run_cli(["render", str(hif), "--out", str(png), "--no-progress"])
    assert code == 2 and f"--out {png}" in err and "No space left on device" in err


# ------------------------------------------------------------------ 7. "-"
def _stdin(monkeypatch: pytest.MonkeyPatch, text: str) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8")),
                                                       encoding="utf-8"))


def test_export_hif_dash_is_stdout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    s = _store(tmp_path)
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(["export", "--store", s, "--hif", "-"])
    assert code == 0, err
    assert set(json.loads(out)) >= {"nodes", "edges", "incidences"}
    assert not (tmp_path / "-").exists()
    assert err.startswith("wrote standard output:")


def test_query_questions_dash_reads_stdin(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    s = _store(tmp_path)
    _stdin(monkeypatch, json.dumps({"id": "a", "question": "Who is Marie Curie?"}) + "\n"
           + json.dumps({"id": "b", "question": "Where is Paris?"}) + "\n")
    code, out, err = run_cli(["query", "--questions", "-", "--store", s, "--json"])
    assert code == 0, err
    assert [json.loads(x)["id"] for x in out.splitlines()] == ["a", "b"]
    _stdin(monkeypatch, "not json\n")
    code, _, err = run_cli(["query", "--questions", "-", "--store", s])
    assert code == 2 and "<stdin>:1: not JSON" in err


def test_query_dash_reads_the_question_from_stdin(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    s = _store(tmp_path)
    _stdin(monkeypatch, "Who is Marie Curie?\n")
    code, out, err = run_cli(["query", "-", "--store", s, "--json"])
    assert code == 0, err
    assert json.loads(out)["question"] == "Who is Marie Curie?"
    _stdin(monkeypatch, "  \n")
    code, _, err = run_cli(["query", "-", "--store", s])
    assert code == 2 and "standard input" in err and "empty" in err


# ------------------------------------------------------------------ 8. said once
def test_a_provider_failure_is_said_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                         ) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    src = _inputs(tmp_path, 2)
    store = tmp_path / "s"
    code, out, err = run_cli(["index", str(src), "--store", str(store), "--no-progress",
                              "--llm", f"openai:gpt-x@{dead_url()}", "--max-retries", "1"])
    assert code == 1, err
    for doc in ("d0", "d1"):
        assert sum(f" {doc} " in f" {x.replace(':', ' ')} " for x in err.splitlines()) == 1, err
    assert "indexing d0 failed" not in err
    assert "removed the store" in out.splitlines()[0]
    assert "removed" not in err  # said once: on stdout, the report's first line
    # every request failed: 2 documents x (1 try + 1 retry) of the first model call
    assert "0 LLM calls answered (4 failed," in out


def test_json_keeps_the_removed_store_line_and_counts_failures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    src = _inputs(tmp_path, 2)
    store = tmp_path / "s"
    code, out, err = run_cli(["index", str(src), "--store", str(store), "--no-progress",
                              "--llm", f"openai:gpt-x@{dead_url()}", "--max-retries", "0",
                              "--json"])
    assert code == 1
    report = json.loads(out)
    assert report["llm_calls"] == 0 and report["llm_failures"] == 2
    assert f"vizrag index: removed the empty store {store}" in err  # JSON does not say it
    assert "indexing d0 failed" not in err


def test_export_to_a_closed_stdout_and_null_question_ids_are_one_line(tmp_path: Path) -> None:
    """``export --hif -`` with standard output closed raised AttributeError (exit 1); a
    question ``{"id": null}`` got the id "None" (a security review, 2026-12-04)."""
    s = _store(tmp_path)
    run = subprocess.run([sys.executable, "-m", "hyperviz_core", "export", "--store", s,
                          "--hif", "-"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                         preexec_fn=lambda: os.close(1), timeout=120, check=False)
    assert run.returncode == 2 and b"standard output is closed" in run.stderr
    questions = tmp_path / "q.jsonl"
    questions.write_text('{"id": null, "question": "Who is Marie Curie?"}\n')
    code, _, err = run_cli(["query", "--store", s, "--questions", str(questions), "--json"])
    assert code == 2 and "q.jsonl:1: the id must be a string or an integer, not null" in err
