"""Drawing under matplotlib's default settings, whatever the host process configured.

matplotlib reads global settings (``rcParams``) when artists are made and drawn: a
``matplotlibrc`` in the working directory or ``MPLCONFIGDIR``, ``plt.style.use(...)``,
``plt.xkcd()`` (``path.sketch``) or ``patch.antialiased=False`` in the host application
would change our pictures. Every drawing runs inside :func:`default_rc`. When the host's
settings are matplotlib's defaults (the common case) it changes nothing: no global state is
touched and nothing is locked. When some differ, those (and only those) are set to their
defaults for the drawing and restored afterwards, under one lock, so the same input gives
the same bytes. ``rcParams`` are process-wide: while such a drawing runs (about 0.1 s),
another thread of the host reading matplotlib settings sees the defaults, and one changing
them has the change undone at the end; a host that customises matplotlib and plots in other
threads while VizRAG renders should render under a lock of its own.

Example:
    >>> import matplotlib
    >>> with matplotlib.rc_context({"patch.antialiased": False}):
    ...     with default_rc():
    ...         inside = matplotlib.rcParams["patch.antialiased"]
    ...     after = matplotlib.rcParams["patch.antialiased"]
    >>> inside, after
    (True, False)
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import matplotlib

__all__ = ["default_rc"]

_LOCK = threading.RLock()
#: settings that do not change a drawing (the backend, interactive mode, other formats ...):
#: never touched
_NOT_DRAWING = ("backend", "interactive", "toolbar", "timezone", "tk.", "webagg.",
                "figure.raise_window", "figure.hooks", "figure.max_open_warning",
                "docstring.", "savefig.directory",
                "date.", "keymap.", "macosx.", "pgf.", "ps.", "pdf.", "animation.")
_DEFAULTS = {k: v for k, v in matplotlib.rcParamsDefault.items()
             if not k.startswith(_NOT_DRAWING)}


@contextmanager
def default_rc(pinned: Mapping[str, Any] | None = None) -> Iterator[None]:
    """matplotlib's default settings, plus ``pinned`` ones, for the ``with`` block (only
    the settings that differ are changed; none changed, nothing is locked)."""
    current: Any = matplotlib.rcParams  # (typed with a Literal of its keys)
    settings: Any = {k: v for k, v in _DEFAULTS.items() if _differs(current.get(k), v)}
    settings.update({k: v for k, v in (pinned or {}).items() if _differs(current.get(k), v)})
    if not settings:
        yield
        return
    with _LOCK, matplotlib.rc_context(settings):
        yield


def _differs(a: Any, b: Any) -> bool:
    try:
        return bool(a != b)
    except (TypeError, ValueError):  # an array-like value compared element-wise
        return True
