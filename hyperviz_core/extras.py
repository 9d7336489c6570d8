"""The optional extras of the ``vizrag`` distribution: import a module that an extra
provides, or fail with an error that names the extra to install.

Example:
    >>> require_extra("json", extra="none", who="this example").__name__
    'json'
    >>> require_extra("no_such_module_xyz", extra="demo", who="this example")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ModuleNotFoundError: this example needs the 'demo' extra: pip install 'vizrag[demo]' ...

Scripts call :func:`exit_without_extra` before their imports instead: one line on stderr and
exit status 2, not a traceback.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType

__all__ = ["exit_without_extra", "install_hint", "require_extra"]


def install_hint(extra: str) -> str:
    """The command that installs the optional ``extra``, from an index or from a checkout of
    the repository (where the package is not on the index a plain ``pip install`` reads).

    >>> install_hint("local")
    "pip install 'vizrag[local]' (from a checkout: pip install -e '.[local]')"
    """
    return f"pip install 'vizrag[{extra}]' (from a checkout: pip install -e '.[{extra}]')"


def require_extra(module: str, *, extra: str, who: str) -> ModuleType:
    """``module``, imported; when it is missing, a :class:`ModuleNotFoundError` (its
    ``name`` the missing module's) saying that ``who`` needs :func:`install_hint`."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise ModuleNotFoundError(
            f"{who} needs the {extra!r} extra: {install_hint(extra)}; {exc}",
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
