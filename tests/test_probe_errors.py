"""Failed vision-model calls are reported, not graded (``probes run``, ``tune``, Tables 5
and 3); answers files of a FAKE model are labelled; probe files are read and written safely;
progress bars only on a terminal. All offline."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import hyperviz_core.cli.probes as probes_cli
from hyperviz_core import Hypergraph
from hyperviz_core.cli import main
from hyperviz_core.eval import table3, table5
from hyperviz_core.probe import (
    ExportOracleVisionModel,
    Probe,
    ProbeAnswer,
    ask_probes,
    make_probes,
    probe_specs,
    read_jsonl,
    select_dual_view,
    tune,
    write_jsonl,
)
from hyperviz_core.rag import ProviderError
from hyperviz_core.testing import random_hypergraph


class Flaky:
    """The FAKE oracle, except that every ``every``-th call fails with a provider error."""

    def __init__(self, every: int) -> None:
        self.inner = ExportOracleVisionModel({})
        self.every = every
        self.calls = 0
        self.model_name = "flaky"

    def register(self, png: bytes, export: Any) -> None:
        self.inner.register(png, export)

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        self.calls += 1
        if self.calls % self.every == 0:
            raise ProviderError("connection error: refused", retryable=True)
        return self.inner.complete(prompt, images=images, system=system, json_mode=json_mode)


@pytest.fixture(scope="module")
def hif(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hif") / "g.json"
    path.write_text(json.dumps(random_hypergraph(50, 25, seed=8).to_hif()))
    return path


@pytest.fixture(scope="module")
def probe_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("probes")
    make_probes(random_hypergraph(60, 30, seed=5), 4, out, seed=3, progress=False)
    return out


def _use_model(monkeypatch: pytest.MonkeyPatch, model: Any) -> None:
    monkeypatch.setattr(probes_cli, "_model", lambda spec, *a, **k: model)


def test_probes_run_fails_when_every_call_failed(probe_dir: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    _use_model(monkeypatch, Flaky(every=1))
    out = tmp_path / "a.jsonl"
    code = main(["probes", "run", str(probe_dir / "probes.jsonl"), "--llm", "openai:x",
                 "--out", str(out), "--no-progress"])
    assert code == 2
    io = capsys.readouterr()
    wrote, error = io.err.splitlines()  # the answers file, then the one-line error
    assert wrote.startswith("wrote ") and "connection error: refused" in error
    assert error.startswith("vizrag probes run: error: every model call failed (4)")
    assert io.out.splitlines()[-1].split()[-1] == "4"  # the errors column of "overall"
    answers = read_jsonl(out, ProbeAnswer)
    assert all(a.error == "connection error: refused" for a in answers)


def test_probes_run_warns_when_some_calls_failed(probe_dir: Path, tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    probes = read_jsonl(probe_dir / "probes.jsonl", Probe)
    model = Flaky(every=2)
    model.inner = ExportOracleVisionModel.for_probes(probes, probe_dir)
    _use_model(monkeypatch, model)
    code = main(["probes", "run", str(probe_dir / "probes.jsonl"), "--llm", "openai:x",
                 "--out", str(tmp_path / "a.jsonl"), "--no-progress"])
    assert code == 0
    io = capsys.readouterr()
    assert "warning: 2 of 4 model calls failed (not graded" in io.err
    overall = io.out.splitlines()[-1].split()
    assert overall[0] == "overall" and overall[2] == "1.000" and overall[-1] == "2"


def test_tune_saves_nothing_when_calls_failed(hif: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "s.json"
    args = ["tune", "--from", str(hif), "--k", "1", "--grid", "w_v=10", "--grid", "w_e=1",
            "--grid", "gamma=0.44", "--llm", "openai:x", "--save", str(target),
            "--no-progress"]
    _use_model(monkeypatch, Flaky(every=1))
    assert main(args) == 2
    err = capsys.readouterr().err
    assert err.startswith("vizrag tune: error: the vision model failed on every call")
    assert err.count("\n") == 1 and "nothing saved" in err
    _use_model(monkeypatch, Flaky(every=4))  # some calls fail
    assert main(args) == 2
    io = capsys.readouterr()
    assert "<- selected" in io.out  # the tables are still shown
    assert "vision-model calls failed" in io.err and "nothing saved" in io.err
    assert not target.exists()
    _use_model(monkeypatch, Flaky(every=10_000))  # none fails: saved
    assert main(args) == 0 and target.exists()


def test_table5_and_table3_report_failed_calls(probe_dir: Path) -> None:
    probes = read_jsonl(probe_dir / "probes.jsonl", Probe)
    model = Flaky(every=2)
    model.inner = ExportOracleVisionModel.for_probes(probes, probe_dir)
    got = ask_probes(probes, probe_dir, model, progress=False)
    t = table5(probes, {"flaky": got})
    assert t.rows[0][0] == "flaky" and t.rows[0][-3] == "100.0%"  # over the answered half
    assert any(n.startswith("flaky: 2 failed model calls (not scored") for n in t.notes)
    assert t.data["flaky"]["overall"]["errors"] == 2


def test_fake_answers_files_are_labelled(probe_dir: Path, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    probes_file = str(probe_dir / "probes.jsonl")
    out = tmp_path / "gpt4o.jsonl"
    assert main(["probes", "run", probes_file, "--llm", "fake", "--out", str(out),
                 "--no-progress"]) == 0
    write_jsonl(tmp_path / "real.jsonl", [ProbeAnswer(id=p.id, answer=[], model="gpt-4o")
                                          for p in read_jsonl(probes_file, Probe)])
    capsys.readouterr()
    assert main(["eval", "table", "5", "--probes", probes_file, "--answers", str(out),
                 str(tmp_path / "real.jsonl"), "--json"]) == 0
    table = json.loads(capsys.readouterr().out)
    assert [r[0] for r in table["rows"]] == ["gpt4o (FAKE)", "real"]
    assert any(n.startswith("gpt4o (FAKE): the answers come from fake-export-oracle")
               for n in table["notes"])


def test_table3_labels_fake_answers_and_skips_failed_calls(tmp_path: Path) -> None:
    out = tmp_path / "t3"
    probes = make_probes(random_hypergraph(40, 20, seed=3), 3, out, seed=1, progress=False,
                         tasks=["disambiguation"])
    fake = ExportOracleVisionModel.for_probes(probes, out)
    image = ask_probes(probes, out, fake, progress=False)
    failed = [ProbeAnswer(id=p.id, answer=[], model="gpt-4o", error="HTTP 500")
              for p in probes]
    t = table3(probes, {"gpt4o": image, "down": failed}, {})
    assert [r[0] for r in t.rows] == ["gpt4o (FAKE)", "down"]
    # every call failed: no rate at all ("-"), not a 0 % result
    assert t.rows[1][1:3] == ["-", "-"] and t.data["down"]["image"]["errors"] == len(probes)
    assert any(n.startswith("gpt4o (FAKE): the answers come from") for n in t.notes)
    assert any(n.startswith(f"down (image): {len(probes)} failed model calls") for n in t.notes)


def test_probe_files_reject_lone_surrogates_and_write_atomically(tmp_path: Path) -> None:
    path = tmp_path / "answers.jsonl"
    write_jsonl(path, [ProbeAnswer(id="p1", answer="E1\u2028E2")])
    before = path.read_bytes()
    assert read_jsonl(path, ProbeAnswer)[0].answer == "E1\u2028E2"  # one line, not two
    with pytest.raises(UnicodeEncodeError):
        write_jsonl(path, [ProbeAnswer(id="p1", answer="E1 \ud800")])
    assert path.read_bytes() == before  # the old file survives a failed write
    assert [p.name for p in tmp_path.iterdir()] == ["answers.jsonl"]  # no temporary left
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "p1", "answer": "ok"}\n{"id": "p2", "answer": "E1 \\ud800"}\n')
    with pytest.raises(ValueError, match=r"bad.jsonl:2: .*unpaired surrogate"):
        read_jsonl(bad, ProbeAnswer)


def test_probe_commands_draw_no_bars_when_stderr_is_not_a_terminal(
        hif: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "p"
    assert main(["probes", "make", "--from", str(hif), "--n", "2", "--out", str(out)]) == 0
    assert main(["probes", "run", str(out / "probes.jsonl"), "--llm", "fake"]) == 0
    err = capsys.readouterr().err
    assert "probes:" not in err and "asking:" not in err and "it/s" not in err


@pytest.mark.parametrize(("call", "match"), [
    (lambda: select_dual_view(Hypergraph(), None, progress=False), "no hypergraph with an entity"),
    (lambda: tune(Hypergraph(), None, progress=False), "no hypergraph with an entity"),
    (lambda: tune([], None, progress=False), "no hypergraph with an entity"),
    (lambda: tune(random_hypergraph(20, 10, seed=1), None, k=0, progress=False),
     "number of probes must be a whole number >= 1"),
    (lambda: tune(random_hypergraph(20, 10, seed=1), None, grid={"gamma": []},
                  progress=False), "grid parameter 'gamma' has no value"),
    (lambda: probe_specs(random_hypergraph(40, 20, seed=1), 3, size=(30, 5)),
     r"size must be \(smallest, largest\)"),
    (lambda: probe_specs(random_hypergraph(40, 20, seed=1), 3, tasks=()), "no probe task"),
])
def test_a_search_without_evidence_is_refused(call: Any, match: str) -> None:
    """Empty sources and k=0 returned a "best" from zero probes; an empty grid list was a
    bare IndexError; size=(30, 5) an "empty range for randrange()"."""
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("bad", [["--task", "nope"], ["--layout", "nope"]])
def test_probes_make_checks_its_arguments_before_it_makes_the_folder(
        hif: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], bad: list[str]) -> None:
    out = tmp_path / "probes"
    assert main(["probes", "make", "--from", str(hif), "--n", "3", "--out", str(out),
                 "--no-progress", *bad]) == 2
    assert "unknown" in capsys.readouterr().err and not out.exists()
    afile = tmp_path / "victim.json"
    afile.write_text("{}")
    assert main(["probes", "make", "--from", str(hif), "--n", "3", "--out", str(afile),
                 "--no-progress"]) == 2
    assert "victim.json exists and is not a folder" in capsys.readouterr().err
    assert afile.read_text() == "{}"
