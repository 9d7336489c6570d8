"""Word documents as documents (stop 53, the ``docx`` extra): a ``.docx`` is read as its
body's paragraphs and tables in order, titled by its own title, else its first Title or
Heading 1 paragraph. Before, a ``.docx`` named directly was refused as a binary file and a
folder walk left it out."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from office_files import write_docx

from hyperviz_core.cli import main
from hyperviz_core.rag.index import zipped
from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.wordfiles import word_document

docx = pytest.importorskip("docx")


def test_a_word_document_reads_as_its_paragraphs_and_tables(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    path = write_docx(tmp_path / "notes" / "radium.docx", title="Radium  history")
    doc = word_document(path, True, tmp_path)
    assert (doc.id, doc.title) == ("notes/radium.docx", "Radium history")
    assert doc.text.split("\n\n") == [
        "Header: Running header",  # read since stop 59
        "Discovery of radium",
        "Marie Curie and Pierre Curie announced it in 1898.",
        "Year | Event\n1898 | Announced\n1910 | Isolated",
        "Polonium was named after Poland.",
    ]
    assert doc.metadata == {"source": str(path)}
    # no title of its own: the first Heading 1, then the stem
    assert word_document(write_docx(tmp_path / "b.docx"), True).title == "Discovery of radium"
    bare = docx.Document()
    bare.add_paragraph("Only text.")
    bare.save(str(tmp_path / "bare.docx"))
    assert load_documents(tmp_path / "bare.docx")[0].title == "bare"


def test_files_that_are_no_word_documents_are_errors_naming_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = tmp_path / "old.docx"  # a damaged compound file (as Word 97 .doc files are) renamed
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    with pytest.raises(LoaderError, match=r"old\.docx: not a Word 97-2003 document \("):
        load_documents(old)  # since stop 57 read as what it holds (tests/test_office97_57.py)
    text = tmp_path / "text.docx"
    text.write_text("plain text")
    with pytest.raises(LoaderError, match=r"text\.docx: not a Word document python-docx can "
                                          r"read \(not a zip package\)"):
        load_documents(text)
    other = tmp_path / "other.docx"  # a zip file, but no Word document in it
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(LoaderError, match=r"other\.docx: not a Word document python-docx "
                                          r"can read \(\w+"):
        load_documents(other)
    monkeypatch.setattr(zipped, "MAX_UNPACKED", 1000)  # a zip bomb, in miniature
    with pytest.raises(LoaderError, match=r"radium\.docx: unpacks to more than 0 MiB"):
        load_documents(write_docx(tmp_path / "radium.docx"))


def test_vizrag_index_and_query_a_word_document(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    corp, store = tmp_path / "docs", tmp_path / "store"
    corp.mkdir()
    write_docx(corp / "radium.docx", title="Radium")
    assert main(["index", str(corp), "--store", str(store), "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents_added"] == 1
    assert main(["query", "What was named after Poland?", "--store", str(store), "--json",
                 "--top-k", "1"]) == 0
    chunk = json.loads(capsys.readouterr().out)["chunks"][0]
    assert chunk["doc_id"] == "radium.docx" and "Polonium was named after Poland." in chunk["text"]


def test_a_tables_empty_cells_at_a_row_end_are_dropped(tmp_path: Path) -> None:
    """As in decks and OpenDocument files (:mod:`~hyperviz_core.rag.index.tables`): a
    row's unused columns printed `` | `` runs (``1898 | Announced |  | ``)."""
    document = docx.Document()
    table = document.add_table(rows=3, cols=4)
    for row, cells in zip(table.rows, (("Year", "Event", "", ""), ("", "", "", ""),
                                       ("1898", "", "Announced", "")), strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    document.save(str(tmp_path / "t.docx"))
    assert load_documents(tmp_path / "t.docx")[0].text == "Year | Event\n1898 |  | Announced"
