"""Open a working-dir file only when it is a regular file of bounded size.

A hostile working dir can hold anything under a Hyper-RAG file name: a symlink to
``/dev/zero`` (a read never ends and memory grows until the process dies), a FIFO (the open
blocks forever), a directory, a socket. :func:`open_regular` opens without blocking
(``O_NONBLOCK``: a FIFO's open returns at once), checks what the descriptor is after
following symlinks (``fstat``, ``S_ISREG``) and its size against a limit, and only then hands
out a blocking file object; :func:`read_regular` also reads no more than the limit (a file
growing while it is read is refused too). Errors are one-line
:class:`HyperRAGFormatError` messages naming the file and the limit.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "a.json"
    >>> _ = p.write_text("{}")
    >>> read_regular(p, MAX_JSON_BYTES, "JSON file")
    b'{}'
    >>> try:
    ...     read_regular(pathlib.Path("/dev/null"), MAX_JSON_BYTES, "JSON file")
    ... except HyperRAGFormatError as exc:
    ...     print(str(exc)[:59])
    /dev/null: is a character device, not a regular file (after
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import IO

__all__ = ["MAX_HGDB_BYTES", "MAX_JSON_BYTES", "HyperRAGFormatError", "open_hgdb",
           "open_json", "open_regular", "read_hgdb_bytes", "read_json_bytes", "read_regular",
           "size_text"]


class HyperRAGFormatError(ValueError):
    """A Hyper-RAG working-dir file is missing, malformed, foreign or unsafe (defined here,
    the lowest module that raises it; re-exported by :mod:`.hyperrag_pickle`)."""

#: the largest JSON file of a working dir read (kv_store_*.json, vdb_*.json): the 20x
#: benchmark dir's largest is 6 MB at 64-d vectors, so 1 GiB leaves room for 1,536-d ones
#: of a corpus well beyond the documented scale; each is read whole (and parsed) in memory
MAX_JSON_BYTES = 1 << 30
#: the largest ``.hgdb`` pickle read (the 20x benchmark dir's is 6.7 MB)
MAX_HGDB_BYTES = 1 << 30

_JSON, _HGDB = "JSON file", ".hgdb file"
_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
          (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
          (stat.S_ISSOCK, "a socket"))


def size_text(n: int) -> str:
    """``1073741824`` → ``'1 GiB'`` (whole MiB or GiB when exact, else bytes)."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift:,} {unit}"
    return f"{n:,} bytes"


def _check(p: Path, st: os.stat_result, limit: int, kind: str) -> None:
    if not stat.S_ISREG(st.st_mode):
        what = next((name for test, name in _KINDS if test(st.st_mode)), "not a plain file")
        raise HyperRAGFormatError(f"{p}: is {what}, not a regular file (after following "
                                  f"symlinks); expected a {kind}")
    if st.st_size > limit:
        raise HyperRAGFormatError(_too_large(p, f"{st.st_size:,} bytes", limit, kind))


#: the module constant that bounds each kind of file (named in the error)
_LIMIT_NAMES = {_JSON: "MAX_JSON_BYTES", _HGDB: "MAX_HGDB_BYTES"}


def _too_large(p: Path, size: str, limit: int, kind: str) -> str:
    name = _LIMIT_NAMES.get(kind)
    return (f"{p}: {size}, more than the {size_text(limit)} limit for a Hyper-RAG {kind}"
            + (f" (hyperrag_files.{name})" if name else ""))


def open_regular(path: str | Path, limit: int, kind: str) -> tuple[IO[bytes], int]:
    """``(binary file object, size)`` of ``path`` if it is a regular file (symlinks
    followed) of at most ``limit`` bytes; :class:`HyperRAGFormatError` otherwise (missing,
    a directory, FIFO, device or socket, or too large). Never blocks on a FIFO."""
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise HyperRAGFormatError(f"{p}: missing (not a Hyper-RAG working dir?)") from None
    try:
        st = os.fstat(fd)
        _check(p, st, limit, kind)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb"), st.st_size
    except BaseException:
        os.close(fd)
        raise


#: what a file that grew after its size check is read in, at a time (until the limit)
_GROWTH_STEP = 1 << 20


def _read_sized(fh: IO[bytes], size: int, limit: int) -> bytes:
    """At most ``limit + 1`` bytes of ``fh``, allocating for its checked ``size``: a read
    of ``n`` bytes allocates ``n`` up front, so reading ``limit + 1`` at once would cost
    the whole limit (1 GiB) for every small file. A file that grew past ``size`` is read
    on in steps, never past ``limit + 1``."""
    data = fh.read(size + 1)  # + 1: a byte more means the file grew
    if len(data) <= size:
        return data
    parts = [data]
    total = len(data)
    while total <= limit:
        more = fh.read(min(_GROWTH_STEP, limit + 1 - total))
        if not more:
            break
        parts.append(more)
        total += len(more)
    return b"".join(parts)


def read_regular(path: str | Path, limit: int, kind: str) -> bytes:
    """The bytes of a regular file of at most ``limit`` bytes (see :func:`open_regular`);
    running out of memory while reading it is a one-line error naming the file too."""
    fh, size = open_regular(path, limit, kind)
    try:
        with fh:
            data = _read_sized(fh, size, limit)
    except MemoryError:
        raise HyperRAGFormatError(
            f"{path}: out of memory reading its {size:,} bytes (a Hyper-RAG {kind} is "
            "read whole; free memory or raise the process's memory limit)") from None
    if len(data) > limit:  # it grew after the check
        raise HyperRAGFormatError(_too_large(Path(path), "growing", limit, kind))
    return data


def read_json_bytes(path: str | Path) -> bytes:
    """A working dir's JSON file, at most :data:`MAX_JSON_BYTES`."""
    return read_regular(path, MAX_JSON_BYTES, _JSON)


def open_json(path: str | Path) -> IO[bytes]:
    """A working dir's JSON file opened for reading (checked as :func:`read_json_bytes`)."""
    return open_regular(path, MAX_JSON_BYTES, _JSON)[0]


def read_hgdb_bytes(path: str | Path) -> bytes:
    """A ``.hgdb`` pickle's bytes, at most :data:`MAX_HGDB_BYTES`."""
    return read_regular(path, MAX_HGDB_BYTES, _HGDB)


def open_hgdb(path: str | Path) -> tuple[IO[bytes], int]:
    """A ``.hgdb`` pickle opened for reading, and its size (at most :data:`MAX_HGDB_BYTES`)."""
    return open_regular(path, MAX_HGDB_BYTES, _HGDB)
