"""The public API type-checks in users' code without the pydantic mypy plugin."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

import pytest

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.index.report import IndexReport

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("hyperviz_core", "vizrag_llamaindex", "vizrag_langchain")


def _positional_field_defaults(package: str) -> list[str]:
    found = []
    for path in sorted((ROOT / package).rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            func = getattr(node, "func", None)
            name = getattr(func, "id", None) or getattr(func, "attr", None)
            if isinstance(node, ast.Call) and name == "Field" and node.args:
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


@pytest.mark.parametrize("package", PACKAGES)
def test_field_defaults_are_keywords(package: str) -> None:
    """``Field(1.0, ge=0)`` hides the default from type checkers (PEP 681 reads only
    ``default=``): mypy --strict and Pyright then call every ``RankWeights(bm25=1.0)``
    a missing-argument error. ``Field(default=1.0, ge=0)`` is the same to pydantic."""
    assert _positional_field_defaults(package) == []


def test_engine_methods_return_their_documented_types() -> None:
    hints = {name: typing.get_type_hints(getattr(VizRAG, name))["return"]
             for name in ("insert", "ainsert", "delete", "delete_many")}
    assert hints == {"insert": IndexReport, "ainsert": IndexReport,
                     "delete": dict[str, int], "delete_many": dict[str, int]}
