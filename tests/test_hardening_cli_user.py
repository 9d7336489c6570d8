"""What a user meets at the command line: a missing Graphviz, a closed pipe, ``--out`` in a
mode that draws nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from rag_fakes import demo_documents, store_with

from hyperviz_core.cli import main

HIF = {"network-type": "undirected", "incidences": [{"edge": "h", "node": "a"},
                                                   {"edge": "h", "node": "b"}]}


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_with(tmp_path_factory.mktemp("cli_user") / "store", demo_documents(0, 12))


def test_a_missing_graphviz_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    hif = tmp_path / "g.json"
    hif.write_text(json.dumps(HIF), encoding="utf-8")
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert main(["render", str(hif), "--layout", "set-force", "--out",
                 str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["vizrag render: error: Graphviz is not installed (the `dot` program was not "
                   "found on PATH): install it, e.g. `apt-get install graphviz`"]


def test_a_missing_graphviz_stops_a_rendering_query(store: Path, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """``vizrag query --render`` without ``dot``: the same one line and exit 2 as ``vizrag
    render``, not a per-question failure (exit 1) with graphviz's own message."""
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    assert main(["query", "Iron Maiden", "--store", str(store), "--render", "--out",
                 str(tmp_path / "q")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["vizrag query: error: Graphviz is not installed (the `dot` program was not "
                   "found on PATH): install it, e.g. `apt-get install graphviz`"]


def test_a_closed_pipe_ends_a_batch_quietly(store: Path, tmp_path: Path) -> None:
    qs = tmp_path / "q.jsonl"
    qs.write_text("".join(json.dumps({"id": str(i), "question": "Iron Maiden"}) + "\n"
                          for i in range(300)), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "hyperviz_core", "query", "--store", str(store), "--questions",
         str(qs), "--json", "--no-progress"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.read(10)
    proc.stdout.close()  # the reader goes away, as `| head -c 10` does
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Broken pipe" not in err and "Traceback" not in err


@pytest.mark.parametrize("mode", ["text", "naive"])
def test_out_in_a_mode_without_views_says_so(store: Path, tmp_path: Path, mode: str,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / mode
    assert main(["query", "Iron Maiden", "--store", str(store), "--mode", mode,
                 "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"--out received no view in {mode} mode" in err
    assert not out.exists()  # no view, no folder


def test_query_out_replaces_each_view_file_whole(store: Path, tmp_path: Path) -> None:
    """``--out`` writes through a temporary file and a rename, as every other file the CLI
    writes: a file of the earlier run that a reader still holds (here a hard link to it)
    keeps the old bytes, never half of the new ones."""
    out = tmp_path / "views"
    assert main(["query", "Iron Maiden", "--store", str(store), "--out", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert names == ["bottom.html", "bottom.json", "bottom.png", "top.html", "top.json",
                     "top.png"]
    held = {}
    for name in names:
        (tmp_path / f"held-{name}").hardlink_to(out / name)
        held[name] = (tmp_path / f"held-{name}").read_bytes()
    assert main(["query", "Jong-il", "--store", str(store), "--out", str(out)]) == 0
    for name in names:
        assert (tmp_path / f"held-{name}").read_bytes() == held[name], name
        assert (out / name).stat().st_ino != (tmp_path / f"held-{name}").stat().st_ino, name


def test_a_name_with_a_newline_stays_on_its_line(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A file named ``line<newline>break`` gives that id and title; the listing shows them
    escaped on the passage's line (the raw newline split it)."""
    from hyperviz_core.rag import Document, VizRAG

    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="line\nbreak", title="line\nbreak\ttab",
                             text="Hank Snow sang in Nashville.")])
    assert main(["query", "Hank Snow", "--store", str(tmp_path / "s")]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = lines.index("Top passages:") + 1
    assert lines[first].endswith("line\\nbreak\\ttab  (line\\nbreak)"), lines[first]
    assert lines[first + 1].startswith("      Hank Snow")
