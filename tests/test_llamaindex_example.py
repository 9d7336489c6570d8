"""examples/llamaindex_quickstart.py runs offline and shows the image reaching the model."""

from __future__ import annotations

from pathlib import Path

import pytest
from bench_import import example_module

pytest.importorskip("llama_index.core")


def test_quickstart_offline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    module = example_module("llamaindex_quickstart")
    assert module.main(["--out", str(tmp_path), "--limit", "50"]) == 0  # holds the answer
    out = capsys.readouterr().out
    assert "indexed: 50 documents" in out
    assert (tmp_path / "hypergraph.png").read_bytes().startswith(b"\x89PNG")
    assert "image: " in out and "PNG bytes, detail=high" in out
    assert "text: <<<CAPTION" in out
    assert "reloaded VizRAGIndex" in out and "50 documents" in out.splitlines()[-1]


def test_a_real_model_switch_without_its_key_fails_before_indexing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    module = example_module("llamaindex_quickstart")
    with pytest.raises(SystemExit) as stop:
        module.main(["--llm", "openai", "--out", str(tmp_path)])
    out = capsys.readouterr()
    assert stop.value.code == 2 and "indexed" not in out.out
    assert "--llm openai needs" in out.err
