"""Review fixes of the probe tables (``vizrag eval table 5 / 3 / 2c``), ``vizrag probes`` and
``vizrag tune``: failed models, ``--limit``, answers files of one name, outputs checked before
any model is asked, empty probe files, grid duplicates and one set of model specs.

The FAKE export oracle answers from the export JSON, not the pixels: these tests check the
harness, not any model."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, ClassVar

import pytest

from hyperviz_core.cli import main
from hyperviz_core.eval import table5
from hyperviz_core.probe import (
    ProbeAnswer,
    make_probes,
    parse_grid,
    read_jsonl,
    tune,
    write_jsonl,
)
from hyperviz_core.probe.types import Probe
from hyperviz_core.testing import random_hypergraph


class Counting:
    """A vision model (``python:test_eval_fix_probes:Counting``) counting its calls."""

    model_name = "counting"
    calls: ClassVar[list[str]] = []

    def complete(self, prompt: str, **kw: Any) -> str:
        Counting.calls.append(prompt)
        return '{"answer": []}'

    async def acomplete(self, prompt: str, **kw: Any) -> str:
        return self.complete(prompt, **kw)


@pytest.fixture(scope="module")
def probes_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("probes")
    make_probes(random_hypergraph(40, 20, seed=3), 4, out, seed=1, progress=False)
    return out


@pytest.fixture(scope="module")
def dis_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("t3")
    make_probes(random_hypergraph(40, 20, seed=3), 3, out, seed=1, progress=False,
                tasks=["disambiguation"])
    return out


def _err(capsys: pytest.CaptureFixture[str], command: str, *parts: str) -> str:
    err = capsys.readouterr().err
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"vizrag {command}: error: "), err
    assert "Traceback" not in err and "Errno" not in err
    for part in parts:
        assert part in last, last
    return last


def _table(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    out: dict[str, Any] = json.loads(capsys.readouterr().out)
    return out


# ------------------------------------------------------------------ 3: every call failed
def test_table5_model_whose_every_call_failed_shows_no_accuracy(probes_dir: Path) -> None:
    probes = read_jsonl(probes_dir / "probes.jsonl", Probe)
    failed = [ProbeAnswer(id=p.id, answer=[], error="HTTP 500") for p in probes]
    ok = [ProbeAnswer(id=p.id, answer=p.answer) for p in probes]
    t = table5(probes, {"down": failed, "ok": ok})
    assert t.rows[0][1:5] == ["-", "-", "-", "-"] and t.rows[1][3] == "100.0%"
    assert t.data["down"]["overall"]["accuracy"] is None
    assert t.data["down"]["overall"]["partial"] is None


def test_table5_exits_2_when_every_call_of_every_model_failed(
        probes_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "table", "5", "--probes", str(probes_dir / "probes.jsonl"),
                 "--models", "python:eval_fakes:Down", "--max-retries", "0", "--no-cache",
                 "--no-progress"]) == 2
    _err(capsys, "eval", "every model call failed (4)", "HTTP 401")
    # one model still answering: a table, exit 0
    assert main(["eval", "table", "5", "--probes", str(probes_dir / "probes.jsonl"),
                 "--models", "python:eval_fakes:Down", "fake", "--max-retries", "0",
                 "--no-cache", "--no-progress", "--json"]) == 0
    rows = _table(capsys)["rows"]
    assert rows[0][3] == "-" and rows[1][3] == "100.0%"


def test_table3_exits_2_when_every_call_failed(dis_dir: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "table", "3", "--probes", str(dis_dir / "probes.jsonl"),
                 "--models", "python:eval_fakes:Down", "--max-retries", "0", "--no-cache",
                 "--no-progress"]) == 2
    _err(capsys, "eval", "every model call failed (6)", "HTTP 401")


# ------------------------------------------------------------------ 4: --limit
def test_limit_keeps_the_first_probes(probes_dir: Path, dis_dir: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "table", "5", "--probes", str(probes_dir / "probes.jsonl"),
                 "--models", "fake", "--limit", "2", "--no-progress", "--json"]) == 0
    assert _table(capsys)["rows"][0][-1] == "2"
    assert main(["eval", "table", "3", "--probes", str(dis_dir / "probes.jsonl"),
                 "--models", "fake", "--limit", "1", "--no-progress", "--json"]) == 0
    assert _table(capsys)["rows"][0][-1] == "1"
    hif = tmp_path / "g.json"
    hif.write_text(json.dumps(random_hypergraph(40, 20, seed=3).to_hif()), encoding="utf-8")
    assert main(["eval", "table", "2c", "--from", str(hif), "--models", "fake", "--n", "3",
                 "--limit", "1", "--layouts", "set-force", "--out", str(tmp_path / "o"),
                 "--no-progress", "--json"]) == 0
    t = _table(capsys)
    assert t["rows"][0][-1] == "1" and "the first 1 of each asked" in t["notes"][0]


# ------------------------------------------------------------------ 5: one stem, two files
def test_two_answers_files_of_one_name_are_refused(probes_dir: Path, dis_dir: Path,
                                                   tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    for folder, probes in (("a", probes_dir), ("b", probes_dir), ("c", dis_dir),
                           ("d", dis_dir)):
        got = read_jsonl(probes / "probes.jsonl", Probe)
        write_jsonl(tmp_path / folder / "gpt.jsonl",
                    [ProbeAnswer(id=p.id, answer=p.answer) for p in got])
    assert main(["eval", "table", "5", "--probes", str(probes_dir / "probes.jsonl"),
                 "--answers", str(tmp_path / "a/gpt.jsonl"), str(tmp_path / "b/gpt.jsonl")]) == 2
    _err(capsys, "eval", "two answers files named 'gpt'")
    assert main(["eval", "table", "3", "--probes", str(dis_dir / "probes.jsonl"),
                 "--answers", str(tmp_path / "c/gpt.jsonl"), str(tmp_path / "d/gpt.jsonl")]) == 2
    _err(capsys, "eval", "two answers files named 'gpt'")


# ------------------------------------------------------------------ 9: outputs first
@pytest.mark.parametrize("table", ["5", "3"])
def test_out_that_is_a_file_is_refused_before_any_model_is_asked(
        table: str, probes_dir: Path, dis_dir: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    probes = probes_dir if table == "5" else dis_dir
    Counting.calls.clear()
    for out in (afile, afile / "sub"):
        assert main(["eval", "table", table, "--probes", str(probes / "probes.jsonl"),
                     "--models", "python:test_eval_fix_probes:Counting", "--no-cache",
                     "--out", str(out), "--no-progress"]) == 2
        _err(capsys, "eval", f"--out {out}: {afile} is a file")
    assert Counting.calls == []


def test_probes_run_out_checked_before_asking(probes_dir: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    Counting.calls.clear()
    for out, part in ((afile / "x.jsonl", f"{afile} is a file"), (tmp_path, "is a folder")):
        assert main(["probes", "run", str(probes_dir / "probes.jsonl"), "--llm",
                     "python:test_eval_fix_probes:Counting", "--out", str(out),
                     "--no-progress"]) == 2
        _err(capsys, "probes run", part)
    assert Counting.calls == []


# ------------------------------------------------------------------ 10: empty probes file
@pytest.mark.parametrize("argv", [["probes", "run", "EMPTY", "--llm", "fake"],
                                  ["probes", "grade", "EMPTY", "EMPTY"]])
def test_an_empty_probes_file_is_refused(argv: list[str], tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert main([str(empty) if a == "EMPTY" else a for a in argv]) == 2
    _err(capsys, " ".join(argv[:2]), "no probe", "at least one probe")
    assert not (tmp_path / "answers.jsonl").exists()


# ------------------------------------------------------------------ 12: grid duplicates
def test_grid_values_given_twice_are_tried_once() -> None:
    assert parse_grid(["alpha=0.5,0.5,0.50"])["alpha"] == [0.5]
    with pytest.raises(ValueError, match="grid alpha given twice"):
        parse_grid(["alpha=0.5", "alpha=0.6"])
    grid = {"w_v": [1.0, 1.0], "w_e": [1.0], "gamma": [0.3], "alpha": [0.5, 0.5], "beta": [0.4]}
    result = tune(random_hypergraph(20, 8, seed=1), None, grid=grid, k=1, progress=False)
    assert len(result.table) == 1


# ------------------------------------------------------------------ 13: one set of specs
def test_every_vision_option_takes_the_same_specs(probes_dir: Path, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "table", "5", "--probes", str(probes_dir / "probes.jsonl"),
                 "--models", "fake-noisy", "--no-progress", "--json"]) == 0
    assert "fake-export-oracle-noisy" in _table(capsys)["rows"][0][0]
    Counting.calls.clear()
    assert main(["probes", "run", str(probes_dir / "probes.jsonl"), "--llm",
                 "python:test_eval_fix_probes:Counting", "--out", str(tmp_path / "a.jsonl"),
                 "--no-progress"]) == 0
    assert len(Counting.calls) == 4 and "model: counting" in capsys.readouterr().out
    assert main(["probes", "run", str(probes_dir / "probes.jsonl"), "--llm", "offline",
                 "--out", str(tmp_path / "b.jsonl")]) == 2
    _err(capsys, "probes run", "--llm 'offline' names no vision model")
