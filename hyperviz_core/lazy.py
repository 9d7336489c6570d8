"""Names a package exports but imports only on first use (PEP 562 module ``__getattr__``).

A package lists ``{name: relative module}`` and installs the pair of functions this module
makes; ``from package import name`` and ``package.name`` then import the module the first
time, and the value is cached in the package's namespace.

Example:
    >>> ns = {"__name__": "hyperviz_core"}
    >>> getattr_, dir_ = lazy_exports("hyperviz_core", {"Style": ".style"}, ns)
    >>> getattr_("Style").__name__, "Style" in ns, "Style" in dir_()
    ('Style', True, True)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(package: str, names: dict[str, str], namespace: dict[str, Any]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` whose ``names`` live in the given
    relative modules; ``namespace`` is the package's ``globals()``."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(names))

    return __getattr__, __dir__
