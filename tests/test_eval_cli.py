"""``vizrag eval generate | judge | table`` end to end with fake judges and a tiny store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rag_fakes import demo_documents

from hyperviz_core.cli import main
from hyperviz_core.eval import DIMENSIONS, load_answers
from hyperviz_core.rag import VizRAG

DATA = Path(__file__).parent / "data" / "eval"
Q = str(DATA / "questions.jsonl")


def _files(*names: str) -> list[str]:
    return [str(DATA / f"{n}.jsonl") for n in names]


def _judge(tmp_path: Path, fake: str = "AlwaysFirst") -> list[str]:
    return ["--judge", f"python:eval_fakes:{fake}", "--cache", str(tmp_path / "j.sqlite"),
            "--no-progress"]


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("evalstore")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(0, 12))
    return path


def test_judge_json_schema_and_fake_half(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                         ) -> None:
    code = main(["eval", "judge", "--questions", Q, "--systems", *_files("gold", "partial"),
                 *_judge(tmp_path), "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["protocol", "systems", "dimensions", "overall", "position_bias",
                         "invalid", "questions", "missing", "agreement"]
    assert out["questions"] == 3 and out["missing"] == {"gold": 0, "partial": 1}
    assert out["agreement"] == 0.0
    assert out["protocol"] == "winrate" and out["systems"] == ["gold", "partial"]
    assert list(out["dimensions"]) == list(DIMENSIONS)
    assert all(v == {"gold": 0.5, "partial": 0.5} for v in out["dimensions"].values())
    assert out["overall"] == {"gold": 0.5, "partial": 0.5}
    assert out["position_bias"] == 1.0 and out["invalid"] == 0


def test_judge_score_markdown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "judge", "--questions", Q, "--systems", *_files("gold", "empty"),
                 *_judge(tmp_path, "PrefersLonger"), "--protocol", "score"])
    assert code == 0
    out = capsys.readouterr().out
    assert "| criterion (score (0-100)) | gold | empty |" in out
    assert "| **Overall** | 100.0 | 0.0 |" in out


@pytest.mark.parametrize("argv, message", [
    (["eval", "judge", "--questions", Q, "--systems", *_files("gold", "partial", "empty"),
      "--judge", "python:eval_fakes:AlwaysFirst"], "exactly 2"),
    (["eval", "judge", "--questions", Q, "--systems", *_files("gold", "partial"),
      "--judge", "offline"], "needs a model"),
    (["eval", "judge", "--questions", Q, "--systems", *_files("gold", "partial"),
      "--judge", "python:eval_fakes:nothing"], "cannot load"),
    (["eval", "judge", "--questions", Q, "--systems", *_files("gold", "partial"),
      "--judge", "python:eval_fakes:keyless"], "failed to make a model: RuntimeError: The "
     "api_key"),
    (["eval", "judge", "--questions", "missing.jsonl", "--systems", *_files("gold", "empty"),
      "--judge", "python:eval_fakes:AlwaysFirst"], "cannot read"),
    (["eval", "table", "5"], "table 5 needs --probes"),
    (["eval", "table", "5", "--questions", Q], "table 5 does not use --questions"),
    (["eval", "generate", "--questions", Q, "--store", "/nonexistent/store"], "no VizRAG store"),
])
def test_bad_input_exit_2(argv: list[str], message: str, tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*argv, "--no-progress"] if argv[1] != "table" else argv) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_table4_perfect_100_empty_0(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "table", "4", "--questions", Q, "--systems",
                 *_files("gold", "empty", "partial"), "--json"])
    assert code == 0
    t = json.loads(capsys.readouterr().out)
    assert t["headers"][:3] == ["system", "2-hop EM", "2-hop F1"]
    assert len(t["headers"]) == 1 + 2 * 4 + 1 and len(t["rows"]) == 3
    assert all(len(r) == len(t["headers"]) for r in t["rows"])
    assert t["rows"][0] == ["gold", *["100.0"] * 9]
    assert t["rows"][1] == ["empty", *["0.0"] * 9]
    assert t["data"]["partial"]["overall"]["em"] == 0.25


def test_table1_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "table", "1", "--questions", Q, "--systems",
                 *_files("gold", "partial", "empty"), *_judge(tmp_path, "PrefersLonger"),
                 "--json"])
    assert code == 0
    t = json.loads(capsys.readouterr().out)
    assert t["headers"] == ["criterion", "gold (vs partial)", "partial", "gold (vs empty)",
                            "empty"]
    assert [r[0] for r in t["rows"]] == [*DIMENSIONS, "Overall"]
    assert t["rows"][-1][3:] == ["100.0%", "0.0%"]
    assert set(t["data"]) == {"partial", "empty"}


def test_table2_from_files_with_and_without_judge(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    files = _files("gold", "empty")
    assert main(["eval", "table", "2", "--questions", Q, "--systems", *files, "--json"]) == 0
    t = json.loads(capsys.readouterr().out)
    assert [r[0] for r in t["rows"]] == ["gold", "empty"]
    assert t["rows"][0][1:3] == ["100.0", "100.0"]
    assert main(["eval", "table", "2", "--questions", Q, "--systems", *files,
                 *_judge(tmp_path, "PrefersLonger"), "--json"]) == 0
    t = json.loads(capsys.readouterr().out)
    assert t["headers"] == ["variant", *DIMENSIONS, "Overall"]
    assert t["rows"] == [["gold", *["100.0"] * 7], ["empty", *["0.0"] * 7]]
    assert main(["eval", "table", "2", "--questions", Q, "--systems", *files,
                 *_judge(tmp_path), "--protocol", "winrate", "--json"]) == 0
    t = json.loads(capsys.readouterr().out)
    assert t["rows"] == [["empty", *["50.0%"] * 7, "100.0%"]]


def test_generate_writes_one_file_per_mode(store: Path, tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "answers"
    code = main(["eval", "generate", "--store", str(store), "--questions", Q,
                 "--modes", "vizrag,naive", "--out", str(out), "--no-progress"])
    assert code == 0
    assert sorted(p.name for p in out.iterdir()) == ["naive.jsonl", "vizrag.jsonl"]
    for name in ("naive", "vizrag"):
        lines = [json.loads(x) for x in (out / f"{name}.jsonl").read_text().splitlines()]
        assert [list(x) for x in lines] == [["id", "question", "answer"]] * 4
        assert all(x["answer"].startswith("Extractive summary") for x in lines)
    assert next(r.id for r in load_answers(out / "naive.jsonl")) == "2hop__q1"


def test_table4_from_store_adds_answer_in_context(store: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "table", "4", "--questions", Q, "--store", str(store),
                 "--modes", "hyper-lite,naive", "--no-progress", "--json"])
    assert code == 0
    t = json.loads(capsys.readouterr().out)
    assert t["headers"][-1] == "answer in context"
    assert [r[0] for r in t["rows"]] == ["hyper-lite", "naive"]
    # "Iron Maiden" is in the demo passages about Maiden Japan
    assert t["data"]["hyper-lite"]["overall"]["in_context"] > 0


def test_table4_without_hop_counts_has_overall_columns_only() -> None:
    from hyperviz_core.eval import Question, table4

    qs = [Question(id="a", question="?", answers=["yes"]),
          Question(id="b", question="?", answers=["Paris"])]
    t = table4(qs, {"sys": {"a": "Yes.", "b": "Lyon"}})
    assert t.headers == ["system", "all EM", "all F1", "answer contains gold"]
    assert t.rows == [["sys", "50.0", "50.0", "50.0"]]
    assert "hop count unknown 2" in t.notes[0]


def test_generate_and_tables_check_their_sources_first(
        store: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An --out that is a file failed with a bare [Errno 17] after the first mode's answers
    were made; --systems beside --store ignored the store; a repeated mode ran twice."""
    afile = tmp_path / "afile"
    afile.write_text("")
    assert main(["eval", "generate", "--store", str(store), "--questions", Q, "--modes",
                 "naive", "--out", str(afile), "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "--out" in err and "is a file; give a folder" in err and "Errno" not in err
    (tmp_path / "out" / "naive.jsonl").mkdir(parents=True)
    assert main(["eval", "generate", "--store", str(store), "--questions", Q, "--modes",
                 "naive", "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert "naive.jsonl is a folder" in capsys.readouterr().err
    for table in ("2", "4"):
        assert main(["eval", "table", table, "--questions", Q, "--systems",
                     *_files("gold"), "--store", str(store), "--no-progress"]) == 2
        assert "give --systems FILE.jsonl ... or --store STORE, not both" in \
            capsys.readouterr().err
    out = tmp_path / "twice"
    assert main(["eval", "generate", "--store", str(store), "--questions", Q, "--modes",
                 "naive,naive", "--out", str(out), "--no-progress"]) == 0
    assert capsys.readouterr().err.count("wrote ") == 1
