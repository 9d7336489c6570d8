"""``vizrag query``: single question, JSON, batch JSONL, images written, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rag_fakes import PNG_MAGIC, demo_documents

from hyperviz_core.cli import main
from hyperviz_core.rag.engine import VizRAG

Q = "Who is the wife of Kim Jong-chul?"


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli-store")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(40, 60))
    return path


def test_query_prints_evidence_and_writes_views(store_dir: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "views"
    assert main(["query", Q, "--store", str(store_dir), "--out", str(out), "--top-k", "3"]) == 0
    text = capsys.readouterr().out
    assert "Extractive summary" in text and "Top passages:" in text
    assert "[1]" in text and "Kim Jong-chul" in text and "[4]" not in text
    for name in ("top", "bottom"):
        assert (out / f"{name}.png").read_bytes().startswith(PNG_MAGIC)
        html = (out / f"{name}.html").read_text(encoding="utf-8")
        assert html.lstrip().lower().startswith("<!doctype html") and "E1" in html
        export = json.loads((out / f"{name}.json").read_text(encoding="utf-8"))
        assert export["entities"] and export["entities"][0]["id"].startswith("E")


def test_query_json_single(store_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", Q, "--store", str(store_dir), "--json", "--mode", "hyper-lite",
                 "--no-render"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert obj["mode"] == "hyper-lite" and obj["answer_kind"] == "extractive"
    assert len(obj["chunks"]) == 5
    assert set(obj["chunks"][0]) >= {"doc_id", "chunk_id", "score", "text"}
    assert obj["chunks"][0]["doc_id"] == "m533"


def test_batch_questions_jsonl(store_dir: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture[str]) -> None:
    qfile = tmp_path / "q.jsonl"
    qfile.write_text("\n".join(json.dumps(x) for x in [
        {"id": "a", "question": Q},
        {"id": "b/2", "question": "Who is Kim Jong-un's brother?"},
    ]) + "\n\n", encoding="utf-8")
    out = tmp_path / "batch"
    assert main(["query", "--store", str(store_dir), "--questions", str(qfile), "--json",
                 "--out", str(out), "--top-k", "2"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines() if x.strip()]
    assert [x["id"] for x in lines] == ["a", "b/2"]
    for line in lines:
        assert line["answer"] and len(line["chunks"]) == 2
        assert {"doc_id", "chunk_id", "score", "text"} <= set(line["chunks"][0])
        assert Path(line["images"]["bottom_png"]).is_file()
    assert (out / "a" / "top.png").is_file() and (out / "b_2" / "bottom.html").is_file()


def test_query_errors(store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
                      ) -> None:
    assert main(["query", Q, "--store", str(tmp_path / "nothing")]) == 2
    assert "no VizRAG store" in capsys.readouterr().err
    assert main(["query", "--store", str(store_dir)]) == 2
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1}\n', encoding="utf-8")
    assert main(["query", "--store", str(store_dir), "--questions", str(bad)]) == 2
    assert "question" in capsys.readouterr().err
    assert main(["query", "   ", "--store", str(store_dir)]) == 2
    assert "the question is empty" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["query", Q, "--store", str(store_dir), "--mode", "hyper"])


def test_query_verbose_prints_stage_events_to_stderr(
        store_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", Q, "--store", str(store_dir), "--verbose", "--json",
                 "--render"]) == 0
    captured = capsys.readouterr()
    json.loads(captured.out)  # stdout stays one JSON line
    events = [line.split()[1:3] for line in captured.err.splitlines()
              if line.startswith("vizrag: ")]
    stages = [name for name, phase in events if phase == "start" and name != "render"]
    assert stages == ["load", "keywords", "themes", "top_view", "locate", "bottom_entities",
                      "rank", "bottom_view", "answer"]
    assert ["render", "end"] in events and "elapsed_ms" not in captured.err
    assert main(["query", Q, "--store", str(store_dir), "--json"]) == 0
    assert "vizrag: " not in capsys.readouterr().err


def test_out_under_a_file_is_named_before_anything_runs(
        store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    afile = tmp_path / "afile"
    afile.write_text("x")
    assert main(["query", Q, "--store", str(store_dir), "--out", str(afile / "sub")]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"vizrag query: error: --out {afile / 'sub'}: {afile} exists and is not a folder"


def test_a_blank_question_in_a_batch_is_named_as_blank(
        store_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    qs = tmp_path / "q.jsonl"
    qs.write_text('{"id": "ok", "question": "Who?"}\n{"id": "ws", "question": "   "}\n'
                  '{"id": "none"}\n')
    assert main(["query", "--store", str(store_dir), "--questions", str(qs)]) == 2
    assert capsys.readouterr().err.strip().endswith(
        "q.jsonl:2: the question is empty (only whitespace)")
    qs.write_text('{"id": "none"}\n')
    assert main(["query", "--store", str(store_dir), "--questions", str(qs)]) == 2
    assert 'q.jsonl:1: expected an object with a "question"' in capsys.readouterr().err
