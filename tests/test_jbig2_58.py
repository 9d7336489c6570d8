"""Scanned pages stored as JBIG2 (as many scanners store a black-and-white page) are read by
OCR when the ``jbig2dec`` program is installed (``make ocr-deps`` installs it; pypdf runs
it). Without it such a page gives no text, as before, and the reading now says why (stop 58).

No JBIG2 encoder is packaged here, so the scans are written by :func:`jbig2_scan`: a page
drawn with Pillow, coded as CCITT Group 4 by Pillow's TIFF writer, and wrapped as a JBIG2
generic region coded with MMR (ITU T.88 7.4.6: MMR is Group 4), in a PDF's JBIG2Decode
image, as a PDF embeds it (no file header, a page information segment, the region, the end
of the page).
"""

from __future__ import annotations

import io
import logging
import os
import shutil
import struct
from pathlib import Path

import pytest
from office_files import pdf_file

from hyperviz_core.rag.index import ocr
from hyperviz_core.rag.index.loaders import load_documents

pytest.importorskip("pypdf")
pytest.importorskip("pytesseract")
if not (shutil.which("tesseract") and shutil.which("jbig2dec")) and not os.environ.get("CI"):
    pytest.skip("no tesseract or jbig2dec program (make ocr-deps)", allow_module_level=True)

LINES = ["Marie Curie discovered radium in 1898.", "The Sorbonne hired her in Paris."]
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def _segment(number: int, kind: int, data: bytes) -> bytes:
    """A JBIG2 segment of page 1, referring to no other (T.88 7.2)."""
    return struct.pack(">IBBBI", number, kind, 0, 1, len(data)) + data


def _group4(image: object) -> bytes:
    """The CCITT Group 4 data of a 1-bit Pillow image, as one TIFF strip."""
    from PIL import Image

    assert isinstance(image, Image.Image)
    out = io.BytesIO()
    image.save(out, "TIFF", compression="group4", tiffinfo={278: image.height})
    tiff = Image.open(io.BytesIO(out.getvalue()))
    [offset], [size] = tiff.tag_v2[273], tiff.tag_v2[279]
    return out.getvalue()[offset:offset + size]


def jbig2_scan(lines: list[str], size: tuple[int, int] = (1700, 700)) -> bytes:
    """A one-page PDF holding only a JBIG2 picture of ``lines`` (200 dpi)."""
    from PIL import Image, ImageDraw, ImageFont, ImageOps

    image = Image.new("L", size, 255)
    draw = ImageDraw.Draw(image)
    for i, line in enumerate(lines):
        draw.text((150, 200 + 80 * i), line, fill=0, font=ImageFont.truetype(FONT, 36))
    ink = ImageOps.invert(image).convert("1")  # JBIG2: 1 is black
    width, height = size
    region = (struct.pack(">IIIIB", width, height, 0, 0, 0)  # the region: whole page, OR
              + b"\x01" + _group4(ink))  # generic region flags: MMR
    stream = (_segment(0, 48, struct.pack(">IIIIBH", width, height, 0, 0, 1, 0))
              + _segment(1, 38, region) + _segment(2, 49, b""))
    pts = (width * 72 // 200, height * 72 // 200)
    content = b"q %d 0 0 %d 0 0 cm /Im0 Do Q" % pts
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 %d %d] /Resources << /XObject "
        b"<< /Im0 4 0 R >> >> /Contents 5 0 R >>" % pts,
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 1 /Filter /JBIG2Decode /Length %d >>\nstream\n%s\nendstream"
        % (width, height, len(stream), stream),
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(content), content)]
    return pdf_file(objects)


def _words(text: str) -> set[str]:
    return {w.strip(".,").lower() for w in text.split()}


def test_a_jbig2_scan_is_read_by_ocr(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ocr.OCR_ENV, raising=False)
    path = tmp_path / "scan.pdf"
    path.write_bytes(jbig2_scan(LINES))
    [doc] = load_documents(path)
    assert _words(" ".join(LINES)) <= _words(doc.text)
    assert doc.metadata["ocr_pages"] == [1]


def test_without_jbig2dec_the_page_is_empty_and_the_reading_says_why(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    from pypdf import apply_configuration

    from hyperviz_core.rag.index.report import IndexReport
    from hyperviz_core.rag.types import Document

    monkeypatch.delenv(ocr.OCR_ENV, raising=False)
    path = tmp_path / "scan.pdf"
    path.write_bytes(jbig2_scan(LINES))
    with caplog.at_level(logging.WARNING), apply_configuration(jbig2dec_binary=None):
        [doc] = load_documents(path)
    assert doc.text == "" and "ocr_pages" not in doc.metadata
    said = [r.getMessage() for r in caplog.records if "JBIG2" in r.getMessage()]
    assert said == [f"{path}: pictures stored as JBIG2 were not read (OCR needs the jbig2dec "
                    "program to decode them: apt-get install jbig2dec)"]
    real = shutil.which
    monkeypatch.setattr(ocr.shutil, "which",
                        lambda name: None if name == "jbig2dec" else real(name))
    report = IndexReport()
    report.count_written(Document(id="scan.pdf", text="", metadata={"source": str(path)}),
                         False, [], [], [], 0, 0, offline=True)
    assert (report.empty_warning() or "").endswith(
        "a scanned PDF stored as JBIG2 is read by OCR with the jbig2dec program (apt-get "
        "install jbig2dec)")


def test_vizrag_info_names_the_jbig2_decoder(capsys: pytest.CaptureFixture[str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    from hyperviz_core.cli import info as info_module
    from hyperviz_core.cli import main

    found = info_module.collect()["jbig2dec_binary"]
    assert (found is None) == (shutil.which("jbig2dec") is None)
    assert found is None or found[0].isdigit()  # "0.19"
    real = shutil.which
    monkeypatch.setattr(info_module.shutil, "which",
                        lambda name: None if name == "jbig2dec" else real(name))
    main(["info"])
    assert ("jbig2dec (JBIG2 scans): not installed (optional, decodes scans stored as JBIG2 "
            "for OCR: apt-get install jbig2dec)") in capsys.readouterr().out
