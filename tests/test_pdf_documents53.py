"""PDF files as documents (stop 53, the ``pdf`` extra): a ``.pdf`` is read as its pages'
text, titled by its own ``/Title``, and each chunk knows the pages it spans. Before, a PDF
named directly was refused as a binary file and a folder walk left it out.

The PDFs are written byte by byte (:mod:`office_files`), so the tests need no PDF writer."""

from __future__ import annotations

import io
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest
from office_files import XLS, make_pdf, write_docx, write_pptx, write_xlsx

from hyperviz_core.cli import main
from hyperviz_core.rag.index.chunking import chunk_document
from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.pdfs import pdf_document
from hyperviz_core.rag.index.textfiles import walk

pypdf = pytest.importorskip("pypdf")
pytest.importorskip("docx")


def test_a_pdf_reads_as_its_pages_and_chunks_know_their_pages(tmp_path: Path) -> None:
    pdf = tmp_path / "reports" / "curie.pdf"
    pdf.parent.mkdir()
    pdf.write_bytes(make_pdf([["Marie Curie was born in Warsaw in 1867.",
                               "She studied in Paris (Sorbonne)."],
                              [],  # a scanned page: no text
                              ["Pierre Curie died in 1906."]], title="Curie  Notes"))
    doc = pdf_document(pdf, True, tmp_path)
    assert (doc.id, doc.title) == ("reports/curie.pdf", "Curie Notes")
    assert doc.text == ("Marie Curie was born in Warsaw in 1867.\nShe studied in Paris "
                        "(Sorbonne).\n\nPierre Curie died in 1906.")
    starts = doc.metadata["page_starts"]
    assert doc.metadata["pages"] == 3 and doc.metadata["source"] == str(pdf)
    assert doc.text[starts[2]:].startswith("Pierre") and starts[1] == starts[2]
    chunks = chunk_document(doc, size=40, overlap=10)
    pages = [(c.metadata["page"], c.metadata["page_end"]) for c in chunks]
    assert pages[0] == (1, 1) and pages[-1] == (3, 3) and len(pages) > 2
    whole = chunk_document(doc, size=400, overlap=10)
    assert [(c.metadata["page"], c.metadata["page_end"]) for c in whole] == [(1, 3)]
    assert all("page_starts" not in c.metadata for c in chunks)
    assert all(c.metadata["title"] == "Curie Notes" for c in chunks)


def test_a_pdf_without_a_title_is_titled_by_its_stem(tmp_path: Path) -> None:
    pdf = tmp_path / "annual-report.pdf"
    pdf.write_bytes(make_pdf([["Revenue grew."]]))
    doc = load_documents(pdf)[0]
    assert (doc.id, doc.title, doc.text) == ("annual-report.pdf", "annual-report",
                                         "Revenue grew.")


def test_encrypted_and_broken_pdfs_are_errors_naming_the_file(tmp_path: Path) -> None:
    plain = make_pdf([["Secret plans."]])
    for password, name in (("", "open.pdf"), ("hunter2", "locked.pdf")):
        writer = pypdf.PdfWriter(clone_from=pypdf.PdfReader(io.BytesIO(plain)))
        writer.encrypt(user_password=password, owner_password="owner", algorithm="RC4-128")
        with (tmp_path / name).open("wb") as fh:
            writer.write(fh)
    assert load_documents(tmp_path / "open.pdf")[0].text == "Secret plans."  # no password
    with pytest.raises(LoaderError, match=r"locked\.pdf: an encrypted PDF that needs a "
                                          r"password"):
        load_documents(tmp_path / "locked.pdf")
    (tmp_path / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really a PDF\n")
    with pytest.raises(LoaderError, match=r"broken\.pdf: not a PDF pypdf can read \("):
        load_documents(tmp_path / "broken.pdf")


@pytest.mark.parametrize(("name", "module", "extra", "kind"), [
    ("a.pdf", "pypdf", "pdf", "PDFs"), ("a.docx", "docx", "docx", "Word documents"),
    ("a.pptx", "pptx", "pptx", "PowerPoint decks"),
    ("a.xlsx", "openpyxl", "xlsx", "Excel workbooks"),
    ("a.xls", "xlrd", "xls", "Excel 97-2003 workbooks")])
def test_without_the_extra_a_walk_lists_the_files_and_a_named_one_says_what_to_install(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, module: str, extra: str,
        kind: str) -> None:
    """Each format read with an extra (stop 53: PDF and Word; stop 54: decks, workbooks;
    stop 55: Excel 97-2003 workbooks)."""
    if name.endswith(".pdf"):
        (tmp_path / name).write_bytes(make_pdf([["Alpha."]]))
    else:
        pytest.importorskip(module)
        {"a.docx": write_docx, "a.pptx": write_pptx, "a.xlsx": write_xlsx,
         "a.xls": lambda p: shutil.copy(XLS, p)}[name](tmp_path / name)
    (tmp_path / "b.md").write_text("Beta.", encoding="utf-8")
    assert walk(tmp_path).files == [tmp_path / name, tmp_path / "b.md"]
    monkeypatch.setitem(sys.modules, module, None)  # as if not installed
    found = walk(tmp_path)
    assert found.files == [tmp_path / "b.md"]
    assert found.skipped == [(tmp_path / name, f"reading {kind} needs the {extra!r} extra: "
                              f"pip install 'vizrag[{extra}]' (from a checkout: pip install "
                              f"-e '.[{extra}]')")]
    assert [d.id for d in load_documents(tmp_path)] == ["b"]
    with pytest.raises(LoaderError, match=rf"a\.{extra}: reading {kind} needs the '{extra}'"):
        load_documents(tmp_path / name)


def test_vizrag_index_and_query_name_the_pages(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    corp, store = tmp_path / "papers", tmp_path / "store"
    corp.mkdir()
    (corp / "radium.pdf").write_bytes(make_pdf(
        [["Radium was discovered in 1898."],
         ["Marie Curie isolated polonium and radium with Pierre Curie in Paris."]],
        title="Radium"))
    assert main(["index", str(corp), "--store", str(store), "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents_added"] == 1
    assert main(["query", "Who isolated polonium?", "--store", str(store), "--json",
                 "--top-k", "1", "--mode", "naive"]) == 0
    chunk = json.loads(capsys.readouterr().out)["chunks"][0]
    assert (chunk["doc_id"], chunk["page"], chunk["page_end"]) == ("radium.pdf", 1, 2)
    assert main(["query", "Who isolated polonium?", "--store", str(store), "--top-k", "1",
                 "--mode", "naive"]) == 0
    assert "Radium  (radium.pdf, pp. 1-2)" in capsys.readouterr().out


def test_only_a_whole_file_is_told_its_pages(tmp_path: Path) -> None:
    """``page_starts`` are offsets into the whole file's text: a chunk a framework made
    (``one_chunk``) or a piece cut shorter carries them on, and is told no pages."""
    from hyperviz_core.rag import Document

    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(make_pdf([["First page text."], ["Second page text."]]))
    doc = load_documents(pdf)[0]
    assert chunk_document(doc, size=400, overlap=10)[0].metadata["page_end"] == 2
    piece = Document(id="a#2", text=doc.text[18:], metadata=doc.metadata)
    one = piece.model_copy(update={"one_chunk": True})
    for other in (piece, one):
        meta = chunk_document(other, size=400, overlap=10)[0].metadata
        assert "page" not in meta and meta["page_starts"] == [0, 18]


def test_vizrag_index_parses_each_pdf_and_word_file_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The stream reads its inputs twice (a plan, then the documents): a PDF or Word file's
    documents are kept on disk between the two, so the library parses each file once (it
    parsed each twice)."""
    from hyperviz_core.rag.index import pdfs, stream, wordfiles

    parsed: list[str] = []
    read_pdf, read_word = pdfs._read, wordfiles._blocks
    monkeypatch.setattr(pdfs, "_read", lambda m, p: parsed.append(p.name) or read_pdf(m, p))
    monkeypatch.setattr(wordfiles, "_blocks",
                        lambda d, *rest: parsed.append("docx") or read_word(d, *rest))
    corp = tmp_path / "mixed"
    corp.mkdir()
    (corp / "a.pdf").write_bytes(make_pdf([["Marie Curie was born in Warsaw."]]))
    (corp / "b.pdf").write_bytes(make_pdf([["Pierre Curie taught in Paris."], ["More."]]))
    write_docx(corp / "c.docx", title="Radium")
    (corp / "d.md").write_text("# Notes\n\nPolonium.", encoding="utf-8")
    kept: list[stream.ParsedFiles] = []
    real = stream.ParsedFiles.read

    def spy(self: stream.ParsedFiles, n: int, parse: Any) -> Any:
        kept.append(self)
        return real(self, n, parse)

    monkeypatch.setattr(stream.ParsedFiles, "read", spy)
    assert main(["index", str(corp), "--store", str(tmp_path / "s"), "--no-progress",
                 "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["documents_added"] == 4
    assert sorted(parsed) == ["a.pdf", "b.pdf", "docx"]
    assert kept and all(k._folder is None for k in kept)  # what was kept is deleted
    docs = {d.id: d for d in load_documents(corp)}
    from hyperviz_core.rag.store import HypergraphStore

    with HypergraphStore(tmp_path / "s") as store:  # what was stored is what was parsed
        assert {d.id: d.hash for d in store.documents()} == {i: d.hash for i, d in docs.items()}


@pytest.mark.parametrize("name", ["report.pdf", "report.docx"])
def test_a_pdf_or_word_file_named_directly_is_read_by_its_absolute_path(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        name: str) -> None:
    """As a text file named directly (tests/test_cli_direct_files.py): the stored source
    is the absolute path, so the same file indexed from its own folder is unchanged (it was
    stored as given, ``teamA/report.pdf``, and then replaced as another file's)."""
    (tmp_path / "teamA").mkdir()
    path = tmp_path / "teamA" / name
    if name.endswith(".pdf"):
        path.write_bytes(make_pdf([["Team A reports from Oslo."]]))
    else:
        write_docx(path)
    monkeypatch.chdir(tmp_path)
    assert main(["index", f"teamA/{name}", "--store", "S", "--no-progress"]) == 0
    monkeypatch.chdir(tmp_path / "teamA")
    capsys.readouterr()
    assert main(["index", name, "--store", "../S", "--no-progress", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["documents_added"], report["documents_replaced"],
            report["documents_skipped"]) == (0, 0, 1)
    from hyperviz_core.rag import VizRAG

    with VizRAG(tmp_path / "S", show_progress=False) as rag:
        doc = rag.store.get_document(name)
        assert doc is not None and doc.metadata["source"] == str(path)


def test_a_pdf_is_kept_apart_and_pruned_as_a_text_file_is(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A PDF's document (metadata ``source``, ``pages``, ``page_starts``) is a file's
    document as a text file's is: gone from its folder, ``--prune-missing`` removes it (it
    was kept, as a document of no file), and another folder's PDF of the same name does not
    replace it while it exists (it replaced it)."""
    teams = {t: tmp_path / t for t in ("teamA", "teamB")}
    for team, folder in teams.items():
        folder.mkdir()
        (folder / "report.pdf").write_bytes(make_pdf([[f"{team} reports from Oslo."]]))
        (folder / "notes.md").write_text(f"{team} notes.\n", encoding="utf-8")
    store = str(tmp_path / "S")
    assert main(["index", str(teams["teamA"]), "--store", store, "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["index", str(teams["teamB"]), "--store", store, "--no-progress"]) == 1
    said = capsys.readouterr()
    assert (f"document 'report.pdf' is stored from {teams['teamA'] / 'report.pdf'}, which still "
            "exists") in said.out + said.err
    (teams["teamA"] / "report.pdf").unlink()
    assert main(["index", str(teams["teamA"]), "--store", store, "--no-progress", "--json",
                 "--prune-missing"]) == 0
    assert json.loads(capsys.readouterr().out)["files_gone"] == ["report.pdf"]


def test_a_word_hyphenated_at_a_line_end_is_joined(tmp_path: Path) -> None:
    """A word a PDF hyphenates at a line end (``retrie-`` / ``val``) is read whole when the
    document spells it whole elsewhere (BM25 found neither half); a compound with no such
    evidence (``well-`` / ``known``) keeps its hyphen; the lines join either way."""
    pdf = tmp_path / "r.pdf"
    pdf.write_bytes(make_pdf([["Dense retrieval finds passages. Sparse retrie-",
                               "val counts words, a well-", "known method since 1970-",
                               "1980. Co-", "Operation"],
                              ["Retrieval is cheap; Retrie-", "val again."]]))
    doc = pdf_document(pdf, True)
    assert doc.text == ("Dense retrieval finds passages. Sparse retrieval counts words, a "
                        "well-known method since 1970-\n1980. Co-\nOperation\n\n"
                        "Retrieval is cheap; Retrieval again.")
    assert doc.text[doc.metadata["page_starts"][1]:].startswith("Retrieval is")
