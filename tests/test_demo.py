"""The README's main job: ``examples/demo.py`` runs offline and writes PNG + HTML views."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

DEMO = Path(__file__).resolve().parents[1] / "examples" / "demo.py"


def test_demo_writes_dual_views_for_each_question(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    spec = importlib.util.spec_from_file_location("vizrag_demo", DEMO)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert module.main(["--out", str(tmp_path)]) == 0
    text = capsys.readouterr().out
    assert "Indexed 60 passages" in text and "Extractive summary" in text
    summary = json.loads((tmp_path / "summary.json").read_text(encoding="utf-8"))
    assert len(summary) == 3
    golds = [{"Kim Jong-chul", "Kim Jong-il"}, {"Maiden Japan", "Iron Maiden"},
             {"Karel Purkyně", "Prague astronomical clock"}]
    for item, gold in zip(summary, golds, strict=True):
        folder = Path(item["folder"])
        for name in ("top", "bottom"):
            png = (folder / f"{name}.png").read_bytes()
            assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
            html = (folder / f"{name}.html").read_text(encoding="utf-8")
            assert "<html" in html.lower() and "data:image/png;base64," in html
        result = json.loads((folder / "result.json").read_text(encoding="utf-8"))
        assert result["mode"] == "vizrag" and result["answer_kind"] == "extractive"
        assert gold <= set(item["top_passages"]), item


def test_demo_replaces_its_files_whole(tmp_path: Path) -> None:
    """A second demo run into the same folder replaces each file by a rename: a reader of
    the first run's file (a hard link here) keeps its bytes."""
    from hyperviz_core.demo import run_demo

    summary = run_demo(tmp_path, say=lambda _line: None)
    folder = Path(summary[0]["folder"])
    files = [tmp_path / "summary.json", folder / "result.json", folder / "top.png",
             folder / "bottom.json", folder / "bottom.html"]
    links = []
    for n, path in enumerate(files):
        link = tmp_path / f"held-{n}"
        link.hardlink_to(path)
        links.append(link)
    run_demo(tmp_path, say=lambda _line: None)
    for path, link in zip(files, links, strict=True):
        assert path.exists() and path.stat().st_ino != link.stat().st_ino, path
