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


CLIENT = '''
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from hyperviz_core.rag import RetrievalResult, VizRAG


class Upper:  # sync-only models, as README's "Real models" writes them
    def complete(self, prompt: str, **kw: object) -> str:
        return prompt.upper()


class Ones:
    name = "ones"
    dim = 4

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        return np.full((len(texts), 4), 0.5, dtype=np.float32)


def run(rag: VizRAG, flag: bool) -> list[RetrievalResult]:
    mixed = rag.query_many(["a"], return_exceptions=flag)
    print(mixed, VizRAG("s", chat=Upper(), embedder=Ones()))
    return rag.query_many(["a"])
'''
WRONG = '''
import hyperviz_core
from hyperviz_core.rag import VizRAGG

x: int = hyperviz_core.Stlye
'''


def test_a_strict_client_type_checks_and_misspelt_names_do_not(tmp_path: Path) -> None:
    """The packages' lazy ``__getattr__`` is hidden from type checkers (it made any name
    ``Any``: ``from hyperviz_core.rag import VizRAGG`` passed ``mypy --strict``), and
    ``query_many(return_exceptions=flag)`` takes a plain ``bool``."""
    import os
    import subprocess
    import sys

    (tmp_path / "client.py").write_text(CLIENT, encoding="utf-8")
    (tmp_path / "wrong.py").write_text(WRONG, encoding="utf-8")
    env = {**os.environ, "MYPYPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--follow-imports=silent",
                           "--cache-dir", str(tmp_path / "cache"), "client.py", "wrong.py"],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert [e.split(":")[0] for e in errors] == ["wrong.py", "wrong.py"], done.stdout
    assert 'has no attribute "VizRAGG"' in errors[0] and '"Stlye"' in errors[1]


def test_llamaindex_index_methods_are_typed_as_llamaindex_types_them() -> None:
    """``as_query_engine`` / ``as_chat_engine`` / ``store`` returned ``Any``: a client's
    ``engine.query(...)`` went unchecked."""
    from llama_index.core.base.base_query_engine import BaseQueryEngine
    from llama_index.core.chat_engine.types import BaseChatEngine

    from hyperviz_core.rag import StoreProtocol
    from vizrag_llamaindex import VizRAGIndex

    hint = typing.get_type_hints
    assert hint(VizRAGIndex.as_query_engine)["return"] is BaseQueryEngine
    assert hint(VizRAGIndex.as_chat_engine)["return"] is BaseChatEngine
    assert hint(VizRAGIndex.store.fget)["return"] is StoreProtocol
