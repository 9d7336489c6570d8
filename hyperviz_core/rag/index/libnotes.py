"""What a reading library logs about a file's internals, said once, naming the file.

pypdf logs what it repairs or cannot decode while it reads a file (``Advanced encoding
/X not implemented yet, using [...]``, at ERROR level though the text is read): with no
logging set up, Python's last-resort handler printed each such message on stderr, without
the file's name and at times some kilobytes long. :func:`said_once` holds them while a
file is read and logs one warning instead, on this module's logger: the file, the first
message (cut to :data:`SHOWN` characters) and how many more there were. Only the records
of the thread reading the file are held; those another thread logs meanwhile, but for one
reading a file too, are dropped, as records below the level are.

Example:
    >>> import logging, pathlib, sys
    >>> notes = logging.getLogger("hyperviz_core.rag.index.libnotes")
    >>> notes.addHandler(logging.StreamHandler(sys.stdout))
    >>> with said_once(pathlib.Path("a.pdf"), "example.reader", shown="reader"):
    ...     logging.getLogger("example.reader.cmap").error("Advanced encoding %s", "/X")
    ...     logging.getLogger("example.reader").error("Ignoring a wrong offset")
    a.pdf: reader: Advanced encoding /X (and 1 more)
    >>> notes.handlers.clear()
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from pathlib import Path

from .guards import printable

__all__ = ["SHOWN", "said_once"]

#: the most characters of a library's message shown
SHOWN = 160
_log = logging.getLogger(__name__)


class _Held(logging.Handler):
    """The messages one thread's records carry."""

    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.thread = threading.get_ident()
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        if record.thread == self.thread:
            with contextlib.suppress(Exception):  # a library's bad format string
                self.messages.append(" ".join(record.getMessage().split()))


#: library → (blocks open now, the logger's level and propagation before the first)
_open: dict[str, tuple[int, int, bool]] = {}
_lock = threading.Lock()


@contextlib.contextmanager
def said_once(path: Path, library: str, *, shown: str | None = None,
              level: int = logging.ERROR) -> Iterator[None]:
    """While the block reads ``path``, the logger ``library`` (and those under it) says
    nothing; then its records of ``level`` or more from this thread are logged as one
    warning naming the file and ``shown`` (the library: its logger's name unless given),
    with the first message. Blocks
    may overlap in threads (two files read at once): the logger is as it was once the last
    one ends."""
    logger = logging.getLogger(library)
    held = _Held(level)
    with _lock:
        count, before, propagate = _open.get(library, (0, logger.level, logger.propagate))
        if not count:
            logger.setLevel(max(before, level))
            logger.propagate = False
        _open[library] = (count + 1, before, propagate)
        logger.addHandler(held)
    try:
        yield
    finally:
        with _lock:
            logger.removeHandler(held)
            count, before, propagate = _open.pop(library)
            if count > 1:
                _open[library] = (count - 1, before, propagate)
            else:
                logger.setLevel(before)
                logger.propagate = propagate
        if held.messages:
            first = held.messages[0]
            cut = first if len(first) <= SHOWN else first[:SHOWN - 1] + "…"
            more = f" (and {len(held.messages) - 1} more)" if len(held.messages) > 1 else ""
            _log.warning("%s", f"{printable(str(path))}: {shown or library}: "
                               f"{printable(cut)}{more}")
