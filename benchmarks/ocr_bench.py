"""Time of reading scanned PDF pages by OCR: a PDF of ``--pages`` image-only pages (each
1700×2200 pixels, 20 lines of DejaVu Sans at 36 px, as ``tests/test_ocr57.py`` draws them)
is read with ``load_documents``, with OCR off, on (Tesseract's threads bounded by the cores,
the default), and on with ``OMP_THREAD_LIMIT`` 1 and 64 (as good as unbounded); the script
prints the seconds a page and how many of the drawn words are among the words read (as many
times as drawn).

    python benchmarks/ocr_bench.py --pages 5
"""

from __future__ import annotations

import argparse
import io
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def scanned_pdf(pages: int) -> tuple[bytes, list[str]]:
    """A PDF of ``pages`` pictures of text, and the words drawn."""
    from PIL import Image, ImageDraw, ImageFont

    font = ImageFont.truetype(FONT, 36)
    images, words = [], []
    for p in range(pages):
        image = Image.new("L", (1700, 2200), 255)
        draw = ImageDraw.Draw(image)
        for i in range(20):
            line = f"Page {p + 1} line {i + 1}: the harbour of Bergen ships {37 * p + i} crates."
            draw.text((120, 150 + 90 * i), line, fill=0, font=font)
            words += line.split()
        images.append(image)
    out = io.BytesIO()
    images[0].save(out, format="PDF", resolution=200, save_all=True, append_images=images[1:])
    return out.getvalue(), words


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pages", type=int, default=5)
    args = ap.parse_args(argv)
    if "OMP_THREAD_LIMIT" in os.environ:
        sys.exit("unset OMP_THREAD_LIMIT first: the script sets it")
    sys.path.insert(0, str(ROOT))
    from hyperviz_core.rag.index.loaders import load_documents
    from hyperviz_core.rag.index.ocr import OCR_ENV, THREADS_ENV, ocr_missing

    if (missing := ocr_missing()) is not None:
        sys.exit(f"OCR needs {missing}")
    data, words = scanned_pdf(args.pages)
    before = os.environ.get(OCR_ENV)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "scan.pdf"
        path.write_bytes(data)
        for setting, threads in (("0", None), ("eng", None), ("eng", "1"), ("eng", "64")):
            os.environ[OCR_ENV] = setting
            if threads is not None:
                os.environ[THREADS_ENV] = threads
            start = time.perf_counter()
            [doc] = load_documents(path)
            took = time.perf_counter() - start
            read = doc.text.split()
            same = sum((Counter(words) & Counter(read)).values())
            os.environ.pop(THREADS_ENV, None)
            how = f" {THREADS_ENV}={threads}" if threads else ""
            print(f"VIZRAG_OCR={setting}{how}: {args.pages} pages in {took:.2f} s "
                  f"({took / args.pages:.2f} s a page); {len(read)} words read, "
                  f"{same} of the {len(words)} drawn words among them")
    if before is None:
        del os.environ[OCR_ENV]
    else:
        os.environ[OCR_ENV] = before


if __name__ == "__main__":
    main()
