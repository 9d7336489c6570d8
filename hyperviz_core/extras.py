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

Scripts call :func:`exit_without_extra` before their imports instead: one line on stderr and
exit status 2, not a traceback.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

__all__ = ["exit_without_extra", "require_extra"]


def require_extra(module: str, *, extra: str, who: str) -> ModuleType:
    """``module``, imported; when it is missing, a :class:`ModuleNotFoundError` (its
    ``name`` the missing module's) saying that ``who`` needs ``pip install 'vizrag[extra]'``."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"{who} needs the {extra!r} extra: pip install 'vizrag[{extra}]' ({exc})",
            name=exc.name) from exc


def exit_without_extra(module: str, *, extra: str, who: str) -> None:
    """For scripts: when ``module`` cannot be imported, print :func:`require_extra`'s
    message as one line on stderr and exit with status 2.

    >>> exit_without_extra("json", extra="none", who="this example")  # present: nothing
    """
    try:
        require_extra(module, extra=extra, who=who)
    except ModuleNotFoundError as exc:
        print(str(exc), file=sys.stderr)
        raise SystemExit(2) from None
