"""``vizrag eval table 5`` / ``2c`` on tiny probes with the FAKE export-oracle vision model.

The fake answers from the export JSON, not the pixels: these tests check the harness (table
shapes, grading: the oracle scores 100 %, an empty answers file 0), not any model.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.probe import ProbeAnswer, make_probes, write_jsonl
from hyperviz_core.testing import random_hypergraph


@pytest.fixture(scope="module")
def probes_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("probes")
    probes = make_probes(random_hypergraph(40, 20, seed=3), 4, out, seed=1, progress=False)
    write_jsonl(out / "empty.jsonl", [ProbeAnswer(id=p.id, answer=[]) for p in probes])
    return out


def test_table5_fake_100_empty_0(probes_dir: Path, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "table", "5", "--probes", str(probes_dir / "probes.jsonl"),
                 "--answers", str(probes_dir / "empty.jsonl"), "--models", "fake",
                 "--out", str(tmp_path), "--no-progress", "--json"])
    assert code == 0
    t = json.loads(capsys.readouterr().out)
    assert t["headers"] == ["model", "overlap-core", "bridge-hyperedge", "overall",
                            "partial credit", "probes"]
    assert t["rows"][0] == ["empty", "0.0%", "0.0%", "0.0%", "0.0%", "4"]
    assert "FAKE" in t["rows"][1][0]
    assert t["rows"][1][1:] == ["100.0%", "100.0%", "100.0%", "100.0%", "4"]
    assert len(list(tmp_path.glob("*.jsonl"))) == 1  # the fake's answers were written


def test_fig2c_rows_per_layout(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hif = tmp_path / "g.hif.json"
    hif.write_text(json.dumps(random_hypergraph(40, 20, seed=3).to_hif()), encoding="utf-8")
    code = main(["eval", "table", "2c", "--from", str(hif), "--models", "fake", "--n", "2",
                 "--layouts", "set-force,bi-inc", "--out", str(tmp_path / "fig"),
                 "--no-progress", "--json"])
    assert code == 0
    t = json.loads(capsys.readouterr().out)
    assert t["headers"][:2] == ["model", "layout"]
    assert [r[1] for r in t["rows"]] == ["set-force", "bi-inc"]
    assert all(r[-3] == "100.0%" for r in t["rows"])
    assert any("spread across layouts 0.0%" in n for n in t["notes"])
    assert (tmp_path / "fig" / "bi-inc" / "probes.jsonl").is_file()


@pytest.mark.parametrize("argv, message", [
    (["eval", "table", "3"], "table 3"),
    (["eval", "table", "5"], "--probes"),
    (["eval", "table", "2c", "--models", "fake"], "--from"),
    (["eval", "table", "1"], "--questions"),
])
def test_probe_table_errors(argv: list[str], message: str,
                            capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_table5_model_calls_go_through_the_cache(probes_dir: Path, tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["eval", "table", "5", "--probes", str(probes_dir / "probes.jsonl"), "--models",
            "python:eval_fakes:EmptyVision", "--cache", str(tmp_path / "c.sqlite"),
            "--no-progress", "--json"]
    for run in range(2):
        assert main(argv) == 0
        captured = capsys.readouterr()
        t = json.loads(captured.out)
        assert t["rows"] == [["python:eval_fakes:EmptyVision", "0.0%", "0.0%", "0.0%",
                              "0.0%", "4"]]
        calls = "4 provider calls, 0 cache hits" if run == 0 else "0 provider calls, 4 cache"
        assert calls in captured.err
