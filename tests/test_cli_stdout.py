"""``/dev/stdout`` as an output path writes to whatever stdout is (a pipe here): a resolved
``/dev/stdout`` of a pipe names no file (``pipe:[...]``), so it is opened as given; stdout
carries the data only (the ``wrote ...`` lines go to stderr)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.testing import random_hypergraph


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "hyperviz_core", *args], capture_output=True,
                          text=True, timeout=300, check=False)


def test_export_and_render_html_to_a_piped_stdout(tmp_path: Path) -> None:
    with VizRAG(tmp_path / "store", show_progress=False) as rag:
        rag.insert([Document(id="a", text="Ada Quill founded the Nimbus Society in Leyton.")])
    done = _run("export", "--store", str(tmp_path / "store"), "--hif", "/dev/stdout")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["nodes"] and done.stderr.startswith("wrote /dev/stdout")
    hif = tmp_path / "g.hif.json"
    hif.write_text(json.dumps(random_hypergraph(8, 4, seed=1).to_hif()))
    done = _run("render", str(hif), "--out", str(tmp_path / "g.png"), "--html", "/dev/stdout",
                "--no-progress")
    assert done.returncode == 0, done.stderr
    assert done.stdout.lstrip().lower().startswith("<!doctype html")
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"


def test_a_stdout_redirected_to_a_file_is_appended_to_not_replaced(tmp_path: Path) -> None:
    """``>> log``: the bytes go through the open descriptor, after what the file held (it
    was resolved to the file and replaced by a rename, losing the earlier lines)."""
    with VizRAG(tmp_path / "store", show_progress=False) as rag:
        rag.insert([Document(id="a", text="Ada Quill founded the Nimbus Society in Leyton.")])
    log = tmp_path / "log.txt"
    log.write_text("earlier line\n")
    with log.open("a") as fh:
        done = subprocess.run([sys.executable, "-m", "hyperviz_core", "export", "--store",
                               str(tmp_path / "store"), "--hif", "/dev/stdout"], stdout=fh,
                              stderr=subprocess.PIPE, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    head, body = log.read_text().split("\n", 1)
    assert head == "earlier line" and json.loads(body)["nodes"]
