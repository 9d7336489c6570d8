"""Issue 10, items 6, 7 and the render parts of 9: hostile input files.

Before the fix:

* ``a/README.md`` and ``b/README.md`` both got id ``README`` and one silently replaced the
  other (1 document stored, exit 0); two JSON records with one id did the same;
* 200,000 nested ``[`` in a HIF, style or corpus file raised ``RecursionError`` (a
  traceback; ``main`` only catches ValueError/OSError);
* ``render --html DIR`` wrote the PNG and JSON, then failed; ``render --no-prune`` on
  thousands of nodes started a drawing that runs for many minutes.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import HypergraphStore
from hyperviz_core.testing import random_hypergraph

DEEP = "[" * 200_000 + "]" * 200_000


def _cli(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _one_line_error(res: tuple[int, str, str], *needles: str) -> str:
    code, _, err = res
    lines = [x for x in err.splitlines() if x.strip()]
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, res
    for n in needles:
        assert n in lines[0], (n, lines[0])
    return lines[0]


# ---------------------------------------------------------------- item 6: ids, duplicates
def test_same_named_files_in_a_tree_are_distinct_documents(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    for sub, text in (("a", "Alma Varga founded Lyon Harbour."),
                      ("b", "Bruno Moreau sailed to Port Vell."),
                      ("b/deep", "Clara Okafor mapped the Tanaka Reef.")):
        (docs / sub).mkdir(parents=True)
        (docs / sub / "README.md").write_text(f"# Readme\n\n{text}\n", encoding="utf-8")
    store = tmp_path / "s"
    code, out, err = _cli(["index", str(docs), "--store", str(store), "--no-progress",
                           "--json"])
    assert code == 0, err
    report = json.loads(out)
    assert report["documents_added"] == 3
    assert report["input"] == {"read": 3, "kept": 3, "duplicates": 0, "repeats": 0,
                               "policy": "error", "examples": [],
                               "unreadable": [], "left_out": []}
    with HypergraphStore(store) as st:
        assert [d.id for d in st.documents()] == ["a/README", "b/README", "b/deep/README"]


def _records(tmp_path: Path) -> Path:
    src = tmp_path / "corpus.json"
    src.write_text(json.dumps([
        {"id": "p1", "title": "One", "text": "Alma Varga founded Lyon Harbour."},
        {"id": "p2", "title": "Two", "text": "Bruno Moreau sailed to Port Vell."},
        {"id": "p1", "title": "One again", "text": "Greta Novak rebuilt Lyon Harbour."},
        {"id": "p2", "title": "Two", "text": "Bruno Moreau sailed to Port Vell."},
    ]), encoding="utf-8")
    return src


def test_duplicate_record_ids_are_an_error_naming_both(tmp_path: Path) -> None:
    src = _records(tmp_path)
    store = tmp_path / "s"
    line = _one_line_error(_cli(["index", str(src), "--store", str(store), "--no-progress"]),
                           "duplicate document id 'p1'", "(item 0)", "(item 2)",
                           "--on-duplicate")
    assert str(src) in line
    assert not store.exists()  # nothing was written


@pytest.mark.parametrize(("policy", "title"), [("skip", "One"), ("replace", "One again")])
def test_on_duplicate_policies_and_counts(tmp_path: Path, policy: str, title: str) -> None:
    src = _records(tmp_path)
    store = tmp_path / "s"
    code, out, err = _cli(["index", str(src), "--store", str(store), "--no-progress",
                           "--on-duplicate", policy, "--json"])
    assert code == 0, err
    inp = json.loads(out)["input"]
    assert inp["read"] == 4 and inp["kept"] == 2 and inp["duplicates"] == 1
    assert inp["repeats"] == 1 and inp["read"] == inp["kept"] + inp["duplicates"] + inp["repeats"]
    with HypergraphStore(store) as st:
        assert [(d.id, d.title) for d in st.documents()] == [("p1", title), ("p2", "Two")]
    code, out, _ = _cli(["index", str(src), "--store", str(tmp_path / "t"), "--no-progress",
                         "--on-duplicate", policy])
    assert code == 0 and "4 documents read = 2 kept + 1 with a duplicate id" in out


def test_duplicates_across_files_name_both_files(tmp_path: Path) -> None:
    one, two = tmp_path / "x", tmp_path / "y"
    for d in (one, two):
        d.mkdir()
    (one / "notes.txt").write_text("Alma Varga met Bruno Moreau.", encoding="utf-8")
    (two / "notes.txt").write_text("Clara Okafor met Dario Novak.", encoding="utf-8")
    _one_line_error(_cli(["index", str(one / "notes.txt"), str(two / "notes.txt"), "--store",
                          str(tmp_path / "s")]), str(one / "notes.txt"), str(two / "notes.txt"))


# ---------------------------------------------------------------- item 7: deep nesting
def test_deep_json_in_render_is_one_line(tmp_path: Path) -> None:
    deep = tmp_path / "deep.hif.json"
    deep.write_text(DEEP, encoding="utf-8")
    _one_line_error(_cli(["render", str(deep), "--out", str(tmp_path / "v.png")]),
                    "nested too deeply", str(deep))
    bad = tmp_path / "bad.hif.json"
    bad.write_text("{oops", encoding="utf-8")
    _one_line_error(_cli(["render", str(bad), "--out", str(tmp_path / "v.png")]),
                    "not valid JSON", str(bad))
    wrapped = tmp_path / "wrapped.hif.json"
    wrapped.write_text('{"incidences": [], "metadata": {"x": ' + DEEP + "}}", encoding="utf-8")
    _one_line_error(_cli(["render", str(wrapped), "--out", str(tmp_path / "v.png")]),
                    "nested too deeply")
    ok = tmp_path / "ok.hif.json"
    ok.write_text(json.dumps(random_hypergraph(6, 3, seed=1).to_hif()), encoding="utf-8")
    style = tmp_path / "style.json"
    style.write_text(DEEP, encoding="utf-8")
    _one_line_error(_cli(["render", str(ok), "--style", str(style), "--out",
                          str(tmp_path / "v.png")]), "nested too deeply")
    assert not (tmp_path / "v.png").exists()


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_deep_json_in_index_is_one_line(tmp_path: Path, suffix: str) -> None:
    deep = tmp_path / f"deep{suffix}"
    deep.write_text(DEEP + "\n", encoding="utf-8")
    _one_line_error(_cli(["index", str(deep), "--store", str(tmp_path / "s")]),
                    "nested too deeply", str(deep))
    q = tmp_path / "q.jsonl"
    q.write_text(DEEP + "\n", encoding="utf-8")
    store = tmp_path / "real"
    (tmp_path / "a.txt").write_text("Alma Varga met Bruno Moreau.", encoding="utf-8")
    assert _cli(["index", str(tmp_path / "a.txt"), "--store", str(store)])[0] == 0
    _one_line_error(_cli(["query", "--store", str(store), "--questions", str(q)]),
                    "nested too deeply")


# ---------------------------------------------------------------- item 9: render outputs
def test_html_pointing_at_a_folder_fails_before_rendering(tmp_path: Path) -> None:
    src = tmp_path / "g.hif.json"
    src.write_text(json.dumps(random_hypergraph(6, 3, seed=1).to_hif()), encoding="utf-8")
    folder = tmp_path / "site"
    folder.mkdir()
    png = tmp_path / "v.png"
    _one_line_error(_cli(["render", str(src), "--out", str(png), "--html", str(folder)]),
                    "--html", "is a folder")
    assert not png.exists() and not png.with_suffix(".json").exists()
    _one_line_error(_cli(["render", str(src), "--out", str(folder)]), "--out", "is a folder")
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    _one_line_error(_cli(["render", str(src), "--out", str(blocker / "v.png")]),
                    "is not a folder")


def test_no_prune_on_a_big_graph_needs_force(tmp_path: Path) -> None:
    src = tmp_path / "big.hif.json"
    src.write_text(json.dumps(random_hypergraph(600, 150, seed=3).to_hif()),
                   encoding="utf-8")
    png = tmp_path / "big.png"
    _one_line_error(_cli(["render", str(src), "--no-prune", "--out", str(png)]),
                    "600 entities", "--force")
    assert not png.exists()
