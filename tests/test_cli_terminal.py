"""Stored text, model replies and file names reach the terminal without raw control codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.cli.terminal import terminal_safe

EVIL = "Ada\x1b]0;PWNED\x07\x1b[8m hidden\r\u202eLovelace"


def _no_raw_controls(text: str) -> None:
    assert not any(ch in text for ch in ("\x1b", "\x07", "\r", "\u202e")), repr(text)


def test_terminal_safe_shows_controls_and_keeps_layout() -> None:
    assert terminal_safe(EVIL) == "Ada\\x1b]0;PWNED\\x07\\x1b[8m hidden\\r\\u202eLovelace"
    assert terminal_safe("a\tb\nc é 日本") == "a\tb\nc é 日本"
    assert terminal_safe("\x9b2J\x7f") == "\\x9b2J\\x7f"


def test_query_prints_hostile_documents_escaped(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "c.json"
    corpus.write_text(json.dumps([{"title": EVIL, "text": f"{EVIL} worked with Charles "
                                   "Babbage on the Analytical Engine in London."}]))
    store = tmp_path / "store"
    assert main(["index", str(corpus), "--store", str(store), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["query", f"Who worked with Babbage? {EVIL}", "--store", str(store)]) == 0
    out = capsys.readouterr()
    _no_raw_controls(out.out + out.err)
    assert "\\x1b]0;PWNED" in out.out and "Babbage" in out.out


def test_errors_and_caption_are_escaped(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["query", "q", "--store", str(tmp_path / f"no{EVIL}")]) == 2
    err = capsys.readouterr().err
    _no_raw_controls(err)
    assert "\\x1b" in err
    hif = tmp_path / "g.hif.json"
    hif.write_text(json.dumps({
        "network-type": "undirected",
        "nodes": [{"node": EVIL}, {"node": "Babbage"}],
        "edges": [{"edge": "e1", "attrs": {"description": f"met {EVIL}"}}],
        "incidences": [{"edge": "e1", "node": EVIL}, {"edge": "e1", "node": "Babbage"}],
    }))
    assert main(["render", str(hif), "--caption", "--out", str(tmp_path / "v.png")]) == 0
    out = capsys.readouterr().out
    _no_raw_controls(out)
    assert "Lovelace" in out


@pytest.mark.parametrize("args", [
    ["render", "bad\x1b]0;T\x07.json", "--out", "{tmp}/e.png"],
    ["tune", "--from", "t\x1b]0;T\x07"],
    ["probes", "make", "--from", "p\x1b]0;T\x07", "--out", "{tmp}/pp"],
    ["probes", "grade", "g\x1b]0;T\x07", "{tmp}/x"],
])
def test_commands_with_their_own_error_lines_escape_paths(
        args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """render, tune and probes print their errors themselves: a path holding an escape
    sequence (here one setting the window title) is shown escaped, as elsewhere."""
    assert main([a.format(tmp=tmp_path) for a in args]) == 2
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and "\\x1b]0;T\\x07" in err


def _vizrag(*args: str, encoding: str) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "PYTHONIOENCODING": encoding}
    return subprocess.run([sys.executable, "-m", "hyperviz_core", *args], env=env,
                          capture_output=True, timeout=120, check=False)


def test_a_non_utf8_terminal_gets_escapes_not_a_crash(tmp_path: Path) -> None:
    """On a Latin-9 or ASCII terminal a name it cannot show is escaped: the index run that
    stored the document exits 0, the query's own "—" prints, and --json stays valid JSON."""
    folder = tmp_path / "pl"
    folder.mkdir()
    (folder / "a.txt").write_text("Tekst o Bern.\n", encoding="utf-8")
    (folder / "Łódź.pages").write_bytes(b"x")  # named in the "left out" listing
    store = str(tmp_path / "store")
    run = _vizrag("index", str(folder), "--store", store, "--no-progress",
                  encoding="iso8859-15")
    assert run.returncode == 0, run.stderr
    assert b"\\u0141" in run.stdout
    run = _vizrag("query", "Bern", "--store", store, "--top-k", "1", encoding="iso8859-15")
    assert run.returncode == 0, run.stderr
    assert "—".encode("iso8859-15", "backslashreplace") in run.stdout
    run = _vizrag("query", "Łódź Bern 😀", "--store", store, "--top-k", "1", "--json",
                  encoding="ascii")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout.decode("ascii"))["question"] == "Łódź Bern 😀"
