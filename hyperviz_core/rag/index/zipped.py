"""Office files and e-books are zip packages (``.docx``, ``.pptx``, ``.odt``, ``.epub`` ...):
one whose parts would unpack to more than :data:`MAX_UNPACKED` bytes (a zip bomb) is refused
before a library opens it (:func:`check_package`), and an XML part is parsed only when it is
UTF-8 without a document type (:func:`package_xml`: no entity is ever expanded).

Example:
    >>> import tempfile, zipfile
    >>> path = Path(tempfile.mkdtemp()) / "a.docx"
    >>> with zipfile.ZipFile(path, "w") as zf:
    ...     zf.writestr("word/document.xml", "<w:document/>")
    >>> check_package(path, "a Word document")
    >>> check_package(Path(__file__), "a Word document")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    hyperviz_core.rag.index.errors.LoaderError: .../zipped.py: not a Word document ...
"""

from __future__ import annotations

import codecs
import contextlib
import io
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from pathlib import Path

from .errors import LoaderError
from .guards import printable
from .olefiles import OLE_MAGIC
from .textfiles import foreign_file

__all__ = [
    "MAIN_TYPES", "MAX_UNPACKED", "CheckedPart", "check_package", "package_xml", "plain_package",
    "reading_package", "unpacked_size",
]

#: the most bytes an Office file may unpack to (its parts' sizes, as its zip directory states)
MAX_UNPACKED = 512 * 1024 * 1024


def unpacked_size(package: Path | bytes) -> int:
    """The bytes the zip package at ``package`` (a path, or its bytes: a package inside
    another) unpacks to, as its directory states them; a :class:`zipfile.BadZipFile` for
    no zip package."""
    with zipfile.ZipFile(io.BytesIO(package) if isinstance(package, bytes) else package) as zf:
        return sum(info.file_size for info in zf.infolist())


def check_package(path: Path, kind: str) -> None:
    """Refuse (a :class:`LoaderError` naming ``path``) a file that is no zip package, such
    as an old binary Office file renamed or one saved with a password (stored encrypted in
    another container), or whose parts would unpack to more than :data:`MAX_UNPACKED`."""
    suffix = path.suffix.lower()
    try:
        size = unpacked_size(path)
    except zipfile.BadZipFile:
        with path.open("rb") as fh:
            compound = fh.read(len(OLE_MAGIC)) == OLE_MAGIC
        why = (": a compound file, as an older format's or one saved with a password; save "
               f"it as {suffix} without one") if compound else ""
        raise LoaderError(f"{printable(str(path))}: not {kind} (not a zip package"
                          f"{why})") from None
    if size > MAX_UNPACKED:
        raise LoaderError(f"{printable(str(path))}: unpacks to more than "
                          f"{MAX_UNPACKED // 2**20} MiB; not read")


@contextlib.contextmanager
def reading_package(path: Path, kind: str) -> Iterator[None]:
    """The block that reads the package ``path`` with a library, once it passed
    :func:`check_package`; any failure in it a :class:`LoaderError` naming the file and
    ``kind`` (:func:`~.textfiles.foreign_file`)."""
    with foreign_file(path, kind):
        check_package(path, kind)
        yield


#: the main part's content type of each kind of Word and PowerPoint package python-docx and
#: python-pptx do not open (macro-enabled files, templates, slide shows), with the one of the
#: plain document they read the same parts as
_WORD_MAIN = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
_DECK_MAIN = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
MAIN_TYPES: dict[str, str] = {
    "application/vnd.ms-word.document.macroEnabled.main+xml": _WORD_MAIN,
    "application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml":
        _WORD_MAIN,
    "application/vnd.ms-word.template.macroEnabledTemplate.main+xml": _WORD_MAIN,
    "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml": _DECK_MAIN,
    "application/vnd.openxmlformats-officedocument.presentationml.template.main+xml":
        _DECK_MAIN,
    "application/vnd.ms-powerpoint.template.macroEnabled.main+xml": _DECK_MAIN,
    "application/vnd.openxmlformats-officedocument.presentationml.slideshow.main+xml":
        _DECK_MAIN,
    "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml": _DECK_MAIN,
}


def plain_package(path: Path) -> str | io.BytesIO:
    """``path`` as a Word document or PowerPoint deck python-docx and python-pptx open: its
    name when its main part is a plain document's, else a copy in memory whose
    ``[Content_Types].xml`` gives the main part the plain document's type
    (:data:`MAIN_TYPES`: a macro-enabled ``.docm``/``.pptm``, a template ``.dotx``/``.potx``,
    a slide show ``.ppsx``). The parts themselves are the same; macros (``vbaProject.bin``)
    are never read."""
    with zipfile.ZipFile(path) as zf:
        types = zf.read("[Content_Types].xml") if "[Content_Types].xml" in zf.namelist() \
            else b""
        found = [t for t in MAIN_TYPES if f'"{t}"'.encode() in types]
        if not found:
            return str(path)
        for name in found:
            types = types.replace(f'"{name}"'.encode(), f'"{MAIN_TYPES[name]}"'.encode())
        copy = io.BytesIO()
        with zipfile.ZipFile(copy, "w", zipfile.ZIP_DEFLATED) as out:
            for info in zf.infolist():
                data = types if info.filename == "[Content_Types].xml" else zf.read(info)
                out.writestr(info.filename, data)
    copy.seek(0)
    return copy


class CheckedPart:
    """The XML part ``name`` of the package ``path``, read (``read``) as :func:`package_xml`
    reads it: each piece is checked as it is read, so a part can be parsed a piece at a time
    (``ET.iterparse``) with the same guarantees (UTF-8, no document type, no NUL byte)."""

    def __init__(self, zf: zipfile.ZipFile, name: str, path: Path) -> None:
        self._raw = zf.open(name)
        self._name, self._path = name, path
        self._utf8 = codecs.getincrementaldecoder("utf-8")()
        self._tail = b""  # the last bytes read: a ``<!DOCTYPE`` may straddle two pieces

    def read(self, size: int = -1) -> bytes:
        """Up to ``size`` more bytes (all of them for ``-1``), checked; a
        :class:`LoaderError` naming the file and the part for a piece that fails."""
        data = self._raw.read(size)
        where = f"{printable(str(self._path))}: its {self._name}"
        try:
            self._utf8.decode(data, final=not data)
        except UnicodeDecodeError:
            raise LoaderError(f"{where} is not UTF-8; not read") from None
        seen = self._tail + data
        if b"\0" in data or b"<!DOCTYPE" in seen or b"<!ENTITY" in seen:
            raise LoaderError(f"{where} declares a document type (entities) or holds NUL "
                              "bytes, which its format never does; not read")
        self._tail = seen[-8:]
        return data

    def close(self) -> None:
        self._raw.close()


def package_xml(zf: zipfile.ZipFile, name: str, path: Path) -> ET.Element:
    """The root of the XML part ``name`` of the package ``path``, which these formats store
    as UTF-8: a part in another encoding (UTF-16 would hide a ``<!DOCTYPE`` from the check)
    or with a document type (entities: a "billion laughs") is refused before it is parsed,
    a :class:`LoaderError` naming the file and the part (:class:`CheckedPart`)."""
    part = CheckedPart(zf, name, path)
    try:
        return ET.fromstring(part.read())
    finally:
        part.close()
