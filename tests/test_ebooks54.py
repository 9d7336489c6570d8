"""EPUB e-books as documents (stop 54), read with the standard library and the HTML
reader: the reading order's items, each a page. Before, a folder walk left ``.epub`` files
out and one named directly was refused as a binary file."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from office_files import index_json, top_passage, write_epub

from hyperviz_core.rag.index.ebooks import epub_document
from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents


def test_a_book_reads_as_its_reading_order(tmp_path: Path) -> None:
    (tmp_path / "books").mkdir()
    doc = epub_document(write_epub(tmp_path / "books" / "curie.epub"), True, tmp_path)
    assert (doc.id, doc.title) == ("books/curie.epub", "Curie stories")
    assert doc.text == ("Curie stories\n\nWarsaw\n\nMarie Curie was born in Warsaw in 1867."
                        "\n\nParis\n\nShe isolated radium in Paris in 1910.")
    assert "pop-up" not in doc.text and "alert" not in doc.text  # linear="no"; a script
    assert doc.metadata["pages"] == 3
    starts = doc.metadata["page_starts"]
    assert doc.text[starts[1]:].startswith("Warsaw") and doc.text[starts[2]:].startswith("Paris")
    assert load_documents(write_epub(tmp_path / "bare.epub", title=None))[0].title == "bare"


def test_files_that_are_no_books_are_errors_naming_them(tmp_path: Path) -> None:
    plain = tmp_path / "plain.epub"
    with zipfile.ZipFile(plain, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(LoaderError, match=r"plain\.epub: not an EPUB \(no META-INF/container"):
        load_documents(plain)
    def encryption(uri: str) -> dict[str, bytes]:
        return {"META-INF/encryption.xml": (
            '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" xmlns:enc='
            '"http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData>'
            f'<enc:CipherReference URI="{uri}"/></enc:CipherData></enc:EncryptedData>'
            "</encryption>").encode()}

    drm = write_epub(tmp_path / "drm.epub", parts=encryption("OEBPS/text/chapter%201.xhtml"))
    with pytest.raises(LoaderError, match=r"drm\.epub: an EPUB with DRM"):
        load_documents(drm)
    fonts = write_epub(tmp_path / "fonts.epub", parts=encryption("OEBPS/fonts/serif.otf"))
    assert "Warsaw" in load_documents(fonts)[0].text  # obfuscated fonts: no DRM
    lost = tmp_path / "lost.epub"
    with zipfile.ZipFile(lost, "w") as zf:
        zf.writestr("META-INF/container.xml", '<container xmlns="urn:oasis:names:tc:'
                    'opendocument:xmlns:container"><rootfiles><rootfile full-path="a.opf"/>'
                    "</rootfiles></container>")
    with pytest.raises(LoaderError, match=r"lost\.epub: not an EPUB \(its container names no "
                                          r"package it holds: 'a\.opf'\)"):
        load_documents(lost)
    latin = write_epub(tmp_path / "latin.epub", parts={"OEBPS/text/c2.xhtml": b"<p>Caf\xe9</p>"})
    with pytest.raises(LoaderError, match=r"latin\.epub: its OEBPS/text/c2\.xhtml is not "
                                          r"UTF-8 text at byte 6"):
        load_documents(latin)


def test_vizrag_index_and_query_a_book(tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    corp, store = tmp_path / "books", tmp_path / "store"
    corp.mkdir()
    write_epub(corp / "curie.epub")
    assert index_json(capsys, str(corp), "--store", str(store))["documents_added"] == 1
    chunk, said = top_passage(capsys, store, "Where did she isolate radium?")
    assert chunk["doc_id"] == "curie.epub" and "Paris" in chunk["text"]
    assert "(curie.epub, section" in said
