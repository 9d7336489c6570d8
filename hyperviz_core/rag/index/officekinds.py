"""Word files, PowerPoint decks and Excel workbooks read by what they hold, whatever their
suffix says.

Office opens a Word 97-2003 document named ``.docx``, a ``.docx`` file or an RTF file named
``.doc``, and a deck or a workbook of either kind under the other's suffix all the same, and
such files abound (renamed by hand, or by an export that picked the suffix).
:func:`word_file`, :func:`deck_file` and :func:`workbook_file` look at a file's first bytes
and hand it to the reader of what it is: a zip package to :mod:`.wordfiles`, :mod:`.slides`
or :mod:`.sheets`, a compound file to :mod:`.docfiles`, :mod:`.pptfiles` or
:mod:`.xlsfiles`, RTF to :mod:`.rtffiles`; anything else to the reader its suffix names,
which says what it is not. Each reader needs its own extra.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from ..types import Document
from .docfiles import doc_document
from .olefiles import OLE_MAGIC
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


def _head(path: Path) -> bytes:
    """The file's first bytes (enough to tell a zip package, a compound file and RTF)."""
    with foreign_file(path, "an Office file"), path.open("rb") as fh:
        return fh.read(len(OLE_MAGIC))


def _read(path: Path, id_from_path: bool, root: Path | None,
          kinds: tuple[tuple[bytes, _Reader], ...], by_suffix: _Reader) -> Document:
    head = _head(path)
    read = next((reader for magic, reader in kinds if head.startswith(magic)), by_suffix)
    return read(path, id_from_path, root)


def word_file(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the Word file ``path``, read as what it holds (see the module's
    docs)."""
    by_suffix = doc_document if path.suffix.lower() in DOC_SUFFIXES else word_document
    return _read(path, id_from_path, root, ((_ZIP, word_document), (OLE_MAGIC, doc_document),
                                            (b"{\\rtf", rtf_document)), by_suffix)


def deck_file(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the PowerPoint deck ``path``, read as what it holds (see the
    module's docs)."""
    by_suffix = ppt_document if path.suffix.lower() in PPT_SUFFIXES else slides_document
    return _read(path, id_from_path, root, ((_ZIP, slides_document), (OLE_MAGIC, ppt_document)),
                 by_suffix)


def workbook_file(path: Path, id_from_path: bool, root: Path | None = None, *,
                  text_field: str | None = None, id_field: str = "id",
                  title_field: str = "title") -> Iterator[tuple[Document, str]]:
    """The documents of the Excel workbook ``path``, read as what it holds (see the
    module's docs), with the record fields of :func:`~.sheets.xlsx_documents`."""
    head = _head(path)
    old = head.startswith(OLE_MAGIC) or (
        not head.startswith(_ZIP) and path.suffix.lower() in XLS_SUFFIXES)
    read = xls_documents if old else xlsx_documents
    return read(path, id_from_path, root, text_field=text_field, id_field=id_field,
                title_field=title_field)
