"""What ``VizRAG.insert`` accepts: documents, plain strings, or a document stream.

A plain string is a document's text. A string that names an existing file or folder is
indexed as text too (it may be a one-word document), but with a warning: the caller most
likely meant the file (``load_documents``/``iter_documents``, or ``vizrag index PATH``).

Example:
    >>> [d.text for d in as_documents(["Ada met Babbage.", Document(id="b", text="Hi")])]
    ['Ada met Babbage.', 'Hi']
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Iterable

from ..types import Document

__all__ = ["as_documents"]


def as_documents(docs: Iterable[Document | str] | Document | str) -> Iterable[Document]:
    """A :class:`~.stream.DocumentStream` as it is (streamed), else a list of documents."""
    from .stream import DocumentStream

    if isinstance(docs, DocumentStream):
        return docs
    if isinstance(docs, (Document, str)):
        docs = [docs]
    return [d if isinstance(d, Document) else _text_document(d) for d in docs]


def _text_document(value: object) -> Document:
    from .stream import _caller_level

    text = str(value)
    if _names_a_path(text):
        warnings.warn(f"insert() got the string {text[:200]!r}, which names an existing "
                      "file or folder: it is indexed as that text, not the file's content; "
                      "use hyperviz_core.rag.load_documents([path]) or `vizrag index PATH`",
                      UserWarning, stacklevel=_caller_level())
    return Document(text=text)


def _names_a_path(text: str) -> bool:
    """Whether ``text`` is a short single-line string naming an existing path."""
    if not text or len(text) > 4096 or "\n" in text or "\x00" in text:
        return False
    try:
        return os.path.lexists(os.path.expanduser(text.strip()))
    except (OSError, ValueError):
        return False
