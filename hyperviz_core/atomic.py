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
import re
import secrets
import stat
import sys
from pathlib import Path

__all__ = ["atomic_write_bytes", "atomic_write_pair"]


def _target(path: str | Path) -> Path:
    """The file ``path`` writes (a symbolic link followed); a folder is an error. A path
    that leads to no regular file (``/dev/stdout``, a FIFO) is kept as given: opened, the
    kernel follows its links, while a resolved ``/dev/stdout`` of a pipe or terminal names
    no file (``/proc/self/fd/1`` → ``pipe:[...]``)."""
    with contextlib.suppress(OSError):
        mode = os.stat(path).st_mode
        if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
            return Path(path)
    p = Path(os.path.realpath(path)) if Path(path).is_symlink() else Path(path)
    if p.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, not a file", str(path))
    return p


def _temp_beside(p: Path, data: bytes, path: str | Path) -> Path:
    """``data`` in a new temporary file beside ``p`` (parents created); an error names
    ``path``, the user's, not the temporary file."""
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(f".{p.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    try:  # O_EXCL: never another file; mode 0o666 minus the umask, as a plain write gives
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except OSError as exc:  # e.g. a folder we may not write in
        raise type(exc)(exc.errno, exc.strerror, str(path)) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
    except BaseException as exc:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:  # a full disk names no file
            raise type(exc)(exc.errno, exc.strerror, str(path)) from None
        raise
    return tmp


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and
    :func:`os.replace`; parents are created. The previous file survives any failure.

    A symbolic link is followed (its target is replaced, the link kept); a path that exists
    and is no regular file (a FIFO, ``/dev/stdout``, ``/dev/null``) is written through as it
    is, never replaced. An error names ``path``, not the temporary file.
    """
    fd = _descriptor(path)
    if fd is not None:  # /dev/stdout & co.: written to the open descriptor, whatever it is
        for stream in (sys.stdout, sys.stderr):  # what Python printed before comes first
            with contextlib.suppress(Exception):
                stream.flush()
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view):]
        return Path(path)
    p = _target(path)
    if p.exists() and not p.is_file():
        with p.open("wb") as fh:  # a FIFO or a device: the reader gets the bytes
            fh.write(data)
        return p
    _replace([(_temp_beside(p, data, path), p)])
    return p


_FD_PATH = re.compile(r"^/(?:proc/self|dev)/fd/(\d+)$")


def _descriptor(path: str | Path) -> int | None:
    """The open file descriptor ``path`` names (``/dev/stdout`` → ``/proc/self/fd/1``,
    ``/dev/fd/N``), else None. Written through the descriptor, a redirected stdout keeps
    its offset and append mode (``>>``): reopening it would truncate the file, replacing it
    would detach it from the shell's redirection."""
    p = str(path)
    for _ in range(8):  # the links of /dev/stdout; a loop is no descriptor
        m = _FD_PATH.match(p)
        if m:
            return int(m.group(1))
        try:
            link = os.readlink(p)
        except OSError:
            return None
        p = os.path.join(os.path.dirname(p), link)
    return None


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
    targets = [_target(path) for path, _ in (first, second)]  # what would fail a rename
    for p, (path, _) in zip(targets, (first, second), strict=True):
        if p.exists() and not p.is_file():
            raise OSError(errno.EINVAL, "is not a regular file (a pair is written whole)",
                          str(path))
    temps: list[tuple[Path, Path]] = []
    try:
        for p, (path, data) in zip(targets, (first, second), strict=True):
            temps.append((_temp_beside(p, data, path), p))
    except BaseException:
        _discard(temps)
        raise
    _replace(temps)


def _replace(temps: list[tuple[Path, Path]]) -> None:
    """Rename each temporary file over its target; on a failure the rest are removed."""
    try:
        for tmp, p in temps:
            os.replace(tmp, p)
    except BaseException:
        _discard(temps)
        raise


def _discard(temps: list[tuple[Path, Path]]) -> None:
    for tmp, _ in temps:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
