"""PowerPoint decks as documents (stop 54, the ``pptx`` extra): a ``.pptx`` is read as its
slides' text, each slide a page, titled by the file's title or its first slide title.
Before, a ``.pptx`` named directly was refused as a binary file and a folder walk left it
out."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from office_files import index_json, top_passage, write_pptx

from hyperviz_core.rag.index import zipped
from hyperviz_core.rag.index.chunking import chunk_document
from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.slides import slides_document

pptx = pytest.importorskip("pptx")


def test_a_deck_reads_as_its_slides_and_chunks_know_their_slides(tmp_path: Path) -> None:
    (tmp_path / "talks").mkdir()
    doc = slides_document(write_pptx(tmp_path / "talks" / "radium.pptx"), True, tmp_path)
    assert (doc.id, doc.title) == ("talks/radium.pptx", "Discovery of radium")
    assert doc.text == (
        "Discovery of radium\n\nMarie Curie and Pierre Curie, 1898\n\n"
        "Isolation\n\nRadium was isolated in 1910.\nAndré-Louis Debierne helped.\n\n"
        "Polonium was named after Poland.\n\n"
        "Timeline\n\nYear | Event\n1898 | Announced\n1910 | Isolated\n\nNobel Prize 1911")
    assert "Backup" not in doc.text  # a hidden slide gives no text and keeps its number
    assert doc.metadata["pages"] == 4
    starts = doc.metadata["page_starts"]
    assert doc.text[starts[1]:].startswith("Isolation")
    assert doc.text[starts[3]:].startswith("Timeline") and starts[2] == starts[3]
    chunks = chunk_document(doc, size=12, overlap=0)
    spans = {(c.metadata["page"], c.metadata["page_end"]) for c in chunks}
    assert (1, 1) in spans and (4, 4) in spans and all(a <= b for a, b in spans)
    nobel = next(c for c in chunks if "Nobel" in c.text)
    assert nobel.metadata["page"] == 4


def test_a_deck_is_titled_by_its_own_title_then_a_slide_title_then_its_stem(
        tmp_path: Path) -> None:
    assert load_documents(write_pptx(tmp_path / "a.pptx", title="Curie  talk"))[0].title \
        == "Curie talk"
    bare = pptx.Presentation()
    bare.slides.add_slide(bare.slide_layouts[6]).shapes.add_textbox(0, 0, 100, 100).text = "x"
    bare.save(str(tmp_path / "bare.pptx"))
    doc = load_documents(tmp_path / "bare.pptx")[0]
    assert (doc.id, doc.title, doc.text) == ("bare.pptx", "bare", "x")


def test_files_that_are_no_decks_are_errors_naming_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    old = tmp_path / "old.pptx"  # a damaged compound file (as .ppt decks are) renamed
    old.write_bytes(b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 504)
    with pytest.raises(LoaderError, match=r"old\.pptx: not a PowerPoint 97-2003 deck \("):
        load_documents(old)  # since stop 57 read as what it holds (tests/test_office97_57.py)
    text = tmp_path / "text.pptx"
    text.write_text("plain text")
    with pytest.raises(LoaderError, match=r"text\.pptx: not a PowerPoint deck python-pptx can "
                                          r"read \(not a zip package\)"):
        load_documents(text)
    other = tmp_path / "other.pptx"  # a zip file, but no deck in it
    with zipfile.ZipFile(other, "w") as zf:
        zf.writestr("hello.txt", "hi")
    with pytest.raises(LoaderError, match=r"other\.pptx: not a PowerPoint deck python-pptx "
                                          r"can read \(\w+"):
        load_documents(other)
    monkeypatch.setattr(zipped, "MAX_UNPACKED", 1000)  # a zip bomb, in miniature
    with pytest.raises(LoaderError, match=r"radium\.pptx: unpacks to more than 0 MiB"):
        load_documents(write_pptx(tmp_path / "radium.pptx"))


def test_vizrag_index_and_query_name_the_slides(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    corp, store = tmp_path / "talks", tmp_path / "store"
    corp.mkdir()
    write_pptx(corp / "radium.pptx")
    (corp / "radium.md").write_text("# Radium\n\nNotes on radium.\n", encoding="utf-8")
    assert index_json(capsys, str(corp), "--store", str(store))["documents_added"] == 2
    chunk, said = top_passage(capsys, store, "When was the Nobel Prize?")
    assert (chunk["doc_id"], chunk["page"], chunk["page_end"]) == ("radium.pptx", 1, 4)
    assert "(radium.pptx, slides 1-4)" in said  # a deck's pages are its slides
    (corp / "radium.pptx").unlink()
    report = index_json(capsys, str(corp), "--store", str(store), "--prune-missing")
    assert report["files_gone"] == ["radium.pptx"]
