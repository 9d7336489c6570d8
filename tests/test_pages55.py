"""Files whose last pages hold no text (stop 55): a PDF ending in a blank page, a deck ending
in an empty slide, a workbook whose last sheets are hidden or hold records.

``page_starts`` put such a page where the next page's text would start, two characters past
the end of the text, so :func:`~hyperviz_core.rag.index.chunking.chunk_document` took the
offsets for no file's (a framework's split) and told no chunk its pages: ``vizrag query``
printed ``(scan.pdf)`` for ``(scan.pdf, p. 1)``, and every chunk carried the whole
``page_starts`` list in its metadata. Such a page now starts where the text ends.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from office_files import make_pdf

from hyperviz_core.cli import main
from hyperviz_core.rag.index.chunking import chunk_document
from hyperviz_core.rag.index.loaders import load_documents


def test_a_pdf_ending_in_a_blank_page_tells_its_chunks_their_pages(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "scan.pdf"
    path.write_bytes(make_pdf([["Radium was discovered in 1898."], ["Polonium too."], []]))
    [doc] = load_documents(path)
    assert doc.metadata["page_starts"] == [0, 32, 45] and len(doc.text) == 45
    [chunk] = chunk_document(doc)
    assert (chunk.metadata["page"], chunk.metadata["page_end"]) == (1, 2)
    assert "page_starts" not in chunk.metadata
    store = tmp_path / "S"
    assert main(["index", str(path), "--store", str(store), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["query", "When was radium discovered?", "--store", str(store), "--top-k", "1",
                 "--mode", "naive"]) == 0
    assert "(scan.pdf, pp. 1-2)" in capsys.readouterr().out
