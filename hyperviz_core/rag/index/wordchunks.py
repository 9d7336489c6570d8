"""The imported chunks of a Word document (``w:altChunk``): content in another format that a
generator (an HTML-to-Word converter, a mail merge, a report tool) puts in the body for Word
to convert when it opens the file, and python-docx does not read.

:func:`chunk_text` reads a chunk by its part's content type: a web page (HTML, XHTML) as
:mod:`.htmlpages` reads one (its charset as declared, else UTF-8), a web archive (MHT: its
page), plain text, RTF (:mod:`.rtffiles`, with the ``rtf`` extra), and a Word document,
whose body ``read_word`` reads as this one's (up to :data:`MAX_DEPTH` chunks deep, and
not one whose parts would unpack to more than :data:`~.zipped.MAX_UNPACKED` bytes). A
chunk of another kind, one whose part is missing and one whose reader's extra is missing
give no text; the rest of the document is read all the same. Nothing in a chunk is run and
nothing is fetched.
"""

from __future__ import annotations

import email
import email.policy
import importlib
import importlib.util
import io
import logging
from collections.abc import Callable
from typing import Any

from ...extras import install_hint
from .guards import printable
from .htmlpages import page_charset, page_text
from .rtffiles import rtf_text
from .zipped import MAX_UNPACKED, unpacked_size

__all__ = ["MAX_DEPTH", "chunk_text"]

log = logging.getLogger(__name__)

#: how many chunks deep a Word document's chunks are read (a chunk holding a document ...)
MAX_DEPTH = 4
_R = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}"
_HTML = frozenset({"text/html", "application/xhtml+xml"})
_RTF = frozenset({"application/rtf", "text/rtf"})
_WORD = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"


def _html(data: bytes) -> str:
    charset = page_charset(data) or "utf-8"
    return page_text(data.decode(charset, "replace").lstrip("\ufeff"))[1]


def _archive(data: bytes) -> str:
    """The text of the first web page of a web archive (MHT: a MIME message)."""
    message = email.message_from_bytes(data, policy=email.policy.default)
    for part in message.walk():
        if part.get_content_type() in _HTML:
            content = part.get_content()
            return _html(content.encode("utf-8") if isinstance(content, str) else content)
    return ""


def _word(data: bytes, read_word: Callable[[Any], str]) -> str:
    """The body of a Word document chunk, unless its parts would unpack too far."""
    import docx

    if unpacked_size(data) > MAX_UNPACKED:
        return ""
    return read_word(docx.Document(io.BytesIO(data)))


def chunk_text(part: Any, element: Any, read_word: Callable[[Any], str], source: str) -> str:
    """The text of the chunk ``element`` (a ``w:altChunk``) of the document part ``part``
    (python-docx's) of the file ``source``, ``""`` when it gives none (see the module's
    docs)."""
    target = part.related_parts.get(element.get(f"{_R}id", ""))
    if target is None:
        return ""
    kind = target.content_type.split(";")[0].strip().lower()
    data: bytes = target.blob
    try:
        if kind in _HTML:
            return _html(data)
        if kind == "message/rfc822":
            return _archive(data)
        if kind == "text/plain":
            return data.decode("utf-8-sig", "replace").strip()
        if kind in _RTF and importlib.util.find_spec("striprtf") is not None:
            return rtf_text(data, importlib.import_module("striprtf.striprtf"))[0]
        if kind.startswith(_WORD):
            return _word(data, read_word)
    except Exception as exc:  # an untrusted chunk: the rest of the document is read
        log.warning("%s: a chunk of type %s could not be read (%s: %s)", source, kind,
                    type(exc).__name__, printable(str(exc))[:200])
        return ""
    if kind in _RTF:
        log.warning("%s: an RTF chunk was not read: it needs the 'rtf' extra (%s)", source,
                    install_hint("rtf"))
    return ""
