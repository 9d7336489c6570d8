"""The optional extras of the ``vizrag`` distribution: import a module that an extra
provides, or fail with an error that names the extra to install.

Example:
    >>> require_extra("json", extra="none", who="this example").__name__
    'json'
    >>> require_extra("no_such_module_xyz", extra="demo", who="this example")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ModuleNotFoundError: this example needs the 'demo' extra: pip install 'vizrag[demo]' (...)
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["require_extra"]


def require_extra(module: str, *, extra: str, who: str) -> ModuleType:
    """``module``, imported; when it is missing, a :class:`ModuleNotFoundError` (its
    ``name`` the missing module's) saying that ``who`` needs ``pip install 'vizrag[extra]'``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"{who} needs the {extra!r} extra: pip install 'vizrag[{extra}]' ({exc})",
            name=exc.name) from exc
