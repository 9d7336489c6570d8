"""A PDF page without a text layer (a scan) is read by OCR with the ``ocr`` extra and the
Tesseract program (stop 57). Before, such a page gave no text, and a scanned PDF was
reported as an empty file.

The scans are drawn here with Pillow (DejaVu Sans, 36 px on a 1700×2200 page) and saved as
image-only PDF pages, as a scanner writes them. CI installs Tesseract (``make ocr-deps``);
elsewhere these tests are skipped without it.
"""

from __future__ import annotations

import io
import os
import shutil
from pathlib import Path

import pytest
from office_files import folder_top, hide_module, make_pdf

from hyperviz_core.rag.index import ocr
from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents

pytest.importorskip("pypdf")
pytest.importorskip("pytesseract")
if shutil.which("tesseract") is None and not os.environ.get("CI"):
    pytest.skip("no tesseract program (apt-get install tesseract-ocr)", allow_module_level=True)

LINES = ["Marie Curie discovered radium in 1898.", "The Sorbonne hired her in Paris."]
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _scan(lines: list[str], size: tuple[int, int] = (1700, 2200)) -> bytes:
    """A one-page PDF holding only a picture of ``lines``."""
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype(FONT, 36)
    for i, line in enumerate(lines):
        draw.text((150, 200 + 80 * i), line, fill=0, font=font)
    out = io.BytesIO()
    image.save(out, format="PDF", resolution=200)
    return out.getvalue()


def _joined(*pdfs: bytes) -> bytes:
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for data in pdfs:
        for page in PdfReader(io.BytesIO(data)).pages:
            writer.add_page(page)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _words(text: str) -> set[str]:
    return {w.strip(".,").lower() for w in text.split()}


def test_a_scanned_page_is_read_by_ocr(tmp_path: Path,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ocr.OCR_ENV, raising=False)
    path = tmp_path / "mixed.pdf"
    path.write_bytes(_joined(make_pdf([["A typed first page."]]), _scan(LINES)))
    [doc] = load_documents(path)
    assert doc.metadata["ocr_pages"] == [2] and doc.metadata["pages"] == 2
    assert doc.text.startswith("A typed first page.\n\n")
    second = doc.text[doc.metadata["page_starts"][1]:]
    assert {"marie", "curie", "radium", "1898", "sorbonne", "paris"} <= _words(second)


def test_ocr_can_be_turned_off_and_skips_small_pictures(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(_scan(LINES))
    monkeypatch.setenv(ocr.OCR_ENV, "0")
    [doc] = load_documents(path)
    assert doc.text == "" and "ocr_pages" not in doc.metadata
    monkeypatch.setenv(ocr.OCR_ENV, "eng")
    assert "ocr_pages" in load_documents(path)[0].metadata
    icon = tmp_path / "icon.pdf"  # a picture under 200 pixels a side is no scanned page
    icon.write_bytes(_scan(["Hi"], size=(180, 120)))
    assert "ocr_pages" not in load_documents(icon)[0].metadata


def test_a_language_tesseract_lacks_is_named(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(_scan(LINES))
    monkeypatch.setenv(ocr.OCR_ENV, "xyz")
    with pytest.raises(LoaderError, match=r"scan\.pdf: OCR in 'xyz' failed .*VIZRAG_OCR names "
                                          r"languages tesseract --list-langs lists"):
        load_documents(path)


def test_without_the_extra_or_the_program_scans_give_no_text(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:

    monkeypatch.delenv(ocr.OCR_ENV, raising=False)
    path = tmp_path / "scan.pdf"
    path.write_bytes(_scan(LINES))
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    assert ocr.ocr_missing() == "the tesseract program (apt-get install tesseract-ocr)"
    assert load_documents(path)[0].text == ""
    hide_module(monkeypatch, "pytesseract")
    assert "the 'ocr' extra (pip install 'vizrag[ocr]'" in (ocr.ocr_missing() or "")
    assert ocr.ocr_languages() is None


def test_vizrag_index_and_query_find_a_scanned_pdf(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ocr.OCR_ENV, raising=False)
    top, line = folder_top(capsys, tmp_path, {
        "scan.pdf": _scan(LINES), "other.md": "# Bergen\n\nBergen lies on the west coast.\n"},
        "Who discovered radium?")
    assert top["doc_id"] == "scan.pdf" and "Curie" in line


def test_an_empty_pdf_is_reported_with_how_to_read_scans(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.rag.index.report import IndexReport
    from hyperviz_core.rag.types import Document

    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    report = IndexReport()
    report.count_written(Document(id="scan.pdf", text="", metadata={"source": "a/scan.pdf"}),
                         False, [], [], [], 0, 0, offline=True)
    assert (report.empty_warning() or "").endswith(
        "returns them; a scanned PDF is read by OCR with the tesseract program (apt-get "
        "install tesseract-ocr)")
    monkeypatch.undo()
    assert (report.empty_warning() or "").endswith("returns them")  # OCR runs here


def test_tesseract_threads_are_bounded_by_the_cores_unless_set(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Unbounded, Tesseract's nested thread pools made a page six times slower on two cores
    (benchmarks/ocr_bench.py); a limit the user set is kept."""
    import pytesseract

    seen: list[str | None] = []

    def read(image: object, lang: str) -> str:
        seen.append(os.environ.get("OMP_THREAD_LIMIT"))
        return "text"

    monkeypatch.setattr(pytesseract, "image_to_string", read)
    monkeypatch.delenv("OMP_THREAD_LIMIT", raising=False)
    monkeypatch.delenv(ocr.OCR_ENV, raising=False)
    path = tmp_path / "scan.pdf"
    path.write_bytes(_scan(LINES))
    assert load_documents(path)[0].text == "text"
    assert seen == [str(len(os.sched_getaffinity(0)))] and "OMP_THREAD_LIMIT" not in os.environ
    monkeypatch.setenv("OMP_THREAD_LIMIT", "3")
    load_documents(path)
    assert seen[-1] == "3" and os.environ["OMP_THREAD_LIMIT"] == "3"
