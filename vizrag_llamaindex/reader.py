"""A LlamaIndex reader that reads files as ``vizrag index`` does.

:class:`VizRAGReader` reads text and Markdown files, HTML pages, PDFs, Word files, decks,
workbooks, OpenDocument files, e-books, e-mail, RTF, subtitles, notebooks, JSON, JSONL, CSV
and spreadsheets of records — one
reader for every format, the core's (:mod:`hyperviz_core.rag.index.handoff`) — as LlamaIndex
``Document`` objects: the document's id as ``id_``, its text, and its metadata with
``title`` and ``source``. The bookkeeping keys (``source``, ``pages``, ``page_starts``,
``part``, ``offset``, ``title_inferred``: ``BOOKKEEPING_KEYS``) are kept out of the text the
embedder and the LLM read, as ``SimpleDirectoryReader`` keeps its file keys out; a record's
own fields stay in. Handed to :meth:`~vizrag_llamaindex.VizRAGIndex.from_documents`, they
index as ``vizrag index`` would index the files (the same ids, titles and page numbers).

Example::

    >>> import tempfile
    >>> from pathlib import Path
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "ada.md").write_text("# Ada\\n\\nAda wrote notes.", encoding="utf-8")
    >>> [(d.id_, d.text, d.metadata["title"]) for d in VizRAGReader().load_data(folder)]
    [('ada', '# Ada\\n\\nAda wrote notes.', 'Ada')]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from llama_index.core.readers.base import BaseReader
from llama_index.core.schema import Document

from hyperviz_core.rag.index.handoff import BOOKKEEPING_KEYS, FileOptions, handed_documents
from hyperviz_core.rag.index.loaders import UnreadablePolicy
from hyperviz_core.rag.index.suffixes import readable_suffixes

__all__ = ["VizRAGReader"]


class VizRAGReader(BaseReader):
    """Read files and folders as LlamaIndex documents, as ``vizrag index`` reads them.

    Args:
        text_field, id_field, title_field, id_from_path, on_unreadable, follow_links,
        encoding:
            how files are read, as ``vizrag index``'s options of the same names
            (:class:`~hyperviz_core.rag.FileOptions`, which says what each does).
        show_progress: a progress bar over the files read (tqdm, on stderr).

    ``load_data(paths)`` reads a file or folder, or several; ``lazy_load_data`` one file
    at a time. As a ``SimpleDirectoryReader`` file extractor
    (``file_extractor={".xlsx": VizRAGReader()}``, or every suffix vizrag reads:
    :meth:`file_extractor`) it reads the files of those suffixes,
    ``extra_info`` (the reader's file metadata: ``file_name``, ``file_path`` ...) added to
    each document's metadata, a key of both taking ``extra_info``'s value, as LlamaIndex's
    readers do. Files are read from the local disk: a ``fs`` other than the local one is a
    ``ValueError``.
    """

    def __init__(self, *, text_field: str | None = None, id_field: str = "id",
                 title_field: str = "title", id_from_path: bool = True,
                 on_unreadable: UnreadablePolicy = "error", follow_links: bool = False,
                 encoding: str | None = None, show_progress: bool = False) -> None:
        self.options = FileOptions(text_field=text_field, id_field=id_field,
                                   title_field=title_field, id_from_path=id_from_path,
                                   on_unreadable=on_unreadable, follow_links=follow_links,
                                   encoding=encoding)
        self.show_progress = show_progress

    @classmethod
    def file_extractor(cls, **options: Any) -> dict[str, VizRAGReader]:
        """A ``SimpleDirectoryReader`` ``file_extractor`` that reads every suffix vizrag reads
        here (one reader, made with ``options``; a suffix whose extra is not installed is
        left to LlamaIndex's own reader):
        ``SimpleDirectoryReader("docs/", file_extractor=VizRAGReader.file_extractor())``.

        >>> sorted(VizRAGReader.file_extractor())[:3]
        ['.csv', '.docm', '.docx']
        """
        reader = cls(**options)
        return dict.fromkeys(readable_suffixes(), reader)

    def lazy_load_data(self, paths: str | Path | Iterable[str | Path],
                       *args: Any, extra_info: dict[str, Any] | None = None, fs: Any = None,
                       **load_kwargs: Any) -> Iterator[Document]:
        """The documents of ``paths``, one file read at a time."""
        if args or load_kwargs:
            given = [*map(repr, args), *load_kwargs]
            raise TypeError(f"VizRAGReader.load_data takes the paths (and extra_info) only, "
                            f"got {given}: pass the reading options to VizRAGReader(...)")
        if fs is not None and "file" not in (getattr(fs, "protocol", None) or ()):
            raise ValueError(f"VizRAGReader reads local files only, got the file system {fs!r}")
        for doc, meta in handed_documents(paths, self.options, show_progress=self.show_progress):
            meta.update(extra_info or {})
            hidden = [k for k in BOOKKEEPING_KEYS if k in meta]
            yield Document(id_=doc.id, text=doc.text, metadata=meta,
                           excluded_embed_metadata_keys=hidden,
                           excluded_llm_metadata_keys=list(hidden))
