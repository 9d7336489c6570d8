"""Word and PowerPoint 97-2003 files (``.doc``, ``.ppt``) are read as documents with the
``doc`` and ``ppt`` extras (olefile; stop 57). Before, a folder walk left them out and one
named directly was refused as a binary file.

The files in ``tests/data/office97`` were written by LibreOffice (see its README); the
8-bit pieces, the passwords, Word 95 and PowerPoint's own layout (a placeholder's text kept
in the slide list, an earlier save overridden by a later one) are written into copies here,
stream by stream, as MS-DOC and MS-PPT lay them out.
"""

from __future__ import annotations

import shutil
import struct
from pathlib import Path

import pytest
from compound_files import write_compound
from office_files import assert_needs_extra, folder_top, hide_module, write_docx

from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.suffixes import readable_suffixes

olefile = pytest.importorskip("olefile")

DATA = Path(__file__).parent / "data" / "office97"

REPORT = ("Northwind Traders\n\n"
          "Northwind Traders opened an office in Zürich in 1999. The café sells coffee for €3."
          "\n\nSee the Northwind site for more.\n\n"
          "City | Staff\nOslo | 12\n東京\n\n"
          "Ada Lovelace wrote the first program.")
NOTES = ("Header: HEADER TEXT\n\nPlain Notes\n\nFirst line\nsecond line of the same paragraph.\n\n"
         "Name | Role\nGrace | Admiral and programmer | 1906\n\n"
         "After the table.\n\nOn page two.\n\nFooter: FOOTER TEXT")


def _copy(tmp_path: Path, name: str, as_name: str | None = None) -> Path:
    path = tmp_path / (as_name or name)
    shutil.copy(DATA / name, path)
    return path


def _pairs_at(word: bytes) -> int:
    """Where the FIB's (offset, size) pairs start in a WordDocument stream."""
    csw = struct.unpack_from("<H", word, 32)[0]
    longs = 34 + 2 * csw + 2
    return longs + 4 * struct.unpack_from("<H", word, longs - 2)[0] + 2


def _rewrite(path: Path, streams: dict[str, bytes]) -> None:
    """Overwrite streams of the compound file ``path`` (each keeps its size)."""
    ole = olefile.OleFileIO(str(path), write_mode=True)
    for name, data in streams.items():
        ole.write_stream(name, data.ljust(ole.get_size(name), b"\x00"))
    ole.close()


def _streams(path: Path, *names: str) -> list[bytearray]:
    ole = olefile.OleFileIO(str(path))
    try:
        return [bytearray(ole.openstream(name).read()) for name in names]
    finally:
        ole.close()


def test_a_word_97_document_reads_as_its_paragraphs_and_tables() -> None:
    [doc] = load_documents(DATA / "report.doc")
    assert (doc.id, doc.title, doc.text) == ("report.doc", "Quarterly Report Café", REPORT)
    assert doc.metadata["source"] == str(DATA / "report.doc")
    [notes] = load_documents(DATA / "notes.doc")  # no title: the stem
    assert (notes.title, notes.text) == ("notes", NOTES)


def test_pieces_stored_8_bit_are_read_as_windows_1252(tmp_path: Path) -> None:
    """Word stores a piece of plain text one byte a character; here the second of three."""
    path = _copy(tmp_path, "notes.doc")
    word, table = _streams(path, "WordDocument", "1Table")
    pairs = _pairs_at(word)
    clx_at = struct.unpack_from("<I", word, pairs + 33 * 8)[0]
    first = struct.unpack_from("<I", table, clx_at + 5 + 4)[0]  # the one piece's end
    start = 0x800  # where LibreOffice stored the text (UTF-16)
    text = word[start:start + 2 * first].decode("utf-16-le")
    cut = text.index("\r\rName") + 2
    eight_bit = "\rCafé €9.50\x0b" + text[23:cut]  # "First line" spelt with é and €
    assert len(eight_bit) == cut - 11
    word[start + 22:start + 22 + len(eight_bit)] = eight_bit.encode("cp1252")
    cps = (0, 11, cut, first)
    pcds = [(start, 0), (((start + 22) * 2) | 0x40000000, 0), (start + 2 * cut, 0)]
    plc = struct.pack("<4I", *cps) + b"".join(struct.pack("<HIH", 0, fc, 0) for fc, _ in pcds)
    clx = b"\x02" + struct.pack("<I", len(plc)) + plc
    table[0:len(clx)] = clx  # over the style sheet, which is not read
    struct.pack_into("<II", word, pairs + 33 * 8, 0, len(clx))
    _rewrite(path, {"WordDocument": bytes(word), "1Table": bytes(table)})
    [doc] = load_documents(path)
    assert doc.text == NOTES.replace("First line", "Café €9.50")


def test_a_field_shows_its_result_and_nested_fields_too() -> None:
    from hyperviz_core.rag.index.docfiles import _Offsets, _without_codes

    text = ("A \x13 HYPERLINK x \x14site\x15, \x13 IF \x13 PAGE \x14 2\x15 \x14yes\x15, "
            "\x13 TOC \x15!")
    stored = _Offsets([(0, 100, 2), (19, 7, 1), (43, 500, 2)])  # "site", "yes" span two
    shown, offsets = _without_codes(text, stored)
    assert shown == "A site, yes, !"
    shown_at = [0, 1, 17, 18, 19, 20, 22, 23, 42, 43, 44, 46, 47, 55]  # in ``text``
    assert "".join(text[i] for i in shown_at) == shown
    assert [offsets.at(i) for i in range(len(shown))] == [stored.at(i) for i in shown_at]


def test_unreadable_paragraph_pages_keep_every_word(tmp_path: Path) -> None:
    path = _copy(tmp_path, "notes.doc")
    [word] = _streams(path, "WordDocument")
    struct.pack_into("<II", word, _pairs_at(word) + 13 * 8, 0, 0)  # no paragraph pages
    _rewrite(path, {"WordDocument": bytes(word)})
    [doc] = load_documents(path)
    assert doc.text.replace("|", " ").split() == NOTES.replace("|", " ").split()


@pytest.mark.parametrize(("change", "error"), [
    (lambda w: struct.pack_into("<H", w, 10, struct.unpack_from("<H", w, 10)[0] | 0x0100),
     r"notes\.doc: saved with a password, which vizrag does not read"),
    (lambda w: struct.pack_into("<H", w, 2, 104), r"notes\.doc: a Word 6\.0/95 document"),
    (lambda w: struct.pack_into("<H", w, 0, 0x1234), r"notes\.doc: not a Word 97-2003 document"),
    (lambda w: struct.pack_into("<I", w, _pairs_at(w) + 33 * 8, 10**6),
     r"notes\.doc: not a Word 97-2003 document \(IndexError"),
])
def test_a_word_file_it_cannot_read_is_named(tmp_path: Path, change: object,
                                             error: str) -> None:
    path = _copy(tmp_path, "notes.doc")
    [word] = _streams(path, "WordDocument")
    change(word)  # type: ignore[operator]
    _rewrite(path, {"WordDocument": bytes(word)})
    with pytest.raises(LoaderError, match=error):
        load_documents(path)


def test_files_that_are_no_word_97_document(tmp_path: Path) -> None:
    (tmp_path / "plain.doc").write_text("just text")
    with pytest.raises(LoaderError, match=r"plain\.doc: not a Word 97-2003 document \(no "
                                          r"compound file"):
        load_documents(tmp_path / "plain.doc")
    deck = _copy(tmp_path, "deck.ppt", "deck.doc")
    with pytest.raises(LoaderError, match=r"deck\.doc: not a Word 97-2003 document \(it has "
                                          r"no 'WordDocument' stream\)"):
        load_documents(deck)


def test_a_docx_or_rtf_file_named_doc_is_read_as_one(tmp_path: Path) -> None:
    """Word opens them all the same, and many exports name an RTF file ``.doc``."""
    write_docx(tmp_path / "new.doc", title="Modern")
    (tmp_path / "old.doc").write_bytes(rb"{\rtf1\ansi The caf\'e9 opens.\par}")
    new, old = (load_documents(tmp_path / name)[0] for name in ("new.doc", "old.doc"))
    assert (new.id, new.title) == ("new.doc", "Modern") and new.text
    assert (old.id, old.text) == ("old.doc", "The café opens.")


DECK = ["Northwind Harbour\n\nShips dock in Bergen.\nCranes lift containers.",
        "Budget\n\nA text box: café costs €3 in 東京.\n\nItem | Cost\nCrane | 900\n\n"
        "Speaker note: mention Oslo.", "", "Closing"]  # a table's rows a line each: stop 58


def _pages(doc: object) -> list[str]:
    text, starts = doc.text, doc.metadata["page_starts"]  # type: ignore[attr-defined]
    ends = [*starts[1:], len(text)]
    return [text[a:b].strip() for a, b in zip(starts, ends, strict=True)]


def test_a_powerpoint_97_deck_reads_as_its_slides() -> None:
    [doc] = load_documents(DATA / "deck.ppt")
    assert (doc.id, doc.title, doc.metadata["pages"]) == ("deck.ppt", "Harbour Plans", 4)
    assert _pages(doc) == DECK  # the hidden slide gives no text and keeps its number
    assert "Click to edit" not in doc.text and "*" not in doc.text  # masters, fields


def _rec(kind: int, body: bytes = b"", instance: int = 0, container: bool = False) -> bytes:
    return struct.pack("<HHI", (instance << 4) | (0xF if container else 0), kind,
                       len(body)) + body


def _texts(*items: tuple[int, str, bool]) -> bytes:
    """Text header and text atoms: (type, text, 8-bit)."""
    return b"".join(_rec(0x0F9F, struct.pack("<I", kind)) + (
        _rec(0x0FA8, text.encode("latin-1")) if eight else _rec(0x0FA0, text.encode("utf-16-le")))
        for kind, text, eight in items)


def _document(held: dict[int, bytes] | list[tuple[int, bytes]]) -> bytes:
    """A document container whose slide list holds ``held``: persist id -> its texts."""
    pairs = sorted(held.items()) if isinstance(held, dict) else held
    items = b"".join(_rec(0x03F3, struct.pack("<5I", pid, 0, 0, 255 + pid, 0)) + texts
                     for pid, texts in pairs)
    return _rec(0x03E8, _rec(0x0FF0, items, instance=0, container=True), container=True)


def _slide(*boxes: bytes, hidden: bool = False) -> bytes:
    show = _rec(0x03F9, struct.pack("<IIBBHB3x", 0, 0, 0, 0, 0x4 if hidden else 0, 0))
    return _rec(0x03EE, _rec(0x03EF, bytes(24)) + show + b"".join(
        _rec(0xF00D, box, container=True) for box in boxes), container=True)


def _ref(index: int) -> bytes:
    return _rec(0x0F9E, struct.pack("<I", index))


def _save(out: bytearray, objects: dict[int, bytes], last_edit: int) -> int:
    """Append a save (its objects, persist directory and user edit); where its edit is."""
    where = {}
    for pid, body in sorted(objects.items()):
        where[pid] = len(out)
        out += body
    directory = len(out)
    out += _rec(0x1772, b"".join(struct.pack("<I", pid | (1 << 20)) + struct.pack("<I", at)
                                 for pid, at in where.items()))
    edit = len(out)
    out += _rec(0x0FF5, struct.pack("<IHBBIIIIHH", 256, 0, 0, 3, last_edit, directory, 1, 9,
                                    1, 0))
    return edit


def _write_deck(path: Path, out: bytearray, current: int, token: int = 0xE391C05F) -> Path:
    """Make ``out`` the deck's stream, its save at ``current`` the newest."""
    [user] = _streams(path, "Current User")
    struct.pack_into("<II", user, 12, token, current)
    _rewrite(path, {"PowerPoint Document": bytes(out), "Current User": bytes(user)})
    return path


def _powerpoint_deck(tmp_path: Path, token: int = 0xE391C05F) -> Path:
    """A deck laid out as PowerPoint writes one, saved twice: the second save stores a new
    document and a new second slide."""
    path = _copy(tmp_path, "deck.ppt", "pp.ppt")
    out = bytearray()
    first = _save(out, {
        1: _document({2: _texts((0, "Old", False)), 3: _texts((0, "Old two", False))}),
        2: _slide(_ref(0)), 3: _slide(_ref(0))}, 0)
    held = {2: _texts((0, "Quarterly Plan", False), (1, "Café sales rose.\rMore ships.", True)),
            3: _texts((6, "Gone", False)), 4: _texts((5, "Unreferenced body", False))}
    current = _save(out, {
        1: _document(held), 2: _slide(_ref(1), _ref(0), _texts((4, "A loose box", False))),
        3: _slide(_ref(0), hidden=True), 4: _slide()}, first)
    return _write_deck(path, out, current, token)


def test_powerpoints_own_layout_and_a_later_save(tmp_path: Path) -> None:
    [doc] = load_documents(_powerpoint_deck(tmp_path))
    assert _pages(doc) == ["Quarterly Plan\n\nCafé sales rose.\nMore ships.\n\nA loose box",
                           "", "Unreferenced body"]
    assert doc.title == "Harbour Plans"  # the summary information's


def test_a_slide_listed_again_is_read_once(tmp_path: Path) -> None:
    """A crafted deck listing one large slide many times costs one reading of it."""
    out = bytearray()
    listed = [(2, _texts((0, "Only", False)))] * 3
    current = _save(out, {1: _document(listed), 2: _slide(_ref(0))}, 0)
    [doc] = load_documents(_write_deck(_copy(tmp_path, "deck.ppt", "twice.ppt"), out, current))
    assert (doc.metadata["pages"], doc.text) == (1, "Only")


def test_a_deck_it_cannot_read_is_named(tmp_path: Path) -> None:
    with pytest.raises(LoaderError, match=r"pp\.ppt: saved with a password"):
        load_documents(_powerpoint_deck(tmp_path, token=0xF3D1C4DF))
    broken = _copy(tmp_path, "deck.ppt", "broken.ppt")
    [data] = _streams(broken, "PowerPoint Document")
    struct.pack_into("<I", data, 4, 10**6)  # the document container runs past the stream
    _rewrite(broken, {"PowerPoint Document": bytes(data)})
    with pytest.raises(LoaderError, match=r"broken\.ppt: not a PowerPoint 97-2003 deck "
                                          r"\(ValueError: a record at byte 0 runs past"):
        load_documents(broken)
    word = _copy(tmp_path, "report.doc", "word.ppt")
    with pytest.raises(LoaderError, match=r"word\.ppt: not a PowerPoint 97-2003 deck \(a "
                                          r"PowerPoint 95 deck, or no deck"):
        load_documents(word)


def test_a_pptx_named_ppt_and_a_ppt_named_pptx_are_read_as_what_they_are(
        tmp_path: Path) -> None:
    from office_files import write_pptx

    write_pptx(tmp_path / "new.ppt")
    [doc] = load_documents(tmp_path / "new.ppt")
    assert doc.id == "new.ppt" and doc.metadata["pages"] >= 1 and doc.text
    [old] = load_documents(_copy(tmp_path, "deck.ppt", "old.pptx"))
    assert (old.id, _pages(old)) == ("old.pptx", DECK)


def test_a_doc_named_docx_is_read_as_one_and_a_password_is_named(tmp_path: Path) -> None:
    """Before, a .doc named .docx was an error telling to save it as .docx; an Office 2007+
    file saved with a password is a compound file holding the encrypted package."""
    [doc] = load_documents(_copy(tmp_path, "report.doc", "report.docx"))
    assert (doc.id, doc.text) == ("report.docx", REPORT)
    locked = {"EncryptionInfo": b"\x04\x00\x04\x00", "EncryptedPackage": b"\x00" * 64}
    for name in ("locked.docx", "locked.pptx", "locked.doc"):
        with pytest.raises(LoaderError, match=rf"{name.replace('.', '[.]')}: saved with a "
                                              "password, which vizrag does not read"):
            load_documents(write_compound(tmp_path / name, locked))


def test_a_folder_walk_reads_them_and_vizrag_query_names_the_slides(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert {".doc", ".dot", ".ppt", ".pps", ".pot"} <= set(readable_suffixes())
    top, line = folder_top(capsys, tmp_path, {
        "deck.ppt": (DATA / "deck.ppt").read_bytes(),
        "report.doc": (DATA / "report.doc").read_bytes()},
        "What does a crane cost in the Budget?")
    assert top["doc_id"] == "deck.ppt" and "(deck.ppt, slides 1-4)" in line  # one passage
    (tmp_path / "b").mkdir()
    top, _ = folder_top(capsys, tmp_path / "b", {
        "report.doc": (DATA / "report.doc").read_bytes(), "x.md": "# Bergen\n\nRain.\n"},
        "Where did Northwind Traders open an office?")
    assert top["doc_id"] == "report.doc"


@pytest.mark.parametrize(("name", "extra"), [("report.doc", "doc"), ("deck.ppt", "ppt")])
def test_without_the_extra_the_file_is_named_with_the_install_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, extra: str) -> None:
    hide_module(monkeypatch, "olefile")
    assert_needs_extra(_copy(tmp_path, name),
                       rf"{name.replace('.', '[.]')}: reading .* needs the '{extra}' extra", extra)


def test_a_workbook_of_either_kind_under_the_others_suffix_is_read_as_what_it_is(
        tmp_path: Path) -> None:
    """Before, an .xls named .xlsx was an error telling to save it as .xlsx, and an .xlsx
    named .xls one telling xlrd could not read it."""
    from office_files import XLS, write_xlsx

    old = tmp_path / "old.xlsx"
    shutil.copy(XLS, old)
    assert [d.id for d in load_documents(old)] == ["7", "b2", "old.xlsx"]
    as_xlsx = load_documents(write_xlsx(tmp_path / "a.xlsx", title="Team"))
    as_xls = load_documents(write_xlsx(tmp_path / "new.xls", title="Team"))
    assert [(d.title, d.text) for d in as_xls] == [(d.title, d.text) for d in as_xlsx]
    assert as_xls[-1].id == "new.xls"


def test_a_web_page_named_xls_or_doc_is_read_as_a_page(tmp_path: Path) -> None:
    """Many web applications' "Excel export" is an HTML table named .xls (Excel opens it);
    before, xlrd refused it and a walk failed on it."""
    export = tmp_path / "orders.xls"
    export.write_bytes(b"\r\n<html><head><meta charset='windows-1252'><title>Orders"
                       b"</title></head><body><table><tr><th>Item</th><th>Price</th></tr>"
                       b"<tr><td>Caf\xe9 beans</td><td>12</td></tr></table></body></html>")
    [doc] = load_documents(export)
    assert (doc.id, doc.title, doc.text) == ("orders.xls", "Orders",
                                             "Item | Price\nCafé beans | 12")
    page = tmp_path / "memo.doc"
    page.write_text("<!DOCTYPE html><p>Ship the crates to Oslo.</p>")
    assert load_documents(page)[0].text == "Ship the crates to Oslo."


def test_an_excel_template_and_a_locked_workbook(tmp_path: Path) -> None:
    """An Excel 97-2003 template (.xlt) reads as an .xls workbook; a .xlsx saved with a
    password (a compound file holding the encrypted package) is named as such — before, it
    was an error guessing at 'an old .xls renamed, or a file saved with a password'."""
    from office_files import XLS

    template = tmp_path / "staff.xlt"
    shutil.copy(XLS, template)
    assert [d.id for d in load_documents(template)] == ["7", "b2", "staff.xlt"]
    locked = write_compound(tmp_path / "locked.xlsx", {"EncryptionInfo": b"\x04\x00\x04\x00",
                                                       "EncryptedPackage": b"\x00" * 64})
    with pytest.raises(LoaderError, match=r"locked\.xlsx: saved with a password, which vizrag "
                                          r"does not read"):
        load_documents(locked)
