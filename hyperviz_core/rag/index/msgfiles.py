"""Reading Outlook messages (``.msg``: a message Outlook saved, or dragged out of it) as
documents, with the ``msg`` extra (`olefile <https://pypi.org/project/olefile/>`_ opens the
compound file; its properties are read as MS-OXMSG lays them out).

A message reads as an ``.eml`` message does (:func:`~.mails.mail_document`): titled by
its subject, else the file's stem; its text the ``From``, ``To``, ``Cc`` and ``Date`` lines,
a blank line, then the body (the plain-text body, else the HTML body read as a page is,
else the text Outlook's compressed RTF body shows); its metadata the headers,
``message_id`` and the attachments' file names; the attachments of kinds read here follow
the body (:mod:`.attachments`), and so does a message attached as an Outlook item (forwarded
as an attachment): its subject, headers and body, as a forwarded ``.eml`` message reads
(its own attachments are not read). The id keeps the suffix (``offer.msg``). ``From`` is
the sender's name and address (an Exchange-only address, ``/O=...``, is left out); ``To``
and ``Cc`` are read from the recipients (their names and addresses), else from the display
lists Outlook keeps; ``Date`` is when the message was sent, else when it arrived (UTC).
Text stored 8-bit is decoded by the code page the message declares (Windows-1252 when it
declares none Python knows).

A compressed RTF body (MS-OXRTFCP) is unpacked by `compressed-rtf
<https://pypi.org/project/compressed-rtf/>`_ and read as an ``.rtf`` file is
(:func:`~.rtffiles.rtf_text`, striprtf): RTF that wraps an HTML or plain-text body
(MS-OXRTFEX) shows that body's text, as its RTF is written to. One that is damaged (its
checksum wrong, or no RTF once unpacked) is a :class:`~.errors.LoaderError` naming the file.

A file that is no compound file, or no message, is a :class:`~.errors.LoaderError` naming
it; so is one read without the extra (olefile, compressed-rtf and striprtf), and a folder
walk without it leaves ``.msg`` files out, listed with the command that installs it.
Nothing in the message is run and nothing is fetched; its streams are read into memory.
"""

from __future__ import annotations

import email.utils
import struct
from datetime import datetime
from pathlib import Path
from typing import Any

from ..types import Document
from .attachments import Read
from .errors import LoaderError
from .guards import printable
from .legacy import codepage_codec
from .mails import mail_document
from .olefiles import opened_ole
from .outlook import filetime, forwarded_eml, outlook_body, shown_address
from .textfiles import path_id

__all__ = ["msg_document"]

_KIND = "an Outlook message"
_PROPS = "__properties_version1.0"
_SUBJECT, _BODY, _HTML, _MESSAGE_ID = 0x0037, 0x1000, 0x1013, 0x1035
_RTF = 0x1009  # PR_RTF_COMPRESSED, PT_BINARY
_SENDER, _SENDER_SMTP, _SENDER_ADDRESS = 0x0C1A, 0x5D01, 0x0C1F
_SHOWN_TO, _SHOWN_CC = 0x0E04, 0x0E03
_SENT, _ARRIVED = 0x0039, 0x0E06  # PT_SYSTIME properties
_CODE_PAGES = (0x3FDE, 0x3FFD)  # PR_INTERNET_CPID, PR_MESSAGE_CODEPAGE
_NAME, _SMTP, _ADDRESS, _KIND_OF_RECIPIENT = 0x3001, 0x39FE, 0x3003, 0x0C15
_FILE_NAMES = (0x3707, 0x3704, 0x3001)  # an attachment's long name, short name, shown name
_ATTACHED = 0x3701  # PR_ATTACH_DATA_BIN: an attachment's bytes


class _Storage:
    """The properties of one storage of a message (the message, a recipient, an
    attachment): strings in ``__substg1.0_`` streams, fixed values in its properties
    stream (after a header of ``head`` bytes)."""

    def __init__(self, ole: Any, prefix: str, head: int, codepage: str = "cp1252") -> None:
        self._ole, self._prefix, self.codepage = ole, prefix, codepage
        self.fixed: dict[int, bytes] = {}
        name = prefix + _PROPS
        raw = ole.openstream(name).read() if ole.exists(name) else b""
        for at in range(head, len(raw) - 15, 16):
            tag = struct.unpack_from("<I", raw, at)[0]
            self.fixed[tag >> 16] = raw[at + 8:at + 16]

    def _stream(self, prop: int, kind: int) -> bytes | None:
        name = f"{self._prefix}__substg1.0_{prop:04X}{kind:04X}"
        return self._ole.openstream(name).read() if self._ole.exists(name) else None

    def text(self, prop: int) -> str:
        """A string property (UTF-16, else 8-bit in :attr:`codepage`), ``""`` when absent."""
        wide = self._stream(prop, 0x001F)
        if wide is not None:
            return wide.decode("utf-16-le", "replace").rstrip("\x00")
        narrow = self._stream(prop, 0x001E) or self._stream(prop, 0x0102)
        return narrow.decode(self.codepage, "replace").rstrip("\x00") if narrow else ""

    def binary(self, prop: int) -> bytes:
        """A binary property's bytes, ``b""`` when absent."""
        return self._stream(prop, 0x0102) or b""

    def line(self, prop: int) -> str:
        """A string property on one line (a header's value)."""
        return " ".join(self.text(prop).split())

    def number(self, prop: int) -> int | None:
        raw = self.fixed.get(prop)
        return struct.unpack_from("<i", raw)[0] if raw else None

    def time(self, prop: int) -> datetime | None:
        raw = self.fixed.get(prop)
        return filetime(struct.unpack_from("<Q", raw)[0] if raw else 0)


def _codepage(top: _Storage, default: str = "cp1252") -> str:
    """The code page the message declares for its 8-bit text, as Python names it
    (``default`` when it declares none Python knows)."""
    return next((name for name in (codepage_codec(top.number(prop)) for prop in _CODE_PAGES)
                 if name), default)


def _parts(ole: Any, base: str, prefix: str) -> list[str]:
    """The paths (``base`` + name + ``/``) of the storages right under the storage ``base``
    (``""``: the file's root) whose names start with ``prefix``, in order."""
    under = [p for p in base.split("/") if p]
    found = {entry[-1] for entry in ole.listdir(streams=False, storages=True)
             if len(entry) == len(under) + 1 and entry[:-1] == under
             and entry[-1].startswith(prefix)}
    return [f"{base}{name}/" for name in sorted(found)]


def _recipients(ole: Any, base: str, codepage: str) -> dict[int, list[str]]:
    """The recipients by kind (1: To, 2: Cc, 3: Bcc), each ``Name <address>``."""
    out: dict[int, list[str]] = {}
    for storage in _parts(ole, base, "__recip_version1.0_"):
        who = _Storage(ole, storage, 8, codepage)
        shown = shown_address(who.line(_NAME), who.line(_SMTP), who.line(_ADDRESS))
        if shown:
            out.setdefault(who.number(_KIND_OF_RECIPIENT) or 1, []).append(shown)
    return out


def _headers(ole: Any, top: _Storage, base: str) -> dict[str, str]:
    """The headers of the message whose properties ``top`` holds (at ``base``)."""
    recipients = _recipients(ole, base, top.codepage)
    sent = top.time(_SENT) or top.time(_ARRIVED)
    return {
        "Subject": top.line(_SUBJECT),
        "From": shown_address(top.line(_SENDER), top.line(_SENDER_SMTP), top.line(_SENDER_ADDRESS)),
        "To": ", ".join(recipients.get(1, [])) or top.line(_SHOWN_TO),
        "Cc": ", ".join(recipients.get(2, [])) or top.line(_SHOWN_CC),
        "Date": email.utils.format_datetime(sent) if sent else "",
        "Message-ID": top.line(_MESSAGE_ID)}


def _body(top: _Storage, path: Path) -> str:
    """The body shown: the plain-text one, else the HTML one's text, else the RTF one's."""
    return outlook_body(top.text(_BODY), top.text(_HTML), top.binary(_RTF), str(path))


def _embedded(ole: Any, base: str, codepage: str, path: Path) -> bytes:
    """A message attached as an Outlook item (its storage at ``base``) as the ``.eml``
    bytes of its headers and body (:func:`~.outlook.forwarded_eml`; its own attachments are
    not read)."""
    top = _Storage(ole, base, 24, codepage)  # an embedded message's header: 24 bytes
    top.codepage = _codepage(top, codepage)
    return forwarded_eml(_headers(ole, top, base), _body(top, path))


def _attachments(ole: Any, codepage: str, path: Path
                 ) -> tuple[list[str], list[tuple[str, bytes]]]:
    """(the names of the message's attachments, (name, bytes) of those stored by value and
    of the Outlook items attached, as ``.eml`` bytes named ``name.eml``)."""
    files: list[str] = []
    attached: list[tuple[str, bytes]] = []
    for storage in _parts(ole, "", "__attach_version1.0_"):
        part = _Storage(ole, storage, 8, codepage)
        files.append(next((n for n in (part.line(p) for p in _FILE_NAMES) if n), ""))
        item = f"{storage}__substg1.0_{_ATTACHED:04X}000D/"
        if ole.exists(item + _PROPS):  # a message attached as an Outlook item
            attached.append((f"{files[-1] or 'message'}.eml",
                             _embedded(ole, item, codepage, path)))
        elif files[-1] and (data := part.binary(_ATTACHED)):  # attached by value
            attached.append((files[-1], data))
    return files, attached


def _message(ole: Any, path: Path, id_from_path: bool, root: Path | None,
             read: Read | None) -> Document:
    """The message's document: its headers, body and attachments."""
    top = _Storage(ole, "", 32)
    top.codepage = _codepage(top)
    files, attached = _attachments(ole, top.codepage, path)
    return mail_document(_headers(ole, top, ""), _body(top, path), files,
                         path_id(path, id_from_path, root), path.stem, str(path), attached,
                         read)


def msg_document(path: Path, id_from_path: bool, root: Path | None = None,
                 read: Read | None = None) -> Document:
    """The document of the Outlook message ``path`` (see the module's docs); its attachments
    are read by ``read`` (None: named only)."""
    with opened_ole(path, _KIND, ".msg") as ole:
        if not ole.exists(_PROPS):
            raise LoaderError(f"{printable(str(path))}: not {_KIND} (it has no "
                              f"{_PROPS!r} stream)")
        return _message(ole, path, id_from_path, root, read)
