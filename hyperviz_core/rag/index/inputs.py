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
from collections.abc import Iterable, Mapping

from pydantic import BaseModel, ValidationError

from ..types import Document

__all__ = ["as_documents"]


def as_documents(docs: Iterable[Document | str] | Document | str) -> Iterable[Document]:
    """A :class:`~.stream.DocumentStream` as it is (streamed), else a list of documents: a
    :class:`Document`, a string (its text) or a mapping of ``Document`` fields each, alone
    or in an iterable; anything else is a ``TypeError`` saying what to pass (a bytes value
    or a DataFrame was indexed as its ``repr`` or its column names)."""
    from .stream import DocumentStream

    if isinstance(docs, DocumentStream):
        return docs
    if isinstance(docs, (Document, str, Mapping, BaseModel)):  # one (a model is no list)
        docs = [docs]  # type: ignore[list-item]
    elif isinstance(docs, (bytes, bytearray, os.PathLike)) or not isinstance(docs, Iterable) \
            or hasattr(docs, "columns"):
        raise TypeError(_WHAT + f", not {_kind(docs)}")
    return [_numbered(i, d) for i, d in enumerate(docs, 1)]


def _numbered(n: int, value: object) -> Document:
    """:func:`_document` of the ``n``-th item; a document that cannot be made (a lone
    surrogate in a text without an id) is a ``ValueError`` naming the item, so the call
    fails before anything is written, saying which item to fix."""
    try:
        return _document(value)
    except ValidationError as exc:
        said = "; ".join(str(e.get("msg", "")).removeprefix("Value error, ")
                         for e in exc.errors())
        raise ValueError(f"insert(): item {n} is no valid Document: {said} (nothing was "
                         "indexed)") from None


_WHAT = ("insert() takes Document objects, strings (a document's text) or dicts of Document "
         "fields, alone or in a list")


def _kind(value: object) -> str:
    """What ``value`` is, with the fix for the usual mistakes."""
    name = type(value).__name__
    if isinstance(value, os.PathLike):
        return f"a path ({name}): read files with hyperviz_core.rag.load_documents([path])"
    if isinstance(value, (bytes, bytearray)):
        return f"{name}: decode it to text first"
    module = type(value).__module__
    if module.startswith(("llama_index", "langchain")):
        return (f"a {module.split('.')[0]} {name}: index it with the vizrag_llamaindex or "
                "vizrag_langchain wrappers, or convert it: Document(id=..., text=..., "
                "metadata=...)")
    if hasattr(value, "columns") and hasattr(value, "to_dict"):
        return (f"a {name}: pass its rows, e.g. [Document(**r) for r in "
                "df.to_dict('records')]")
    return name


def _document(value: object) -> Document:
    if isinstance(value, Document):
        return value
    if isinstance(value, Mapping):
        unknown = sorted(map(str, set(value) - set(Document.model_fields)))
        if unknown:  # pydantic would drop them silently (a misspelt "titel" lost the title)
            raise TypeError(f"insert() got a dict with keys {unknown} that are no Document "
                            f"fields ({sorted(Document.model_fields)}): put other fields "
                            "under 'metadata'")
        return Document.model_validate(dict(value))
    if isinstance(value, str):
        return _text_document(value)
    raise TypeError(_WHAT + f"; got an item that is {_kind(value)}")


def _text_document(text: str) -> Document:
    from .stream import caller_level

    if _names_a_path(text):
        warnings.warn(f"insert() got the string {text[:200]!r}, which names an existing "
                      "file or folder: it is indexed as that text, not the file's content; "
                      "use hyperviz_core.rag.load_documents([path]) or `vizrag index PATH`",
                      UserWarning, stacklevel=caller_level())
    return Document(text=text)


def _names_a_path(text: str) -> bool:
    """Whether ``text`` is a short single-line string naming an existing path."""
    if not text or len(text) > 4096 or "\n" in text or "\x00" in text:
        return False
    try:
        return os.path.lexists(os.path.expanduser(text.strip()))
    except (OSError, ValueError):
        return False
