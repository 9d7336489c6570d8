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
import errno
import os
import secrets
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_pair"]


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    :func:`os.replace`; parents are created. The previous file survives any failure.

    A symbolic link is followed (its target is replaced, the link kept); a path that exists
    and is no regular file (a FIFO, ``/dev/stdout``, ``/dev/null``) is written through as it
    is, never replaced. An error names ``path``, not the temporary file.
    """
    p = Path(path)
    if p.is_symlink():
        p = Path(os.path.realpath(p))
    if p.exists() and not p.is_file():
        if p.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", str(path))
        with p.open("wb") as fh:  # a FIFO or a device: the reader gets the bytes
            fh.write(data)
        return p
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:  # O_EXCL: never another file; mode 0o666 minus the umask, as a plain write gives
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:  # e.g. a folder we may not write in: name the user's path
        raise type(exc)(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, p)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return p


def atomic_write_pair(first: tuple[str | Path, bytes], second: tuple[str | Path, bytes]
                      ) -> None:
    """Write two regular files as a pair: both targets are checked (no folder, FIFO or
    device in the way; a symbolic link is followed) and both temporary files written before
    either target is replaced, so a failure (a full disk, a folder we may not write in, a
    folder where a file goes) leaves both earlier files as they were; errors name the
    user's path.

    >>> import pathlib, tempfile
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> atomic_write_pair((d / "a.png", b"1"), (d / "a.json", b"2"))
    >>> (d / "a.png").read_bytes(), (d / "a.json").read_bytes()
    (b'1', b'2')
    """
    for path, _ in (first, second):  # what would fail the second rename fails first
        p = Path(os.path.realpath(path))
        if p.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", str(path))
        if p.exists() and not p.is_file():
            raise OSError(errno.EINVAL, "is not a regular file (a pair is written whole)",
                          str(path))
    temps: list[tuple[Path, Path]] = []
    try:
        for path, data in (first, second):
            p = Path(os.path.realpath(path))
            p.parent.mkdir(parents=True, exist_ok=True)
            tmp = p.with_name(f".{p.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
            try:
                fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
            except OSError as exc:
                raise type(exc)(exc.errno, exc.strerror, str(path)) from None
            temps.append((tmp, p))
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
        for tmp, p in temps:
            os.replace(tmp, p)
    except BaseException:
        for tmp, _ in temps:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise
