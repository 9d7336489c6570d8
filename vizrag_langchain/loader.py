"""A LangChain document loader that reads files as ``vizrag index`` does.

:class:`VizRAGLoader` reads text and Markdown files, HTML pages, PDFs, Word files, decks,
workbooks, OpenDocument files, e-books, e-mail, RTF, subtitles, notebooks, JSON, JSONL, CSV
and spreadsheets of records — one
reader for every format, the core's (:mod:`hyperviz_core.rag.index.handoff`) — as LangChain
``Document`` objects: the document's id as ``id``, its text as ``page_content``, and its
metadata with ``title`` and ``source``. Handed to :class:`~vizrag_langchain.VizRAGVectorStore`
or :class:`~vizrag_langchain.VizRAGRetriever`, they index as ``vizrag index`` would index
the files (the same ids, titles and page numbers).

Example::

    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "ada.md").write_text("# Ada\\n\\nAda wrote notes.", encoding="utf-8")
    >>> [(d.id, d.page_content, d.metadata["title"]) for d in VizRAGLoader(folder).load()]
    [('ada', '# Ada\\n\\nAda wrote notes.', 'Ada')]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from langchain_core.document_loaders import BaseLoader
from langchain_core.documents import Document

from hyperviz_core.rag.index.handoff import FileOptions, handed_documents
from hyperviz_core.rag.index.loaders import UnreadablePolicy

__all__ = ["VizRAGLoader"]


class VizRAGLoader(BaseLoader):
    """Load the files and folders ``paths`` (folders walked in sorted order) as LangChain
    documents, read as ``vizrag index`` reads them.

    Args:
        paths: a file or folder, or several.
        text_field, id_field, title_field, id_from_path, on_unreadable, follow_links,
        encoding:
            how files are read, as ``vizrag index``'s options of the same names
            (:class:`~hyperviz_core.rag.FileOptions`, which says what each does).
        show_progress: a progress bar over the files read (tqdm, on stderr).

    Documents are read one file at a time (:meth:`lazy_load`).
    """

    def __init__(self, paths: str | Path | Iterable[str | Path], *,
                 text_field: str | None = None, id_field: str = "id",
                 title_field: str = "title", id_from_path: bool = True,
                 on_unreadable: UnreadablePolicy = "error", follow_links: bool = False,
                 encoding: str | None = None, show_progress: bool = False) -> None:
        self.paths = [paths] if isinstance(paths, str | Path) else list(paths)
        self.options = FileOptions(text_field=text_field, id_field=id_field,
                                   title_field=title_field, id_from_path=id_from_path,
                                   on_unreadable=on_unreadable,
                                   follow_links=follow_links, encoding=encoding)
        self.show_progress = show_progress

    def lazy_load(self) -> Iterator[Document]:
        """The documents, one file read at a time."""
        for doc, meta in handed_documents(self.paths, self.options,
                                          show_progress=self.show_progress):
            yield Document(id=doc.id, page_content=doc.text, metadata=meta)

    def __repr__(self) -> str:
        shown: Any = [str(p) for p in self.paths]
        return f"VizRAGLoader({shown!r})"
