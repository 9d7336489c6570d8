"""Issue 10, items 1 (batch mode), 9 (query options and output folders) and 10 (locator).

Before the fix:

* one failing question killed a ``--questions`` batch (the exception escaped ``main``), so
  ``test_batch_goes_on_after_a_failure`` saw a traceback instead of an error record;
* ``--top-k 0`` printed a multi-line pydantic dump;
* ids ``..`` and ``a/b`` were written to ``OUT/..`` (outside ``--out``) and ids ``a/b`` and
  ``a_b`` shared one folder;
* nothing said which locator ran: ``locator`` was missing from the JSON and the text.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path
from typing import Any

import pytest
from rag_fakes import ParrotChat, demo_documents

from hyperviz_core.cli import main
from hyperviz_core.rag import VizRAG

Q = "Who is the wife of Kim Jong-chul?"
OFFLINE = "offline structural locator — no vision model read the image"
UNDRAWN = "offline structural locator — no image was drawn (--render draws one)"


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def store_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("hq-store")
    with VizRAG(path, show_progress=False) as rag:
        rag.insert(demo_documents(0, 30))
    return path


def _questions(tmp_path: Path, items: list[dict[str, Any]]) -> Path:
    q = tmp_path / "q.jsonl"
    q.write_text("".join(json.dumps(x) + "\n" for x in items), encoding="utf-8")
    return q


@pytest.fixture
def boom(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fault injection: the engine fails on any question containing 'boom'."""
    real = VizRAG.query

    def query(self: VizRAG, question: str, *a: Any, **k: Any) -> Any:
        if "boom" in question:
            raise RuntimeError(f"render failed for {question!r}")
        return real(self, question, *a, **k)

    monkeypatch.setattr(VizRAG, "query", query)


# ---------------------------------------------------------------- item 1: batch mode
def test_batch_goes_on_after_a_failure(store_dir: Path, tmp_path: Path, boom: None) -> None:
    qfile = _questions(tmp_path, [{"id": "a", "question": Q},
                                  {"id": "b", "question": "boom one"},
                                  {"id": "c", "question": "Who is Kim Jong-un's brother?"},
                                  {"id": "d", "question": "boom two"}])
    code, out, err = _cli(["query", "--store", str(store_dir), "--questions", str(qfile),
                           "--json", "--no-render"])
    lines = [json.loads(x) for x in out.splitlines() if x.strip()]
    assert [x["id"] for x in lines] == ["a", "b", "c", "d"]
    assert lines[1] == {"id": "b", "error": "RuntimeError: render failed for 'boom one'"}
    assert set(lines[3]) == {"id", "error"}
    assert lines[0]["chunks"] and lines[2]["chunks"]
    assert code == 2  # two questions failed
    assert "2 of 4 questions failed" in err


def test_batch_text_mode_and_exit_code_cap(store_dir: Path, tmp_path: Path, boom: None) -> None:
    qfile = _questions(tmp_path, [{"id": "ok", "question": Q}, {"id": "x", "question": "boom"}])
    code, out, _ = _cli(["query", "--store", str(store_dir), "--questions", str(qfile),
                         "--no-render"])
    assert code == 1 and "== ok" in out and "== x" in out
    assert "error: RuntimeError: render failed for 'boom'" in out
    many = _questions(tmp_path, [{"id": str(i), "question": f"boom {i}"} for i in range(130)])
    code, out, _ = _cli(["query", "--store", str(store_dir), "--questions", str(many), "--json",
                         "--no-render"])
    assert code == 125  # capped: higher codes mean "killed by a signal" to shells
    assert len(out.splitlines()) == 130


def test_single_question_failure_is_one_line(store_dir: Path, boom: None) -> None:
    code, _, err = _cli(["query", "boom", "--store", str(store_dir), "--no-render"])
    assert code == 1 and "Traceback" not in err
    assert [x for x in err.splitlines() if x.strip()] == [
        "vizrag query: error: RuntimeError: render failed for 'boom'"]


def test_hostile_names_index_and_query(tmp_path: Path) -> None:
    """The reproduction of item 1: index invisible-character names, then plain query."""
    doc = tmp_path / "names.txt"
    doc.write_text("Wenjie\u200bZhang met Anna\u202eBerg in Paris. "
                   "\U0001f468\u200d\U0001f469\u200d\U0001f467 Family\u2060Smith lives in "
                   "Lyon\ufeff. Soft\u00adHyphen and Tag\U000e0001Name met Wenjie\u200bZhang "
                   "in Paris.\n", encoding="utf-8")
    store = tmp_path / "s"
    assert _cli(["index", str(doc), "--store", str(store), "--no-progress"])[0] == 0
    code, _, err = _cli(["query", "Who met Wenjie\u200bZhang in Paris?", "--store",
                         str(store), "--out", str(tmp_path / "views")])
    assert code == 0, err
    assert (tmp_path / "views" / "top.png").is_file()


# ---------------------------------------------------------------- item 9: options, folders
@pytest.mark.parametrize("flag", [["--top-k", "0"], ["--top-k", "-1"], ["--hops", "-1"],
                                  ["--hops", "9"]])
def test_bad_numbers_are_one_line(store_dir: Path, flag: list[str]) -> None:
    code, _, err = _cli(["query", Q, "--store", str(store_dir), "--no-render", *flag])
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2 and len(lines) == 1, err
    assert flag[0] in lines[0] and "pydantic" not in lines[0]


def test_question_ids_stay_inside_out_and_do_not_collide(store_dir: Path,
                                                          tmp_path: Path) -> None:
    ids = ["..", "a/b", "a_b", "../../escape", "A_B", "CON"]
    qfile = _questions(tmp_path, [{"id": i, "question": Q} for i in ids])
    out_dir = tmp_path / "nested" / "out"
    code, out, err = _cli(["query", "--store", str(store_dir), "--questions", str(qfile),
                           "--json", "--out", str(out_dir), "--top-k", "1", "--mode",
                           "hyper-lite"])
    assert code == 0, err
    lines = [json.loads(x) for x in out.splitlines() if x.strip()]
    assert [x["id"] for x in lines] == ids
    folders = [Path(x["images"]["bottom_png"]).parent for x in lines]
    root = out_dir.resolve()
    for f in folders:
        assert f.resolve().parent == root, f
    assert len({str(f).casefold() for f in folders}) == len(ids)
    assert sorted(p.name for p in (tmp_path / "nested").iterdir()) == ["out"]
    assert not (tmp_path / "escape").exists()


# ---------------------------------------------------------------- item 10: which locator
def test_offline_locator_is_named(store_dir: Path) -> None:
    """It says no image was drawn when none was, and no vision model read the one drawn."""
    code, out, _ = _cli(["query", Q, "--store", str(store_dir), "--json", "--no-render"])
    obj = json.loads(out)
    assert code == 0
    assert obj["locator"] == {"kind": "offline-structural", "description": UNDRAWN}
    code, out, _ = _cli(["query", Q, "--store", str(store_dir), "--no-render"])
    assert code == 0 and f"Locator: {UNDRAWN}" in out
    code, out, _ = _cli(["query", Q, "--store", str(store_dir), "--json", "--render"])
    assert code == 0 and json.loads(out)["locator"]["description"] == OFFLINE


def test_locator_without_a_locate_step(store_dir: Path) -> None:
    code, out, _ = _cli(["query", Q, "--store", str(store_dir), "--json", "--no-render",
                         "--mode", "hyper-lite"])
    assert code == 0 and json.loads(out)["locator"]["kind"] == "none"


def test_locator_with_a_vision_model(store_dir: Path) -> None:
    """A question about the corpus (``Q`` names nothing in it: since the hash-collision
    check no theme of it is retrieved, so no top view is drawn for a model to read)."""
    from hyperviz_core.cli.query import locator_note

    question = "Where was the Iron Maiden EP Maiden Japan recorded?"
    with VizRAG(store_dir, chat=ParrotChat(), show_progress=False) as rag:
        res = rag.query(question)
        failed = VizRAG(rag.store, chat=ParrotChat(fail_stage="locate"),
                        show_progress=False).query(question)
    note = locator_note(res)
    assert note["kind"] == "vision-model"
    assert "read the image" in note["description"]
    assert locator_note(failed)["kind"] == "offline-structural"
    assert "failed" in locator_note(failed)["description"]
