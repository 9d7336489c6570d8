"""Honest probe grading and safe probe commands: the chance baseline of a probe set (IDs are
numbered by importance, so a constant ``H1``/``E1`` answer scores well), ``probes run --out``
never replacing the probes, swapped files named, a tied grid still saving the chosen
layouts, a huge ``--k``/``--n`` ending once samples only repeat, and field-naming errors.
All offline; the FAKE export oracle measures no model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.eval import table5
from hyperviz_core.probe import Probe, ProbeAnswer, grade, make_probes, read_jsonl, write_jsonl
from hyperviz_core.testing import random_hypergraph


def _probe(i: int, task: str, answer: list[str]) -> Probe:
    return Probe(id=f"p{i}", task=task, image=f"p{i}.png", export=f"p{i}.json",
                 question=f"q{i}?", answer=answer)


def _probes() -> list[Probe]:
    bridge = [["H1"], ["H1"], ["H1"], ["H2"]]
    overlap = [["E1"], ["E1", "E2"], ["E1"]]
    return ([_probe(i, "bridge-hyperedge", a) for i, a in enumerate(bridge)]
            + [_probe(10 + i, "overlap-core", a) for i, a in enumerate(overlap)])


def _constant(probes: list[Probe]) -> list[ProbeAnswer]:
    return [ProbeAnswer(id=p.id, answer=["H1"] if p.task.startswith("bridge") else ["E1"])
            for p in probes]


def test_grade_reports_the_chance_baseline_of_the_probe_set() -> None:
    from hyperviz_core.probe import best_constant_answers

    probes = _probes()
    assert best_constant_answers(probes) == {"bridge-hyperedge": ["H1"],
                                             "overlap-core": ["E1"]}
    report = grade(probes, _constant(probes))
    chance = {t.task: t.chance for t in report.tasks}
    assert chance == {"bridge-hyperedge": 0.75, "overlap-core": round(2 / 3, 4)}
    assert report.overall.chance == round(5 / 7, 4)
    # the constant answer scores exactly the chance baseline: nothing above chance
    assert report.overall.accuracy == report.overall.chance
    assert "chance" in report.table().splitlines()[0]
    assert "(bridge-hyperedge: H1; overlap-core: E1)" in report.chance_note()


def test_probes_grade_cli_prints_the_chance_column(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    probes = _probes()
    write_jsonl(tmp_path / "probes.jsonl", probes)
    write_jsonl(tmp_path / "answers.jsonl", _constant(probes))
    assert main(["probes", "grade", str(tmp_path / "probes.jsonl"),
                 str(tmp_path / "answers.jsonl")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("chance = exact accuracy of always giving each task's most")
    header = out[1].split()
    overall = out[-1].split()
    assert overall[0] == "overall" and overall[header.index("chance")] == "0.714"


def test_table5_notes_the_chance_baseline_and_answered_counts() -> None:
    probes = _probes()
    answers = _constant(probes)[1:]  # the first probe unanswered
    t = table5(probes, {"const": answers})
    assert "a probe without an answer counts as wrong" in t.notes[0]
    assert "over the answered probes" not in t.notes[0]
    assert t.notes[1].startswith("chance baseline (best constant answer per task")
    assert "bridge-hyperedge 75.0% (H1)" in t.notes[1] and "overall 71.4%" in t.notes[1]
    assert "const: 6 of 7 probes answered, 1 without an answer (counted wrong)" in t.notes
    assert t.data["const"]["overall"]["chance"] == round(5 / 7, 4)


@pytest.fixture(scope="module")
def probes_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("probes44")
    make_probes(random_hypergraph(40, 20, seed=3), 2, out, seed=1, progress=False)
    return out


def test_probes_run_refuses_the_probes_file_as_out(probes_dir: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    path = probes_dir / "probes.jsonl"
    before = path.read_bytes()
    same = probes_dir / ".." / probes_dir.name / "probes.jsonl"  # another spelling of it
    for out in (path, same):
        assert main(["probes", "run", str(path), "--llm", "fake", "--out", str(out),
                     "--no-progress"]) == 2
        err = capsys.readouterr().err
        assert "is the probes file itself" in err and len(err.strip().splitlines()) == 1
    assert path.read_bytes() == before


def test_probes_grade_names_swapped_files(probes_dir: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    probes = probes_dir / "probes.jsonl"
    answers = tmp_path / "answers.jsonl"
    write_jsonl(answers, [ProbeAnswer(id=p.id, answer=["E1"])
                          for p in read_jsonl(probes, Probe)])
    assert main(["probes", "grade", str(answers), str(probes)]) == 2
    assert "this looks like an answers file" in capsys.readouterr().err
    assert main(["probes", "grade", str(probes), str(probes)]) == 2
    assert "this looks like a probes file" in capsys.readouterr().err


def test_tune_tie_still_saves_the_selected_layouts(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    hif = tmp_path / "small.json"
    hif.write_text(json.dumps(random_hypergraph(12, 6, seed=3).to_hif()), encoding="utf-8")
    save = tmp_path / "view.json"
    save.write_text(json.dumps({"budget": {"gamma": 0.5}}), encoding="utf-8")  # kept on a tie
    assert main(["tune", "--from", str(hif), "--k", "3", "--no-progress", "--grid",
                 "gamma=0.3,0.6", "--grid", "w_v=1", "--grid", "w_e=1", "--save",
                 str(save)]) == 0
    out = capsys.readouterr().out
    assert "did not separate the settings" in out and "nothing saved" not in out
    assert "the saved one is kept, with the selected layouts" in out
    saved = json.loads(save.read_text(encoding="utf-8"))
    picked = out.split("with the selected layouts ")[1].split("\n")[0]
    assert " + ".join(saved["layouts"]) == picked
    assert saved["budget"] == {"gamma": 0.5}


def test_a_huge_n_stops_once_samples_only_repeat(tmp_path: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.probe import STALE_LIMIT

    counts: dict[str, int] = {}
    probes = make_probes(random_hypergraph(12, 6, seed=3), 300, tmp_path / "p",
                         progress=False, counts=counts)
    assert counts["stopped"] == 1 and counts["samples"] < 300  # stopped early
    assert main(["probes", "make", "--from", str(_hif(tmp_path)), "--n", "300", "--out",
                 str(tmp_path / "q"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert f"{len(probes)} distinct probes" in out
    assert f"sampling stopped after {STALE_LIMIT} samples in a row" in out


def _hif(tmp_path: Path) -> Path:
    hif = tmp_path / "small.json"
    hif.write_text(json.dumps(random_hypergraph(12, 6, seed=3).to_hif()), encoding="utf-8")
    return hif


def test_tune_draws_specs_lazily_and_says_how_many_probes(tmp_path: Path) -> None:
    from hyperviz_core.probe.make import STALE_LIMIT, SpecStream
    from hyperviz_core.probe.score import run_specs
    from hyperviz_core.render import HyperViz

    stream = SpecStream(random_hypergraph(12, 6, seed=3), 100_000)
    res = run_specs(stream, ("set-force", "bi-inc"), HyperViz(), None)
    assert 0 < res["probes"] < 100 and len(stream.drawn) < 300 + STALE_LIMIT  # then stopped


def test_probe_file_errors_name_the_field_and_the_byte(tmp_path: Path) -> None:
    bad = tmp_path / "a.jsonl"
    bad.write_text('{"id": "p1", "answer": ["E1"]}\n{"id": "p2", "prediction": "E1"}\n',
                   encoding="utf-8")
    with pytest.raises(ValueError, match=r"a.jsonl:2: not a valid ProbeAnswer: field "
                                         r"'answer' required"):
        read_jsonl(bad, ProbeAnswer)
    bad.write_bytes(b'{"id": "p1", "answer": ["E1"]}\n{"id": "\xff"}\n')
    with pytest.raises(ValueError, match=r"a.jsonl:2: not UTF-8 text \(byte 0xff at column 9"):
        read_jsonl(bad, ProbeAnswer)
