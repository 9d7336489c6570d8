"""Review s45 of the ``vizrag`` CLI (an ops user's report).

Before the fix:

1. ``vizrag query Q --json`` of a question that failed printed nothing on stdout (one line on
   stderr), while the same question in a ``--questions`` batch printed ``{"id", "error"}``;
2. ``vizrag migrate --json`` stopped by SIGTERM (or Ctrl-C) printed no report at all, while
   an interrupted ``vizrag index --json`` prints its report with ``stopped`` set;
3. ``vizrag delete`` had no ``--json``; ``vizrag export ... --json`` (export has none) was
   told ``did you mean --store?``, an option already given and nothing like ``--json``.
"""

from __future__ import annotations

import argparse
import json
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import run_cli
from test_ops_fix_cli import _stored

from hyperviz_core.cli import build_parser, command_parser, main, unrecognized
from hyperviz_core.rag import VizRAG

DATA = Path(__file__).parent / "data" / "musique_sample.json"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of the 40 MuSiQue sample passages, ids ``p0`` ... (module-wide: read only)."""
    return _index(tmp_path_factory.mktemp("s45"))


def _index(folder: Path) -> Path:
    folder.mkdir(exist_ok=True)
    docs = [{"id": f"p{p['idx']}", "title": p["title"], "text": p["text"]}
            for p in json.loads(DATA.read_text(encoding="utf-8"))]
    src = folder / "c.jsonl"
    src.write_text("\n".join(json.dumps(d) for d in docs), "utf-8")
    assert main(["index", str(src), "--store", str(folder / "s"), "--no-progress"]) == 0
    return folder / "s"


# ---------------------------------------------------------------- 1. query --json failure
@pytest.fixture
def boom(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine fails on any question containing 'boom' (a model that is down)."""
    real = VizRAG.query

    def query(self: VizRAG, question: str, *a: Any, **k: Any) -> Any:
        if "boom" in question:
            raise RuntimeError(f"model down for {question!r}")
        return real(self, question, *a, **k)

    monkeypatch.setattr(VizRAG, "query", query)


@pytest.mark.parametrize("output", ["--json", "--full"])
def test_a_single_failing_question_prints_its_json_record(
        store: Path, boom: None, tmp_path: Path, output: str) -> None:
    code, out, err = run_cli(["query", "boom", "--store", str(store), output, "--no-render"])
    assert code == 1
    assert [json.loads(x) for x in out.splitlines()] == [
        {"error": "RuntimeError: model down for 'boom'"}]
    assert err.splitlines() == ["vizrag query: error: RuntimeError: model down for 'boom'"]
    # the batch's record of the same question: the same, with its id (as an answer's is)
    qs = tmp_path / "q.jsonl"
    qs.write_text(json.dumps({"id": "q1", "question": "boom"}) + "\n", encoding="utf-8")
    code, batch, _ = run_cli(["query", "--questions", str(qs), "--store", str(store), output,
                              "--no-render"])
    assert code == 1
    assert json.loads(batch) == {"id": "q1", **json.loads(out)}


def test_a_single_answered_question_has_no_id_either(store: Path) -> None:
    code, out, _ = run_cli(["query", "Who founded the city?", "--store", str(store), "--json",
                            "--no-render"])
    assert code == 0 and "id" not in json.loads(out) and "error" not in json.loads(out)


def test_a_failing_question_without_json_prints_nothing_on_stdout(store: Path,
                                                                  boom: None) -> None:
    code, out, err = run_cli(["query", "boom", "--store", str(store), "--no-render"])
    assert (code, out) == (1, "")
    assert err.startswith("vizrag query: error: RuntimeError")


# ---------------------------------------------------------------- 2. migrate --json stopped
#: ``vizrag migrate`` copying 5 documents a transaction and, after the first, waiting (for
#: the test's SIGTERM) before it reads the next: a stop during the copy, deterministically
_SLOW_MIGRATE = textwrap.dedent("""
    import sys, time
    from hyperviz_core.cli import main
    from hyperviz_core.rag.store import transfer

    real = transfer.batched

    def slow(*args, **kwargs):
        for i, batch in enumerate(real(*args, **kwargs)):
            if i:  # 120 s in short sleeps: the kernel may hand SIGTERM to another thread,
                for _ in range(1200):  # and Python runs its handler only when the main
                    time.sleep(0.1)    # thread next runs Python code
            yield batch

    transfer.batched = slow
    transfer.BATCH_DOCUMENTS = 5
    sys.exit(main(sys.argv[1:]))
""")


def test_migrate_json_stopped_by_sigterm_prints_its_report(store: Path,
                                                           tmp_path: Path) -> None:
    dst = tmp_path / "copy"
    proc = subprocess.Popen(
        [sys.executable, "-c", _SLOW_MIGRATE, "migrate", "--from", str(store), "--to",
         str(dst), "--json", "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while _stored(dst) == 0 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is None, "the copy ended before it could be stopped"
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err.decode()
    line = (f"interrupted; {dst / 'vizrag.sqlite'} keeps the 5 documents committed so far "
            "(run the same command again to resume)")
    assert err.decode().splitlines() == [f"vizrag migrate: {line}"]
    report = json.loads(out)
    assert report["stopped"] == line
    assert report["destination"]["documents"] == _stored(dst) == 5
    assert report["source"]["documents"] == 40
    assert report["verified"] is False
    assert report["documents_copied"] is None and report["mismatches"] is None
    # the same fields as a complete copy's report, which says it was not stopped
    code, done, _ = run_cli(["migrate", "--from", str(store), "--to", str(dst), "--json",
                             "--no-progress"])
    full = json.loads(done)
    assert code == 0 and full["stopped"] is None and full["verified"] is True
    assert full["documents_skipped"] == 5 and full["documents_copied"] == 35
    assert set(full) == set(report)


def test_migrate_json_stopped_while_making_the_copy_query_ready(
        store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.cli import ready

    def stop(*_: Any) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ready, "make_query_ready", stop)
    code, out, err = run_cli(["migrate", "--from", str(store), "--to", str(tmp_path / "c"),
                              "--json", "--no-progress"])
    report = json.loads(out)
    assert code == 130 and report["verified"] is True
    assert report["stopped"].startswith("interrupted while making the destination query-ready")
    assert err.strip() == f"vizrag migrate: {report['stopped']}"


# ---------------------------------------------------------------- 3. delete --json
@pytest.fixture
def own_store(tmp_path: Path) -> Path:
    return _index(tmp_path)


def test_delete_json_reports_what_was_removed(own_store: Path, tmp_path: Path) -> None:
    code, out, err = run_cli(["delete", "--store", str(own_store), "p26", "--json"])
    assert code == 0 and err == ""
    report = json.loads(out)
    deleted = report["deleted"]
    assert deleted["documents"] == 1 and deleted["chunks"] >= 1
    assert set(deleted) == {"documents", "chunks", "entities", "relation_hyperedges",
                            "theme_hyperedges", "updated_entities"}
    assert report["errors"] == [] and report["stopped"] is None
    assert report["compacted_bytes"] is None
    assert report["store"] == str(own_store / "vizrag.sqlite")
    # the prose line says the same counts
    other = _index(tmp_path / "other")
    code, text, _ = run_cli(["delete", "--store", str(other), "p26"])
    assert code == 0
    assert text.splitlines()[0] == (
        f"deleted 1 document: {deleted['chunks']} chunk{'s' * (deleted['chunks'] != 1)}, "
        f"{deleted['entities']} entities, {deleted['relation_hyperedges']} relation and "
        f"{deleted['theme_hyperedges']} theme hyperedges ({deleted['updated_entities']} "
        "shared entities updated)")


def test_delete_json_of_an_unknown_id_is_an_error_record(own_store: Path) -> None:
    code, out, err = run_cli(["delete", "--store", str(own_store), "p26", "nope", "--json"])
    assert code == 1  # as without --json: the found one is deleted, the other named
    report = json.loads(out)
    said = f"no document 'nope' in {own_store / 'vizrag.sqlite'}"
    assert report["errors"] == [{"id": "nope", "error": said}]
    assert report["deleted"]["documents"] == 1
    assert err.splitlines() == [f"vizrag delete: {said}"]
    code, out, _ = run_cli(["delete", "--store", str(own_store), "nope", "--json"])
    assert code == 1 and json.loads(out)["deleted"]["documents"] == 0


def test_delete_json_compact(own_store: Path) -> None:
    code, out, _ = run_cli(["delete", "--store", str(own_store), "--compact", "--json"])
    report = json.loads(out)
    assert code == 0 and report["deleted"]["documents"] == 0
    assert isinstance(report["compacted_bytes"], int) and report["compacted_bytes"] >= 0


# ---------------------------------------------------------------- 3b. did you mean
def _usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err


def test_an_option_the_command_lacks_is_not_matched_to_a_given_one(
        capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage_error(["export", "--store", "s", "--hif", "-", "--json"], capsys)
    last = err.splitlines()[-1]
    assert last == "vizrag export: error: unrecognized arguments: --json", err
    # a real misspelling is still matched, but never to an option already given
    export = command_parser(build_parser(), argparse.Namespace(command="export"))
    assert export.prog == "vizrag export"
    assert unrecognized(export, ["--stor", "s"]).endswith("did you mean --store?")
    assert "did you mean" not in unrecognized(export, ["--stor", "s"],
                                              given=["--store", "x", "--stor", "s"])
    assert "did you mean" not in unrecognized(export, ["--json"])  # dashes alone: no match
