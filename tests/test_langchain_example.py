"""``examples/langchain_lcel.py`` runs offline and sends the rendering to the (fake) model."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_import import example_module
from rag_fakes import PNG_MAGIC


def test_example_runs_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = example_module("langchain_lcel")
    assert module.main(["--out", str(tmp_path), "--k", "2"]) == 0
    text = capsys.readouterr().out
    assert module.FAKE_ANSWER in text and "[2] " in text and "[3] " not in text
    assert "image_url block" in text and "vizrag.render.end" in text
    assert (tmp_path / "image.png").read_bytes().startswith(PNG_MAGIC)


def test_a_real_model_switch_without_its_key_fails_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    module = example_module("langchain_lcel")
    with pytest.raises(SystemExit) as stop:
        module.main(["--llm", "openai"])
    assert stop.value.code == 2
    assert "--llm openai needs OPENAI_API_KEY" in capsys.readouterr().err
