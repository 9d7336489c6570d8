"""Reading e-mail messages (``.eml``: one message as a mail client saves it, RFC 5322 with
MIME) and mailboxes (``.mbox``: :func:`mbox_documents`, a document a message) as documents,
with Python's own ``email`` and ``mailbox`` packages (no extra).

One document per ``.eml`` file, its id and ``source`` as a PDF's (the id keeps the suffix:
``offer.eml``). The title is the message's subject (encoded words decoded), else the
file's stem. The text is what a mail client shows: the ``From``, ``To``, ``Cc`` and
``Date`` lines, a blank line, then the body: its plain-text part, else its HTML part read as
a page is (:mod:`.htmlpages`: scripts, styles and hidden text dropped). The metadata keeps
the headers (``from``, ``to``, ``cc``, ``date`` as ISO 8601 where it parses,
``message_id``) and the file names of the attachments (``attachments``). Attachments of the
kinds read here (a PDF, a Word file, a workbook, a message attached whole ...) follow the
body, each as ``Attachment: name`` and its text (:mod:`.attachments`); those that cannot be
read are named, with why, in ``attachments_unread``.

A body is read in the charset it declares; one that declares none (or one Python does not
know) is read as UTF-8, else in the ``encoding`` given, else with what is not UTF-8 shown
as U+FFFD (:mod:`.mimetext`). A binary file (a NUL byte among its first bytes) is a
:class:`~.errors.LoaderError` naming it. Nothing in the message is run and nothing is
fetched (an HTML body's remote images are never loaded).

Example:
    >>> import tempfile
    >>> from email.message import EmailMessage
    >>> msg = EmailMessage()
    >>> msg["Subject"], msg["From"], msg["To"] = "Offer", "Ada <ada@example.org>", "bo@example.org"
    >>> msg.set_content("The offer stands until Friday.")
    >>> path = Path(tempfile.mkdtemp()) / "offer.eml"
    >>> _ = path.write_bytes(bytes(msg))
    >>> doc = eml_document(path, True)
    >>> doc.id, doc.title
    ('offer.eml', 'Offer')
    >>> doc.text.splitlines()  # doctest: +NORMALIZE_WHITESPACE
    ['From: Ada <ada@example.org>', 'To: bo@example.org', '',
     'The offer stands until Friday.']
"""

from __future__ import annotations

import email.errors
import email.header
import email.policy
import email.utils
import logging
import mailbox
import re
from collections.abc import Iterator, Sequence
from email.message import EmailMessage, Message
from email.parser import BytesParser
from pathlib import Path

from ..types import Document
from .attachments import Read, attachment_blocks, nested
from .errors import LoaderError
from .guards import printable
from .mimetext import attached_bytes, body_text
from .outlook import shown_body
from .textfiles import check_not_binary, foreign_file, path_id
from .titles import cut_title
from .tneffiles import is_tnef, unwrapped

__all__ = ["eml_document", "mail_document", "mbox_documents", "message_document",
           "shown_body"]

#: a body line a mailbox writer escaped (``>From ``: a line starting ``From `` would start
#: a message), unescaped as mboxrd readers do
_FROM_ESCAPE = re.compile(rb"(?m)^>(>*From )")
_log = logging.getLogger(__name__)
#: the headers shown above the body, as a mail client shows them
_SHOWN = ("From", "To", "Cc", "Date")


def _header(msg: Message, name: str) -> str:
    """A header's value, decoded, on one line (``""`` when absent); one Python's header
    parser fails on (``To: <<<>>> @@``: an ``IndexError`` inside ``email``) as written,
    its encoded words decoded."""
    try:
        value = msg.get(name)
    except (IndexError, ValueError, TypeError, AttributeError):
        value = next((_raw(v) for k, v in msg.raw_items() if k.lower() == name.lower()), None)
    return " ".join(str(value).split()) if value is not None else ""


def _raw(value: str) -> str:
    """A header's raw value (8-bit bytes as surrogate escapes) as text."""
    text = value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    try:
        return str(email.header.make_header(email.header.decode_header(text)))
    except (ValueError, LookupError, UnicodeError, email.errors.HeaderParseError):
        return text


def _iso_date(value: str) -> str:
    """An RFC 5322 date as ISO 8601, else as written."""
    try:
        return email.utils.parsedate_to_datetime(value).isoformat()
    except (TypeError, ValueError, IndexError):
        return value


def _body(msg: EmailMessage, encoding: str | None, where: str) -> str:
    """The body a mail client shows: the plain-text part, else the HTML part's text
    (decoded as :func:`~.mimetext.body_text` says)."""
    part = msg.get_body(preferencelist=("plain", "html"))
    if part is None:
        return ""
    return shown_body(body_text(part, encoding, where), part.get_content_subtype() == "html")


def mail_document(headers: dict[str, str], body: str, attachments: list[str], doc_id: str,
                  stem: str, source: str, attached: Sequence[tuple[str, bytes]] = (),
                  read: Read | None = None, *, where: str = "",
                  unread: Sequence[str] = ()) -> Document:
    """The document of one message given its ``headers`` (``Subject``, ``From``, ``To``,
    ``Cc``, ``Date``, ``Message-ID``; each on one line, ``""`` when absent), its ``body``
    as shown, its attachments' file names and their (name, bytes), read by ``read`` after
    the body (:func:`~.attachments.attachment_blocks`; see the module's docs; ``unread``:
    ``name: why`` of attachments not read before, named first): id ``doc_id``
    (``""``: a content-hash id), titled by its subject, else ``stem``. An attachment not
    read is logged (INFO) with where the message is (``where``, else ``source``)."""
    shown = [(name, headers.get(name, "")) for name in _SHOWN]
    head = "\n".join(f"{name}: {value}" for name, value in shown if value)
    meta: dict[str, object] = {"source": source}
    for name, value in shown:
        if value:
            meta[name.lower()] = _iso_date(value) if name == "Date" else value
    if message_id := headers.get("Message-ID", ""):
        meta["message_id"] = message_id
    if files := [printable(f) for f in attachments if f]:
        meta["attachments"] = files
    blocks, not_read = attachment_blocks(attached, read)
    if whys := [*unread, *not_read]:
        meta["attachments_unread"] = whys
    for why in whys:  # (``vizrag index`` prints these)
        _log.info("%s: an attachment not read: %s", printable(where or source), why)
    text = "\n\n".join(t for t in (head, body.strip(), *blocks) if t)
    return Document(id=doc_id, title=cut_title(headers.get("Subject", "") or stem),
                    text=text, metadata=meta)


def message_document(msg: EmailMessage, doc_id: str, stem: str, source: str,
                     read: Read | None = None, *, encoding: str | None = None,
                     where: str = "") -> Document:
    """The document of one message (see the module's docs): :func:`mail_document` of its
    headers, body and attachments (read by ``read``; those Outlook wrapped in a
    ``winmail.dat`` part unwrapped, :mod:`.tneffiles`); a body without a charset that is
    not UTF-8 is read in ``encoding`` (the message named ``where``, else ``source``)."""
    headers = {name: _header(msg, name) for name in ("Subject", *_SHOWN, "Message-ID")}
    body = _body(msg, encoding, where or source)
    files: list[str] = []
    attached: list[tuple[str, bytes]] = []
    unread: list[str] = []
    for name, data, wrapper in _attached(msg):
        if wrapper and data is not None:
            try:
                inner = unwrapped(data, name, body=not body)
            except LoaderError as exc:
                unread.append(str(exc))
            else:  # the files Outlook shows in its place, and its body when there is none
                unread.extend(inner.unread)
                files.extend(inner.files)
                attached.extend(inner.attached)
                body = body or inner.body
                continue
        if name:
            files.append(name)
        if data is not None:
            attached.append((name or "message.eml", data))
    return mail_document(headers, body, files, doc_id, stem, source, attached, read,
                         where=where, unread=unread if read is not None and not nested() else ())


def _attached(msg: EmailMessage) -> list[tuple[str, bytes | None, bool]]:
    """(file name, bytes or None, whether a TNEF wrapper) of each of the message's
    attachments: a message attached whole (``message/rfc822``) as ``.eml`` bytes (named by
    its file name, else ``message.eml``); None for a part not read (a multipart one)."""
    out: list[tuple[str, bytes | None, bool]] = []
    for part in msg.iter_attachments():
        name = part.get_filename() or ""
        if part.get_content_type() == "message/rfc822":
            inner = part.get_payload(0) if part.is_multipart() else None
            out.append((name, inner.as_bytes() if isinstance(inner, Message) else None,
                        False))
        elif name and not part.is_multipart():  # a text part that declares its charset:
            # as UTF-8 (:mod:`.mimetext`)
            data = attached_bytes(part)
            out.append((name, data, is_tnef(part.get_content_type(), name, data)))
        else:
            out.append((name, None, False))
    return out


def _parse(data: bytes) -> EmailMessage:
    msg = BytesParser(policy=email.policy.default).parsebytes(data)
    assert isinstance(msg, EmailMessage)  # the default policy's message class
    return msg


def eml_document(path: Path, id_from_path: bool, root: Path | None = None,
                 read: Read | None = None, *, encoding: str | None = None) -> Document:
    """The document of the e-mail message ``path`` (see the module's docs); its attachments
    are read by ``read`` (None: named only); ``encoding``: what a body that declares no
    charset and is not UTF-8 is read in (:mod:`.mimetext`)."""
    check_not_binary(path)
    with foreign_file(path, "an e-mail message"):
        return message_document(_parse(path.read_bytes()), path_id(path, id_from_path, root),
                                path.stem, str(path), read, encoding=encoding)


def mbox_documents(path: Path, id_from_path: bool = True, root: Path | None = None,
                   read: Read | None = None, *, encoding: str | None = None,
                   ) -> Iterator[tuple[Document, str]]:
    """The documents of the mailbox ``path`` (the ``mbox`` format: messages one after the
    other, each starting with a ``From`` line), a message each, read one at a time, each
    with where it came from (``inbox.mbox (message 3)``). A message's id is its
    ``Message-ID`` without the angle brackets (stable when the mailbox grows), else a
    content-hash id; its ``source`` is the mailbox. A body line the writer escaped
    (``>From ``) reads as written (``From ``). ``encoding``: as for :func:`eml_document`."""
    check_not_binary(path)
    with foreign_file(path, "a mailbox (mbox)"):
        box = mailbox.mbox(str(path), factory=None, create=False)
        try:
            if not len(box) and path.stat().st_size:
                raise LoaderError(f"{printable(str(path))}: no message in this mailbox (an "
                                  "mbox message starts with a line 'From ...'); a single "
                                  "message is an .eml file")
            for number, key in enumerate(box.iterkeys(), 1):
                msg = _parse(_FROM_ESCAPE.sub(rb"\1", box.get_bytes(key)))
                given = _header(msg, "Message-ID").strip("<>")
                where = f"{path} (message {number})"
                yield (message_document(msg, given, f"{path.stem} {number}", str(path), read,
                                        encoding=encoding, where=where), where)
        finally:
            box.close()
