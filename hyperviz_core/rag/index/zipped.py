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

import contextlib
import xml.etree.ElementTree as ET
import zipfile
from collections.abc import Iterator
from pathlib import Path

from .errors import LoaderError
from .guards import printable
from .textfiles import foreign_file

__all__ = ["MAX_UNPACKED", "check_package", "package_xml", "reading_package"]

#: the most bytes an Office file may unpack to (its parts' sizes, as its zip directory states)
MAX_UNPACKED = 512 * 1024 * 1024


def check_package(path: Path, kind: str) -> None:
    """Refuse (a :class:`LoaderError` naming ``path``) a file that is no zip package, such
    as an old binary Office file renamed or one saved with a password (stored encrypted in
    another container), or whose parts would unpack to more than :data:`MAX_UNPACKED`."""
    suffix = path.suffix.lower()
    try:
        with zipfile.ZipFile(path) as zf:
            size = sum(info.file_size for info in zf.infolist())
    except zipfile.BadZipFile:
        raise LoaderError(f"{printable(str(path))}: not {kind} (not a {suffix} zip file: an "
                          f"old {suffix[:-1]} renamed, or a file saved with a password; save "
                          f"it as {suffix} without one)") from None
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


def package_xml(zf: zipfile.ZipFile, name: str, path: Path) -> ET.Element:
    """The root of the XML part ``name`` of the package ``path``, which these formats store
    as UTF-8: a part in another encoding (UTF-16 would hide a ``<!DOCTYPE`` from the check)
    or with a document type (entities: a "billion laughs") is refused before it is parsed,
    a :class:`LoaderError` naming the file and the part."""
    data = zf.read(name)
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise LoaderError(f"{printable(str(path))}: its {name} is not UTF-8; not read") from None
    if b"\0" in data or b"<!DOCTYPE" in data or b"<!ENTITY" in data:
        raise LoaderError(f"{printable(str(path))}: its {name} declares a document type "
                          "(entities) or holds NUL bytes, which its format never does; not read")
    return ET.fromstring(data)
