"""Reading Word documents (``.docx``) as documents: their paragraphs and tables, with the
``docx`` extra (`python-docx <https://pypi.org/project/python-docx/>`_).

One document per file, its id and ``source`` as a text file's (:mod:`.textfiles`) but for
the id keeping the suffix (``report.docx`` beside ``report.md``'s ``report``), titled
by the file's own title (its core properties' ``title``), else its first paragraph styled
``Title`` or ``Heading 1``, else the file's stem. Its text is the body's paragraphs and
tables in order: a blank line between two paragraphs (empty ones dropped), a table's rows a
line each with their cells joined by `` | `` (a cell's own paragraphs by spaces), as in
:mod:`.htmlpages`. A text box's paragraphs follow the paragraph it is anchored in, and a
footnote or endnote follows the paragraph or table that refers to it, numbered
(``Footnote 1: ...``: :mod:`.wordnotes`). A paragraph's text is what Word shows
(:mod:`.wordtext`): content controls, tracked insertions and fields included, tracked
deletions left out. A section's headers come before it and its footers after it, each
once (:mod:`.wordheaders`), and an imported chunk (a web page, text, RTF or a Word document a
generator put in the body, a table cell, a header or a note) is read in its place
(:mod:`.wordchunks`). Comments are not read.

A file python-docx cannot read and a ``.docx`` whose parts would unpack to more than
:data:`~.zipped.MAX_UNPACKED` bytes (a zip bomb) are each a :class:`~.errors.LoaderError`
naming the file; so is one read without the extra, and a folder walk without it leaves
``.docx`` files out, listed with the command that installs it. A macro-enabled document
(``.docm``) or a template (``.dotx``, ``.dotm``) reads as a ``.docx``
(:func:`~.zipped.plain_package`): its macros are never read, let alone run. Nothing in the
file is run and nothing is fetched. A Word 97-2003 file named ``.docx`` and a
password-protected document (stored encrypted in a compound file) never reach this reader:
:mod:`.officekinds` hands them to :mod:`.docfiles`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ..types import Document
from .furniture import Furniture
from .guards import printable
from .suffixes import reader_module
from .tables import table_text
from .textfiles import path_id
from .titles import cut_title
from .wordchunks import MAX_DEPTH, chunk_text
from .wordheaders import ends_section, word_furniture
from .wordnotes import Story, WordNotes
from .wordtext import W, block_items, cell_text, paragraph_text, plain_table
from .zipped import plain_package, reading_package

__all__ = ["word_document"]

#: the paragraph styles whose first paragraph titles a file without a title of its own
_TITLE_STYLES = ("Title", "Heading 1")


def _blocks(document: Any, source: str, depth: int = 0) -> list[tuple[str, str]]:
    """(style name, text) of the body's paragraphs and tables in order (a table's style
    ``""``, its rows a line each), each followed by its text boxes and the notes it refers
    to (:class:`~.wordnotes.WordNotes`, style ``""``), each section framed by its headers
    and footers (:func:`~.wordheaders.word_furniture`, style ``""``), an imported chunk's text
in its place (:mod:`.wordchunks`; ``depth``: how many chunks deep ``document`` is)."""
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    def chunk_body(chunk: Any) -> str:
        """The body of a Word document imported as a chunk (its headers are not shown)."""
        if depth >= MAX_DEPTH:
            return ""
        return "\n\n".join(text for _, text in _blocks(chunk, source, depth + 1))

    def read_chunk(part: Any, item: Any) -> str:
        """The text of the imported chunk ``item`` of the story in ``part``."""
        return chunk_text(part, item, chunk_body, source)

    notes = WordNotes(document, source, read_chunk)
    # a chunk's headers are not shown (Word shows the document's own)
    pages = word_furniture(document, source, read_chunk) if depth == 0 else Furniture([])
    section = 0
    out: list[tuple[str, str]] = [("", block) for block in pages.headers(section)]
    body = document._body
    story = Story(document.part, source, read_chunk)

    for item in block_items(body._element, chunks=True):
        if item.tag == f"{W}altChunk":  # an imported page, text or document
            out.append(("", story.chunk(item)))
        elif item.tag == f"{W}tbl":  # python-docx's grid: merged cells as Word lays them out
            rows = Table(plain_table(item), body).rows
            out.append(("", table_text((cell_text(c._tc, story.chunk) for c in r.cells)
                                       for r in rows)))
        else:
            style = Paragraph(item, body).style
            out.append((style.name or "" if style is not None else "", paragraph_text(item)))
        out.extend(("", block) for block in notes.after(item))
        if ends_section(item) is not None:
            furniture = pages.footers(section) + pages.headers(section + 1)
            out.extend(("", block) for block in furniture)
            section += 1
    out.extend(("", block) for block in notes.rest() + pages.rest(section))
    return [(style, text) for style, text in out if text]


def word_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the Word file ``path`` (see the module's docs)."""
    docx = reader_module(path, ".docx")
    with reading_package(path, "a Word document python-docx can read"):
        document = docx.Document(plain_package(path))
        blocks = _blocks(document, printable(str(path)))
        title = document.core_properties.title or ""
    title = " ".join(title.split()) or next(
        (" ".join(text.split()) for style, text in blocks if style in _TITLE_STYLES),
        path.stem)
    return Document(id=path_id(path, id_from_path, root), title=cut_title(title),
                    text="\n\n".join(text for _, text in blocks),
                    metadata={"source": str(path)})
