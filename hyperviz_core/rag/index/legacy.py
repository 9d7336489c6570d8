"""Text files that are not UTF-8, read in the legacy encoding the user names.

Every text file is read as UTF-8. Given an ``encoding`` (``vizrag index --encoding cp1252``,
``load_documents(..., encoding="cp1252")``, the loaders' ``encoding=``), a file that is not
UTF-8 is read in that encoding **from the line holding its first byte that is not UTF-8**:
the lines before it were UTF-8 (plain ASCII, in a file written in one legacy encoding, which
reads the same either way), so a folder of UTF-8 files with a few Windows-1252 ones is read
right with one option, and a UTF-8 file is never misread. A byte that is neither is an error
naming the file, its line and its offset. The encoding must read ASCII as ASCII (Windows-125x,
Latin-N, GBK/GB18030, Big5, Shift_JIS, EUC-JP, EUC-KR, KOI8-R ...): UTF-16 and UTF-32 text is
refused with how to convert it, as without an encoding.

Example:
    >>> fallback_encoding("WINDOWS-1252"), fallback_encoding("utf8"), fallback_encoding(None)
    ('cp1252', None, None)
    >>> decode_text("Café\\n".encode("utf-8") + "Crème brûlée\\n".encode("cp1252"), "cp1252")
    'Café\\nCrème brûlée\\n'
"""

from __future__ import annotations

import codecs

from .guards import printable

__all__ = ["TextDecodeError", "decode_text", "fallback_encoding", "line_start", "neither"]


class TextDecodeError(ValueError):
    """A text file holds bytes that are not UTF-8 (or, given an encoding, neither UTF-8 nor
    it): the message names the file, the line and the byte's offset in the file (``f.txt:
    not UTF-8 text at line 3, byte 41 (...)``)."""


def fallback_encoding(encoding: object) -> str | None:
    """Python's name of the encoding ``encoding`` names (None for None and UTF-8, read
    anyway); a ``ValueError`` naming it when Python knows no such text encoding or it does
    not read ASCII as ASCII (UTF-16, UTF-32), a ``TypeError`` when it is not a string.

    >>> fallback_encoding("Shift_JIS"), fallback_encoding("latin-1")
    ('shift_jis', 'iso8859-1')
    >>> fallback_encoding("utf-16")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: encoding 'utf-16' does not read ASCII as ASCII (UTF-16, UTF-32 ...): ...
    """
    if encoding is None:
        return None
    if not isinstance(encoding, str):
        raise TypeError(f"encoding must be a string such as 'cp1252', not "
                        f"{type(encoding).__name__}")
    try:
        name = codecs.lookup(encoding).name
        ascii_alike = "Ab 1\n\r\t{}".encode(name) == b"Ab 1\n\r\t{}"
    except LookupError:  # unknown, or not a text encoding (base64, rot13 ...)
        raise ValueError(f"unknown text encoding {printable(encoding)!r}: name one Python "
                         "knows, e.g. cp1252, latin-1, gb18030, big5, shift_jis, euc-kr, "
                         "koi8-r") from None
    if name in ("utf-8", "utf-8-sig"):
        return None
    if not ascii_alike:
        raise ValueError(f"encoding {printable(encoding)!r} does not read ASCII as ASCII "
                         "(UTF-16, UTF-32 ...): convert such files to UTF-8 first, e.g. "
                         f"iconv -f {printable(encoding).upper()} -t UTF-8")
    return name


def line_start(data: bytes, end: int) -> int:
    """The offset of the line holding byte ``end`` of ``data`` (after the last ``\\n`` or
    ``\\r`` before it)."""
    return max(data.rfind(b"\n", 0, end), data.rfind(b"\r", 0, end)) + 1


def neither(where: str, data: bytes, exc: UnicodeDecodeError, encoding: str, *,
            line: int = 1, offset: int = 0) -> TextDecodeError:
    """The error for ``exc`` raised decoding ``data`` (which starts at byte ``offset``, on
    line ``line`` of the file ``where``) in ``encoding``."""
    head = data[:exc.start]
    at = line + head.count(b"\n") + head.count(b"\r") - head.count(b"\r\n")
    return TextDecodeError(f"{printable(where)}: neither UTF-8 nor {encoding} text at line "
                             f"{at}, byte {offset + exc.start} ({exc.reason})")


def decode_text(data: bytes, encoding: str, *, where: str = "<text>") -> str:
    """``data`` as UTF-8 (a leading BOM dropped), from the line holding its first byte that
    is not UTF-8 on in ``encoding`` (a name :func:`fallback_encoding` gave); a
    :class:`TextDecodeError` naming ``where`` for a byte that is neither."""
    skip = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        start = max(skip, line_start(data, skip + exc.start))
    head = data[skip:start].decode("utf-8")  # the lines before the first bad byte's
    try:
        return head + data[start:].decode(encoding)
    except UnicodeDecodeError as exc:
        raise neither(where, data[start:], exc, encoding, offset=start,
                      line=1 + head.count("\n") + head.count("\r") - head.count("\r\n")) from None
