"""Drawing under matplotlib's default settings, whatever the host process configured.

matplotlib reads global settings (``rcParams``) when artists are made and drawn: a
``matplotlibrc`` in the working directory or ``MPLCONFIGDIR``, ``plt.style.use(...)``,
``plt.xkcd()`` (``path.sketch``) or ``patch.antialiased=False`` in the host application
would change our pictures. Every drawing runs inside :func:`default_rc`: the default style
(``matplotlib.style.context("default")``: rcParamsDefault, less the keys a style never
sets, such as the backend), restored afterwards, so the same input gives the same bytes and
the host's settings are left as they were. ``rcParams`` are process-wide, so one lock keeps
two threads from restoring each other's settings mid-drawing.

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
import matplotlib.style

__all__ = ["default_rc"]

_LOCK = threading.RLock()


@contextmanager
def default_rc(pinned: Mapping[str, Any] | None = None) -> Iterator[None]:
    """matplotlib's default settings, plus ``pinned`` ones, for the ``with`` block."""
    settings: Any = dict(pinned or {})  # (matplotlib types its keys as a Literal)
    with _LOCK, matplotlib.style.context("default"), matplotlib.rc_context(settings):
        yield
