"""Read a large text file incrementally as consecutive *part* documents.

A text file bigger than ``part_bytes`` is never held in memory whole: it is read line by
line (a line over :data:`PIECE_BYTES` in pieces cut after a space) and cut at paragraph
breaks (a blank line; at the next line end, or piece end, once a part reaches twice the size
without one) into documents ``<id>#part00001``, ``<id>#part00002``, ... that
are indexed, committed and released one after another. Each part is its own transaction, so
an interrupted run resumes at the first part not yet stored. A file of at most
``part_bytes`` stays one document with the plain id, exactly as before. Front matter at the
top of the file (:func:`~.titles.front_matter`) gives the title and is in no part.

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
import io
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from ..types import Document
from .encoding_hint import convert_hint, looks_like_text
from .guards import printable
from .legacy import LineDecoder, TextDecodeError
from .textlines import line_ends, line_of
from .titles import FRONT_MATTER_CHARS, TITLE_LINES, front_matter, read_title
from .widetext import SNIFF_BYTES, bom_codec, text_codec, wide_lines

__all__ = ["PART_BYTES", "PIECE_BYTES", "TITLE_LINES", "TextDecodeError", "convert_hint",
           "iter_text_parts", "line_ends", "looks_like_text", "not_utf8", "part_id",
           "read_title", "utf8_lines"]

#: default size of one part of a large text file (bytes of UTF-8)
PART_BYTES = 256 * 1024



def not_utf8(path: Path, data: bytes, exc: UnicodeDecodeError, *, line: int = 1,
             offset: int = 0) -> TextDecodeError:
    """The error for ``exc`` raised decoding ``data``, which starts at byte ``offset`` and
    on line ``line`` of ``path``."""
    return TextDecodeError(f"{printable(str(path))}: not UTF-8 text at line "
                           f"{line - 1 + line_of(data, exc.start)}, byte {offset + exc.start} "
                           f"({exc.reason}); {convert_hint(data)}")


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


def utf8_lines(path: Path, *, whole_lines: bool = False,
               encoding: str | None = None) -> Iterator[str]:
    """The lines of the UTF-8 file ``path`` exactly as text mode reads them (a leading BOM
    dropped, ``\\r\\n`` and a lone ``\\r`` read as ``\\n``), decoded one line at a time, so
    that a byte that is not UTF-8 raises a :class:`TextDecodeError` naming its line and its
    offset in the file. A line longer than :data:`PIECE_BYTES` comes in pieces (their
    concatenation is the line), unless ``whole_lines``: then every line comes whole, whatever
    its length (JSONL: one record a line). ``encoding`` (a name
    :func:`~.legacy.fallback_encoding` gave): from the first line that is not UTF-8 on, the
    file is read in it (:mod:`.legacy`). A file that starts with UTF-16's or UTF-32's
    byte-order mark is read as such (:func:`~.widetext.wide_lines`), and with ``"auto"``
    UTF-16 without one (:func:`~.widetext.text_codec`)."""
    with path.open("rb") as fh:
        wide = text_codec(fh.read(SNIFF_BYTES), encoding, str(path))
        if wide is None:
            fh.seek(0)
            yield from _byte_lines(path, fh, -1 if whole_lines else PIECE_BYTES,
                                   LineDecoder(str(path), encoding))
            return
    yield from wide_lines(path, wide, whole_lines=whole_lines)


def _byte_lines(path: Path, fh: BinaryIO, limit: int, decoder: LineDecoder) -> Iterator[str]:
    """:func:`utf8_lines` of a file read as bytes (``fh``, open on ``path``): lines of up
    to ``limit`` bytes (-1: whole), each decoded by ``decoder``."""
    offset, line = 0, 1
    kept = b""
    while True:
        chunk = fh.readline(limit)
        raw, kept = kept + chunk, b""
        if not raw:
            decoder.finish(line=line, offset=offset)
            return
        if len(chunk) == limit and not raw.endswith(b"\n"):  # the line goes on
            raw, kept = _cut_piece(raw)
            if not raw:
                continue
        skip = len(codecs.BOM_UTF8) if offset == 0 and raw.startswith(codecs.BOM_UTF8) else 0
        try:
            text = decoder.decode(raw[skip:], line=line, offset=offset + skip, ahead=fh)
        except UnicodeDecodeError as exc:  # not UTF-8, and no encoding given
            raise not_utf8(path, raw[skip:], exc, line=line, offset=offset + skip) from None
        offset += len(raw)
        if "\r" not in text:
            line += text.endswith("\n")
            yield text
            continue
        text = line_ends(text)
        for piece in text.split("\n")[:-1]:
            line += 1
            yield piece + "\n"
        if not text.endswith("\n"):
            yield text[text.rfind("\n") + 1:]


def _head(path: Path, limit: int = FRONT_MATTER_CHARS, encoding: str | None = None) -> str:
    if encoding is None:  # the file opened once: its mark peeked at, then read as text
        with path.open("rb") as raw:
            wide = bom_codec(raw.read(4))
            raw.seek(0)
            with io.TextIOWrapper(raw, encoding=wide or "utf-8-sig", errors="replace") as fh:
                return fh.read(limit)
    head = ""  # read as the body is (a byte neither reads as is the body's error)
    for piece in utf8_lines(path, encoding=encoding):
        head += piece
        if len(head) >= limit:
            break
    return head[:limit]


def part_id(doc_id: str, n: int) -> str:
    """The id of part ``n`` (from 1) of the text file indexed as ``doc_id``.

    >>> part_id("novel", 3)
    'novel#part00003'
    """
    return f"{doc_id}#part{n:05d}"


def iter_text_parts(
    path: Path, doc_id: str, part_bytes: int = PART_BYTES, *, title: str | None = None,
    encoding: str | None = None,
) -> Iterator[Document]:
    """Documents of consecutive parts of the UTF-8 text file ``path`` (see the module doc).

    Ids are ``doc_id#partNNNNN`` (``doc_id`` empty: content-hash ids); every part carries
    the file's title (:func:`~.titles.read_title`) and metadata ``{"source", "part",
    "offset"}``. The file's front matter (:func:`~.titles.front_matter`) is in no part;
    ``offset`` is where the part's text starts in the file's text as read in text mode (a
    leading BOM dropped, line ends as ``\\n``), in characters: the front matter counts, so
    part 1 of a file with front matter starts at its length. Raises
    :class:`TextDecodeError` (naming the line and the byte) for a byte that is not UTF-8 and
    :class:`OSError` like ``open`` does; the loader turns them into one-line errors.
    ``encoding``: what a file that is not UTF-8 is read in (:mod:`.legacy`).
    """
    if part_bytes < 1:
        raise ValueError(f"part size must be positive, got {part_bytes}")
    head = _head(path, encoding=encoding)
    name = read_title(path, head) if title is None else title
    skip = front_matter(head, path.suffix).length
    buf: list[str] = []
    size = 0
    offset = skip
    n = 0

    def emit() -> Document:
        nonlocal buf, size, offset, n
        n += 1
        text = "".join(buf)
        doc = Document(id=part_id(doc_id, n) if doc_id else "", text=text, title=name,
                       metadata={"source": str(path), "part": n, "offset": offset})
        offset += len(text)
        buf, size = [], 0
        return doc

    for line in utf8_lines(path, encoding=encoding):
        if skip:  # the front matter: whole lines
            cut = min(skip, len(line))
            skip -= cut
            line = line[cut:]
            if not line:
                continue
        buf.append(line)
        size += len(line.encode("utf-8"))
        if size >= 2 * part_bytes or (size >= part_bytes and not line.strip()):
            yield emit()
    if buf and "".join(buf).strip():
        yield emit()
