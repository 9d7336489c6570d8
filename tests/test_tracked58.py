"""Tracked changes read as the text will stand once they are accepted (stop 58): a deletion
is left out and an insertion kept, in ``.doc``, ``.docx`` and ``.odt`` files alike. Before,
a ``.doc`` file showed its deleted text (``Bo LiAda Lovelace``), and a ``.docx`` file lost
its insertions. The files are LibreOffice's (``tests/data/wordnotes/changes.*``).
"""

from __future__ import annotations

import importlib.util
import struct
from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import load_documents

DATA = Path(__file__).parent / "data" / "wordnotes"
ACCEPTED = "The applicant is Ada Lovelace of Bergen.\n\nThe vessel is moored at Festningskaien."


SUFFIXES = [
    pytest.param("doc", marks=pytest.mark.skipif(not importlib.util.find_spec("olefile"),
                                                 reason="doc extra")),
    pytest.param("docx", marks=pytest.mark.skipif(not importlib.util.find_spec("docx"),
                                                  reason="docx extra")),
    "odt"]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_tracked_changes_read_as_accepted(suffix: str) -> None:
    assert load_documents(DATA / f"changes.{suffix}")[0].text == ACCEPTED


def test_doc_character_pages_that_cannot_be_read_keep_the_whole_text(tmp_path: Path) -> None:
    """A ``PlcBteChpx`` past the table stream: no deletions are known, so the deleted text
    shows, and nothing else is lost."""
    olefile = pytest.importorskip("olefile")
    path = tmp_path / "changes.doc"
    path.write_bytes((DATA / "changes.doc").read_bytes())
    with olefile.OleFileIO(str(path), write_mode=True) as ole:
        word = bytearray(ole.openstream("WordDocument").read())
        csw = struct.unpack_from("<H", word, 32)[0]
        longs = 34 + 2 * csw + 2
        cslw = struct.unpack_from("<H", word, longs - 2)[0]
        struct.pack_into("<II", word, longs + 4 * cslw + 2 + 8 * 12, 0x7FFFFF00, 64)
        ole.write_stream("WordDocument", bytes(word))
    assert load_documents(path)[0].text == ("The applicant is Bo LiAda Lovelace of Bergen.\n\n"
                                            "The vessel is moored in Tromsø at Festningskaien.")


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_note_s_own_tracked_deletion_is_left_out(suffix: str) -> None:
    """Stop 59: a ``.doc`` note reads as the text will stand too (before: ``Measured in 2018
    in 2019.``), as a ``.docx`` and an ``.odt`` one."""
    [doc] = load_documents(DATA / f"notechanges.{suffix}")
    assert doc.text.split("\n\n") == [
        "Header: Harbour Authority", "The pier was measured.", "Footnote 1: Measured in 2019.",
        "Ships dock all year."]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_hidden_text_is_left_out(suffix: str) -> None:
    """Stop 59: text formatted hidden (Word's ``w:vanish``, ``sprmCFVanish``; an ``.odt``
    style's ``text:display="none"``), which Word neither shows nor prints, is left out."""
    [doc] = load_documents(DATA / f"hidden.{suffix}")
    assert doc.text == "The berth fee is 120 kroner a day.\n\nShips dock all year."


@pytest.mark.skipif(not importlib.util.find_spec("striprtf"), reason="rtf extra")
def test_rtf_hidden_text_is_left_out() -> None:
    """An RTF file's ``\\v`` text (striprtf shows it), its paragraphs a line each."""
    [doc] = load_documents(DATA / "hidden.rtf")
    assert doc.text == "The berth fee is 120 kroner a day.\nShips dock all year."


def test_odt_conditional_hidden_text_and_paragraphs(tmp_path: Path) -> None:
    from office_files import write_odf

    body = ('<text:p>Fee: <text:hidden-text text:condition="ooow:1" text:string-value="x" '
            'text:is-hidden="true">secret </text:hidden-text>120 kroner.</text:p>'
            '<text:p><text:hidden-paragraph text:condition="ooow:1" text:is-hidden="true"/>'
            'A hidden paragraph.</text:p><text:p><text:hidden-paragraph text:condition='
            '"ooow:0" text:is-hidden="false"/>A shown one.</text:p>'
            '<text:p>Shown <text:hidden-text text:condition="ooow:0" text:string-value="y" '
            'text:is-hidden="false">too</text:hidden-text>.</text:p>')
    path = write_odf(tmp_path / "conditions.odt", body)
    assert load_documents(path)[0].text == "Fee: 120 kroner.\n\nA shown one.\n\nShown too."
