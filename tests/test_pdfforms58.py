"""A PDF's filled-in form fields are read (stop 58): each page's fields follow its text, a
line each, ``Label: value``. Before, a filled-in form read as its empty labels: a field's
value is kept in the field and drawn by its widget annotation, which pypdf's page text
leaves out. The forms are written here object by object as the PDF reference lays AcroForm
fields out (pypdf writes no new fields); none was filled in by a PDF viewer.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from office_files import folder_top, pdf_file

from hyperviz_core.rag.index.loaders import load_documents

pytest.importorskip("pypdf")


def _pdf(objects: list[str]) -> bytes:
    return pdf_file(objects)


def _page(n: int, text: str, annots: str) -> str:
    return (f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents {n} 0 R "
            f"/Resources << /Font << /F1 3 0 R >> >> /Annots [{annots}] >>")


def _stream(text: str) -> str:
    body = f"BT /F1 12 Tf 72 720 Td ({text}) Tj ET" if text else ""
    return f"<< /Length {len(body)} >>\nstream\n{body}\nendstream"


def _widget(rect: int, rest: str) -> str:
    return f"<< /Type /Annot /Subtype /Widget /Rect [72 {rect} 300 {rect + 20}] {rest} >>"


FORM = _pdf([
    "<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [7 0 R 8 0 R 9 0 R 10 0 R 11 0 R "
    "12 0 R 15 0 R] >> >>",
    "<< /Type /Pages /Kids [4 0 R 5 0 R] /Count 2 >>",
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    _page(6, "", "7 0 R 8 0 R 9 0 R 10 0 R 13 0 R 11 0 R 12 0 R"),  # 4: page 1
    _page(16, "", "14 0 R 15 0 R"),  # 5: page 2
    _stream("Application for a harbour permit"),  # 6
    _widget(600, "/FT /Tx /T (applicant) /TU (Name of the applicant) /V (Ada  Lovelace)"),
    _widget(560, "/FT /Btn /T (member) /V /Yes /AS /Yes"),  # 8: a ticked box
    _widget(520, "/FT /Btn /T (insured) /V /Off /AS /Off"),  # 9: an unticked box
    _widget(480, "/FT /Ch /T (ports) /TU (Ports of call) /V [(Bergen) (Oslo)]"),  # 10
    _widget(440, "/FT /Sig /T (signature) /V << /Type /Sig >>"),  # 11: no line
    "<< /FT /Btn /T (size) /TU (Vessel size) /V /Large /Kids [13 0 R 14 0 R] >>",  # 12
    _widget(400, "/Parent 12 0 R /AS /Large"),  # 13: a radio button of 12, on page 1
    _widget(400, "/Parent 12 0 R /AS /Off"),  # 14: another, on page 2
    _widget(360, "/FT /Tx /T (notes) /V ()"),  # 15: empty, on page 2
    _stream("Page two"),  # 16
])


def test_filled_in_fields_follow_their_page_text(tmp_path: Path) -> None:
    path = tmp_path / "permit.pdf"
    path.write_bytes(FORM)
    [doc] = load_documents(path)
    assert doc.text == ("Application for a harbour permit\n\nName of the applicant: Ada "
                        "Lovelace\nmember: Yes\nPorts of call: Bergen, Oslo\nVessel size: "
                        "Large\n\nPage two\n\nVessel size: Large")
    assert doc.metadata["page_starts"] == [0, doc.text.index("Page two")]


def test_a_damaged_form_keeps_the_pages_text(tmp_path: Path) -> None:
    """A loop of parents ends; annotations that are no list, or no dictionaries, and a
    field whose parent is missing are passed over."""
    damaged = _pdf([
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [4 0 R 5 0 R] /Count 2 >>",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        _page(6, "", "7 0 R 8 0 R 9 0 R (text) 42"),
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 10 0 R "
        "/Resources << /Font << /F1 3 0 R >> >> /Annots 7 0 R >>",  # annotations no list
        _stream("The form"),  # 6
        "<< /Subtype /Widget /T (a) /Parent 8 0 R >>",  # 7: a loop: 7 -> 8 -> 7
        "<< /T (b) /Parent 7 0 R >>",  # 8
        "<< /Subtype /Widget /Parent 99 0 R >>",  # 9: a parent that is not there
        _stream("Second page"),  # 10
    ])
    path = tmp_path / "damaged.pdf"
    path.write_bytes(damaged)
    assert load_documents(path)[0].text == "The form\n\nSecond page"


def test_vizrag_query_finds_a_field_value(tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    top, line = folder_top(capsys, tmp_path, {
        "permit.pdf": FORM, "other.md": "# Oslo\n\nOslo lies at the end of a fjord.\n"},
        "Who is the applicant for the harbour permit?")
    assert top["doc_id"] == "permit.pdf" and "Ada Lovelace" in line
