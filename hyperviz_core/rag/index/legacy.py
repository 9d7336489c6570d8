"""Text files that are not UTF-8, read in the legacy encoding the user names.

Every text file is read as UTF-8. Given an ``encoding`` (``vizrag index --encoding cp1252``,
``load_documents(..., encoding="cp1252")``, the loaders' ``encoding=``), a file that is not
UTF-8 is read in that encoding **from the line holding its first byte that is not UTF-8**:
the lines before it were UTF-8 (plain ASCII, in a file written in one legacy encoding, which
reads the same either way), so a folder of UTF-8 files with a few Windows-1252 ones is read
right with one option, and a UTF-8 file is never misread. A byte that is neither is an error
naming the file, its line and its offset. The encoding must read ASCII as ASCII (Windows-125x,
Latin-N, GBK/GB18030, Big5, Shift_JIS, EUC-JP, EUC-KR, KOI8-R ...): UTF-16 and UTF-32 as
the encoding are refused (with a byte-order mark such text is read anyway:
:mod:`.widetext`). ``"auto"`` reads each such file in
the encoding its bytes (up to 64 KiB from that line on) read as plausible text in — the one
the error's hint would name (:func:`~.encoding_hint.guessed_encoding`: GBK/GB18030, Big5,
Shift_JIS, EUC-JP, EUC-KR, Johab, Windows-874 (Thai), Windows-1251/1253/1255/1256,
ISO-8859-6, KOI8-R, KOI8-U, Mac Cyrillic, ISO-8859-7, else Windows-1252, Windows-1250,
ISO-8859-2 or Windows-1254 for European Latin text, else CP866, CP855, ISO-8859-5 or Mac
Cyrillic) — a guess, logged at INFO level; bytes it names none for are an error. It also
reads UTF-16 without a byte-order mark, in the byte order its NUL bytes show
(:func:`~.widetext.text_codec`).

Example:
    >>> fallback_encoding("WINDOWS-1252"), fallback_encoding("utf8"), fallback_encoding(None)
    ('cp1252', None, None)
    >>> decode_text("Café\\n".encode("utf-8") + "Crème brûlée\\n".encode("cp1252"), "cp1252")
    'Café\\nCrème brûlée\\n'
"""

from __future__ import annotations

import codecs
import logging
from typing import BinaryIO

from .encoding_hint import guessed_encoding
from .guards import printable
from .textlines import line_of, line_start

__all__ = ["AUTO", "LineDecoder", "TextDecodeError", "codepage_codec", "decode_text",
           "fallback_encoding",
           "guess_from", "log_guess", "neither"]

#: the ``encoding`` that guesses each file's (:func:`guess_from`)
AUTO = "auto"
_log = logging.getLogger(__name__)


class TextDecodeError(ValueError):
    """A text file holds bytes that are not UTF-8 (or, given an encoding, neither UTF-8 nor
    it): the message names the file, the line and the byte's offset in the file (``f.txt:
    not UTF-8 text at line 3, byte 41 (...)``)."""


#: ASCII that a text encoding which reads ASCII as ASCII writes as itself
_PROBE = "Ab 1\n\r\t{}"


def fallback_encoding(encoding: object) -> str | None:
    """Python's name of the encoding ``encoding`` names (None for None and UTF-8, read
    anyway); a ``ValueError`` naming it when Python knows no such text encoding or it does
    not read ASCII as ASCII (UTF-16, UTF-32), a ``TypeError`` when it is not a string.

    >>> fallback_encoding("Shift_JIS"), fallback_encoding("latin-1"), fallback_encoding("AUTO")
    ('shift_jis', 'iso8859-1', 'auto')
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
    if encoding.strip().lower() == AUTO:
        return AUTO
    try:
        name = codecs.lookup(encoding).name
        ascii_alike = _PROBE.encode(name) == _PROBE.encode()
    except LookupError:  # unknown, or not a text encoding (base64, rot13 ...)
        raise ValueError(f"unknown text encoding {printable(encoding)!r}: name one Python "
                         "knows, e.g. cp1252, latin-1, gb18030, big5, shift_jis, euc-kr, "
                         "koi8-r") from None
    if name in ("utf-8", "utf-8-sig"):
        return None
    if not ascii_alike:
        raise ValueError(f"encoding {printable(encoding)!r} does not read ASCII as ASCII "
                         "(UTF-16, UTF-32 ...): such text is read with no option when it "
                         "starts with a byte-order mark, UTF-16 without one with --encoding "
                         "auto (encoding='auto' in Python); or convert such files to UTF-8 "
                         f"first, e.g. iconv -f {printable(encoding).upper()} -t UTF-8")
    return name


def declared_codec(label: str, *, ascii_alike: bool = True) -> str | None:
    """Python's name of the text encoding a document or message declares (``label``), or
    None: one Python does not know, no text encoding (``base64``, ``rot13``, ``zlib``:
    byte transforms), Python's own ``unicode_escape`` and the like (which would read a
    backslash as an escape), and with ``ascii_alike`` one that does not read ASCII as ASCII
    (UTF-16, UTF-32).

    >>> declared_codec("Windows-1252"), declared_codec("base64"), declared_codec("utf-16")
    ('cp1252', None, None)
    >>> declared_codec("utf-16", ascii_alike=False), declared_codec("unicode_escape")
    ('utf-16', None)
    """
    try:
        name = codecs.lookup(label).name
        probe = _PROBE.encode(name)
        probe.decode(name)  # (``undefined`` and the like fail here)
    except (LookupError, ValueError, UnicodeError):  # (ValueError: a NUL in the name)
        return None
    if "escape" in name or name in ("idna", "punycode") or (
            ascii_alike and probe != _PROBE.encode()):
        return None
    return name


def codepage_codec(number: int | None) -> str | None:
    """Python's codec of the Windows code page ``number`` a file declares (``cp1252``;
    65001: ``utf-8``), None when Python knows none (:func:`declared_codec` of ``cpNNN``;
    EBCDIC ones too).

    >>> codepage_codec(1251), codepage_codec(65001), codepage_codec(7), codepage_codec(None)
    ('cp1251', 'utf-8', None, None)
    """
    return declared_codec(f"cp{number}", ascii_alike=False) if number else None


def neither(where: str, data: bytes, exc: UnicodeDecodeError, encoding: str, *,
            line: int = 1, offset: int = 0) -> TextDecodeError:
    """The error for ``exc`` raised decoding ``data`` (which starts at byte ``offset``, on
    line ``line`` of the file ``where``) in ``encoding``."""
    at = line - 1 + line_of(data, exc.start)
    return TextDecodeError(f"{printable(where)}: neither UTF-8 nor {encoding} text at line "
                             f"{at}, byte {offset + exc.start} ({exc.reason})")


def guess_from(where: str, sample: bytes, exc: UnicodeDecodeError, *, line: int = 1,
               offset: int = 0) -> str:
    """The encoding ``--encoding auto`` reads the file ``where`` in from the line at byte
    ``offset`` (line ``line``) on, guessed from ``sample``, the bytes from there (``exc``:
    the UTF-8 error in them); a :class:`TextDecodeError` when no guess fits."""
    codec = guessed_encoding(sample)
    if codec is None:
        at = line - 1 + line_of(sample, exc.start)
        raise TextDecodeError(f"{printable(where)}: not UTF-8 text at line {at}, byte "
                              f"{offset + exc.start} ({exc.reason}), and no encoding "
                              "--encoding auto knows reads it as plausible text: name its "
                              "encoding (--encoding ENC, encoding= in Python) or convert it "
                              "to UTF-8")
    log_guess(where, f"not UTF-8 from line {line} on", codec)
    return codec


def log_guess(where: str, what: str, codec: str) -> None:
    """Log (INFO) that ``--encoding auto`` reads the file ``where``, ``what`` it looked
    like, in ``codec``: ``f.txt: not UTF-8 from line 3 on: read as cp1252 (guessed)``."""
    _log.info("%s: %s: read as %s (guessed)", where, what, codec)


def decode_text(data: bytes, encoding: str, *, where: str = "<text>") -> str:
    """``data`` as UTF-8 (a leading BOM dropped), from the line holding its first byte that
    is not UTF-8 on in ``encoding`` (a name :func:`fallback_encoding` gave; ``"auto"``: the
    one :func:`guess_from` guesses); a :class:`TextDecodeError` naming ``where`` for a byte
    that is neither."""
    skip = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        start = max(skip, line_start(data, skip + exc.start))
    head = data[skip:start].decode("utf-8")  # the lines before the first bad byte's
    return head + LineDecoder(where, encoding).decode(
        data[start:], line=line_of(data, start), offset=start, final=True)


class LineDecoder:
    """The lines (or pieces of lines) of the file ``where``, read one after another: UTF-8,
    and from the first that is not on in ``encoding`` (a name :func:`fallback_encoding`
    gave; ``"auto"``: :func:`guess_from`, from the bytes ahead), as one stream, so that a
    character cut between two pieces decodes whole. Without an encoding, a piece that is
    not UTF-8 raises its ``UnicodeDecodeError`` (the caller names it)."""

    def __init__(self, where: str, encoding: str | None) -> None:
        self.where, self.encoding = where, encoding
        self._legacy: codecs.IncrementalDecoder | None = None

    def decode(self, raw: bytes, *, line: int, offset: int, ahead: BinaryIO | None = None,
               final: bool = False) -> str:
        """``raw`` (which starts at byte ``offset``, on line ``line``) decoded; ``ahead``:
        the file, read on to guess from (and put back); ``final``: ``raw`` ends the file (a
        character cut at its end is an error, as :meth:`finish` makes it)."""
        if self._legacy is None:
            try:
                return raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                if self.encoding is None:
                    raise
                if self.encoding == AUTO:  # guessed from the bytes from this line on
                    sample = raw
                    if ahead is not None:
                        back = ahead.tell()
                        sample += ahead.read(1 << 16)
                        ahead.seek(back)
                    self.encoding = guess_from(self.where, sample, exc, line=line,
                                               offset=offset)
                self._legacy = codecs.getincrementaldecoder(self.encoding)()
        try:
            return self._legacy.decode(raw, final)
        except UnicodeDecodeError as exc:
            raise neither(self.where, raw, exc, str(self.encoding), line=line,
                          offset=offset) from None

    def finish(self, *, line: int, offset: int) -> None:
        """At the end of the file: a :class:`TextDecodeError` for a character cut there."""
        if self._legacy is None:
            return
        try:
            self._legacy.decode(b"", final=True)
        except UnicodeDecodeError as exc:
            raise neither(self.where, b"", exc, str(self.encoding), line=line,
                          offset=offset) from None
