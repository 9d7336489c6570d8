"""Read a large text file incrementally as consecutive *part* documents.

A text file bigger than ``part_bytes`` is never held in memory whole: it is read line by
line and cut at paragraph breaks (a blank line; at the next line end once a part reaches
twice the size without one) into documents ``<id>#part00001``, ``<id>#part00002``, ... that
are indexed, committed and released one after another. Each part is its own transaction, so
an interrupted run resumes at the first part not yet stored. A file of at most
``part_bytes`` stays one document with the plain id, exactly as before.

Example:
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "big.txt"
    >>> _ = p.write_text("# Atlas\\n\\n" + "\\n\\n".join(f"Paragraph {i} text." for i in range(6)))
    >>> parts = list(iter_text_parts(p, "big", part_bytes=40))
    >>> [(d.id, d.title) for d in parts][:2]
    [('big#part00001', 'Atlas'), ('big#part00002', 'Atlas')]
    >>> "".join(d.text for d in parts) == p.read_text()
    True
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ..types import Document

__all__ = ["PART_BYTES", "iter_text_parts", "read_title"]

#: default size of one part of a large text file (bytes of UTF-8)
PART_BYTES = 256 * 1024


def read_title(path: Path, text_head: str) -> str:
    """The first Markdown heading of ``text_head`` if it starts the text, else the stem."""
    title = path.stem
    for line in text_head.splitlines():
        s = line.strip()
        if s.startswith("#"):
            return s.lstrip("#").strip() or title
        if s:
            break
    return title


def _head(path: Path, limit: int = 65536) -> str:
    with path.open(encoding="utf-8-sig", errors="replace") as fh:
        return fh.read(limit)


def iter_text_parts(
    path: Path, doc_id: str, part_bytes: int = PART_BYTES, *, title: str | None = None
) -> Iterator[Document]:
    """Documents of consecutive parts of the UTF-8 text file ``path`` (see the module doc).

    Ids are ``doc_id#partNNNNN`` (``doc_id`` empty: content-hash ids); every part carries
    the file's title and metadata ``{"source", "part", "offset"}`` (``offset`` = the part's
    first character in the file). Raises :class:`UnicodeDecodeError` / :class:`OSError`
    like ``open`` does; the loader turns them into one-line errors.
    """
    if part_bytes < 1:
        raise ValueError(f"part size must be positive, got {part_bytes}")
    name = read_title(path, _head(path)) if title is None else title
    buf: list[str] = []
    size = 0
    offset = 0
    n = 0

    def emit() -> Document:
        nonlocal buf, size, offset, n
        n += 1
        text = "".join(buf)
        doc = Document(id=f"{doc_id}#part{n:05d}" if doc_id else "", text=text, title=name,
                       metadata={"source": str(path), "part": n, "offset": offset})
        offset += len(text)
        buf, size = [], 0
        return doc

    with path.open(encoding="utf-8-sig") as fh:
        for line in fh:
            buf.append(line)
            size += len(line.encode("utf-8"))
            if size >= 2 * part_bytes or (size >= part_bytes and not line.strip()):
                yield emit()
    if buf and "".join(buf).strip():
        yield emit()
