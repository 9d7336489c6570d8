"""Files replaced whole: written to a temporary file beside the target, then renamed.

A reader (or a later run) sees the old file or the new one, never a part; a failure while
writing leaves the old file as it was.

Example:
    >>> import pathlib, tempfile
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "out" / "a.bin"
    >>> atomic_write_bytes(p, b"one") == p, p.read_bytes()
    (True, b'one')
"""

from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path

__all__ = ["atomic_write_bytes"]


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    :func:`os.replace`; parents are created. The previous file survives any failure."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    # O_EXCL: never another file; mode 0o666 minus the umask, as a plain write would give
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return p
