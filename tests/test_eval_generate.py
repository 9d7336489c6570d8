"""Answer generation through the engine and its middleware; Table 2 variants from a store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rag_fakes import ParrotChat, demo_documents

from hyperviz_core.cli import main
from hyperviz_core.eval import (
    ABLATIONS,
    generate_answers,
    load_questions,
    open_engine,
    write_generated,
)
from hyperviz_core.rag import UsageTracker, VizRAG

DATA = Path(__file__).parent / "data" / "eval"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("genstore")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(0, 12))
    return path


def test_llm_answers_are_cached_in_the_store(store: Path, tmp_path: Path) -> None:
    qs = load_questions(DATA / "questions.jsonl", limit=2)
    chat = ParrotChat()
    for run in range(2):
        tracker = UsageTracker()
        engine = open_engine(store, chat, tracker=tracker, show_progress=False)
        try:
            got = generate_answers(engine, qs, "vizrag", show_progress=False, concurrency=2)
        finally:
            engine.close()
        assert [a.id for a in got] == ["2hop__q1", "2hop__q2"]
        assert all(a.answer_kind == "llm" and a.answer.startswith("Parrot answer")
                   for a in got)
        assert all(a.contexts for a in got)
        usage = tracker.report()
        if run == 0:
            assert usage.calls > 0 and usage.cache_hits == 0
            first_calls = len(chat.calls)
            assert any(c["images"] for c in chat.calls)  # vizrag mode sends the renderings
        else:
            assert usage.calls == 0 and usage.cache_hits > 0
            assert len(chat.calls) == first_calls
    path = write_generated(tmp_path / "vizrag.jsonl", got)
    assert json.loads(path.read_text().splitlines()[0])["answer"] == got[0].answer


def test_text_mode_and_visualization_switch_send_no_images(tmp_path: Path) -> None:
    qs = load_questions(DATA / "questions.jsonl", limit=1)
    for mode, overrides in (("text", {}), ("vizrag", {"retrieval_visualization": False})):
        chat = ParrotChat()
        fresh = tmp_path / mode  # a fresh store: no cached answers
        with VizRAG(fresh, show_progress=False) as rag:
            rag.insert(demo_documents(0, 6))
        engine = open_engine(fresh, chat, show_progress=False)
        try:
            generate_answers(engine, qs, mode, overrides=overrides, show_progress=False)
        finally:
            engine.close()
        assert chat.calls and not any(c["images"] for c in chat.calls)


def test_table2_generates_every_variant_offline(store: Path, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "ablations"
    code = main(["eval", "table", "2", "--questions", str(DATA / "questions.jsonl"),
                 "--store", str(store), "--store-no-index-viz", str(store), "--out", str(out),
                 "--no-progress", "--json"])
    assert code == 0
    t = json.loads(capsys.readouterr().out)
    assert [r[0] for r in t["rows"]] == list(ABLATIONS)
    assert sorted(p.stem for p in out.iterdir()) == sorted(ABLATIONS)
