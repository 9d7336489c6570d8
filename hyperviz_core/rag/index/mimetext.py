"""How the text parts of an e-mail message are decoded: a body shown, an attachment saved.

A part that declares a charset Python knows, and whose bytes are all in it, is read in it,
or in the superset of it mail clients read it in (as browsers do: ``ISO-8859-1`` as
Windows-1252, ``GB2312`` and ``GBK`` as GB18030, ``EUC-KR`` as CP949): :func:`declared_text`.
Any other part (no charset, the ``US-ASCII`` RFC 2045 assumes, which 8-bit mail ignores, a
charset Python does not know, or bytes that are not in the one declared) is read as UTF-8
(an HTML body in the charset its ``<meta>`` declares, when it declares one),
as its bytes mostly are; a body that is not is read in the ``--encoding`` given
(``"auto"``: guessed, :mod:`.legacy`), else with what is not UTF-8 shown as U+FFFD
(:func:`body_text`). An attachment of such a part is saved as its bytes, and read as the
same file alone would be (:func:`attached_bytes`). Python's ``get_content`` reads a part
without a charset as ASCII, so before, the UTF-8 ``Tromsø`` of such a part read
``Troms��``.

Example:
    >>> from email.message import EmailMessage
    >>> part = EmailMessage()
    >>> part.set_content("Tromsø".encode(), "text", "plain", cte="8bit")  # no charset
    >>> body_text(part, None, "m.eml")
    'Tromsø'
    >>> part.set_param("charset", "iso-8859-1")  # the bytes are UTF-8, so read as Ã¸
    >>> body_text(part, None, "m.eml")
    'TromsÃ¸'
"""

from __future__ import annotations

import codecs
from email.message import Message

from .htmlpages import page_charset
from .legacy import TextDecodeError, declared_codec, decode_text

__all__ = ["attached_bytes", "body_text", "declared_text"]

#: a declared charset's codec → the superset of it mail clients and browsers read it in
_SUPERSET = {"iso8859-1": "cp1252", "gb2312": "gb18030", "gbk": "gb18030", "euc_kr": "cp949"}
#: the subtypes of ``text/*`` attachments read here as text (the others keep their bytes)
_TEXT_KINDS = ("plain", "html", "markdown", "x-markdown", "x-rst", "vtt")


def _payload(part: Message) -> bytes:
    raw = part.get_payload(decode=True)
    return raw if isinstance(raw, bytes) else b""


def declared_text(part: Message) -> str | None:
    """The text of ``part`` in the charset it declares (see the module's docs), or None:
    none declared, ASCII, one Python does not know, or bytes that are not in it."""
    label = part.get_content_charset()
    codec = declared_codec(label, ascii_alike=False) if label else None
    if codec is None or codec == "ascii":  # (ASCII: RFC 2045's default, said of 8-bit text
        return None  # all the same; base64, rot13 ... are no text encodings)
    try:
        return _payload(part).decode(_SUPERSET.get(codec, codec))
    except UnicodeDecodeError:
        return None


def body_text(part: Message, encoding: str | None, where: str) -> str:
    """The text of the body ``part`` of the message ``where`` (see the module's docs):
    declared (an HTML body: by the message, else by its ``<meta charset>``), else UTF-8,
    else in ``encoding`` (a name :func:`~.legacy.fallback_encoding` gave), else UTF-8 with
    what is not as U+FFFD."""
    text = declared_text(part)
    if text is not None:
        return text
    raw = _payload(part)
    if part.get_content_subtype() == "html" and (meta := page_charset(raw)) is not None:
        try:
            return raw.decode(meta)
        except UnicodeDecodeError:
            pass
    try:  # (decode_text reads UTF-8 first, and only what follows in ``encoding``)
        if encoding is None:
            return raw.decode("utf-8-sig")
        return decode_text(raw, encoding, where=f"{where} (its body)")
    except (UnicodeDecodeError, TextDecodeError):
        return raw.decode("utf-8", "replace")


def attached_bytes(part: Message) -> bytes:
    """The bytes to save an attachment ``part`` as: a text part (plain, HTML, Markdown ...)
    that declares its charset as UTF-8 with its mark (a page's ``<meta>`` then does not
    override the charset the message declares), any other part as its bytes."""
    if part.get_content_maintype() == "text" and part.get_content_subtype() in _TEXT_KINDS:
        text = declared_text(part)
        if text is not None:
            return codecs.BOM_UTF8 + text.encode("utf-8")
    return _payload(part)
