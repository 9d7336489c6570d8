"""The caller's line for a warning: the ``stacklevel`` of the first frame outside VizRAG.

A warning about the caller's input or use (a repeated document id, a close that left
queries running) names the caller's own line, however many frames of this package or of a
framework wrapper (``vizrag_langchain``, ``vizrag_llamaindex``) lie between: a LangChain
retriever's ``close()`` calls ``VizRAG.close()``, which warns.

Example::

    warnings.warn("queries were still running", RuntimeWarning, stacklevel=caller_level())
"""

from __future__ import annotations

import sys
from types import FrameType

__all__ = ["caller_level"]

#: modules whose frames a warning skips to name the caller's line: this package, the
#: framework wrappers beside it, and the event-loop machinery an insert runs its coroutine
#: through (by module name: a path may reach them through a symbolic link)
_SKIP = ("hyperviz_core", "vizrag_langchain", "vizrag_llamaindex", "asyncio",
         "concurrent", "threading")


def caller_level() -> int:
    """The ``stacklevel`` of the first frame outside :data:`_SKIP` (the user's
    line; 2 when this thread's stack holds none: a worker thread's)."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None:
        if str(frame.f_globals.get("__name__", "")).split(".")[0] not in _SKIP:
            return level
        frame, level = frame.f_back, level + 1
    return 2
