"""``bm25s``, imported lazily and without its logging turned up.

``bm25s`` sets its own logger to ``DEBUG`` when imported, so an application that configures
logging at ``INFO`` (``logging.basicConfig(level=logging.INFO)``) printed "Building index
from IDs objects" on every index build. :func:`bm25s` puts the logger back to ``NOTSET`` (it
follows the application's configuration) once; a level set later by the application stays.

Example:
    >>> import logging
    >>> module = bm25s()
    >>> logging.getLogger("bm25s").level == logging.NOTSET or module is None
    True
"""

from __future__ import annotations

import logging
from types import ModuleType

__all__ = ["bm25s"]

_reset = False


def bm25s() -> ModuleType:
    """The ``bm25s`` module, its logger following the application's logging setup."""
    global _reset
    import bm25s as module

    if not _reset:
        logger = logging.getLogger("bm25s")
        if logger.level == logging.DEBUG:  # what bm25s set on import, not the application
            logger.setLevel(logging.NOTSET)
        _reset = True
    return module
