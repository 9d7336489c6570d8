"""A PDF page's free-text annotations are read after its text (stop 60): what a viewer's
typewriter or text-box tool writes on the page, which pypdf's page text does not hold.
Before, that text was left out. A sticky note (a comment in a pop-up) and a hidden
annotation give none.

The annotations are added with pypdf to a page LibreOffice wrote (``running.pdf``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import load_documents

pypdf = pytest.importorskip("pypdf")
RUNNING = Path(__file__).parent / "data" / "wordnotes" / "running.pdf"


def _with_annotations(path: Path, *annotations: object) -> Path:
    writer = pypdf.PdfWriter()
    writer.add_page(pypdf.PdfReader(str(RUNNING)).pages[0])
    for annotation in annotations:
        writer.add_annotation(0, annotation)
    writer.write(str(path))
    return path


def test_free_text_is_read_and_comments_are_not(tmp_path: Path) -> None:
    from pypdf.annotations import FreeText, Text
    from pypdf.generic import NameObject, NumberObject, TextStringObject

    hidden = FreeText(text="Hidden typewriter text", rect=(50, 450, 400, 480))
    hidden[NameObject("/F")] = NumberObject(2)  # Hidden
    rich = FreeText(text="", rect=(50, 400, 400, 430))
    rich[NameObject("/RC")] = TextStringObject(
        '<?xml version="1.0"?><body xmlns="http://www.w3.org/1999/xhtml"><p>Berth '
        "<b>4</b> is closed.</p></body>")
    path = _with_annotations(
        tmp_path / "annotated.pdf",
        FreeText(text="Approved by the  harbour master", rect=(50, 550, 400, 600)),
        Text(text="A sticky note: check this", rect=(50, 500, 70, 520)), hidden, rich)
    page = pypdf.PdfReader(str(path)).pages[0]
    assert "Approved" not in page.extract_text()  # not in the page's own text
    assert load_documents(path)[0].text == (
        "Confidential: board members only\nHarbour Report\n\n"
        "Approved by the harbour master\nBerth 4 is closed.")


def test_damaged_annotations_leave_the_page_text(tmp_path: Path) -> None:
    from pypdf.annotations import FreeText
    from pypdf.generic import NameObject, NumberObject

    odd = FreeText(text="Kept", rect=(50, 550, 400, 600))
    odd[NameObject("/F")] = NameObject("/NotANumber")  # flags of the wrong type: shown
    broken = FreeText(text="", rect=(50, 500, 400, 540))
    broken[NameObject("/Contents")] = NumberObject(7)  # no text
    path = _with_annotations(tmp_path / "odd.pdf", odd, broken)
    assert load_documents(path)[0].text.endswith("Harbour Report\n\nKept\n7")
