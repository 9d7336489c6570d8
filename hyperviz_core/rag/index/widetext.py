"""UTF-16 and UTF-32 text files that start with a byte-order mark, read as such.

A byte-order mark names its encoding beyond doubt, so such a file is read as text without
an option: Excel's "Unicode Text" export and Windows PowerShell's ``>`` and ``Out-File``
write UTF-16 with one. :func:`bom_codec` tells such a file by its first bytes,
:func:`wide_text` decodes it whole and :func:`wide_lines` a line at a time, as the UTF-8
readers do (``\\r\\n`` and ``\\r`` read as ``\\n``). UTF-16 without a mark (every other byte
NUL) is still refused, with how to convert it: without the mark its byte order is a guess.

Example:
    >>> bom_codec("Athens".encode("utf-16")), bom_codec("Athens".encode("utf-32"))
    ('utf-16', 'utf-32')
    >>> bom_codec("Athens".encode("utf-16-le")) is None
    True
    >>> wide_text("a.txt", "one\\r\\ntwo".encode("utf-16"), "utf-16")
    'one\\ntwo'
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from pathlib import Path

from .guards import printable
from .legacy import TextDecodeError
from .textlines import line_ends

__all__ = ["BOMS", "bom_codec", "wide_lines", "wide_text"]

#: (byte-order mark, encoding): UTF-32's first, since UTF-32 LE's mark starts as UTF-16 LE's
BOMS = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
        (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16"))


def bom_codec(head: bytes) -> str | None:
    """``"utf-16"`` or ``"utf-32"`` (Python's codecs, which read the mark and drop it) for
    bytes that start with their byte-order mark; None otherwise."""
    for bom, name in BOMS:
        if head.startswith(bom):
            return name.lower()
    return None


def _not_wide(where: str, data: bytes, codec: str, exc: UnicodeDecodeError) -> TextDecodeError:
    """The error for ``exc``, raised decoding the file ``where`` (its bytes: ``data``)."""
    head = line_ends(data[:exc.start].decode(codec))  # what is before the bad bytes reads
    return TextDecodeError(f"{printable(where)}: not {codec.upper()} text at line "
                           f"{head.count(chr(10)) + 1}, byte {exc.start} ({exc.reason}), "
                           "though it starts with that encoding's byte-order mark")


def wide_text(where: str, data: bytes, codec: str) -> str:
    """``data`` (the bytes of the file ``where``, which start with ``codec``'s byte-order
    mark) decoded, the mark dropped, ``\\r\\n`` and ``\\r`` read as ``\\n``; a
    :class:`TextDecodeError` naming the byte that is no such text."""
    try:
        return line_ends(data.decode(codec))
    except UnicodeDecodeError as exc:
        raise _not_wide(where, data, codec, exc) from None


#: the most characters of one line :func:`wide_lines` reads at a time (then cut after a
#: space, as the UTF-8 reader cuts its pieces)
PIECE_CHARS = 32 * 1024


def wide_lines(path: Path, codec: str, *, whole_lines: bool = False) -> Iterator[str]:
    """The lines of the file ``path`` (which starts with ``codec``'s byte-order mark), each
    with its ``\\n`` (``\\r\\n`` and ``\\r`` read as ``\\n``); a line longer than
    :data:`PIECE_CHARS` in pieces cut after a space or tab, unless ``whole_lines``."""
    kept = ""
    limit = -1 if whole_lines else PIECE_CHARS
    with path.open(encoding=codec, newline=None) as fh:
        while True:
            try:
                text = kept + fh.readline(max(1, limit - len(kept)) if limit > 0 else -1)
            except UnicodeDecodeError:  # (read ahead in blocks: where is told from the bytes)
                data = path.read_bytes()
                try:
                    data.decode(codec)
                except UnicodeDecodeError as exc:
                    raise _not_wide(str(path), data, codec, exc) from None
                raise
            if text == kept:  # the end of the file
                if kept:
                    yield kept
                return
            kept = ""
            if len(text) >= limit > 0 and not text.endswith("\n"):  # the line goes on
                cut = max(text.rfind(" "), text.rfind("\t")) + 1
                if cut:
                    text, kept = text[:cut], text[cut:]
            yield text
