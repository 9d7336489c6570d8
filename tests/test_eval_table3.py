"""``vizrag eval table 3`` (positive vs lexically similar distractor) on tiny probes.

The fakes used here measure no model: the image condition's FAKE export oracle answers from
the export JSON, not the pixels, and the text condition's FAKE caption reader applies a fixed
rule to the caption's hyperedge lines. These tests check the harness (table shape, scoring:
perfect answers 100 %, an empty answers file 0 %, distractor answers counted as such).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.eval import CaptionReaderTextModel, ask_text_probes, table3
from hyperviz_core.probe import Probe, ProbeAnswer, make_probes, parse_disambiguation, write_jsonl
from hyperviz_core.testing import random_hypergraph

HEADERS = ["model", "image: positive", "image: distractor", "text only: positive",
           "text only: distractor", "image adds", "probes"]


@pytest.fixture(scope="module")
def probes_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("t3")
    probes = make_probes(random_hypergraph(40, 20, seed=3), 3, out, seed=1, progress=False,
                         tasks=["disambiguation"])
    write_jsonl(out / "perfect.jsonl", [ProbeAnswer(id=p.id, answer=p.answer) for p in probes])
    write_jsonl(out / "empty.jsonl", [])
    wrong = []
    for p in probes:
        parsed = parse_disambiguation(p.question)
        assert parsed is not None
        wrong.append(ProbeAnswer(id=p.id, answer=[c for c in parsed[1] if c not in p.answer]))
    write_jsonl(out / "distracted.jsonl", wrong)
    return out


def _table(argv: list[str], capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    assert main([*argv, "--no-progress", "--json"]) == 0
    return json.loads(capsys.readouterr().out)  # type: ignore[no-any-return]


def test_answers_files_perfect_100_empty_0(probes_dir: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    t = _table(["eval", "table", "3", "--probes", str(probes_dir / "probes.jsonl"),
                "--answers", str(probes_dir / "perfect.jsonl"), str(probes_dir / "empty.jsonl"),
                str(probes_dir / "distracted.jsonl"),
                "--text-answers", str(probes_dir / "empty.jsonl")], capsys)
    assert t["table"] == "3" and t["headers"] == HEADERS
    assert t["rows"] == [
        ["perfect", "100.0%", "0.0%", "-", "-", "-", "3"],
        ["empty", "0.0%", "0.0%", "0.0%", "0.0%", "+0.0", "3"],
        ["distracted", "0.0%", "100.0%", "-", "-", "-", "3"],
    ]
    assert t["data"]["empty"]["image"]["missing"] == 3  # type: ignore[index]


def test_fake_models_from_a_hif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hif = tmp_path / "g.hif.json"
    hif.write_text(json.dumps(random_hypergraph(40, 20, seed=3).to_hif()), encoding="utf-8")
    t = _table(["eval", "table", "3", "--from", str(hif), "--n", "2", "--models", "fake",
                "--out", str(tmp_path / "o")], capsys)
    assert t["headers"] == HEADERS
    (row,) = t["rows"]  # type: ignore[misc]
    assert "FAKE" in row[0]
    assert row[1:] == ["100.0%", "0.0%", "100.0%", "0.0%", "+0.0", "2"]
    assert any("FAKE export oracle" in n for n in t["notes"])  # type: ignore[attr-defined]
    assert len(list((tmp_path / "o").glob("*.text.jsonl"))) == 1
    assert (tmp_path / "o" / "probes" / "probes.jsonl").is_file()
    # the files that run wrote, given back, pair as the same model (one row, same figures)
    again = _table(["eval", "table", "3", "--probes", str(tmp_path / "o" / "probes" /
                                                          "probes.jsonl"),
                    "--answers", *map(str, (tmp_path / "o").glob("*.image.jsonl")),
                    "--text-answers", *map(str, (tmp_path / "o").glob("*.text.jsonl"))], capsys)
    assert [r[1:] for r in again["rows"]] == [row[1:]]  # type: ignore[union-attr]


def test_text_condition_sends_the_caption_and_no_image(probes_dir: Path) -> None:
    from hyperviz_core.probe import read_jsonl

    probes = read_jsonl(probes_dir / "probes.jsonl", Probe)
    seen: list[tuple[str, int]] = []

    class Spy(CaptionReaderTextModel):
        def complete(self, prompt: str, *, images: object = (), system: str | None = None,
                     json_mode: bool = False) -> str:
            seen.append((prompt, len(images)))  # type: ignore[arg-type]
            return super().complete(prompt)

    got = ask_text_probes(probes, probes_dir, Spy(), progress=False)
    export = json.loads((probes_dir / probes[0].export).read_text(encoding="utf-8"))
    assert export["caption"] in seen[0][0] and probes[0].question in seen[0][0]
    assert {n for _, n in seen} == {0}
    assert table3(probes, {}, {"spy": got}).rows[0][3] == "100.0%"


@pytest.mark.parametrize("argv, message", [
    (["eval", "table", "3"], "table 3 needs --probes"),
    (["eval", "table", "3", "--probes", "PROBES"], "no disambiguation probe"),
    (["eval", "table", "3", "--probes", "DIS"], "--models SPEC"),
])
def test_table3_errors(argv: list[str], message: str, probes_dir: Path, tmp_path: Path,
                       capsys: pytest.CaptureFixture[str]) -> None:
    other = make_probes(random_hypergraph(30, 12, seed=2), 1, tmp_path, progress=False)
    assert other and other[0].task == "overlap-core"
    paths = {"PROBES": str(tmp_path / "probes.jsonl"),
             "DIS": str(probes_dir / "probes.jsonl")}
    assert main([paths.get(a, a) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
