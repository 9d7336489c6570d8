"""The text of an e-mail message's attachments (``.eml``, ``.mbox``, Outlook's ``.msg``), read
by the readers of their kinds, for the message's document.

:func:`attachment_blocks` reads each attachment whose file name's suffix names a kind read
here (a PDF, a Word file, a deck, a workbook, a page, a text file, a message ...: the reader
given, :func:`~.wholefiles.attachment_reader`) from a temporary file, and gives its text
as a block ``Attachment: terms.pdf`` followed by the text. A message attached to a message
is read without its own attachments (a message nested in itself ends). An attachment of
another kind (a picture, an archive) is only named, as before; one that cannot be read (a
damaged file, a reader's extra missing) is named with why in ``unread``, and the message is
read all the same. An attachment larger than :data:`MAX_ATTACHMENT` bytes is not read.
Nothing in an attachment is run, and the temporary files are deleted after reading.
"""

from __future__ import annotations

import contextvars
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from .errors import LoaderError
from .guards import printable

__all__ = ["MAX_ATTACHMENT", "Read", "attachment_blocks", "nested"]

#: the largest attachment read, in bytes (a message's attachments are held in memory)
MAX_ATTACHMENT = 64 * 1024 * 1024
#: a file name's suffix that may name a file here (``.pdf``; not ``.p\x00f``)
_SUFFIX = re.compile(r"\.[a-z0-9]{1,10}")
#: whether the message being read is itself an attachment (its attachments are not read)
_NESTED = contextvars.ContextVar("vizrag_attachment_nested", default=False)


#: the reader of the files of a suffix (``.pdf``): a file's path → its text; None for a
#: kind not read here (its attachments are only named, and never written out)
Read = Callable[[str], Callable[[Path], str] | None]


def nested() -> bool:
    """Whether the message being read is itself an attachment (its attachments are not
    read)."""
    return _NESTED.get()


def attachment_blocks(files: Sequence[tuple[str, bytes]], read: Read | None
                      ) -> tuple[list[str], list[str]]:
    """(the blocks of the attachments read, ``name: why`` of those that could not be) of a
    message's attachments ``files`` (file name, bytes), each read by the reader ``read``
    gives for its suffix (``read`` None: none is read); see the module's docs."""
    blocks: list[str] = []
    unread: list[str] = []
    if nested() or read is None or not files:
        return blocks, unread
    token = _NESTED.set(True)
    try:
        with tempfile.TemporaryDirectory(prefix="vizrag-attachment-") as tmp:
            for n, (name, data) in enumerate(files):
                shown = printable(" ".join(name.split()))
                if len(data) > MAX_ATTACHMENT:
                    unread.append(f"{shown}: larger than {MAX_ATTACHMENT:,} bytes")
                    continue
                suffix = Path(name).suffix.lower()
                reader = read(suffix) if _SUFFIX.fullmatch(suffix) else None
                if reader is None:  # a picture, an archive ...: only named
                    continue
                path = Path(tmp) / f"attachment{n}{suffix}"
                path.write_bytes(data)
                try:
                    text = reader(path)
                except LoaderError as exc:
                    unread.append(f"{shown}: {str(exc).replace(str(path) + ': ', '')}")
                    continue
                if text.strip():
                    blocks.append(f"Attachment: {shown}\n\n{text.strip()}")
    finally:
        _NESTED.reset(token)
    return blocks, unread
