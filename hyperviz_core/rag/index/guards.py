"""What the indexer refuses before it reaches the store: bad documents and non-finite vectors
(a model reply that is not text is refused by every chat stack:
:class:`~hyperviz_core.rag.providers.middleware.TextReplyChatModel`).

* :func:`check_document`: a document holding a lone surrogate (``"\\ud800"`` from a JSON
  escape, a file name that is not UTF-8) cannot be hashed or stored; nor is an id holding a
  NUL character taken (no command line can name it to delete it); the error names the field
  and the position, and the indexer fails that document alone (the others go on).
* :class:`FiniteEmbedder`: vectors holding NaN or an infinity (a broken custom or framework
  embedder) fail the document with an error naming the embedder; nothing is stored for it.
* :func:`printable`: a string safe to print on any terminal (its ``ascii()`` form when it
  holds a lone surrogate).

Example:
    >>> from hyperviz_core.rag.types import Document
    >>> check_document(Document(id="d", text="fine"))
    >>> check_document(Document(id="d", text="bad \\ud800"))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: document 'd': field 'text' holds a lone surrogate '\\ud800' at character 5 ...
    >>> printable("a\\udcffb")
    "'a\\\\udcffb'"
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from ...surrogates import surrogate_at
from ..providers.protocols import PassThrough
from ..types import Document, json_safe_metadata
from ..vectors import finite_rows

__all__ = ["FiniteEmbedder", "check_document", "check_fields", "finite_rows", "printable",
           "surrogate_at"]


def printable(text: str) -> str:
    """``text`` itself when it encodes as UTF-8, else its ``ascii()`` form (quoted)."""
    return text if surrogate_at(text) is None else ascii(text)


def check_document(doc: Document) -> None:
    """``ValueError`` naming the field (and character) of ``doc`` that holds a lone
    surrogate, which no store can keep; None when the document is valid Unicode."""
    check_fields(doc.id, doc.title, doc.text, doc.metadata)


def check_fields(doc_id: str, title: str, text: str, metadata: dict[str, Any]) -> None:
    """:func:`check_document` of a document's fields, before it is made (its default id
    hashes title and text, which fails on a lone surrogate)."""
    meta = json.dumps(json_safe_metadata(metadata), ensure_ascii=False, sort_keys=True)
    for field, value in (("id", doc_id), ("title", title), ("text", text),
                         ("metadata", meta)):
        at = surrogate_at(value)
        if at is not None:
            name = f"document {doc_id!r}: " if doc_id else ""
            raise ValueError(f"{name}field {field!r} holds a lone surrogate {value[at]!a} at "
                             f"character {at + 1} (not valid Unicode; fix the input's encoding)")
    if "\x00" in doc_id:  # no command line can hold it: `vizrag delete` could not name it
        raise ValueError(f"document {printable(doc_id)!r}: its id holds a NUL character at "
                         f"character {doc_id.index(chr(0)) + 1}; give an id without it")


class FiniteEmbedder(PassThrough):
    """An embedder whose vectors are refused when not finite (:func:`finite_rows`); name,
    dimension and every other attribute are the wrapped embedder's."""

    @property
    def name(self) -> str:
        return str(self.inner.name)

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        out: npt.NDArray[np.float32] = finite_rows(self.inner.embed(texts), self.name)
        return out

    async def aembed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        # the indexer's embedder has aembed (a sync-only one got it from with_async)
        out: npt.NDArray[np.float32] = finite_rows(await self.inner.aembed(texts), self.name)
        return out
