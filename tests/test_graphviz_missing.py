"""Without the Graphviz binaries a render says what to install (``GraphvizMissing``, a
``graphviz.ExecutableNotFound``), and the demo says it before indexing anything."""

from __future__ import annotations

from pathlib import Path

import graphviz
import pytest

from hyperviz_core.demo import run_demo
from hyperviz_core.layouts import gvrun


def test_a_layout_without_dot_names_the_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "")
    with pytest.raises(graphviz.ExecutableNotFound) as err:
        gvrun.run_layout("graph { a -- b }", "dot")
    assert isinstance(err.value, gvrun.GraphvizMissing)
    assert "apt-get install graphviz" in str(err.value)


def test_the_demo_says_it_before_indexing(tmp_path: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gvrun.shutil, "which", lambda name: None)
    said: list[str] = []
    with pytest.raises(gvrun.GraphvizMissing):
        run_demo(tmp_path / "out", say=said.append)
    assert said == [] and not (tmp_path / "out" / "store").exists()
