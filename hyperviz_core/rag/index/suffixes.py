"""Which files are read, by suffix, and which optional extra reads them.

A folder walk reads :data:`READ_SUFFIXES`; the files of :data:`FILE_SUFFIXES` may give a
document of their own (their path its ``source``); a file of :data:`SUFFIXED` keeps its
suffix in its id (:func:`keeps_suffix`); a PDF, a Word file, a deck or a workbook needs an
extra (:func:`reader_missing`, :func:`reader_module`).

Example:
    >>> keeps_suffix("docs/report.PDF"), keeps_suffix("notes.md"), id_path(Path("a/b.md"))
    (True, False, PosixPath('a/b'))
"""

from __future__ import annotations

import importlib
import importlib.util
from pathlib import Path
from types import ModuleType

from ...extras import install_hint
from .errors import LoaderError
from .guards import printable

__all__ = [
    "CSV_SUFFIXES", "DOC_SUFFIXES", "EMAIL_SUFFIXES", "EPUB_SUFFIXES", "FILE_SUFFIXES",
    "HTML_SUFFIXES", "JSONL_SUFFIXES", "JSON_SUFFIXES", "MAILBOX_SUFFIXES", "MSG_SUFFIXES",
    "NOTEBOOK_SUFFIXES", "NUMBERS_SUFFIXES",
    "ODF_SUFFIXES", "PDF_SUFFIXES", "PPTX_SUFFIXES", "PPT_SUFFIXES", "READ_SUFFIXES",
    "RTF_SUFFIXES", "SUBTITLE_SUFFIXES", "SUFFIXED", "TEXT_SUFFIXES", "WORD_SUFFIXES",
    "XLSX_SUFFIXES", "XLS_SUFFIXES", "id_path",
    "keeps_suffix", "readable_suffixes", "reader_missing", "reader_module",
]

TEXT_SUFFIXES = (".txt", ".md", ".markdown", ".rst", ".text")
JSON_SUFFIXES = (".json",)
JSONL_SUFFIXES = (".jsonl", ".ndjson")
#: web pages, read as the text they show (:mod:`.htmlpages`)
HTML_SUFFIXES = (".html", ".htm", ".xhtml")
#: PDF files, read as their pages' text with the ``pdf`` extra (:mod:`.pdfs`)
PDF_SUFFIXES = (".pdf",)
#: Word documents (macro-enabled ones and templates too: macros are never read), read as
#: their paragraphs and tables with the ``docx`` extra (:mod:`.wordfiles`)
WORD_SUFFIXES = (".docx", ".docm", ".dotx", ".dotm")
#: Word 97-2003 documents, read as their paragraphs and tables with the ``doc`` extra
#: (:mod:`.docfiles`)
DOC_SUFFIXES = (".doc", ".dot")
#: PowerPoint decks (macro-enabled ones, templates and slide shows too), read as their
#: slides' text with the ``pptx`` extra (:mod:`.slides`)
PPTX_SUFFIXES = (".pptx", ".pptm", ".potx", ".potm", ".ppsx", ".ppsm")
#: PowerPoint 97-2003 decks (slide shows and templates too), read as their slides' text with
#: the ``ppt`` extra (:mod:`.pptfiles`)
PPT_SUFFIXES = (".ppt", ".pps", ".pot")
#: OpenDocument text, presentations and spreadsheets, read with the standard library
#: (:mod:`.opendocs`)
ODF_SUFFIXES = (".odt", ".odp", ".ods")
#: EPUB e-books, read as their reading order's pages (:mod:`.ebooks`)
EPUB_SUFFIXES = (".epub",)
#: e-mail messages, read as their headers and body (:mod:`.mails`)
EMAIL_SUFFIXES = (".eml",)
#: Outlook messages, read as an e-mail message is with the ``msg`` extra (:mod:`.msgfiles`)
MSG_SUFFIXES = (".msg",)
#: mailboxes (mbox), a document a message (:mod:`.mails`)
MAILBOX_SUFFIXES = (".mbox",)
#: Jupyter notebooks, read as their Markdown and code cells (:mod:`.notebooks`)
NOTEBOOK_SUFFIXES = (".ipynb",)
#: subtitle and caption files, read as what the captions say (:mod:`.subtitles`)
SUBTITLE_SUFFIXES = (".srt", ".vtt")
#: Rich Text Format files, read as the text they show with the ``rtf`` extra (:mod:`.rtffiles`)
RTF_SUFFIXES = (".rtf",)
#: CSV and TSV files: records, or a table (:mod:`.csvfiles`)
CSV_SUFFIXES = (".csv", ".tsv")
#: Excel workbooks (macro-enabled ones and templates too: their macros are never read),
#: read as their sheets' rows with the ``xlsx`` extra (:mod:`.sheets`)
XLSX_SUFFIXES = (".xlsx", ".xlsm", ".xltx", ".xltm")
#: Excel 97-2003 workbooks (and templates), read alike with the ``xls`` extra (:mod:`.xlsfiles`)
XLS_SUFFIXES = (".xls", ".xlt")
#: Apple Numbers spreadsheets, read as their tables' rows with the ``numbers`` extra
#: (:mod:`.numbersfiles`)
NUMBERS_SUFFIXES = (".numbers",)
#: the files whose documents may be the file's own, their path its source: one document
#: each (a large text file as parts; a CSV file without a text column)
FILE_SUFFIXES = (*TEXT_SUFFIXES, *HTML_SUFFIXES, *PDF_SUFFIXES, *WORD_SUFFIXES, *DOC_SUFFIXES,
                 *PPTX_SUFFIXES, *PPT_SUFFIXES, *ODF_SUFFIXES, *CSV_SUFFIXES, *XLSX_SUFFIXES,
                 *XLS_SUFFIXES, *NUMBERS_SUFFIXES, *EPUB_SUFFIXES, *EMAIL_SUFFIXES,
                 *MSG_SUFFIXES, *MAILBOX_SUFFIXES,
                 *NOTEBOOK_SUFFIXES, *RTF_SUFFIXES, *SUBTITLE_SUFFIXES)
#: the files whose ids keep their suffix (:func:`keeps_suffix`): all but text files
SUFFIXED = frozenset(FILE_SUFFIXES) - frozenset(TEXT_SUFFIXES)
#: every suffix a folder walk reads
READ_SUFFIXES = (*FILE_SUFFIXES, *JSON_SUFFIXES, *JSONL_SUFFIXES)
#: the files read with an optional extra: suffix -> (the modules the extra installs, each
#: needed, the first the reader; the extra; what they are)
_EXTRAS: dict[str, tuple[tuple[str, ...], str, str]] = {
    ".pdf": (("pypdf",), "pdf", "PDFs"),
    **dict.fromkeys(WORD_SUFFIXES, (("docx",), "docx", "Word documents")),
    **dict.fromkeys(DOC_SUFFIXES, (("olefile",), "doc", "Word 97-2003 documents")),
    **dict.fromkeys(PPTX_SUFFIXES, (("pptx",), "pptx", "PowerPoint decks")),
    **dict.fromkeys(PPT_SUFFIXES, (("olefile",), "ppt", "PowerPoint 97-2003 decks")),
    **dict.fromkeys(XLSX_SUFFIXES, (("openpyxl",), "xlsx", "Excel workbooks")),
    **dict.fromkeys(XLS_SUFFIXES, (("xlrd",), "xls", "Excel 97-2003 workbooks")),
    ".numbers": (("numbers_parser",), "numbers", "Apple Numbers spreadsheets"),
    ".msg": (("olefile", "compressed_rtf", "striprtf.striprtf"), "msg", "Outlook messages"),
    ".rtf": (("striprtf.striprtf",), "rtf", "RTF files")}


def reader_missing(suffix: str) -> str | None:
    """Why files of ``suffix`` cannot be read here (the extra that reads them is not
    installed), or None.

    >>> reader_missing(".md") is None
    True
    """
    need = _EXTRAS.get(suffix.lower())
    if need is None or all(importlib.util.find_spec(module) is not None for module in need[0]):
        return None
    return f"reading {need[2]} needs the {need[1]!r} extra: {install_hint(need[1])}"


def readable_suffixes() -> tuple[str, ...]:
    """The suffixes of the files read here: :data:`READ_SUFFIXES` but those whose extra is
    not installed (:func:`reader_missing`).

    >>> ".md" in readable_suffixes() and ".eml" in readable_suffixes()
    True
    """
    return tuple(s for s in READ_SUFFIXES if reader_missing(s) is None)


def reader_module(path: Path, suffix: str | None = None) -> ModuleType:
    """The module that reads files such as ``path`` (pypdf, python-docx ...), or such as
    ``suffix`` names (a ``.docx`` file named ``.doc``), imported; a :class:`LoaderError`
    naming the file and the extra to install when it is missing."""
    suffix = (suffix or path.suffix).lower()
    missing = reader_missing(suffix)
    if missing is not None:
        raise LoaderError(f"{printable(str(path))}: {missing}")
    return importlib.import_module(_EXTRAS[suffix][0][0])


def keeps_suffix(path: str | Path) -> bool:
    """Whether a file's id keeps its suffix: an HTML page's, a PDF's or a Word file's
    (``report.pdf``), often a rendering of the text file beside it (``report.md`` is
    ``report``), so the two get two ids."""
    return Path(path).suffix.lower() in SUFFIXED


def id_path(path: Path) -> Path:
    """``path`` as its id spells it: without the suffix, unless :func:`keeps_suffix`."""
    return path if keeps_suffix(path) else path.with_suffix("")
