"""The ``vizrag`` console script: --version and info."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from hyperviz_core import __version__
from hyperviz_core.cli import main


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["--version"])
    assert exc.value.code == 0
    assert capsys.readouterr().out.strip() == f"vizrag {__version__}"


def test_info_json_reports_graphviz_and_libraries(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["vizrag"] == __version__
    assert info["graphviz_binaries"]  # the renderer needs the dot binaries
    assert info["libraries"]["networkx"] and info["libraries"]["pydantic"].startswith("2.")
    assert "tesseract_binary" in info  # the OCR program: a version, or None (optional)


def test_info_names_the_ocr_program_or_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.cli import info

    real = info.shutil.which
    monkeypatch.setattr(info.shutil, "which",
                        lambda name: None if name == "tesseract" else real(name))
    assert main(["info"]) == 0  # optional: the exit status stays 0
    assert ("Tesseract (OCR): not installed (optional, reads scanned PDF pages: apt-get "
            "install tesseract-ocr)") in capsys.readouterr().out
    if real("tesseract"):
        monkeypatch.undo()
        assert re.search(r"Tesseract \(OCR\): \d+\.\d+", (main(["info"]),
                                                         capsys.readouterr().out)[1])


def test_console_entry_point_runs_as_module() -> None:
    proc = subprocess.run([sys.executable, "-m", "hyperviz_core", "info"], capture_output=True,
                          text=True, check=False, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "Graphviz binaries:" in proc.stdout


@pytest.mark.parametrize("json_flag", [[], ["--json"]])
def test_info_exits_1_without_graphviz_with_or_without_json(
        json_flag: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """A container's health check (``vizrag info --json``) fails when ``dot`` is missing."""
    from hyperviz_core.cli import info

    monkeypatch.setattr(info.shutil, "which", lambda name: None)
    assert main(["info", *json_flag]) == 1
    out = capsys.readouterr().out
    assert ("MISSING" in out) if not json_flag else json.loads(out)["graphviz_binaries"] is None


def test_info_names_every_extras_distribution(capsys: pytest.CaptureFixture[str]) -> None:
    """A wheel user checks an extra (postgres, ann, local ...) with ``vizrag info``."""
    import re
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    extras = project["project"]["optional-dependencies"]
    wanted = {re.match(r"[A-Za-z0-9_.-]+", spec).group(0).lower()  # type: ignore[union-attr]
              for name, specs in extras.items() if name not in ("dev", "all", "test")
              for spec in specs if not spec.startswith("vizrag")}
    assert main(["info", "--json"]) == 0
    listed = set(json.loads(capsys.readouterr().out)["libraries"])
    assert wanted - listed == set()
