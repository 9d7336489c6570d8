"""Fixed-length sliding-window chunking with overlap, in characters or tokens.

Windows prefer to end at a sentence boundary (then at whitespace) inside their last half, so
chunks rarely cut words or sentences. Chunk ids are ``chunk-`` + a content hash of (document
id, chunk text), so re-chunking unchanged text gives the same ids. Each chunk carries the
document's title and metadata; an untitled long document, the title its opening states
(:mod:`.titles`).

Example:
    >>> from hyperviz_core.rag.types import Document
    >>> doc = Document(id="d", text="One two three. Four five six. Seven eight nine.")
    >>> [c.text for c in chunk_document(doc, size=20, overlap=0)]
    ['One two three.', 'Four five six.', 'Seven eight nine.']
    >>> [c.text for c in chunk_document(doc, size=4, overlap=1, unit="token")]
    ['One two three.', 'three. Four five six.', 'six. Seven eight nine.']
"""

from __future__ import annotations

import re
from typing import Literal

from ..types import Chunk, Document, content_hash
from .titles import with_inferred_title

__all__ = ["TOKEN_RE", "chunk_document", "chunk_documents", "chunk_id"]

#: Tokens of the ``"token"`` unit: runs of non-whitespace.
TOKEN_RE = re.compile(r"\S+")
_SENT_END = re.compile(r"""[.!?;。！？][)"'\]»”’]*$""")
_SENT_BREAK = re.compile(r"""[.!?;。！？][)"'\]»”’]*(?=\s)|\n\s*\n|\n""")


def chunk_id(doc_id: str, text: str, dup: int = 0) -> str:
    """``chunk-<hash>`` of (document id, text); ``dup`` > 0 for repeated text in a document."""
    salt = f"\x1f{dup}" if dup else ""
    return "chunk-" + content_hash(f"{doc_id}\x1f{text}{salt}")


def _char_windows(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    n = len(text)
    start = 0
    while start < n:
        while start < n and text[start].isspace():
            start += 1
        if start >= n:
            break
        end = min(start + size, n)
        if end < n:
            window = text[start:end]
            floor = size // 2
            cut = -1
            for m in _SENT_BREAK.finditer(window):
                if m.end() >= floor:
                    cut = m.end()
            if cut < 0:
                ws = max(window.rfind(" "), window.rfind("\n"), window.rfind("\t"))
                if ws >= floor:
                    cut = ws
            if cut > 0:
                end = start + cut
        spans.append((start, end))
        if end >= n:
            break
        nxt = max(end - overlap, start + 1)
        if overlap > 0 and nxt < end:
            # start the overlap at a word boundary
            while nxt < end and not text[nxt - 1].isspace():
                nxt += 1
            if nxt >= end:
                nxt = end
        start = nxt
    return spans


def _token_windows(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    toks = [(m.start(), m.end()) for m in TOKEN_RE.finditer(text)]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(toks):
        j = min(i + size, len(toks))  # exclusive
        if j < len(toks):
            floor = i + max(1, size // 2)
            for t in range(j - 1, floor - 1, -1):
                if _SENT_END.search(text[toks[t][0] : toks[t][1]]):
                    j = t + 1
                    break
        spans.append((toks[i][0], toks[j - 1][1]))
        if j >= len(toks):
            break
        i = max(j - overlap, i + 1)
    return spans


def chunk_document(
    doc: Document,
    size: int = 1200,
    overlap: int = 100,
    unit: Literal["char", "token"] = "char",
    *,
    infer_titles: bool = True,
) -> list[Chunk]:
    """Split a document into overlapping windows of ``size`` characters or tokens (a
    ``one_chunk`` document: one chunk of its whole text, its id the document's).

    ``overlap`` (same unit) must be smaller than ``size``. Empty or whitespace-only text
    gives no chunks. Each chunk's metadata holds the document title and metadata; with
    ``infer_titles``, an untitled document of at least
    :data:`~.titles.INFER_MIN_CHUNKS` chunks gets the title its opening states in capitals
    (:func:`~.titles.with_inferred_title`).
    """
    if size <= 0:
        raise ValueError(f"chunk size must be positive, got {size}")
    if overlap < 0 or overlap >= size:
        raise ValueError(f"chunk overlap must be in [0, size), got {overlap} (size {size})")
    if unit not in ("char", "token"):
        raise ValueError(f"chunk unit must be 'char' or 'token', got {unit!r}")
    text = doc.text
    meta = {**doc.metadata, "title": doc.title} if doc.title else dict(doc.metadata)
    if doc.one_chunk:  # already a chunk: the whole text under the document's own id
        piece = text.rstrip()
        return [Chunk(id=doc.id, doc_id=doc.id, text=piece, start=0, end=len(piece),
                      metadata=meta)] if piece.strip() else []
    spans = _char_windows(text, size, overlap) if unit == "char" else _token_windows(
        text, size, overlap)
    chunks: list[Chunk] = []
    seen: dict[str, int] = {}
    for start, end in spans:
        while end > start and text[end - 1].isspace():
            end -= 1
        piece = text[start:end]
        if not piece.strip():
            continue
        dup = seen.get(piece, 0)
        seen[piece] = dup + 1
        chunks.append(Chunk(id=chunk_id(doc.id, piece, dup), doc_id=doc.id, text=piece,
                            index=len(chunks), start=start, end=end, metadata=dict(meta)))
    return with_inferred_title(doc, chunks) if infer_titles else chunks


def chunk_documents(
    docs: list[Document],
    size: int = 1200,
    overlap: int = 100,
    unit: Literal["char", "token"] = "char",
    *,
    infer_titles: bool = True,
) -> list[Chunk]:
    """:func:`chunk_document` over several documents, concatenated."""
    return [c for d in docs
            for c in chunk_document(d, size, overlap, unit, infer_titles=infer_titles)]
