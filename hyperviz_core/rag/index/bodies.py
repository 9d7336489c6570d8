"""How a message's body is shown, whatever kind it was stored as: plain text, HTML read as a
page is (:mod:`.htmlpages`), or Outlook's compressed RTF (MS-OXRTFCP: an Outlook ``.msg``
file's, a TNEF wrapper's) read as an ``.rtf`` file is (:func:`~.rtffiles.rtf_text`).

Example:
    >>> shown_body("<p>The offer <b>stands</b>.</p>  ", True)
    'The offer stands.'
    >>> outlook_body("", "", b"", "m.msg")
    ''
"""

from __future__ import annotations

import importlib
import importlib.util

from ...extras import install_hint
from .errors import LoaderError
from .guards import printable
from .htmlpages import page_text
from .rtffiles import rtf_text

__all__ = ["outlook_body", "rtf_body", "shown_body"]

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
