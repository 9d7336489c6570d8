"""Read a large text file incrementally as consecutive *part* documents.

A text file bigger than ``part_bytes`` is never held in memory whole: it is read line by
line (a line over :data:`PIECE_BYTES` in pieces cut after a space) and cut at paragraph
breaks (a blank line; at the next line end, or piece end, once a part reaches twice the size
without one) into documents ``<id>#part00001``, ``<id>#part00002``, ... that
are indexed, committed and released one after another. Each part is its own transaction, so
an interrupted run resumes at the first part not yet stored. A file of at most
``part_bytes`` stays one document with the plain id, exactly as before.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "big.txt"
    >>> _ = p.write_text("# Atlas\\n\\n" + "\\n\\n".join(f"Paragraph {i} text." for i in range(6)))
    >>> parts = list(iter_text_parts(p, "big", part_bytes=40))
    >>> [(d.id, d.title) for d in parts][:2]
    [('big#part00001', 'Atlas'), ('big#part00002', 'Atlas')]
    >>> "".join(d.text for d in parts) == p.read_text()
    True
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Iterator
from pathlib import Path

from ..types import Document
from .guards import printable

__all__ = ["PART_BYTES", "PIECE_BYTES", "TITLE_LINES", "TextDecodeError", "convert_hint",
           "iter_text_parts", "looks_like_text", "not_utf8", "read_title", "utf8_lines"]

#: default size of one part of a large text file (bytes of UTF-8)
PART_BYTES = 256 * 1024
#: a text file's title is its first heading among this many non-empty lines
TITLE_LINES = 10

_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-{2,})[ \t]*$")
_NOT_PARAGRAPH = re.compile(r"^(?: {4}|\t| {0,3}(?:[-*+>|#<]|\d+[.)]|```|~~~))")


def read_title(path: Path, text_head: str) -> str:
    """The first Markdown heading among the first :data:`TITLE_LINES` non-empty lines of
    ``text_head`` (YAML front matter between ``---`` lines skipped), else the file's stem.

    A heading is an ATX line (``# Title``: one to six ``#`` and a space; on the first
    non-empty line any line starting with ``#``) or a setext one (a text line underlined
    with ``===`` or ``---``).

    >>> read_title(Path("notes.md"), "[![ci](badge.svg)](ci)\\n\\n# Real Title\\n")
    'Real Title'
    >>> read_title(Path("notes.md"), "Real Title\\n==========\\n\\nText.")
    'Real Title'
    >>> read_title(Path("notes.md"), "Just text.\\n\\nMore text.")
    'notes'
    """
    lines = iter(text_head.splitlines())
    seen = 0
    prev = ""  # the line before, when it can be a setext heading's text
    for raw in lines:
        s = raw.strip()
        if not s:
            prev = ""
            continue
        seen += 1
        if seen == 1 and s == "---":  # front matter: skipped up to its closing line
            next((ln for ln in lines if ln.strip() in ("---", "...")), None)
            seen = 0
            continue
        if (seen == 1 and s.startswith("#")) or _ATX.match(raw):
            return s.lstrip("#").strip() or path.stem
        if prev and _SETEXT.match(raw):
            return prev
        if seen >= TITLE_LINES:
            break
        prev = "" if _NOT_PARAGRAPH.match(raw) or _SETEXT.match(raw) else s
    return path.stem


class TextDecodeError(ValueError):
    """A text file holds bytes that are not UTF-8 (the message names the file, the line
    and the byte's offset in the file: ``f.txt: not UTF-8 text at line 3, byte 41 (...)``)."""


def _line_of(data: bytes, end: int) -> int:
    """1 + the line breaks (``\\n``, ``\\r\\n`` or a lone ``\\r``) in ``data[:end]``."""
    head = data[:end]
    return head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n") + 1


def not_utf8(path: Path, data: bytes, exc: UnicodeDecodeError, *, line: int = 1,
             offset: int = 0) -> TextDecodeError:
    """The error for ``exc`` raised decoding ``data``, which starts at byte ``offset`` and
    on line ``line`` of ``path``."""
    return TextDecodeError(f"{printable(str(path))}: not UTF-8 text at line "
                           f"{line - 1 + _line_of(data, exc.start)}, byte {offset + exc.start} "
                           f"({exc.reason}); {convert_hint(data)}")


_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")


def looks_like_text(text: str) -> bool:
    """Whether ``text`` holds no control character but tab, line breaks and form feed (text
    decoded in a wrong encoding from binary data almost always does)."""
    return _CONTROLS.search(text) is None


def convert_hint(data: bytes) -> str:
    """What to do about ``data`` that is not UTF-8: convert it, naming Windows-1252 (a
    superset of Latin-1's printable characters) when ``data`` reads as such text without
    control characters, the usual case of such a file (a guess said as one)."""
    try:
        text = data[:1 << 20].decode("cp1252")
    except UnicodeDecodeError:
        return "convert it to UTF-8"
    if not looks_like_text(text):
        return "convert it to UTF-8"
    return ("it reads as Windows-1252 (Latin-1) text: convert it to UTF-8, e.g. "
            "iconv -f WINDOWS-1252 -t UTF-8")


#: the most bytes of one line read at a time: a longer line comes in pieces cut after a
#: space or tab (a file without line breaks is still read, and cut into parts, in bounded
#: memory)
PIECE_BYTES = 64 * 1024


def _cut_piece(raw: bytes) -> tuple[bytes, bytes]:
    """``raw`` (a piece of a line, more follows) split into what can be decoded now and what
    is kept for the next read: the cut is after its last space or tab, else before an
    incomplete UTF-8 character at its end; a final ``\\r`` is kept (a ``\\n`` may follow)."""
    cut = max(raw.rfind(b" "), raw.rfind(b"\t")) + 1
    if cut == 0:
        cut = len(raw)
        for back in range(1, min(4, len(raw)) + 1):  # the lead byte of a last character
            byte = raw[-back]
            if byte >= 0xC0:  # needs 2, 3 or 4 bytes in all
                need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
                cut = len(raw) - back if need > back else len(raw)
                break
            if byte < 0x80:
                break
    if raw[cut - 1:cut] == b"\r":
        cut -= 1
    return raw[:cut], raw[cut:]  # nothing to decode yet (cut 0): all of it waits


def utf8_lines(path: Path, *, whole_lines: bool = False) -> Iterator[str]:
    """The lines of the UTF-8 file ``path`` exactly as text mode reads them (a leading BOM
    dropped, ``\\r\\n`` and a lone ``\\r`` read as ``\\n``), decoded one line at a time, so
    that a byte that is not UTF-8 raises a :class:`TextDecodeError` naming its line and its
    offset in the file. A line longer than :data:`PIECE_BYTES` comes in pieces (their
    concatenation is the line), unless ``whole_lines``: then every line comes whole, whatever
    its length (JSONL: one record a line)."""
    offset, line = 0, 1
    kept = b""
    limit = -1 if whole_lines else PIECE_BYTES
    with path.open("rb") as fh:
        while True:
            chunk = fh.readline(limit)
            raw, kept = kept + chunk, b""
            if not raw:
                return
            if len(chunk) == limit and not raw.endswith(b"\n"):  # the line goes on
                raw, kept = _cut_piece(raw)
                if not raw:
                    continue
            skip = len(codecs.BOM_UTF8) if offset == 0 and raw.startswith(codecs.BOM_UTF8) else 0
            try:
                text = raw[skip:].decode("utf-8")
            except UnicodeDecodeError as exc:
                raise not_utf8(path, raw[skip:], exc, line=line, offset=offset + skip) from None
            offset += len(raw)
            if "\r" not in text:
                line += text.endswith("\n")
                yield text
                continue
            text = text.replace("\r\n", "\n").replace("\r", "\n")
            for piece in text.split("\n")[:-1]:
                line += 1
                yield piece + "\n"
            if not text.endswith("\n"):
                yield text[text.rfind("\n") + 1:]


def _head(path: Path, limit: int = 65536) -> str:
    with path.open(encoding="utf-8-sig", errors="replace") as fh:
        return fh.read(limit)


def iter_text_parts(
    path: Path, doc_id: str, part_bytes: int = PART_BYTES, *, title: str | None = None
) -> Iterator[Document]:
    """Documents of consecutive parts of the UTF-8 text file ``path`` (see the module doc).

    Ids are ``doc_id#partNNNNN`` (``doc_id`` empty: content-hash ids); every part carries
    the file's title and metadata ``{"source", "part", "offset"}`` (``offset`` = the part's
    first character in the file). Raises :class:`TextDecodeError` (naming the line and the
    byte) for a byte that is not UTF-8 and :class:`OSError` like ``open`` does; the loader
    turns them into one-line errors.
    """
    if part_bytes < 1:
        raise ValueError(f"part size must be positive, got {part_bytes}")
    name = read_title(path, _head(path)) if title is None else title
    buf: list[str] = []
    size = 0
    offset = 0
    n = 0

    def emit() -> Document:
        nonlocal buf, size, offset, n
        n += 1
        text = "".join(buf)
        doc = Document(id=f"{doc_id}#part{n:05d}" if doc_id else "", text=text, title=name,
                       metadata={"source": str(path), "part": n, "offset": offset})
        offset += len(text)
        buf, size = [], 0
        return doc

    for line in utf8_lines(path):
        buf.append(line)
        size += len(line.encode("utf-8"))
        if size >= 2 * part_bytes or (size >= part_bytes and not line.strip()):
            yield emit()
    if buf and "".join(buf).strip():
        yield emit()
