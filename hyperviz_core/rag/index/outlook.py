"""What Outlook's two formats (an ``.msg`` file: :mod:`.msgfiles`; a TNEF ``winmail.dat``:
:mod:`.tneffiles`) show alike, and how any message's body is shown.

A body is shown whatever kind it was stored as: plain text, HTML read as a page is
(:mod:`.htmlpages`), or Outlook's compressed RTF (MS-OXRTFCP) read as an ``.rtf`` file is
(:func:`~.rtffiles.rtf_text`); an address as a mail client shows it; a MAPI date (FILETIME)
as a date; a message attached as an Outlook item as the ``.eml`` bytes of its headers and
body, read as a forwarded ``.eml`` message is.

Example:
    >>> shown_body("<p>The offer <b>stands</b>.</p>  ", True)
    'The offer stands.'
    >>> outlook_body("", "", b"", "m.msg")
    ''
    >>> shown_address("Ada", "ada@example.org", "/O=EXCHANGE/CN=ADA")
    'Ada <ada@example.org>'
    >>> filetime(133_000_000_000_000_000).isoformat()
    '2022-06-18T04:26:40+00:00'
"""

from __future__ import annotations

import base64
import importlib
import importlib.util
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from ...extras import install_hint
from .errors import LoaderError
from .guards import printable
from .htmlpages import page_text
from .rtffiles import rtf_text

__all__ = ["filetime", "forwarded_eml", "outlook_body", "rtf_body", "shown_address",
           "shown_body"]

#: FILETIME counts 100 ns from here
_EPOCH = datetime(1601, 1, 1, tzinfo=UTC)

#: the modules that read a compressed RTF body (the ``msg`` extra's)
_READERS = ("compressed_rtf", "striprtf")


def shown_body(text: str, html: bool) -> str:
    """A body as a mail client shows it: an HTML body's text read as a page is, each line's
    end spaces dropped."""
    if html:
        text = page_text(text)[1]
    return "\n".join(line.rstrip() for line in text.strip().splitlines())


def rtf_body(packed: bytes, where: str) -> str:
    """The text of a compressed RTF body (``""`` when there is none), unpacked by
    compressed-rtf (an extra's); a damaged one is a :class:`LoaderError` naming ``where``."""
    if not packed:
        return ""
    if missing := [m for m in _READERS if importlib.util.find_spec(m) is None]:
        raise LoaderError(f"{printable(where)}: reading its compressed RTF body needs the "
                          f"'msg' extra ({missing[0]} is missing): {install_hint('msg')}")
    try:
        rtf = importlib.import_module("compressed_rtf").decompress(packed)
        if not rtf.lstrip().startswith(b"{\\rtf"):
            raise ValueError("it does not unpack to RTF")
        text = rtf_text(rtf, importlib.import_module("striprtf.striprtf"))[0].replace(
            "\x00", "")  # a NUL some writers leave after the RTF's last brace
    except Exception as exc:  # the library raises bare Exceptions for damaged bodies
        raise LoaderError(f"{printable(where)}: damaged (its compressed RTF body: "
                          f"{printable(str(exc))[:200]})") from None
    return shown_body(text, False)


def outlook_body(plain: str, html: str, packed: bytes, where: str) -> str:
    """The body Outlook shows of a message stored with some of a plain-text body, an HTML
    one and a compressed RTF one: the plain-text one, else the HTML one's text, else the
    RTF one's (damaged: a :class:`LoaderError` naming ``where``)."""
    if plain.strip():
        return shown_body(plain, False)
    if html.strip():
        return shown_body(html, True)
    return rtf_body(packed, where)


def shown_address(name: str, smtp: str, address: str) -> str:
    """``Name <address>`` as a mail client shows it (an Exchange-only address, ``/O=...``,
    left out; a name is never encoded, as ``email.utils.formataddr`` encodes ``Åsa``)."""
    where = smtp or ("" if address.startswith("/") else address)
    if not where:
        return name
    return f"{name} <{where}>" if name and name != where else where


def filetime(ticks: int) -> datetime | None:
    """A MAPI date (FILETIME: 100-ns ticks since 1601, UTC); None for 0 and past 9999."""
    try:
        return _EPOCH + timedelta(microseconds=ticks // 10) if ticks > 0 else None
    except OverflowError:
        return None


def forwarded_eml(headers: Mapping[str, str], body: str) -> bytes:
    """The ``.eml`` bytes of a message attached as an Outlook item, given its headers and its
    body as shown, read as a forwarded ``.eml`` message is. The headers are written as they
    read, in UTF-8 (each on one line; never parsed as addresses, which ``email`` fails to
    write for some malformed ones), the body as base64 UTF-8."""
    head = [f"{name}: {' '.join(value.split())}" for name, value in headers.items() if value]
    encoded = base64.encodebytes((body + "\n").encode("utf-8", "replace"))
    return "\n".join([*head, "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
                      "Content-Transfer-Encoding: base64", "", ""]).encode("utf-8",
                                                                           "replace") + encoded
