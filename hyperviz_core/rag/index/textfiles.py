"""Reading text files (``.txt``, ``.md`` ..., or any file named directly) as documents.

One document per file, whose id is its path relative to the folder given (the stem for a
file given directly), titled by its first heading (:func:`~.parts.read_title`), with
metadata ``{"source": path}``; a file over the part size is read incrementally as parts
(:mod:`.parts`). Every failure is a one-line :class:`~.errors.LoaderError` naming the file:
one the operating system will not let us read, a binary file (a NUL byte among the first
:data:`SNIFF_BYTES`, git's test), and bytes that are not UTF-8 (with their line and their
offset in the file).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from ..types import Document
from .errors import LoaderError
from .guards import printable
from .parts import TextDecodeError, iter_text_parts, not_utf8, read_title, utf8_lines

__all__ = ["SNIFF_BYTES", "lines", "read_text", "text_documents", "unreadable"]


def unreadable(path: Path, exc: OSError) -> LoaderError:
    """The error for a file the operating system would not let us read."""
    return LoaderError(f"{path}: cannot read ({exc.strerror or exc})")


def read_text(path: Path) -> str:
    """The whole UTF-8 text of ``path`` (a leading BOM dropped); a :class:`LoaderError`
    naming the file (and for a byte that is not UTF-8 its line and offset) otherwise."""
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError:
        raise LoaderError(_decode_failure(path)) from None
    except OSError as exc:
        raise unreadable(path, exc) from exc


def _decode_failure(path: Path) -> str:
    """``f.txt: not UTF-8 text at line L, byte N (why)`` for a file that failed to decode
    (N: the offset of the first bad byte in the file)."""
    try:
        data = path.read_bytes()
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return str(not_utf8(path, data, exc))
    except OSError as exc:
        return str(unreadable(path, exc))
    return f"{printable(str(path))}: not UTF-8 text"


#: how much of a text file :func:`_check_not_binary` looks at (git's binary-file test)
SNIFF_BYTES = 8000


def _check_not_binary(path: Path) -> None:
    """Refuse a file whose first :data:`SNIFF_BYTES` hold a NUL byte and are otherwise UTF-8
    (a file that is not UTF-8 at all gets the UTF-8 error when it is read)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError as exc:
        raise unreadable(path, exc) from exc
    nul = head.find(b"\x00")
    if nul < 0:
        return
    try:
        codecs.getincrementaldecoder("utf-8")().decode(head, final=False)
    except UnicodeDecodeError:
        return
    raise LoaderError(f"{path}: a binary file, not text (NUL byte at byte {nul}); vizrag "
                      "reads UTF-8 text, Markdown, JSON and JSONL: convert it to text first")


def _path_id(path: Path, id_from_path: bool, root: Path | None) -> str:
    if not id_from_path:
        return ""
    rel = path.relative_to(root) if root is not None else Path(path.name)
    return rel.with_suffix("").as_posix()


def _text_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    text = read_text(path)
    title = read_title(path, text[:65536])
    return Document(id=_path_id(path, id_from_path, root), text=text, title=title,
                    metadata={"source": str(path)})


def text_documents(path: Path, id_from_path: bool, root: Path | None,
                   part_bytes: int | None) -> Iterator[tuple[Document, str]]:
    """One document per file, or (a file over ``part_bytes``) its parts read incrementally."""
    _check_not_binary(path)
    try:
        big = part_bytes is not None and path.stat().st_size > part_bytes
    except OSError as exc:
        raise unreadable(path, exc) from exc
    if not big:
        yield _text_document(path, id_from_path, root), str(path)
        return
    assert part_bytes is not None
    try:
        for doc in iter_text_parts(path, _path_id(path, id_from_path, root), part_bytes):
            yield doc, f"{path} (part {doc.metadata['part']})"
    except TextDecodeError as exc:
        raise LoaderError(str(exc)) from None
    except OSError as exc:
        raise unreadable(path, exc) from exc


def lines(path: Path) -> Iterator[str]:
    """The lines of a UTF-8 file, read incrementally (errors name the file, and for a byte
    that is not UTF-8 its line and offset in the file)."""
    try:
        yield from utf8_lines(path)
    except TextDecodeError as exc:
        raise LoaderError(str(exc)) from None
    except OSError as exc:
        raise unreadable(path, exc) from exc
