"""Write this folder's Word and OpenDocument files again from ``harbour.fodt``,
``changes.fodt``, ``pages.fodt``, ``notechanges.fodt`` and ``hidden.fodt`` (not run by the
tests, which read the results).

Needs LibreOffice (``apt-get install libreoffice-writer-nogui``). Run from anywhere:
``python tests/data/wordnotes/make.py``. It converts each flat OpenDocument text (written
by hand) with ``soffice --convert-to`` to ``.docx`` ("MS Word 2007 XML"), ``.doc``
("MS Word 97") and ``.odt`` (``pages.fodt`` and ``hidden.fodt`` to ``.rtf`` too), and
``running.fodt`` to a PDF.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).parent


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for stem in ("harbour", "changes", "pages", "notechanges", "hidden"):
            for kind in ("docx:MS Word 2007 XML", "doc:MS Word 97", "odt"):
                subprocess.run(["soffice", "--headless", "--convert-to", kind, "--outdir", tmp,
                                str(HERE / f"{stem}.fodt")], check=True, capture_output=True)
            suffixes = ["docx", "doc", "odt"]
            if stem in ("pages", "hidden"):  # their headers, hidden text in RTF too
                subprocess.run(["soffice", "--headless", "--convert-to", "rtf", "--outdir",
                                tmp, str(HERE / f"{stem}.fodt")], check=True,
                               capture_output=True)
                suffixes.append("rtf")
            for suffix in suffixes:
                shutil.copy(Path(tmp) / f"{stem}.{suffix}", HERE / f"{stem}.{suffix}")
        subprocess.run(["soffice", "--headless", "--convert-to", "pdf", "--outdir", tmp,
                        str(HERE / "running.fodt")], check=True, capture_output=True)
        shutil.copy(Path(tmp) / "running.pdf", HERE / "running.pdf")


if __name__ == "__main__":
    main()
