"""Fixed-length sliding-window chunking with overlap, in characters or tokens.

Windows prefer to end at a sentence boundary (then, in CJK text, at a clause boundary; then at
whitespace) inside their last half, so chunks rarely cut words or sentences; CJK ``。！？`` end
a sentence without a following space. The overlap starts at a word start, or in CJK text (no
spaces) at a near sentence or clause start, else at the exact character. A token of the
``"token"`` unit is one CJK ideograph, kana or Hangul syllable, or a run of other
non-whitespace characters (:data:`TOKEN_RE`). Chunk ids are ``chunk-`` + a content hash of (document
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

import bisect
import re
from typing import Any, Literal

from ...unitext import boundary
from ..types import Chunk, Document, content_hash
from .titles import with_inferred_title

__all__ = ["TOKEN_RE", "chunk_document", "chunk_documents", "chunk_id", "chunk_metadata",
           "page_span"]

#: Characters written without spaces between words: CJK ideographs, kana and Hangul syllables.
#: Each is one token of the ``"token"`` unit, and a window may start or end between two of them.
_CJK = ("\u1100-\u11ff\u3005-\u3007\u3040-\u309f\u30a0-\u30ff\u3130-\u318f\u31f0-\u31ff"
        "\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\uf900-\ufaff\uff66-\uff9f"
        "\U00020000-\U0003134f")
#: Tokens of the ``"token"`` unit: one CJK ideograph, kana or Hangul syllable, or a run of
#: other non-whitespace characters (for text without CJK characters: the runs of non-whitespace).
TOKEN_RE = re.compile(rf"[{_CJK}]|[^\s{_CJK}]+")
_CLOSE = r""")"'\]»”’」』）】〕〉》］｝"""
#: sentence ends of scripts that space their words: Latin, Arabic (``؟``, ``؛``), Urdu (``۔``),
#: Devanagari (``।``, ``॥``), Armenian (``։``), Ethiopic (``።``), Hebrew's sof pasuq (``׃``)
_STOPS = ".!?;؟؛۔।॥։።׃"
_SENT_END = re.compile(rf"[{_STOPS}。！？][{_CLOSE}]*$")
#: CJK sentence ends: full stops, marks, semicolons, and ellipses after a CJK character; the
#: Khmer (``។ ៕``) and Myanmar (``။``) full stops, also written without a space after them.
_CJK_END = rf"(?:[。！？；｡។៕။]+|(?<=[{_CJK}])[…‥]+)[{_CLOSE}]*"
_SENT_BREAK = re.compile(rf"[{_STOPS}。！？][{_CLOSE}]*(?=\s)|\n\s*\n|\n|{_CJK_END}")
#: Clause ends of CJK text (commas, enumeration commas, colons): second-best window ends.
_CLAUSE = rf"[，、：︰][{_CLOSE}]*"
_CLAUSE_BREAK = re.compile(rf"{_CJK_END}|{_CLAUSE}")
_CJK_CHAR = re.compile(rf"[{_CJK}]")
#: letters of the scripts of South-East Asia written without spaces between words (Thai,
#: Lao, Myanmar, Khmer): a window may start or end between two of their clusters
_SEA_CHAR = re.compile("[\u0e01-\u0e5b\u0e81-\u0edf\u1000-\u109f\u1780-\u17f9]")
_CJK_END_TOKEN = re.compile(_CJK_END)
_CLAUSE_TOKEN = re.compile(_CLAUSE)


def chunk_id(doc_id: str, text: str, dup: int = 0) -> str:
    """``chunk-<hash>`` of (document id, text); ``dup`` > 0 for repeated text in a document."""
    salt = f"\x1f{dup}" if dup else ""
    return "chunk-" + content_hash(f"{doc_id}\x1f{text}{salt}")


def _window_end(text: str, start: int, size: int) -> int:
    """End of the window from ``start``: its last sentence break in its second half, else its
    last CJK clause break there, else its last whitespace there, else ``size`` characters."""
    end = min(start + size, len(text))
    if end >= len(text):
        return end
    window = text[start:end]
    floor = size // 2
    cut = -1
    for m in _SENT_BREAK.finditer(window):
        if m.end() >= floor:
            cut = m.end()
    if cut < 0:
        for m in _CLAUSE_BREAK.finditer(window, floor):
            cut = m.end()
    if cut < 0:
        ws = max(window.rfind(" "), window.rfind("\n"), window.rfind("\t"))
        if ws >= floor:
            cut = ws
    if cut > 0:
        return start + cut
    return _cluster_cut(text, end, start) if end < len(text) else end


#: the furthest a cut moves back to the start of a letter cluster (a longer run of marks,
#: joiners or tag characters is cut where the count falls)
_CLUSTER_BACK = 32


def _cluster_cut(text: str, pos: int, start: int) -> int:
    """``pos`` moved back to the start of the letter cluster it falls in (never to ``start``
    or before it, nor more than :data:`_CLUSTER_BACK` characters); ``pos`` itself when no
    cluster starts there."""
    k = pos
    while k > start and pos - k < _CLUSTER_BACK:
        if boundary(text, k):
            return k
        k -= 1
    return pos


def _overlap_start(text: str, start: int, end: int, overlap: int) -> int:
    """Start of the window after ``text[start:end]``: ``overlap`` characters back, moved forward
    to the next word start (text with spaces) or, in CJK text, to a sentence or clause start
    within the overlap's first half, else kept at the exact character."""
    nxt = max(end - overlap, start + 1)
    if overlap <= 0 or nxt >= end:
        return nxt
    ws = nxt
    while ws < end and not text[ws - 1].isspace():
        ws += 1
    cjk = _CLAUSE_BREAK.search(text, nxt, min(end, nxt + overlap // 2))
    if cjk is not None and cjk.end() < end and (ws >= end or cjk.end() < ws):
        return cjk.end()
    if ws < end:
        return ws
    if _SEA_CHAR.match(text, nxt - 1) or _SEA_CHAR.match(text, nxt):
        return _cluster_cut(text, nxt, start)  # the start of the cluster ``nxt`` is in
    return nxt if _CJK_CHAR.match(text, nxt - 1) or _CJK_CHAR.match(text, nxt) else end


def _char_windows(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    n = len(text)
    start = 0
    while start < n:
        while start < n and text[start].isspace():
            start += 1
        if start >= n:
            break
        end = _window_end(text, start, size)
        spans.append((start, end))
        if end >= n:
            break
        start = _overlap_start(text, start, end, overlap)
    return spans


def _token_end(text: str, toks: list[tuple[int, int]], i: int, size: int) -> int:
    """Exclusive end token of the window from token ``i``: after its last sentence-ending token
    in its second half, else (CJK text) after its last clause-ending token there, else ``size``
    tokens."""
    j = min(i + size, len(toks))
    if j >= len(toks):
        return j
    floor = i + max(1, size // 2)
    for t in range(j - 1, floor - 1, -1):
        a, b = toks[t]
        if _SENT_END.search(text[a:b]) or _CJK_END_TOKEN.fullmatch(text, a, b):
            return t + 1
    for t in range(j - 1, floor - 1, -1):
        if _CLAUSE_TOKEN.fullmatch(text, *toks[t]):
            return t + 1
    return j


def _token_windows(text: str, size: int, overlap: int) -> list[tuple[int, int]]:
    toks = [(m.start(), m.end()) for m in TOKEN_RE.finditer(text)]
    spans: list[tuple[int, int]] = []
    i = 0
    while i < len(toks):
        j = _token_end(text, toks, i, size)
        spans.append((toks[i][0], toks[j - 1][1]))
        if j >= len(toks):
            break
        i = max(j - overlap, i + 1)
    return spans


def chunk_metadata(doc: Document) -> dict[str, Any]:
    """The metadata each chunk of ``doc`` carries: the document's, and its title if any."""
    return {**doc.metadata, "title": doc.title} if doc.title else dict(doc.metadata)


def _page_starts(doc: Document) -> bool:
    """Whether ``doc`` is a whole file with ``page_starts`` (:mod:`.pdfs`): offsets into its
    text, in order, from 0 (a piece of it, a framework's chunk or split, is not)."""
    value = doc.metadata.get("page_starts")
    return (not doc.one_chunk and isinstance(value, list) and bool(value)
            and all(type(v) is int for v in value) and value == sorted(value)
            and value[0] == 0 and value[-1] <= len(doc.text))


def page_span(page_starts: list[int], start: int, end: int) -> tuple[int, int]:
    """The pages (from 1) on which the text ``[start, end)`` begins and ends, given where
    each page starts.

    >>> page_span([0, 100, 250], 90, 120), page_span([0, 100, 250], 260, 300)
    ((1, 2), (3, 3))
    """
    first = bisect.bisect_right(page_starts, start)
    last = bisect.bisect_right(page_starts, max(end - 1, start))
    return max(first, 1), max(last, 1)


def _with_pages(meta: dict[str, Any], starts: list[int] | None, start: int,
                end: int) -> dict[str, Any]:
    """A chunk's metadata: ``meta``, and with a PDF's ``starts`` the pages (from 1) on
    which the chunk's text begins and ends (``page``, ``page_end``)."""
    if not starts:
        return dict(meta)
    first, last = page_span(starts, start, end)
    return {**meta, "page": first, "page_end": last}


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
    meta = chunk_metadata(doc)
    starts = meta.pop("page_starts") if _page_starts(doc) else None
    if doc.one_chunk:  # already a chunk: the whole text under the document's own id
        piece = text.rstrip()
        return [Chunk(id=doc.id, doc_id=doc.id, text=piece, start=0, end=len(piece),
                      metadata=_with_pages(meta, starts, 0, len(piece)))
                ] if piece.strip() else []
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
                            index=len(chunks), start=start, end=end,
                            metadata=_with_pages(meta, starts, start, end)))
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
