"""Office files are zip packages (``.docx``, ``.pptx``): one whose parts would unpack to more
than :data:`MAX_UNPACKED` bytes (a zip bomb) is refused before a library opens it.

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

import zipfile
from pathlib import Path

from .errors import LoaderError
from .guards import printable

__all__ = ["MAX_UNPACKED", "check_package"]

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
