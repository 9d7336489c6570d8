"""Titles of documents: of text files (front matter, Markdown headings) and of untitled
long documents (inferred from their opening: a title page or heading).

**Text files.** :func:`read_title` titles a ``.txt``/``.md`` file: the ``title`` of its
front matter (:func:`front_matter`), else its first Markdown heading as plain text
(:func:`heading_title`, :func:`plain_heading`), else the file's stem. The front matter is
not part of the document's text (the loader drops it, :mod:`.textfiles`, :mod:`.parts`).

**Inferred titles.** A titled document's chunks carry its title (``metadata["title"]``): BM25 and the chunk
vectors read ``title + newline + text``, so a question that names the document matches all of
its chunks alike. A long document indexed *without* a title — a book, a report pasted as
plain text — loses that: a question such as "in Samuel Pepys's diary, with whom was my Lord
angry?" then matches best the few chunks that happen to print the name (the title page, a
running header, the licence at the end) rather than the passage about my Lord.

:func:`infer_title` reads the title a title page or heading states in capitals — the first
run of at least three consecutive upper-case words in the document's opening — and
:func:`with_inferred_title` gives it to every chunk of an untitled document of at least
``min_chunks`` chunks (``metadata["title_inferred"] = True`` marks it). Short passages, a
given title (``Document.title`` or ``metadata["title"]``) and an opening without such a run
are left alone.

Example:
    >>> infer_title("Produced by David Widger THE DIARY OF SAMUEL PEPYS M.A. F.R.S. CLERK")
    'THE DIARY OF SAMUEL PEPYS'
    >>> infer_title("[Illustration] TRAVELS IN MOROCCO, BY THE LATE JAMES RICHARDSON, AUTHOR OF")
    'TRAVELS IN MOROCCO, BY THE LATE JAMES RICHARDSON'
    >>> infer_title("If James M. Goodhue could revisit the earth and make a tour")
    ''
"""

from __future__ import annotations

from ..types import Chunk, Document

__all__ = ["INFER_MIN_CHUNKS", "infer_title", "with_inferred_title"]

#: least chunks of an untitled document for its title to be inferred
INFER_MIN_CHUNKS = 4
#: characters of the opening searched for the title
OPENING = 1000
#: most words of an inferred title
MAX_WORDS = 8
#: least consecutive upper-case words of a title
MIN_WORDS = 3
_TRAILING = ",;:."


def _capital(token: str) -> bool:
    """An upper-case word of two letters or more (apostrophes inside, ``,;:.`` after)."""
    core = token.rstrip(_TRAILING)
    letters = core.replace("'", "").replace("\u2019", "")
    return len(letters) >= 2 and letters.isalpha() and core.isupper()


def infer_title(text: str, *, opening: int = OPENING, max_words: int = MAX_WORDS) -> str:
    """The first run of at least three upper-case words in the first ``opening`` characters
    of ``text``, cut to ``max_words`` words, without trailing punctuation; ``""`` if none.

    >>> infer_title("Contents AN UNSENTIMENTAL JOURNEY THROUGH CORNWALL [Illustration]")
    'AN UNSENTIMENTAL JOURNEY THROUGH CORNWALL'
    >>> infer_title("A NOTE: only two")
    ''
    """
    run: list[str] = []
    for token in text[:opening].split():
        if _capital(token):
            run.append(token)
            continue
        if len(run) >= MIN_WORDS:
            break
        run = []
    if len(run) < MIN_WORDS:
        return ""
    return " ".join(run[:max_words]).rstrip(_TRAILING)


def with_inferred_title(doc: Document, chunks: list[Chunk],
                        min_chunks: int = INFER_MIN_CHUNKS) -> list[Chunk]:
    """``chunks`` of ``doc``, each with ``doc``'s inferred title in its metadata when ``doc``
    has no title and at least ``min_chunks`` chunks (else ``chunks`` unchanged).

    >>> from hyperviz_core.rag.index.chunking import chunk_document
    >>> doc = Document(id="d", text="THE GREAT BOOK OF TESTS. " + "Some prose here. " * 40)
    >>> chunks = with_inferred_title(doc, chunk_document(doc, size=200, overlap=0,
    ...                                                  infer_titles=False))
    >>> chunks[-1].metadata
    {'title': 'THE GREAT BOOK OF TESTS', 'title_inferred': True}
    """
    if doc.title or doc.metadata.get("title") or len(chunks) < min_chunks:
        return chunks
    title = infer_title(doc.text)
    if not title:
        return chunks
    meta = {"title": title, "title_inferred": True}
    return [c.model_copy(update={"metadata": {**c.metadata, **meta}}) for c in chunks]
