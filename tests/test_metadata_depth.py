"""Untrusted metadata nested hundreds of levels deep is one clear error, never a
``RecursionError`` traceback (a 1.5 KB JSON line once crashed ``vizrag index``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import json_safe_metadata
from hyperviz_core.rag.types import MAX_METADATA_DEPTH


def _nested(depth: int) -> object:
    value: list[object] = []
    for _ in range(depth - 1):
        value = [value]
    return value


def test_metadata_as_deep_as_allowed_is_kept() -> None:
    meta = json_safe_metadata({"x": _nested(MAX_METADATA_DEPTH)})
    assert json.dumps(meta) == '{"x": ' + "[" * MAX_METADATA_DEPTH + "]" * MAX_METADATA_DEPTH + "}"


@pytest.mark.parametrize("depth", [MAX_METADATA_DEPTH + 1, 600, 5000])
def test_deeper_metadata_is_a_value_error(depth: int) -> None:
    with pytest.raises(ValueError, match="nested more than 100 levels"):
        json_safe_metadata({"x": _nested(depth)})


def test_vizrag_index_says_it_in_one_line(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    line = {"id": "d", "text": "Marie Curie lived in Paris.", "metadata": {"x": _nested(600)}}
    (tmp_path / "d.jsonl").write_text(json.dumps(line) + "\n")
    assert main(["index", str(tmp_path / "d.jsonl"), "--store", str(tmp_path / "s"),
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "nested more than 100 levels deep" in err and "Traceback" not in err
