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
import re
import sys
from importlib import metadata
from types import ModuleType

__all__ = ["exit_without_extra", "install_hint", "require_extra", "require_version"]


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


def _release(version: str) -> tuple[int, ...]:
    """The leading release numbers of a version string (``"0.14.24.post1"`` → (0, 14, 24))."""
    m = re.match(r"\d+(?:\.\d+)*", version)
    return tuple(int(p) for p in m.group(0).split(".")) if m else ()


def require_version(dist: str, minimum: str, *, extra: str, who: str, why: str,
                    installed: str | None = None) -> None:
    """Raise :class:`ImportError` when the installed ``dist`` is older than ``minimum``
    (pip keeps an older one where it was pinned, or installed with ``--no-deps``); ``why``
    says what would go wrong with it. ``installed`` overrides the installed version.

    >>> require_version("demo-dist", "1.2", extra="demo", who="this example",
    ...                 why="it lacks X", installed="1.1.9")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ImportError: this example needs demo-dist >= 1.2, and 1.1.9 is installed (it lacks X): ...
    """
    if installed is None:
        try:
            installed = metadata.version(dist)
        except metadata.PackageNotFoundError:
            return  # not installed as a distribution (a source tree): nothing to check
    if _release(installed) < _release(minimum):
        raise ImportError(f"{who} needs {dist} >= {minimum}, and {installed} is installed "
                          f"({why}): {install_hint(extra)} --upgrade")
