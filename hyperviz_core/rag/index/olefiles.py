"""Office 97-2003 files (``.doc``, ``.ppt``): the compound file (OLE) they are stored in,
opened with the ``doc`` or ``ppt`` extra (`olefile <https://pypi.org/project/olefile/>`_).

:func:`opened_ole` opens one for :mod:`.docfiles` and :mod:`.pptfiles`: a file that is no
compound file is a :class:`~.errors.LoaderError` naming the file, and so is any failure of
olefile or of the reader on its (untrusted) bytes. :func:`ole_title` reads the title the
file's summary information holds, :func:`stream` a stream whole.
"""

from __future__ import annotations

import importlib
import importlib.util
import struct
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .errors import LoaderError
from .guards import printable
from .suffixes import reader_module
from .textfiles import foreign_file

__all__ = ["OLE_MAGIC", "locked_package", "ole_title", "opened_ole", "password_error",
           "shown_lines", "stream", "summary_title"]

#: the stream of an Office 2007+ file saved with a password: its package, encrypted
_LOCKED = "EncryptedPackage"
#: the summary information stream, its code page and title properties and their types
_SUMMARY = "\x05SummaryInformation"
_CODE_PAGE, _TITLE = 1, 2
_VT_I2, _VT_LPSTR, _VT_LPWSTR = 2, 0x1E, 0x1F

#: the first bytes of every compound file
OLE_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"

@contextmanager
def opened_ole(path: Path, kind: str, suffix: str) -> Iterator[Any]:
    """The compound file ``path`` (an ``olefile.OleFileIO``), closed after the block; a
    :class:`LoaderError` naming the file when it is not one, or when reading it fails
    (``kind``: what it should be, e.g. ``"a Word 97-2003 document"``; ``suffix``: the one of
    such files, whose extra reads it, as the file may be named otherwise)."""
    olefile = reader_module(path, suffix)
    with foreign_file(path, kind):
        with path.open("rb") as fh:
            head = fh.read(len(OLE_MAGIC))
        if head != OLE_MAGIC:
            raise LoaderError(f"{printable(str(path))}: not {kind} (no compound file: it does "
                              f"not start with the bytes every {path.suffix.lower()} file "
                              "starts with)")
        try:
            ole = olefile.OleFileIO(str(path))
        except OSError as exc:  # olefile's own errors are OSErrors: the file is damaged
            raise LoaderError(f"{printable(str(path))}: not {kind} (a damaged compound file: "
                              f"{printable(str(exc))[:200]})") from None
        try:
            if ole.exists(_LOCKED):
                raise password_error(path)
            yield ole
        finally:
            ole.close()


def locked_package(path: Path) -> LoaderError | None:
    """The error for an Office 2007+ file saved with a password (a compound file holding
    the encrypted package), when ``path`` is one and olefile is installed to tell; else
    None."""
    if importlib.util.find_spec("olefile") is None:
        return None
    olefile = importlib.import_module("olefile")
    try:
        with olefile.OleFileIO(str(path)) as ole:
            locked = bool(ole.exists(_LOCKED))
    except Exception:  # an untrusted file: its reader will name what is wrong with it
        return None
    return password_error(path) if locked else None


def password_error(path: Path) -> LoaderError:
    """The error for a file saved with a password, naming it."""
    return LoaderError(f"{printable(str(path))}: saved with a password, which vizrag does not "
                       "read; save it without one")


def shown_lines(text: str, marks: Mapping[int, str | int | None]) -> str:
    r"""``text`` with the characters an Office 97-2003 file uses as marks shown as ``marks``
    maps them (``str.translate``), each line's spaces collapsed, empty lines dropped.

    >>> shown_lines("A  line\x0bnext\r\r", {0x0B: "\n", 0x0D: "\n"})
    'A line\nnext'
    """
    lines = (" ".join(line.split()) for line in text.translate(marks).split("\n"))
    return "\n".join(line for line in lines if line)


def stream(ole: Any, name: str, path: Path, kind: str) -> bytes:
    """The whole stream ``name`` of ``ole``; a :class:`LoaderError` naming the file when it
    has none (``kind``: what the file should be)."""
    if not ole.exists(name):
        raise LoaderError(f"{printable(str(path))}: not {kind} (it has no {name!r} stream)")
    data: bytes = ole.openstream(name).read()
    return data


def ole_title(ole: Any) -> str:
    """The title the file's summary information holds (:func:`summary_title`), or ``""``."""
    if not ole.exists(_SUMMARY):
        return ""
    return summary_title(ole.openstream(_SUMMARY).read())


def summary_title(data: bytes) -> str:
    """The title property of a summary information stream (``data``; MS-OLEPS: its first
    section's ``PIDSI_TITLE``), decoded by the code page the section declares; ``""`` when
    it has none or the stream is damaged. Read within the stream's bounds: olefile's
    ``get_metadata`` loops over as many properties as a damaged count says (billions).

    >>> summary_title(b"")
    ''
    """
    try:
        section = struct.unpack_from("<I", data, 44)[0]
        size, count = struct.unpack_from("<II", data, section)
        count = min(count, max(size - 8, 0) // 8, max(len(data) - section - 8, 0) // 8)
        where: dict[int, int] = {}
        for i in range(count):
            pid, offset = struct.unpack_from("<II", data, section + 8 + 8 * i)
            if pid in (_CODE_PAGE, _TITLE):  # the first: a damaged count reads on past the list
                where.setdefault(pid, section + offset)
        codepage = 1252
        if _CODE_PAGE in where:
            kind, _, value = struct.unpack_from("<HHh", data, where[_CODE_PAGE])
            codepage = value & 0xFFFF if kind == _VT_I2 else 1252  # 65001 is stored as -535
        if _TITLE not in where:
            return ""
        kind, _, length = struct.unpack_from("<HHI", data, where[_TITLE])
        start = where[_TITLE] + 8
        if kind == _VT_LPWSTR:
            title = data[start:start + 2 * length].decode("utf-16-le", "replace")
        elif kind == _VT_LPSTR:
            raw = data[start:start + length]
            try:
                title = raw.decode("utf-8" if codepage == 65001 else f"cp{codepage}")
            except (LookupError, UnicodeDecodeError):
                title = raw.decode("cp1252", "replace")
        else:
            return ""
    except struct.error:
        return ""
    return " ".join(title.replace("\x00", " ").split())
