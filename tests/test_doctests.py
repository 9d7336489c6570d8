"""Every docstring example in ``hyperviz_core`` runs and is right."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import hyperviz_core

MODULES = sorted(
    m.name for m in pkgutil.walk_packages(hyperviz_core.__path__, "hyperviz_core.")
    if m.name != "hyperviz_core.__main__"
)


@pytest.mark.parametrize("name", ["hyperviz_core", *MODULES])
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} doctest failures in {name}"
