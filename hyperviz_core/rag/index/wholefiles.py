"""The files read whole, each by its own reader, by suffix: HTML pages (:mod:`.htmlpages`),
PDFs (:mod:`.pdfs`), Word documents (:mod:`.wordfiles`; 97-2003 ones: :mod:`.docfiles`),
PowerPoint decks (:mod:`.slides`; 97-2003 ones: :mod:`.pptfiles`), OpenDocument text,
presentations and spreadsheets (:mod:`.opendocs`, :mod:`.odsfiles`), Excel workbooks
(:mod:`.sheets`; 97-2003 ones: :mod:`.xlsfiles`), Apple Numbers spreadsheets
(:mod:`.numbersfiles`), EPUB e-books (:mod:`.ebooks`), e-mail
messages (:mod:`.mails`; Outlook's: :mod:`.msgfiles`), RTF files (:mod:`.rtffiles`),
subtitles (:mod:`.subtitles`) and Jupyter notebooks (:mod:`.notebooks`); a message's
attachments are read by these readers too, and by CSV's (:func:`attachment_reader`). Each
reader of :data:`WHOLE_FILES` takes ``(path, id_from_path, root)`` and returns the file's one
document; each of :data:`WORKBOOKS` (spreadsheets: a sheet of records gives a document a
row, :mod:`.workbooks`) also takes the record fields (``text_field=``, ``id_field=``,
``title_field=``) and yields its documents, each with where it came from. A large file is
never read in parts.

Example:
    >>> sorted(WHOLE_FILES)  # doctest: +NORMALIZE_WHITESPACE
    ['.doc', '.docm', '.docx', '.dot', '.dotm', '.dotx', '.eml', '.epub', '.htm', '.html',
     '.ipynb', '.msg', '.odp', '.odt', '.pdf', '.pot', '.potm', '.potx', '.pps', '.ppsm',
     '.ppsx', '.ppt', '.pptm', '.pptx', '.rtf', '.srt', '.vtt', '.xhtml']
    >>> sorted(WORKBOOKS)
    ['.numbers', '.ods', '.xls', '.xlsm', '.xlsx', '.xlt', '.xltm', '.xltx']
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path

from ..types import Document
from .attachments import Read
from .csvfiles import csv_documents
from .ebooks import epub_document
from .htmlpages import html_document
from .mails import eml_document, mbox_documents
from .msgfiles import msg_document
from .notebooks import notebook_document
from .numbersfiles import numbers_documents
from .odpfiles import odp_document
from .odsfiles import ods_documents
from .officekinds import deck_file, word_file, workbook_file
from .opendocs import odt_document
from .pdfs import pdf_document
from .rtffiles import rtf_document
from .subtitles import subtitle_document
from .suffixes import (
    CSV_SUFFIXES,
    DOC_SUFFIXES,
    EMAIL_SUFFIXES,
    EPUB_SUFFIXES,
    HTML_SUFFIXES,
    MAILBOX_SUFFIXES,
    MSG_SUFFIXES,
    NOTEBOOK_SUFFIXES,
    NUMBERS_SUFFIXES,
    PDF_SUFFIXES,
    PPT_SUFFIXES,
    PPTX_SUFFIXES,
    RTF_SUFFIXES,
    SUBTITLE_SUFFIXES,
    TEXT_SUFFIXES,
    WORD_SUFFIXES,
    XLS_SUFFIXES,
    XLSX_SUFFIXES,
)
from .textfiles import read_text

__all__ = ["ENCODED_FILES", "MAILBOXES", "WHOLE_FILES", "WORKBOOKS", "attachment_reader",
           "attachment_text"]

#: suffix -> the reader of such files
def _eml(path: Path, id_from_path: bool, root: Path | None = None, *,
         encoding: str | None = None) -> Document:
    return eml_document(path, id_from_path, root, _readers(encoding), encoding=encoding)


def _msg(path: Path, id_from_path: bool, root: Path | None = None, *,
         encoding: str | None = None) -> Document:
    return msg_document(path, id_from_path, root, _readers(encoding))


def _mbox(path: Path, id_from_path: bool = True, root: Path | None = None, *,
          encoding: str | None = None) -> Iterator[tuple[Document, str]]:
    return mbox_documents(path, id_from_path, root, _readers(encoding), encoding=encoding)


def _readers(encoding: str | None) -> Read:
    """:func:`attachment_reader` reading in ``encoding``."""
    return partial(attachment_reader, encoding=encoding)


def attachment_reader(suffix: str, encoding: str | None = None
                      ) -> Callable[[Path], str] | None:
    """:func:`attachment_text` reading in ``encoding``, for the suffixes it reads, else
    None (:mod:`.attachments`).

    >>> attachment_reader(".csv") is not None, attachment_reader(".png")
    (True, None)
    """
    known = any(suffix in kinds for kinds in (TEXT_SUFFIXES, CSV_SUFFIXES, WHOLE_FILES,
                                              WORKBOOKS))
    return partial(attachment_text, encoding=encoding) if known else None


def attachment_text(path: Path, encoding: str | None = None) -> str:
    """The text of a message's attachment saved at ``path``, read as the same file alone
    is, by the reader of its suffix: a whole file's (after its own title, a forwarded
    message's subject, unless the text starts with it), a workbook's or CSV file's
    documents', a text file's; ``""`` for a kind not read here (:mod:`.attachments`).
    ``encoding``: what such a file read as text that is not UTF-8 is read in (:mod:`.legacy`;
    a text part that declares its charset was saved in UTF-8: :mod:`.mimetext`)."""
    suffix = path.suffix.lower()
    if suffix in TEXT_SUFFIXES:
        return read_text(path, encoding).strip()
    if suffix in CSV_SUFFIXES:
        return "\n\n".join(d.text for d, _ in csv_documents(path, True, encoding=encoding))
    if suffix in WHOLE_FILES:  # its own title first (a forwarded message's subject)
        doc = ENCODED_FILES[suffix](path, True, None, encoding=encoding) \
            if suffix in ENCODED_FILES else WHOLE_FILES[suffix](path, True, None)
        own = doc.title if doc.title != path.stem and not doc.text.startswith(doc.title) \
            else ""
        return "\n\n".join(t for t in (own, doc.text) if t)
    if suffix in WORKBOOKS:
        return "\n\n".join(doc.text for doc, _ in WORKBOOKS[suffix](path, True, None))
    return ""


WHOLE_FILES: dict[str, Callable[[Path, bool, Path | None], Document]] = {
    **dict.fromkeys(HTML_SUFFIXES, html_document), **dict.fromkeys(PDF_SUFFIXES, pdf_document),
    **dict.fromkeys((*WORD_SUFFIXES, *DOC_SUFFIXES), word_file),
    **dict.fromkeys((*PPTX_SUFFIXES, *PPT_SUFFIXES), deck_file),
    ".odt": odt_document,    ".odp": odp_document, **dict.fromkeys(EPUB_SUFFIXES, epub_document),
    **dict.fromkeys(EMAIL_SUFFIXES, _eml), **dict.fromkeys(MSG_SUFFIXES, _msg),
    **dict.fromkeys(NOTEBOOK_SUFFIXES, notebook_document),
    **dict.fromkeys(RTF_SUFFIXES, rtf_document),
    **dict.fromkeys(SUBTITLE_SUFFIXES, subtitle_document)}

#: suffix -> the reader of such files that also takes ``encoding=`` (what a file read as
#: text that is not UTF-8 is read in: :mod:`.legacy`): pages and subtitles, and messages (a
#: body that declares no charset, the attachments: :mod:`.mimetext`)
ENCODED_FILES: dict[str, Callable[..., Document]] = {
    **dict.fromkeys(HTML_SUFFIXES, html_document),
    **dict.fromkeys(SUBTITLE_SUFFIXES, subtitle_document),
    **dict.fromkeys(EMAIL_SUFFIXES, _eml), **dict.fromkeys(MSG_SUFFIXES, _msg)}

#: suffix -> the reader of such files of many documents, each with where it came from
MAILBOXES: dict[str, Callable[..., Iterator[tuple[Document, str]]]] = \
    dict.fromkeys(MAILBOX_SUFFIXES, _mbox)

#: suffix -> the reader of such spreadsheets
WORKBOOKS: dict[str, Callable[..., Iterator[tuple[Document, str]]]] = {
    ".ods": ods_documents, **dict.fromkeys((*XLSX_SUFFIXES, *XLS_SUFFIXES), workbook_file),
    **dict.fromkeys(NUMBERS_SUFFIXES, numbers_documents)}
