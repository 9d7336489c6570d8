"""Reading text files (``.txt``, ``.md`` ..., or any file named directly) as documents, and
walking folders for the files to read (:func:`walk`).

One document per file, whose id is its path relative to the folder given (the stem for a
file given directly) without the suffix, in Unicode's composed form (NFC: a name macOS wrote
decomposed gets the id typed on any keyboard), titled by its front matter's title, else its
first heading (:func:`~.titles.read_title`), with metadata ``{"source": path}`` (the path as
found); the front matter is not in its text (:func:`~.titles.front_matter`). A file over the
part size is read incrementally as parts (:mod:`.parts`). Every failure is a one-line
:class:`~.errors.LoaderError` naming the file: one the operating system will not let us
read, UTF-16 text without a byte-order mark (NUL bytes at odd or at even offsets only:
convert it, or read it with ``encoding="auto"``), a binary file (another NUL byte among the first
:data:`SNIFF_BYTES`, git's test), and bytes that are not UTF-8 (with their line and their
offset in the file, and a hint to convert them or name their encoding: :mod:`.legacy`).
UTF-16 and UTF-32 text with its byte-order mark is read as such (:mod:`.widetext`).
"""

from __future__ import annotations

import contextlib
import heapq
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

from ..types import Document, nfc
from .errors import LoaderError
from .guards import printable
from .legacy import AUTO, decode_text
from .parts import (
    TextDecodeError,
    iter_text_parts,
    line_ends,
    not_utf8,
    utf8_lines,
)
from .suffixes import READ_SUFFIXES, id_path, reader_missing
from .titles import FRONT_MATTER_CHARS, front_matter, read_title
from .widetext import (
    SNIFF_BYTES,
    UNMARKED,
    bom_codec,
    reads_as_text,
    text_codec,
    unmarked_utf16,
    wide_text,
)

__all__ = ["SNIFF_BYTES", "Walk", "check_not_binary", "foreign_file", "lines", "path_id",
           "read_text", "text_documents", "unreadable", "utf8_text", "walk"]

@contextlib.contextmanager
def foreign_file(path: Path, kind: str) -> Iterator[None]:
    """Any failure of a library reading the (untrusted) file ``path`` in the block as a
    :class:`LoaderError` naming it: ``PATH: not KIND (its error)``; a LoaderError passes,
    an OSError is :func:`unreadable`."""
    try:
        yield
    except LoaderError:
        raise
    except OSError as exc:
        raise unreadable(path, exc) from exc
    except Exception as exc:  # the file is untrusted: any failure names it
        raise LoaderError(f"{printable(str(path))}: not {kind} ({type(exc).__name__}: "
                          f"{printable(str(exc))[:200]})") from None


def unreadable(path: Path, exc: OSError) -> LoaderError:
    """The error for a file the operating system would not let us read."""
    return LoaderError(f"{path}: cannot read ({exc.strerror or exc})")


def read_text(path: Path, encoding: str | None = None) -> str:
    """The whole UTF-8 text of ``path`` (a leading BOM dropped; UTF-16 or UTF-32 text read
    as such when it starts with their byte-order mark); a :class:`LoaderError` naming the
    file (and for a byte that is not UTF-8 its line and offset) otherwise.
    ``encoding`` (a name :func:`~.legacy.fallback_encoding` gave): a file that is not UTF-8
    is read in it from the line holding its first byte that is not (:mod:`.legacy`);
    ``"auto"`` also reads UTF-16 without a mark (:func:`~.widetext.text_codec`)."""
    try:
        data = path.read_bytes()  # read once, whatever it turns out to be
    except OSError as exc:
        raise unreadable(path, exc) from exc
    return utf8_text(path, data, encoding)


def utf8_text(path: Path, data: bytes, encoding: str | None = None) -> str:
    """``data``, the bytes read from ``path``, as :func:`read_text` reads the file: UTF-8, a
    leading BOM dropped, ``\\r\\n`` and ``\\r`` read as ``\\n`` (what is not UTF-8 in
    ``encoding``, when given; UTF-16 or UTF-32 when it starts with their byte-order mark:
    :mod:`.widetext`); its :class:`LoaderError` otherwise.

    >>> utf8_text(Path("a.html"), b"\\xef\\xbb\\xbfone\\r\\ntwo\\rthree")
    'one\\ntwo\\nthree'
    >>> utf8_text(Path("a.txt"), b"caf\\xe9", "cp1252")
    'café'
    """
    wide = text_codec(data, encoding, str(path))  # (UTF-8 has no NUL-laden head nor mark)
    if wide is not None:
        try:
            return wide_text(str(path), data, wide)
        except TextDecodeError as exc:
            raise LoaderError(str(exc)) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        if encoding is None:
            raise LoaderError(_decode_failure(path, data)) from None
        try:
            text = decode_text(data, encoding, where=str(path))
        except TextDecodeError as exc:
            raise LoaderError(str(exc)) from None
    return line_ends(text)


def _decode_failure(path: Path, data: bytes) -> str:
    """``f.txt: not UTF-8 text at line L, byte N (why)`` for a file that failed to decode
    (N: the offset of the first bad byte in the file), given its bytes."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return str(not_utf8(path, data, exc))
    return f"{printable(str(path))}: not UTF-8 text"


#: where an unmarked UTF-16 file's NUL bytes are (:func:`~.widetext.unmarked_utf16`)
_PARITY = {"utf-16-le": "odd", "utf-16-be": "even"}


def check_not_binary(path: Path, encoding: str | None = None) -> None:
    """Refuse UTF-16 text without a byte-order mark (named, with how to convert it; read
    when ``encoding`` is ``"auto"``) and a binary file: one whose first :data:`SNIFF_BYTES`
    hold a NUL byte. UTF-16 and UTF-32 text with its byte-order mark that reads as text
    passes: it is read as such (:mod:`.widetext`)."""
    try:
        with path.open("rb") as fh:
            head = fh.read(SNIFF_BYTES)
    except OSError as exc:
        raise unreadable(path, exc) from exc
    bom = bom_codec(head)
    if bom is not None:  # its mark names it: read as such, unless a binary file starts so
        if reads_as_text(head, bom):
            return
    elif (wide := unmarked_utf16(head)) is not None:
        if encoding == AUTO:
            return
        raise LoaderError(f"{path}: not UTF-8 text but {UNMARKED[wide]} text without a "
                          f"byte-order mark (NUL bytes at {_PARITY[wide]} offsets); convert it "
                          f"to UTF-8, e.g. iconv -f {UNMARKED[wide]} -t UTF-8, or read such "
                          "files so: --encoding auto (encoding=\"auto\" in Python)")
    nul = head.find(b"\x00")
    if nul >= 0:
        raise LoaderError(f"{path}: a binary file, not text (NUL byte at byte {nul}); vizrag "
                          "reads UTF-8 text, Markdown, HTML, PDF, Office (.docx, .pptx, .xlsx, "
                          "their macro-enabled and template kinds, and .doc, .ppt, .xls), "
                          "OpenDocument, EPUB, e-mail (.eml, .mbox, .msg), RTF, subtitles, "
                          "Jupyter notebooks, CSV, JSON and JSONL: convert it to one of them first")


def path_id(path: Path, id_from_path: bool, root: Path | None) -> str:
    """The id of a file's document(s): its path relative to ``root`` (its name without
    ``root``), without the suffix unless :func:`keeps_suffix`, NFC; ``""`` (a content-hash
    id) unless ``id_from_path``.

    >>> path_id(Path("docs/a/report.md"), True, Path("docs")), path_id(
    ...     Path("docs/a/report.pdf"), True, Path("docs"))
    ('a/report', 'a/report.pdf')
    """
    if not id_from_path:
        return ""
    rel = path.relative_to(root) if root is not None else Path(path.name)
    return nfc(id_path(rel).as_posix())


def _text_document(path: Path, id_from_path: bool, root: Path | None = None,
                   encoding: str | None = None) -> Document:
    text = read_text(path, encoding)
    head = text[:FRONT_MATTER_CHARS]
    body = text[front_matter(head, path.suffix).length:]
    return Document(id=path_id(path, id_from_path, root), title=read_title(path, head),
                    text=body, metadata={"source": str(path)})


def text_documents(path: Path, id_from_path: bool, root: Path | None,
                   part_bytes: int | None, encoding: str | None = None,
                   ) -> Iterator[tuple[Document, str]]:
    """One document per file, or (a file over ``part_bytes``) its parts read incrementally;
    ``encoding``: what a file that is not UTF-8 is read in (:mod:`.legacy`)."""
    check_not_binary(path, encoding)
    try:
        big = part_bytes is not None and path.stat().st_size > part_bytes
    except OSError as exc:
        raise unreadable(path, exc) from exc
    if not big:
        yield _text_document(path, id_from_path, root, encoding), str(path)
        return
    assert part_bytes is not None
    try:
        for doc in iter_text_parts(path, path_id(path, id_from_path, root), part_bytes,
                                   encoding=encoding):
            yield doc, f"{path} (part {doc.metadata['part']})"
    except TextDecodeError as exc:
        raise LoaderError(str(exc)) from None
    except OSError as exc:
        raise unreadable(path, exc) from exc


def lines(path: Path, encoding: str | None = None) -> Iterator[str]:
    """The whole lines of a UTF-8 file, whatever their length (a JSONL record a line), read
    one at a time (errors name the file, and for a byte that is not UTF-8 its line and
    offset in the file; ``encoding``: what a file that is not UTF-8 is read in)."""
    try:
        yield from utf8_lines(path, whole_lines=True, encoding=encoding)
    except TextDecodeError as exc:
        raise LoaderError(str(exc)) from None
    except OSError as exc:
        raise unreadable(path, exc) from exc


class Walk(NamedTuple):
    """What :func:`walk` found: the files to read, sorted (a folder it could not list is
    among them: reading it is the error naming it), and what it left out: (path, why)."""

    files: list[Path]
    skipped: list[tuple[Path, str]]


class _Walker:
    """The state of one :func:`walk`: real folders are listed first, then the symbolic
    links found, in order (so a file reached both ways is read by its own path)."""

    def __init__(self, root: Path, follow_links: bool) -> None:
        self.follow_links = follow_links
        self.root = os.path.realpath(root)
        self.files: dict[str, Path] = {}  # real path -> the path it is read as
        self.skipped: list[tuple[Path, str]] = []
        self.folders: dict[str, Path] = {}  # real path -> the path it is listed as
        self.todo: list[tuple[Path, str]] = []
        self.links: list[Path] = []  # a heap
        self.unlisted: list[Path] = []
        self.enter(root, os.path.realpath(root))

    def enter(self, folder: Path, real: str) -> None:
        if real in self.folders:  # a link to a folder read anyway, or up the tree (a loop)
            self.skipped.append((folder, f"the same folder as {self.folders[real]}, read "
                                         "already"))
        else:
            self.folders[real] = folder
            self.todo.append((folder, real))

    def add(self, path: Path, real: str, regular: bool) -> None:
        if path.suffix.lower() not in READ_SUFFIXES:
            why = f"suffix {path.suffix}" if path.suffix else "no suffix"
            self.skipped.append((path, f"not a kind of file the walk reads ({why})"))
        elif missing := reader_missing(path.suffix):
            self.skipped.append((path, missing))
        elif not regular:
            self.skipped.append((path, "not a regular file"))
        elif real in self.files:
            self.skipped.append((path, f"the same file as {self.files[real]}, read already"))
        else:
            self.files[real] = path

    def scan(self, folder: Path, real: str) -> None:
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:  # no permission: read as a file, which is the error naming it
            self.unlisted.append(folder)
            return
        for e in entries:
            path = folder / e.name
            try:
                if e.name.startswith("."):
                    self.skipped.append((path, "hidden (a name starting with '.')"))
                elif e.is_symlink():
                    heapq.heappush(self.links, path)
                elif e.is_dir(follow_symlinks=False):
                    self.enter(path, os.path.join(real, e.name))
                else:
                    self.add(path, os.path.join(real, e.name), e.is_file(follow_symlinks=False))
            except OSError:  # cannot even tell what it is: reading it names the error
                self.unlisted.append(path)

    def follow(self, link: Path) -> None:
        try:
            target = link.stat()
        except OSError as exc:  # dangling, or a loop of links
            self.skipped.append((link, f"a broken symbolic link ({exc.strerror or exc})"))
            return
        real = os.path.realpath(link)
        if stat.S_ISDIR(target.st_mode):  # a folder link may lead anywhere (/, a loop ...)
            self.skipped.append((link, "a symbolic link to a folder (not followed: give the "
                                       "folder itself to read it)"))
        elif not self.follow_links and os.path.commonpath([self.root, real]) != self.root:
            self.skipped.append((link, "a symbolic link leading out of the folder (not "
                                       "followed: --follow-links / follow_links=True reads "
                                       "it)"))
        else:
            self.add(link, real, stat.S_ISREG(target.st_mode))

    def run(self) -> Walk:
        while self.todo or self.links:
            if self.todo:
                self.scan(*self.todo.pop())
            else:
                self.follow(heapq.heappop(self.links))
        return Walk(sorted([*self.files.values(), *self.unlisted]), sorted(self.skipped))


def walk(root: str | Path, *, follow_links: bool = False) -> Walk:
    """The files a folder walk reads (:data:`READ_SUFFIXES`), sorted, and those it leaves
    out with why: hidden files and folders (a name starting with ``.``: ``.git``, ``.env``
    and whatever is below them, not listed), files of other suffixes, files that are not
    regular (a FIFO, a device), broken links, and a second path to a file or folder read
    already (a link to it). Symbolic links to files inside the folder are followed (the file
    read under the link's path: its id), unless the file is read already by its own path;
    a link leading out of the folder is not (listed: an uploaded archive's link would read
    any file the indexer can, ``/etc/passwd``), unless ``follow_links``; links to folders
    are never followed (listed: a link may lead to ``/`` or up the tree). A sub-folder that
    cannot be listed (no permission) is among the files: reading it is the error naming it."""
    return _Walker(Path(root), follow_links).run()
