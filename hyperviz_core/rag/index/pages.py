"""A document made of pages: a PDF's pages (:mod:`.pdfs`), a deck's slides (:mod:`.slides`).

The pages' text is joined in order with a blank line between two pages (a page without
text adds nothing). ``metadata["pages"]`` is the page count and ``metadata["page_starts"]``
where each page's text starts in the document's text (a page without text: where the next
page's text starts, or the text's end), so each chunk is told the pages it
spans (``page`` and ``page_end``, counted from 1: :func:`~.chunking.chunk_document`).

Example:
    >>> from pathlib import Path
    >>> doc = paged_document(Path("a.pdf"), "a.pdf", "A", ["One.", "", "Three."])
    >>> doc.text, doc.metadata["pages"], doc.metadata["page_starts"]
    ('One.\\n\\nThree.', 3, [0, 6, 6])
    >>> paged_document(Path("b.pdf"), "b.pdf", "B", ["One.", "", ""]).metadata["page_starts"]
    [0, 4, 4]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...unitext import plain_text
from ..types import Document

__all__ = ["PAGE_BREAK", "paged_document"]

#: between two pages' text
PAGE_BREAK = "\n\n"


def paged_document(path: Path, doc_id: str, title: str, pages: list[str]) -> Document:
    """The document of the file ``path`` whose pages show ``pages`` (see the module's docs);
    without ``page_starts`` when cleaning the text moved its characters."""
    texts = [plain_text(p).strip() for p in pages]
    starts: list[int] = []
    parts: list[str] = []
    at = 0
    for text in texts:
        if not text:  # a page without text: where the next page's text would start
            starts.append(at + len(PAGE_BREAK) if parts else at)
            continue
        if parts:
            parts.append(PAGE_BREAK)
            at += len(PAGE_BREAK)
        starts.append(at)
        parts.append(text)
        at += len(text)
    body = "".join(parts)
    meta: dict[str, Any] = {"source": str(path), "pages": len(pages)}
    if plain_text(body) == body:  # offsets into the text the document keeps
        # pages without text at the end start where the text ends (no text follows them)
        meta["page_starts"] = [min(s, len(body)) for s in starts]
    return Document(id=doc_id, title=title, text=body, metadata=meta)
