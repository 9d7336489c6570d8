"""Write this folder's Word and OpenDocument files again from ``harbour.fodt`` (not run by the
tests, which read the results).

Needs LibreOffice (``apt-get install libreoffice-writer-nogui``). Run from anywhere:
``python tests/data/wordnotes/make.py``. It converts the flat OpenDocument text
``harbour.fodt`` (written by hand) with ``soffice --convert-to`` to ``harbour.docx``
("MS Word 2007 XML"), ``harbour.doc`` ("MS Word 97") and ``harbour.odt``.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

HERE = Path(__file__).parent


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        for kind in ("docx:MS Word 2007 XML", "doc:MS Word 97", "odt"):
            subprocess.run(["soffice", "--headless", "--convert-to", kind, "--outdir", tmp,
                            str(HERE / "harbour.fodt")], check=True, capture_output=True)
        for suffix in ("docx", "doc", "odt"):
            shutil.copy(Path(tmp) / f"harbour.{suffix}", HERE / f"harbour.{suffix}")


if __name__ == "__main__":
    main()
