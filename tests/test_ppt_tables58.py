"""A PowerPoint 97-2003 table reads as rows, as a ``.pptx`` deck's does (stop 58): a row a
line, cells joined by `` | ``, an empty cell keeping its place. Before, each cell was a
paragraph of its own. The decks are LibreOffice's (``tests/data/office97``, ``make.py``,
converted from ``.pptx`` decks python-pptx wrote); none was written by PowerPoint.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from office_files import assert_read_or_named, changed_bytes

from hyperviz_core.rag.index.loaders import load_documents

pytest.importorskip("olefile")

DATA = Path(__file__).parent / "data" / "office97"
FLEET = ("Fleet\n\nShip | Port | Crew\nAurora | Bergen | 12 sailors and a cook\n"
         "Borealis | Oslo\nNordlys |  | 9\n\nLeft note\n\nRight note")


def test_a_table_reads_as_rows_and_a_group_of_boxes_as_paragraphs() -> None:
    [doc] = load_documents(DATA / "tables.ppt")
    assert doc.text == FLEET


def test_the_same_deck_as_pptx_reads_alike(tmp_path: Path) -> None:
    pytest.importorskip("pptx")
    import sys

    sys.path.insert(0, str(DATA))
    try:
        import make  # the script that wrote tables.ppt from this very .pptx
    finally:
        sys.path.remove(str(DATA))
    make.tables_pptx(tmp_path / "tables.pptx")
    assert load_documents(tmp_path / "tables.pptx")[0].text == FLEET


def test_damaged_decks_with_tables_are_read_or_named(tmp_path: Path) -> None:
    """Bytes of the deck's records changed at random (the ``PowerPoint Document`` stream
    written back at its size): each deck is read, or refused naming it."""
    import olefile

    source = (DATA / "tables.ppt").read_bytes()
    with olefile.OleFileIO(source) as ole:
        records = ole.openstream("PowerPoint Document").read()
    rng = random.Random(58)
    paths = []
    for n in range(60):
        path = tmp_path / f"case{n}.ppt"
        path.write_bytes(source)
        with olefile.OleFileIO(str(path), write_mode=True) as ole:
            ole.write_stream("PowerPoint Document", changed_bytes(records, rng))
        paths.append(path)
    assert_read_or_named(paths)
