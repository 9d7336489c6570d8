"""An HTML page, a PDF or a Word file keeps its suffix in its id (stop 54): ``report.md``
is ``report``, ``report.pdf`` is ``report.pdf``, so a folder holding a text file and its
rendering side by side indexes both. Before, both were ``report`` and the folder stopped on
a duplicate-id error (a folder that indexed cleanly before stop 53 read pages, PDFs and Word
files stopped on it)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from office_files import make_pdf, write_docx

from hyperviz_core.cli import main
from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.replace import missing_file_documents
from hyperviz_core.rag.index.textfiles import path_id
from hyperviz_core.rag.store import open_store
from hyperviz_core.rag.types import Document

PAGE = "<html><head><title>Guide</title></head><body><p>Marie Curie lived in Paris.</p>"


def _ids(store: Path) -> list[str]:
    with VizRAG(store, show_progress=False, must_exist=True) as rag:
        return sorted(d.id for d in rag.store.documents())


def _report(capsys: pytest.CaptureFixture[str]) -> dict[str, object]:
    out = capsys.readouterr().out
    return dict(json.loads(out[out.index("{"):]))


def test_path_ids_keep_the_suffix_of_pages_pdfs_and_word_files(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    ids = [path_id(root / "sub" / name, True, root)
           for name in ("a.md", "a.txt", "a.html", "a.HTM", "a.xhtml", "a.pdf", "a.docx")]
    assert ids == ["sub/a", "sub/a", "sub/a.html", "sub/a.HTM", "sub/a.xhtml", "sub/a.pdf",
                   "sub/a.docx"]
    assert path_id(root / "a.pdf", True, None) == "a.pdf"  # named directly: the file name
    assert path_id(root / "a.pdf", False, None) == ""  # a content-hash id


def test_a_text_file_and_its_renderings_are_indexed_side_by_side(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "report.md").write_text("# Report\n\nMarie Curie lived in Paris.\n", "utf-8")
    (docs / "report.html").write_text(PAGE, encoding="utf-8")
    (docs / "report.pdf").write_bytes(make_pdf([["Pierre Curie taught in Paris."]]))
    write_docx(docs / "report.docx")
    assert sorted(d.id for d in load_documents(docs)) == [
        "report", "report.docx", "report.html", "report.pdf"]
    store = tmp_path / "S"
    assert main(["index", str(docs), "--store", str(store), "--no-progress", "--json"]) == 0
    assert _report(capsys)["documents_added"] == 4
    assert main(["query", "Who taught in Paris?", "--store", str(store), "--top-k", "1",
                 "--mode", "naive"]) == 0
    assert "(report.pdf, p. 1)" in capsys.readouterr().out
    (docs / "report.pdf").unlink()
    assert main(["index", str(docs), "--store", str(store), "--no-progress", "--json",
                 "--prune-missing"]) == 0
    assert _report(capsys)["files_gone"] == ["report.pdf"]
    assert _ids(store) == ["report", "report.docx", "report.html"]


def test_a_page_stored_under_its_stem_is_replaced_by_its_suffixed_id(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A store written before stop 54 holds a page as ``guide``: indexing its folder again
    stores ``guide.html`` and removes ``guide`` (the ids a file had in other runs), so
    the page's text is not stored twice; ``--prune-missing`` would not see ``guide``
    (its file exists), so the run itself must remove it."""
    docs = tmp_path / "docs"
    (docs / "sub").mkdir(parents=True)
    page = docs / "sub" / "guide.html"
    page.write_text(PAGE, encoding="utf-8")
    store_dir = tmp_path / "S"
    store = open_store(store_dir)
    old = Document(id="sub/guide", text="Marie Curie lived in Paris.",
                   metadata={"source": str(page)})
    store.add_document(old, [], [])
    store.close()
    assert main(["index", str(docs), "--store", str(store_dir), "--no-progress",
                 "--json"]) == 0
    report = _report(capsys)
    assert (report["documents_added"], report["documents_removed"]) == (1, 1)
    assert _ids(store_dir) == ["sub/guide.html"]


def test_a_stem_id_is_not_taken_for_a_suffixed_files_document(tmp_path: Path) -> None:
    """``--prune-missing`` matches a stored document to the file its folder gives that id:
    ``guide.html`` to ``FOLDER/guide.html``; a text file ``guide.md``'s document ``guide``
    is not a page's."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "guide.md").write_text("# Guide\n\nText.\n", encoding="utf-8")
    store = open_store(tmp_path / "S")
    for doc_id, name in (("guide.html", "guide.html"), ("guide", "guide.md"),
                         ("gone.pdf", "gone.pdf")):
        store.add_document(Document(id=doc_id, text="t", metadata={
            "source": str(docs / name)}), [], [])
    assert missing_file_documents(store, [docs]) == ["gone.pdf", "guide.html"]
    store.close()


def test_a_file_named_directly_keeps_its_suffix(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    pdf = tmp_path / "paper.pdf"
    pdf.write_bytes(make_pdf([["Radium was discovered in 1898."]]))
    page = tmp_path / "paper.html"
    page.write_text(PAGE, encoding="utf-8")
    store = tmp_path / "S"
    assert main(["index", str(pdf), str(page), "--store", str(store), "--no-progress"]) == 0
    assert _ids(store) == ["paper.html", "paper.pdf"]
