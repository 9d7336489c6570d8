"""Unwrapping Outlook's TNEF attachments (``winmail.dat``, ``application/ms-tnef``; the
format MS-OXTNEF describes), with no extra.

Outlook and Exchange may send a message's attachments, and its formatted body, wrapped in
one ``winmail.dat`` part that other mail clients show as a file of that name. An ``.eml``
or ``.mbox`` message (:mod:`.mails`) reads the files inside it as its own attachments
(named in ``attachments``, read after the body as any attachment is), and, when the message
has no body of its own, the body it wraps: the plain-text one, else the HTML one read as a
page is, else the text its compressed RTF shows (that one with the ``msg`` extra, as an
Outlook ``.msg`` file's: :func:`~.outlook.rtf_body`). A part is TNEF when it starts with the
format's signature and is typed ``application/ms-tnef`` (or ``vnd.ms-tnef``) or named
``winmail.dat``. A message attached inside it as an Outlook item (Outlook's "Forward as
attachment") reads as an Outlook ``.msg`` file's does: ``Attachment: name.eml``, then its
subject, its ``From``/``To``/``Cc``/``Date`` lines and its body (its own attachments are not
read).

The stream is read here, every length checked against the bytes there are: tnefparse, the
Python library for it, loops as many times as a damaged count says (four billion times for
four bytes changed), so a crafted ``winmail.dat`` would hang the indexing. A stream cut short
is read as far as its attributes are whole, and says so (:attr:`Unwrapped.unread`); fewer than
11 stray bytes after the last are ignored; checksums are not checked (the files inside are
read by their own readers, which refuse damaged ones). One whose first attribute is not whole
is a :class:`~.errors.LoaderError` naming the part. Nothing in it is run.

Example:
    >>> is_tnef("application/ms-tnef", "winmail.dat", b"x\\x9f>\\"\\x00\\x00")
    True
    >>> is_tnef("application/octet-stream", "report.dat", b"x\\x9f>\\"\\x00\\x00")
    False
"""

from __future__ import annotations

import email.utils
import struct
from collections.abc import Iterator
from typing import NamedTuple

from .errors import LoaderError
from .guards import printable
from .htmlpages import page_charset
from .legacy import codepage_codec
from .outlook import filetime, forwarded_eml, outlook_body, shown_address

__all__ = ["TNEF_SIGNATURE", "TNEF_TYPES", "Unwrapped", "is_tnef", "unwrapped"]

#: the first four bytes of every TNEF stream (0x223E9F78, little-endian)
TNEF_SIGNATURE = b"\x78\x9f\x3e\x22"
#: the content types a TNEF part is sent as
TNEF_TYPES = frozenset({"application/ms-tnef", "application/vnd.ms-tnef"})
#: the name Outlook gives the part
_NAME = "winmail.dat"
#: TNEF attributes (the low 16 bits of their ids): the message's code page, its plain body
#: (8-bit) and MAPI properties; an attachment's start, title, bytes and MAPI properties
_CODEPAGE, _BODY, _PROPS = 0x9007, 0x800C, 0x9003
_START, _TITLE, _DATA, _ATTACHMENT = 0x9002, 0x8010, 0x800F, 0x9005
#: MAPI properties: the plain, HTML and compressed RTF bodies, the code page of the HTML
#: one; an attachment's long and short file names, shown name and bytes
_PLAIN, _HTML, _RTF, _INTERNET_CODEPAGE = 0x1000, 0x1013, 0x1009, 0x3FDE
_LONG_NAME, _SHORT_NAME, _SHOWN_NAME, _ATTACHED = 0x3707, 0x3704, 0x3001, 0x3701
#: MAPI properties of a message's headers: its subject, sender's name, SMTP and other
#: address, shown To and Cc lists, when it was sent, its id; the TNEF subject attribute
_SUBJECT, _SENDER, _SENDER_SMTP, _SENDER_ADDRESS = 0x0037, 0x0C1A, 0x5D01, 0x0C1F
_SHOWN_TO, _SHOWN_CC, _SENT, _MESSAGE_ID = 0x0E04, 0x0E03, 0x0039, 0x1035
_TNEF_SUBJECT = 0x8004
#: MAPI property types of a fixed size (bytes; 2-byte ones padded to 4 in all)
_FIXED = {0x0002: 2, 0x000B: 2, 0x0003: 4, 0x0004: 4, 0x000A: 4, 0x0005: 8, 0x0006: 8,
          0x0007: 8, 0x0014: 8, 0x0040: 8, 0x0048: 16}
#: MAPI property types of values that carry their length: 8-bit and UTF-16 strings,
#: binary, an object (unspecified: as binary)
_STRING8, _UNICODE, _BINARY, _OBJECT = 0x001E, 0x001F, 0x0102, 0x000D
#: a MAPI date (FILETIME), one of the fixed types
_SYSTIME = 0x0040
_SIZED = frozenset({0x0000, _STRING8, _UNICODE, _BINARY, _OBJECT})
_MULTIPLE, _NAMED = 0x1000, 0x8000
#: the interface an attached message is stored as (IID_IMessage)
_MESSAGE = bytes.fromhex("0703020000000000c000000000000046")


class Unwrapped(NamedTuple):
    """What a TNEF wrapper holds: the body it wraps, as shown (``""`` when none), the file
    names of its attachments, (name, bytes) of those that hold bytes, and ``name: why`` of
    what was not read: the rest of a stream cut short, a damaged RTF body, or one read
    without the ``msg`` extra."""

    body: str
    files: list[str]
    attached: list[tuple[str, bytes]]
    unread: list[str]


def is_tnef(content_type: str, name: str, data: bytes) -> bool:
    """Whether a message part (its content type, file name and bytes) is a TNEF wrapper."""
    return data[:4] == TNEF_SIGNATURE and (content_type.lower() in TNEF_TYPES
                                           or name.strip().lower() == _NAME)


def _attributes(data: bytes) -> Iterator[tuple[int, int, bytes, int]]:
    """(level, attribute, value, where it ends) of each whole attribute of a TNEF stream
    (after the 6-byte signature and key: its level, 1 or 2, its 4-byte id, a 4-byte length,
    that many bytes and a 2-byte checksum), up to the first that is not."""
    at = 6
    while len(data) - at >= 11:
        level, ident, size = struct.unpack_from("<BII", data, at)
        if level not in (1, 2) or at + 11 + size > len(data):
            return
        yield level, ident & 0xFFFF, data[at + 9:at + 9 + size], at + 11 + size
        at += 11 + size


def _properties(data: bytes) -> dict[int, tuple[int, bytes]]:
    """MAPI property id → (type, its first value's bytes) of a property list, as far as it
    reads whole: a count, then each property's type and id, its name when it is a named one,
    and its values (a multi-valued one's, and a sized one's, after their count; each sized
    value after its length; each padded to 4 bytes, 2-byte ones together)."""
    out: dict[int, tuple[int, bytes]] = {}
    at, end = 0, len(data)

    def take(size: int) -> bytes:  # (each turn of a loop below takes 2 bytes or more,
        # and past the end raises: a count past the bytes there are ends its loop)
        nonlocal at
        if at + size > end:
            raise IndexError
        at += size
        return data[at - size:at]

    def number() -> int:
        return int(struct.unpack("<I", take(4))[0])

    try:
        for _ in range(number()):
            kind, ident = struct.unpack("<HH", take(4))
            if ident >= _NAMED:  # a named property: its set's GUID, then its number or name
                take(16)
                if number():  # a name: its length, then its UTF-16 letters
                    size = number()
                    take(size + -size % 4)
                else:  # a number
                    take(4)
            multiple, kind = kind & _MULTIPLE, kind & ~_MULTIPLE
            count = number() if multiple or kind in _SIZED else 1
            values: list[bytes] = []
            if kind in _FIXED:
                values = [take(_FIXED[kind]) for _ in range(count)]
                take(-(_FIXED[kind] * count) % 4)
            elif kind in _SIZED:
                for _ in range(count):
                    size = number()
                    values.append(take(size + -size % 4)[:size])
            else:  # a type not known: where the next property starts is not either
                break
            if values:
                out.setdefault(ident, (kind, values[0]))
    except (IndexError, struct.error):
        pass  # cut short: the properties before
    return out


def _text(kind: int, value: bytes, codec: str) -> str:
    """A string property's text (8-bit ones in ``codec``), up to its NUL."""
    text = value.decode("utf-16-le" if kind == _UNICODE else codec, "replace")
    return text.split("\x00", 1)[0]


def _html(value: bytes, codec: str | None) -> str:
    """An HTML body's text: in the code page the message gives it, else its ``<meta>``
    charset, else UTF-8."""
    return value.decode(codec or page_charset(value[:4096]) or "utf-8", "replace").split(
        "\x00", 1)[0]


def _packed(value: bytes) -> bytes:
    """A compressed RTF body cut or padded to the size its header declares (its first four
    bytes, little-endian, count the bytes after them): some writers leave its last bytes out
    when they are NUL (a few bytes at most are padded back)."""
    if len(value) < 16:
        return value
    size = int.from_bytes(value[:4], "little") + 4
    return value[:size].ljust(size, b"\x00") if size <= len(value) + 3 else value


def _string(props: dict[int, tuple[int, bytes]], ident: int, codec: str) -> str:
    """The text of the string property ``ident`` (``""`` when there is none)."""
    kind, value = props.get(ident, (_BINARY, b""))
    return _text(kind, value, codec) if kind in (_STRING8, _UNICODE) else ""


class _Attachment:
    """What the attributes of one attachment say: its names and bytes."""

    def __init__(self) -> None:
        self.title = ""
        self.data = b""
        self.props: dict[int, tuple[int, bytes]] = {}

    def name(self, codec: str) -> str:
        """Its file name: the long one, else the short one, its title, the one shown."""
        names = (_string(self.props, prop, codec).strip() for prop in (_LONG_NAME, _SHORT_NAME))
        return next((n for n in names if n), "") or self.title or _string(
            self.props, _SHOWN_NAME, codec).strip()

    def contents(self) -> tuple[bytes, bool]:
        """(its bytes, an object's after its interface id; whether they are a message
        attached, an Outlook item: a TNEF stream itself)."""
        kind, value = self.props.get(_ATTACHED, (_BINARY, self.data))
        if kind == _OBJECT:
            return value[16:], value[:16] == _MESSAGE
        return value, False


def _body(message: dict[int, tuple[int, bytes]], plain: bytes, codec: str, name: str) -> str:
    """The body shown of a message with the MAPI properties ``message`` and the 8-bit body
    attribute ``plain``: the plain-text body, else the HTML one's text, else the RTF one's."""
    kind, html = message.get(_HTML, (_BINARY, b""))
    web = message.get(_INTERNET_CODEPAGE, (0, b""))[1]
    page = _text(kind, html, codec) if kind in (_STRING8, _UNICODE) else _html(
        html, codepage_codec(struct.unpack_from("<i", web)[0]) if len(web) == 4 else None)
    return outlook_body(
        _string(message, _PLAIN, codec) or _text(_STRING8, plain, codec),
        page, _packed(message.get(_RTF, (0, b""))[1]), name)


class _Stream:
    """What the whole attributes of a TNEF stream say (:func:`_attributes`): its code page,
    8-bit body and subject attributes, message properties and attachments, and where its
    last whole attribute ends (6: none is whole)."""

    def __init__(self, data: bytes) -> None:
        self.codec, self.end, self.plain, self.subject = "cp1252", 6, b"", b""
        self.message: dict[int, tuple[int, bytes]] = {}
        self.attachments: list[_Attachment] = []
        for level, attribute, value, stop in _attributes(data):
            self.end = stop
            if level == 1:
                self._message(attribute, value)
                continue
            if attribute == _START or not self.attachments:
                self.attachments.append(_Attachment())
            if attribute == _TITLE:
                self.attachments[-1].title = _text(_STRING8, value, self.codec)
            elif attribute == _DATA:
                self.attachments[-1].data = value
            elif attribute == _ATTACHMENT:
                self.attachments[-1].props = _properties(value)

    def _message(self, attribute: int, value: bytes) -> None:
        if attribute == _CODEPAGE and len(value) >= 4:
            self.codec = codepage_codec(struct.unpack_from("<I", value)[0]) or self.codec
        elif attribute == _BODY:
            self.plain = value
        elif attribute == _TNEF_SUBJECT:
            self.subject = value
        elif attribute == _PROPS:
            self.message = _properties(value)

    def body(self, name: str) -> str:
        """The body shown (:func:`_body`; damaged: a :class:`LoaderError` naming ``name``)."""
        return _body(self.message, self.plain, self.codec, name)

    def headers(self) -> dict[str, str]:
        """The message's headers, as an Outlook ``.msg`` file's read."""
        props, codec = self.message, self.codec

        def line(ident: int) -> str:
            return " ".join(_string(props, ident, codec).split())

        kind, sent = props.get(_SENT, (0, b""))
        when = filetime(struct.unpack("<Q", sent)[0]) if kind == _SYSTIME and len(
            sent) == 8 else None
        return {"Subject": line(_SUBJECT) or " ".join(_text(_STRING8, self.subject,
                                                            codec).split()),
                "From": shown_address(line(_SENDER), line(_SENDER_SMTP),
                                      line(_SENDER_ADDRESS)),
                "To": line(_SHOWN_TO), "Cc": line(_SHOWN_CC),
                "Date": email.utils.format_datetime(when) if when else "",
                "Message-ID": line(_MESSAGE_ID)}


def _forwarded(data: bytes, name: str) -> tuple[bytes, list[str]]:
    """A message attached inside a TNEF stream (an Outlook item: a TNEF stream itself) as
    the ``.eml`` bytes of its headers and body (:func:`~.outlook.forwarded_eml`; its own
    attachments are not read), and ``name: why`` when its body could not be read."""
    inner = _Stream(data)
    body, whys = "", []
    try:
        body = inner.body(name)
    except LoaderError as exc:
        whys.append(str(exc))
    return forwarded_eml(inner.headers(), body), whys


def unwrapped(data: bytes, name: str = _NAME, *, body: bool = True) -> Unwrapped:
    """The body and attachments the TNEF stream ``data`` (the part named ``name``) wraps
    (see the module's docs); its body is left unread (``""``) when ``body`` is false."""
    shown = printable(name)
    stream = _Stream(data)
    if stream.end == 6:
        raise LoaderError(f"{shown}: damaged (not read as TNEF: its first attribute is not "
                          "whole)")
    end = stream.end
    unread = [f"{shown}: damaged (cut short at byte {end:,} of {len(data):,}; what came "
              "before was read)"] if len(data) - end >= 11 else []
    files, attached = [], []
    for attachment in stream.attachments:
        files.append(attachment.name(stream.codec))
        held, message = attachment.contents()
        if message:
            eml, whys = _forwarded(held, f"{files[-1] or 'message'}.eml")
            attached.append((f"{files[-1] or 'message'}.eml", eml))
            unread.extend(whys)
        elif files[-1]:
            attached.append((files[-1], held))
    text = ""
    try:
        text = stream.body(name) if body else ""
    except LoaderError as exc:  # its RTF body: the files are read all the same
        unread.append(str(exc))
    return Unwrapped(text, files, attached, unread)
