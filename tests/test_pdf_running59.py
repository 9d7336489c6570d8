"""A PDF's running heads and page numbers are left out (stop 59): a running head stays on
the first page it is on, a page number nowhere. Before, every page's text began with the
running head and ended with its number, in every chunk.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from office_files import make_pdf

from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.pdfrunning import without_running_lines

pytest.importorskip("pypdf")


def _pages(tmp_path: Path, pages: list[list[str]]) -> list[str]:
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf(pages))
    [doc] = load_documents(path)
    starts = [*doc.metadata["page_starts"], len(doc.text)]
    return [doc.text[a:b].strip() for a, b in itertools.pairwise(starts)]


def test_running_heads_and_page_numbers_are_left_out(tmp_path: Path) -> None:
    pages = [["Harbour Authority Annual Report 2023", f"The body of page {n} ends here.",
              f"Page {n} of 5"] for n in range(1, 6)]
    assert _pages(tmp_path, pages) == [
        "Harbour Authority Annual Report 2023\nThe body of page 1 ends here.",
        *(f"The body of page {n} ends here." for n in range(2, 6))]


def test_left_and_right_heads_alternate() -> None:
    pages = [(f"{n}\nHarbour Report" if n % 2 == 0 else f"Chapter 1: Ships {n}")
             + f"\nText {n}." for n in range(1, 8)]
    assert without_running_lines(pages) == [
        "Chapter 1: Ships 1\nText 1.", "Harbour Report\nText 2.",
        *(f"Text {n}." for n in range(3, 8))]


def test_numbered_lines_that_are_no_page_numbers_stay() -> None:
    pages = [f"Step {n}\nDo thing {n}.\n- {n} -" for n in range(1, 5)]  # the number goes
    assert without_running_lines(pages) == [f"Step {n}\nDo thing {n}." for n in range(1, 5)]
    figures = [f"Figure {n}: Tides at noon\nText {n} here." for n in range(1, 5)]
    assert without_running_lines(figures) == figures


def test_only_a_page_s_edges_are_looked_at() -> None:
    pages = [f"One {n} a.\nTwo {n} b.\nThree {n} c.\nHarbour Report\nFour {n} d.\n"
             f"Five {n} e.\nSix {n} f." for n in range(4)]
    assert without_running_lines(pages) == pages
    # at the edge, below a line that is not running: kept
    pages = [f"Text {n}.\nHarbour Report\nMore {n}.\nEnd {n}." for n in range(4)]
    assert without_running_lines(pages) == pages


def test_short_documents_and_scattered_lines_are_as_they_were() -> None:
    pages = ["Harbour Report\nOne.\n1", "Harbour Report\nTwo.\n2"]
    assert without_running_lines(pages) == pages
    scattered = [f"Harbour Report\nPage {n}.\n{n}" if n % 4 == 0 else f"Text {n}."
                 for n in range(12)]  # every fourth page: not running
    assert without_running_lines(scattered) == scattered


def test_a_short_page_keeps_its_first_running_line_once() -> None:
    pages = ["Harbour Report"] + [f"Harbour Report\nBody {n}." for n in range(1, 4)]
    assert without_running_lines(pages) == ["Harbour Report", "Body 1.", "Body 2.", "Body 3."]


def test_a_pdf_libreoffice_wrote() -> None:
    """``tests/data/wordnotes/running.pdf``: a running head and "Page N of 9" on pages 2-9."""
    path = Path(__file__).parent / "data" / "wordnotes" / "running.pdf"
    [doc] = load_documents(path)
    starts = [*doc.metadata["page_starts"], len(doc.text)]
    pages = [doc.text[a:b].strip() for a, b in itertools.pairwise(starts)]
    assert pages[0] == "Confidential: board members only\nHarbour Report"
    assert pages[1].startswith("Harbour Authority of Bergen\nPage 1 body:")  # first: kept
    for n, page in enumerate(pages[2:], 2):
        assert page.startswith(f"Page {n} body:") and page.endswith("fill it out."), page
    assert doc.text.count("Harbour Authority") == 1 and " of 9" not in doc.text
