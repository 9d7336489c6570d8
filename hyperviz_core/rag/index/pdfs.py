"""Reading PDF files (``.pdf``) as documents: the text of their pages, with the ``pdf``
extra (`pypdf <https://pypi.org/project/pypdf/>`_, pure Python).

One document per file, its id and ``source`` as a text file's (:mod:`.textfiles`) but for
the id keeping the suffix (``report.pdf`` beside ``report.md``'s ``report``), titled by the
PDF's own title (the ``/Title`` of its document information) when it has one, else the
file's stem. Its text is its pages' text in order, as pypdf extracts it, a blank line
between two pages; a word hyphenated at a line end is joined (:func:`dehyphenate`). Page
numbers and running heads are left out, a running head kept on the first page it is on
(:mod:`.pdfrunning`).
``metadata["pages"]`` is the page count and ``metadata["page_starts"]`` where each page's
text starts in the document's text, so each chunk is told the pages it spans
(``metadata["page"]`` and ``metadata["page_end"]``, counted from 1:
:func:`~.chunking.chunk_document`).

A page without a text layer (a scan) is read by OCR (:mod:`.ocr`) when the ``ocr`` extra
and Tesseract are installed, and not turned off: ``metadata["ocr_pages"]`` lists the pages
read so (from 1). Without them such a page gives no text. A page's filled-in form fields
(AcroForm: their values are drawn by annotations, not by the page) follow its text, a line
each, ``Label: value``, and so does the text of its free-text annotations (a typewriter
text, a callout; not a sticky note's comment) (:mod:`.pdfforms`). An encrypted PDF that needs a
password, a file pypdf cannot read and a PDF read without the extra are each a
:class:`~.errors.LoaderError` naming the file; a folder walk without the extra leaves PDFs
out, listed with the command that installs it (:mod:`.suffixes`).
The file is only read: nothing in it is run, and nothing is fetched.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path
from typing import Any

from ..types import Document
from .errors import LoaderError
from .guards import printable
from .libnotes import said_once
from .ocr import ocr_languages, scanned_text
from .pages import paged_document
from .pdfforms import field_lines, free_text_lines
from .pdfrunning import without_running_lines
from .suffixes import reader_module
from .textfiles import foreign_file, path_id
from .titles import cut_title

__all__ = ["dehyphenate", "pdf_document"]

log = logging.getLogger(__name__)


def _pages(path: Path) -> tuple[str, list[str], list[int], list[list[str]]]:
    """(the PDF's own title or ``""``, its pages' text, the pages read by OCR, each page's
    filled-in form fields) of the PDF at ``path``."""
    pypdf = reader_module(path)
    # pypdf's warnings about a file's internals (a wrong object offset it repaired) tell a
    # user of the text nothing to do; its errors are said once, naming the file
    with foreign_file(path, "a PDF pypdf can read"), said_once(path, "pypdf"):
        return _read(pypdf, path)


def _read(pypdf: Any, path: Path) -> tuple[str, list[str], list[int], list[list[str]]]:
    """:func:`_pages` with pypdf, whose errors it lets through."""
    reader = pypdf.PdfReader(path)
    if reader.is_encrypted and not reader.decrypt(""):  # a permissions-only lock opens
        raise LoaderError(f"{printable(str(path))}: an encrypted PDF that needs a password; "
                          "save a decrypted copy (qpdf --decrypt) and index it")
    info = reader.metadata
    title = info.title if info is not None and isinstance(info.title, str) else ""
    texts = [page.extract_text() or "" for page in reader.pages]
    scanned: list[int] = []
    skipped: set[str] = set()
    languages = ocr_languages() if any(not t.strip() for t in texts) else None
    for number, page in enumerate(reader.pages, 1):
        if languages is not None and not texts[number - 1].strip():
            texts[number - 1] = scanned_text(page, languages, path, skipped)
            if texts[number - 1]:
                scanned.append(number)
    if "jbig2dec" in skipped:
        log.warning("%s: pictures stored as JBIG2 were not read (OCR needs the jbig2dec "
                    "program to decode them: apt-get install jbig2dec)", printable(str(path)))
    return title, texts, scanned, [_fields(page) for page in reader.pages]


def _fields(page: Any) -> list[str]:
    """A page's filled-in form fields and free-text annotations, a line each
    (:mod:`.pdfforms`); none of those too damaged to read (the page keeps its text)."""
    out = []
    for read in (field_lines, free_text_lines):
        try:
            out += read(page)
        except Exception:  # an untrusted file
            continue
    return out


#: a word hyphenated at a line end: its two halves
_BROKEN = re.compile(r"([^\W\d_]+)-[ \t]*\n[ \t]*([^\W\d_]+)")
_LETTERS = re.compile(r"[^\W\d_]+")


def dehyphenate(pages: list[str]) -> list[str]:
    """``pages`` with each word hyphenated at a line end (a lower-case letter, ``-``, the
    line end, a lower-case letter) on one line: whole when the document spells it whole
    elsewhere, else with its hyphen (a compound: ``well-known``). Evidence from the
    document itself, not a dictionary: any language, and no word is made up.

    >>> dehyphenate(["Sparse retrie-\\nval and a well-\\nknown retrieval.", "Co-\\nOp"])
    ['Sparse retrieval and a well-known retrieval.', 'Co-\\nOp']
    """
    words = {w.casefold() for page in pages for w in _LETTERS.findall(_BROKEN.sub(" ", page))}

    def join(m: re.Match[str]) -> str:
        left, right = m.group(1), m.group(2)
        if not (left[-1].islower() and right[0].islower()):
            return m.group(0)
        return left + right if (left + right).casefold() in words else f"{left}-{right}"

    return [_BROKEN.sub(join, page) if "-" in page else page for page in pages]


def pdf_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the PDF file ``path`` (see the module's docs)."""
    title, pages, scanned, fields = _pages(path)
    shown = ["\n\n".join(t for t in (text.rstrip(), "\n".join(lines)) if t)
             for text, lines in zip(dehyphenate(without_running_lines(pages)), fields,
                                    strict=True)]
    doc = paged_document(path, path_id(path, id_from_path, root),
                         cut_title(" ".join(title.split()) or path.stem), shown)
    if scanned:
        doc.metadata["ocr_pages"] = scanned
    return doc
