"""UTF-16 and UTF-32 text files that start with a byte-order mark, read as such.

A byte-order mark names its encoding beyond doubt, so such a file is read as text without
an option: Excel's "Unicode Text" export and Windows PowerShell's ``>`` and ``Out-File``
write UTF-16 with one. :func:`bom_codec` tells such a file by its first bytes,
:func:`wide_text` decodes it whole and :func:`wide_lines` a line at a time, as the UTF-8
readers do (``\\r\\n`` and ``\\r`` read as ``\\n``). UTF-16 without a mark (NUL bytes at odd
or at even offsets only: SQL Server's ``bcp -w``, some Windows tools' logs) is refused,
with how to convert it, unless the encoding given is ``"auto"`` (``--encoding auto``): then
:func:`text_codec` reads it in the byte order its NUL bytes show (:func:`unmarked_utf16`), a
guess, logged at INFO level as ``auto``'s other guesses are (:mod:`.legacy`).

Example:
    >>> bom_codec("Athens".encode("utf-16")), bom_codec("Athens".encode("utf-32"))
    ('utf-16', 'utf-32')
    >>> bom_codec("Athens".encode("utf-16-le")) is None
    True
    >>> unmarked_utf16("Athens".encode("utf-16-le")), unmarked_utf16("Athens".encode("utf-16-be"))
    ('utf-16-le', 'utf-16-be')
    >>> wide_text("a.txt", "one\\r\\ntwo".encode("utf-16"), "utf-16")
    'one\\ntwo'
"""

from __future__ import annotations

import codecs
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from .encoding_hint import looks_like_text
from .guards import printable
from .legacy import AUTO, TextDecodeError, log_guess
from .textlines import line_ends

__all__ = ["BOMS", "CJK_HIGHS", "SNIFF_BYTES", "UNMARKED", "bom_codec", "reads_as_text",
           "text_codec", "unmarked_utf16", "wide_lines", "wide_text"]

#: how much of a file is looked at to tell binary data (git's test) and unmarked UTF-16
SNIFF_BYTES = 8000
#: the high bytes of Chinese, Japanese and Korean characters in UTF-16: CJK punctuation,
#: kana, bopomofo and Hangul letters (U+3000-U+31FF), the unified ideographs (U+4E00-U+9FFF),
#: Hangul syllables (U+AC00-U+D7FF) and the full-width forms (U+FF00-U+FFEF)
CJK_HIGHS = frozenset((0x30, 0x31, *range(0x4E, 0xA0), *range(0xAC, 0xD8), 0xFF))
#: :func:`unmarked_utf16`'s codecs and their names in messages (and ``iconv``'s)
UNMARKED = {"utf-16-le": "UTF-16LE", "utf-16-be": "UTF-16BE"}

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


def unmarked_utf16(head: bytes) -> str | None:
    """``"utf-16-le"`` (``"utf-16-be"``) for the first bytes of a file without a byte-order
    mark that read as UTF-16 text in that byte order, else None: NUL bytes at its odd (even)
    offsets, at most one in 8 of them at the others (U+0300, U+0400 ... hold one there), in
    every other character at least (ASCII and most Latin text: each character has one), or
    in one of 16 when three quarters of the other characters are of one 256-character block
    (Greek, Cyrillic, Hebrew, Arabic ... text with spaces, digits and line breaks, which
    hold one); or NUL bytes in two characters at least when three quarters of the others are
    Chinese, Japanese or Korean (:data:`CJK_HIGHS`: a few hundred blocks, whose lines hold
    few ASCII characters, and whose common U+3000 and U+4E00 hold a NUL byte at the other
    offsets); and the bytes decode so to text without control characters."""
    body = head[: len(head) // 2 * 2]
    for codec, highs, lows in zip(UNMARKED, (body[1::2], body[::2]), (body[::2], body[1::2]),
                                  strict=True):
        nuls = highs.count(0)
        alphabetic = 8 * lows.count(0) <= nuls and (2 * nuls >= len(highs) or (
            16 * nuls >= len(highs) and _one_block(highs)))
        cjk = nuls >= 2 and _cjk(highs, lows)  # (U+3000, U+4E00 ... hold a NUL at the lows)
        if nuls and (alphabetic or cjk) and reads_as_text(body, codec):
            return codec
    return None


def reads_as_text(head: bytes, codec: str) -> bool:
    """Whether ``head``, a file's first bytes, decodes as ``codec`` (a byte-order mark
    read by it) to text without control characters nor the noncharacters U+FFFE and U+FFFF
    (LLVM's tests mark a binary file with one; a character cut at its end waits)."""
    try:
        text = codecs.getincrementaldecoder(codec)().decode(head, final=False)
    except UnicodeDecodeError:
        return False
    return looks_like_text(text) and "\uffff" not in text and "\ufffe" not in text


def _one_block(highs: bytes) -> bool:
    """Whether three quarters of the characters whose high bytes are ``highs`` but those
    with a NUL high byte share their high byte (one script's block of 256 code points)."""
    blocks = Counter(b for b in highs if b)
    return bool(blocks) and 4 * blocks.most_common(1)[0][1] >= 3 * blocks.total()


def _cjk(highs: bytes, lows: bytes) -> bool:
    """Whether three quarters of the characters whose high and low bytes are ``highs`` and
    ``lows`` but those with a NUL high byte are Chinese, Japanese or Korean
    (:data:`CJK_HIGHS`), and one in 8 of them at least has a low byte from 0x80 (as about
    a quarter to a half of such text's have; ASCII read in pairs makes "ideographs" of two
    ASCII bytes, ``ab`` U+6261)."""
    others = [(high, low) for high, low in zip(highs, lows, strict=False) if high]
    return bool(others) and 4 * sum(high in CJK_HIGHS for high, _ in others) >= \
        3 * len(others) and 8 * sum(low >= 0x80 for _, low in others) >= len(others)


def text_codec(head: bytes, encoding: str | None, where: str | None = None) -> str | None:
    """The wide codec a file whose first bytes are ``head`` is read in: :func:`bom_codec`'s,
    else (``encoding`` ``"auto"``) :func:`unmarked_utf16`'s, logged as a guess about the
    file ``where`` when given; None for a file read as UTF-8 (or in ``encoding``).

    >>> text_codec("Athens".encode("utf-16-le"), None) is None
    True
    >>> text_codec("Athens".encode("utf-16-le"), "auto")
    'utf-16-le'
    """
    codec = bom_codec(head)
    if codec is None and encoding == AUTO:
        codec = unmarked_utf16(head[:SNIFF_BYTES])
        if codec is not None and where is not None:
            log_guess(where, f"{UNMARKED[codec]} text without a byte-order mark", codec)
    return codec


def _not_wide(where: str, data: bytes, codec: str, exc: UnicodeDecodeError) -> TextDecodeError:
    """The error for ``exc``, raised decoding the file ``where`` (its bytes: ``data``)."""
    head = line_ends(data[:exc.start].decode(codec))  # what is before the bad bytes reads
    why = ("as --encoding auto guessed from its NUL bytes" if codec in UNMARKED
           else "though it starts with that encoding's byte-order mark")
    return TextDecodeError(f"{printable(where)}: not {codec.upper()} text at line "
                           f"{head.count(chr(10)) + 1}, byte {exc.start} ({exc.reason}), {why}")


def wide_text(where: str, data: bytes, codec: str) -> str:
    """``data`` (the bytes of the file ``where``, in ``codec``: :func:`text_codec`'s)
    decoded, the mark dropped, ``\\r\\n`` and ``\\r`` read as ``\\n``; a
    :class:`TextDecodeError` naming the byte that is no such text."""
    try:
        return line_ends(data.decode(codec))
    except UnicodeDecodeError as exc:
        raise _not_wide(where, data, codec, exc) from None


#: the most characters of one line :func:`wide_lines` reads at a time (then cut after a
#: space, as the UTF-8 reader cuts its pieces)
PIECE_CHARS = 32 * 1024


def wide_lines(path: Path, codec: str, *, whole_lines: bool = False) -> Iterator[str]:
    """The lines of the file ``path`` (in ``codec``: :func:`text_codec`'s), each
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
