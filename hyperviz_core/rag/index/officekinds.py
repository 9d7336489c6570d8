"""Word files, PowerPoint decks and Excel workbooks read by what they hold, whatever their
suffix says.

Office opens a Word 97-2003 document named ``.docx``, a ``.docx`` file or an RTF file named
``.doc``, and a deck or a workbook of either kind under the other's suffix all the same, and
such files abound (renamed by hand, or by an export that picked the suffix). So do web
pages named ``.xls`` or ``.doc``: the "Excel export" of many web applications is an HTML
table. :func:`word_file`, :func:`deck_file` and :func:`workbook_file` look at a file's
first bytes and hand it to the reader of what it is: a zip package to :mod:`.wordfiles`,
:mod:`.slides` or :mod:`.sheets`, a compound file to :mod:`.docfiles`, :mod:`.pptfiles` or
:mod:`.xlsfiles`, RTF to :mod:`.rtffiles`, a web page to :mod:`.htmlpages` (one document);
anything else to the reader its suffix names, which says what it is not. Each reader needs
its own extra.

Example:
    >>> _is_page(b"\\xef\\xbb\\xbf  <html><body><table>"), _is_page(b"<?xml version='1.0'?>")
    (True, False)
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from ..types import Document
from .docfiles import doc_document
from .htmlpages import html_document
from .olefiles import OLE_MAGIC, locked_package
from .pptfiles import ppt_document
from .rtffiles import rtf_document
from .sheets import xlsx_documents
from .slides import slides_document
from .suffixes import DOC_SUFFIXES, PPT_SUFFIXES, XLS_SUFFIXES
from .textfiles import foreign_file
from .wordfiles import word_document
from .xlsfiles import xls_documents

__all__ = ["deck_file", "word_file", "workbook_file"]

_Reader = Callable[[Path, bool, Path | None], Document]
_ZIP = b"PK\x03\x04"


#: the start of a web page (case-folded), after a byte-order mark and spaces
_PAGE_STARTS = (b"<!doctype html", b"<html", b"<table", b"<meta", b"<head")


def _head(path: Path) -> bytes:
    """The file's first bytes (enough to tell a zip package, a compound file, RTF and a web
    page)."""
    with foreign_file(path, "an Office file"), path.open("rb") as fh:
        return fh.read(512)


def _is_page(head: bytes) -> bool:
    """Whether a file starting with ``head`` is a web page (an HTML table named ``.xls``)."""
    start = head.removeprefix(b"\xef\xbb\xbf").lstrip().lower()
    return start.startswith(_PAGE_STARTS)


def _reader(head: bytes, kinds: tuple[tuple[bytes, _Reader], ...],
            by_suffix: _Reader) -> _Reader:
    """The reader of a file starting with ``head``: a web page's, else the one of ``kinds``
    (first bytes, reader) it starts as, else ``by_suffix``."""
    if _is_page(head):
        return html_document
    return next((reader for magic, reader in kinds if head.startswith(magic)), by_suffix)


def word_file(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the Word file ``path``, read as what it holds (see the module's
    docs)."""
    by_suffix = doc_document if path.suffix.lower() in DOC_SUFFIXES else word_document
    kinds = ((_ZIP, word_document), (OLE_MAGIC, doc_document), (b"{\\rtf", rtf_document))
    return _reader(_head(path), kinds, by_suffix)(path, id_from_path, root)


def deck_file(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the PowerPoint deck ``path``, read as what it holds (see the
    module's docs)."""
    by_suffix = ppt_document if path.suffix.lower() in PPT_SUFFIXES else slides_document
    kinds = ((_ZIP, slides_document), (OLE_MAGIC, ppt_document))
    return _reader(_head(path), kinds, by_suffix)(path, id_from_path, root)


def workbook_file(path: Path, id_from_path: bool, root: Path | None = None, *,
                  text_field: str | None = None, id_field: str = "id",
                  title_field: str = "title") -> Iterator[tuple[Document, str]]:
    """The documents of the Excel workbook ``path``, read as what it holds (see the
    module's docs), with the record fields of :func:`~.sheets.xlsx_documents`."""
    head = _head(path)
    if _is_page(head):  # an HTML table: one document
        return iter([(html_document(path, id_from_path, root), str(path))])
    old = head.startswith(OLE_MAGIC) or (
        not head.startswith(_ZIP) and path.suffix.lower() in XLS_SUFFIXES)
    if head.startswith(OLE_MAGIC) and (locked := locked_package(path)) is not None:
        raise locked
    read = xls_documents if old else xlsx_documents
    return read(path, id_from_path, root, text_field=text_field, id_field=id_field,
                title_field=title_field)
