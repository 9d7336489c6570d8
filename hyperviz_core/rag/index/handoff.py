"""Files read as ``vizrag index`` reads them, handed to a framework's document loader
(``vizrag_langchain.VizRAGLoader``, ``vizrag_llamaindex.VizRAGReader``).

Every input ``vizrag index`` takes is read by the same code (:mod:`.loaders`): text and
Markdown files, HTML pages, PDFs, Office files, OpenDocument files, e-books, e-mail, RTF,
subtitles, notebooks, JSON, JSONL, CSV and spreadsheets of records. A framework's document
carries the document's text, its id, and as metadata the document's own metadata (a file's
``source``, ``pages`` and ``page_starts``; a record's other fields) plus two keys the
frameworks read: ``title`` (the document's title; none when it has none) and ``source`` (its
own, else where it came from: ``corpus.jsonl:3``, ``book.xlsx (sheet 'Docs', row 4)``).
Where the metadata already holds another ``title`` (a record whose title is another field),
that one stays and the document's title goes under ``vizrag_title``, as VizRAG's keys do on
retrieved documents.

Example:
    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "ada.md").write_text("# Ada\\n\\nAda wrote notes.", encoding="utf-8")
    >>> [(d.id, d.text, m["title"]) for d, m in handed_documents(folder, FileOptions())]
    [('ada', '# Ada\\n\\nAda wrote notes.', 'Ada')]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, field_validator

from ..types import Document
from .legacy import fallback_encoding
from .loaders import iter_sourced_documents

__all__ = ["BOOKKEEPING_KEYS", "FileOptions", "handed_documents", "handed_metadata"]

#: the metadata keys that say where a file's text came from (the file, its pages, the part
#: of a large file, an inferred title): a framework keeps them out of what its embedder and
#: LLM read
BOOKKEEPING_KEYS: tuple[str, ...] = ("source", "pages", "page_starts", "part", "offset",
                                     "title_inferred")


class FileOptions(BaseModel):
    """How files are read (``vizrag index``'s options of the same names)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    #: the field (JSON, JSONL) or column (CSV, a sheet) a record's text is in; None:
    #: ``text``, else ``content``, ``contents``, ``body``, ``passage``, ``paragraph_text``
    text_field: str | None = None
    #: a record's id field
    id_field: str = "id"
    #: a record's title field
    title_field: str = "title"
    #: a file's document id is its path under the folder given (``a/README``); False: a
    #: content-hash id
    id_from_path: bool = True
    #: ``"skip"``: leave out a file that cannot be read, with a ``UserWarning`` naming it;
    #: ``"error"``: raise the :class:`~.errors.LoaderError` naming it
    on_unreadable: Literal["error", "skip"] = "error"
    #: also read the files that links in a folder lead to outside it
    follow_links: bool = False
    #: what a text file (text, Markdown, HTML without a declared charset, CSV, JSON, JSONL,
    #: subtitles) that is not UTF-8 is read in, from its first line that is not
    #: (``"cp1252"``, ``"gb18030"`` ...; ``"auto"``: guessed per file: :mod:`.legacy`);
    #: None: UTF-8 only
    encoding: str | None = None

    @field_validator("encoding")
    @classmethod
    def _known(cls, value: str | None) -> str | None:
        fallback_encoding(value)  # a ValueError naming it (pydantic's ValidationError)
        return value


def handed_metadata(doc: Document, where: str) -> dict[str, Any]:
    """The metadata a framework's document of ``doc`` (read from ``where``) carries (see
    the module's docs).

    >>> handed_metadata(Document(id="7", text="x", title="Oslo", metadata={"lang": "en"}),
    ...                 "a.jsonl:3")
    {'lang': 'en', 'title': 'Oslo', 'source': 'a.jsonl:3'}
    >>> handed_metadata(Document(id="7", text="x", title="Oslo", metadata={"title": "Mx"}),
    ...                 "a.jsonl:3")  # a record titled by another field than its "title"
    {'title': 'Mx', 'vizrag_title': 'Oslo', 'source': 'a.jsonl:3'}
    """
    meta = dict(doc.metadata)
    if doc.title:
        meta["title" if meta.get("title", doc.title) == doc.title else "vizrag_title"] = \
            doc.title
    meta.setdefault("source", where)
    return meta


def handed_documents(paths: str | Path | Iterable[str | Path], options: FileOptions, *,
                     show_progress: bool = False) -> Iterator[tuple[Document, dict[str, Any]]]:
    """Each document of the files and folders ``paths`` (folders walked in sorted order),
    read as ``vizrag index`` reads them, with the metadata its framework document carries;
    ``show_progress``: a bar over the files (tqdm, on stderr)."""
    given = [paths] if isinstance(paths, str | Path) else list(paths)
    for doc, where in iter_sourced_documents(given, show_progress=show_progress,
                                             **options.model_dump()):
        yield doc, handed_metadata(doc, where)
