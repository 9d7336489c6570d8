"""Every docstring example in ``vizrag_llamaindex`` runs and is right."""

from __future__ import annotations

import doctest
import importlib

import pytest

pytest.importorskip("llama_index.core")

MODULES = ["vizrag_llamaindex.captions", "vizrag_llamaindex.documents",
           "vizrag_llamaindex.index", "vizrag_llamaindex.index_struct",
           "vizrag_llamaindex.instrumentation",
           "vizrag_llamaindex.nodes", "vizrag_llamaindex.options",
           "vizrag_llamaindex.postprocessor", "vizrag_llamaindex.response_usage",
           "vizrag_llamaindex.retriever", "vizrag_llamaindex.writes"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"no examples in {name}"
    assert result.failed == 0, f"{result.failed} doctest failures in {name}"
