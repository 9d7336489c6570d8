"""Every docstring example in ``vizrag_langchain`` runs and is right."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import vizrag_langchain

MODULES = sorted(m.name for m in pkgutil.walk_packages(vizrag_langchain.__path__,
                                                        "vizrag_langchain."))


@pytest.mark.parametrize("name", ["vizrag_langchain", *MODULES])
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest failures in {name}"
