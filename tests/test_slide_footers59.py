"""A deck's footers, dates and slide numbers (stop 59): a footer or a date is shown on the
first slide it is on, not again; a slide number, a slide-number field and a date field
(the day the deck is opened) give no text. Before, every slide of a ``.pptx`` deck ended
with its footer, its date and its number, in every chunk, and an ``.odp`` presentation's
footers gave no text.

The ``.pptx`` deck is written with python-pptx, its footer placeholders as PowerPoint
writes them (Insert > Header & Footer: a ``p:ph`` of type ``dt``, ``ftr`` and ``sldNum`` on
each slide); the ``.odp`` one as LibreOffice writes its declarations (a ``.pptx`` deck it
converted: ``presentation:footer-decl``, ``presentation:date-time-decl``).
"""

from __future__ import annotations

import itertools
import shutil
import struct
from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import load_documents

DATA = Path(__file__).parent / "data" / "office97"
SLIDES = [["Berths 1", "Ships at berth 1.", "Harbour Authority"],
          ["Berths 2", "Ships at berth 2.", "1 May 2026"],
          ["Berths 3", "Ships at berth 3.", "Draft"]]


def _slides(path: Path) -> list[list[str]]:
    [doc] = load_documents(path)
    starts = [*doc.metadata["page_starts"], len(doc.text)]
    return [doc.text[a:b].strip().split("\n\n") for a, b in itertools.pairwise(starts)]


@pytest.mark.parametrize("suffix", ["pptx", "ppt", "odp"])
def test_footers_dates_and_slide_numbers(suffix: str) -> None:
    pytest.importorskip({"pptx": "pptx", "ppt": "olefile", "odp": "zipfile"}[suffix])
    want = SLIDES
    if suffix == "ppt":  # LibreOffice wrote slide 3's own date as a text box
        want = [*SLIDES[:2], ["Berths 3", "Ships at berth 3.", "1 May 2026", "Draft"]]
    assert _slides(DATA / f"footers.{suffix}") == want


def test_a_slide_number_field_in_a_text_box_is_kept(tmp_path: Path) -> None:
    """Only a footer's or a date's fields are left out: a text box the author wrote a
    field into keeps it."""
    pptx = pytest.importorskip("pptx")
    from lxml import etree
    from pptx.util import Inches

    deck = pptx.Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])
    slide.shapes.title.text = "Index"
    box = slide.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1))
    box.text_frame.paragraphs[0]._p.append(
        etree.fromstring(
            '<a:fld xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
            'id="{B2}" type="slidenum"><a:t>1</a:t></a:fld>'))
    deck.save(str(tmp_path / "index.pptx"))
    assert load_documents(tmp_path / "index.pptx")[0].text == "Index\n\n1"


def test_odp_footers_and_dates_are_shown_once(tmp_path: Path) -> None:
    from office_files import write_odf

    decls = ('<presentation:footer-decl presentation:name="ftr1">Harbour Authority'
             '</presentation:footer-decl><presentation:footer-decl presentation:name="ftr2">'
             'Draft</presentation:footer-decl><presentation:date-time-decl '
             'presentation:name="dtd1" presentation:source="current-date"/>'
             '<presentation:date-time-decl presentation:name="dtd2" '
             'presentation:source="fixed">1 May 2026</presentation:date-time-decl>')

    def page(n: int, footer: str, date: str, style: str = "dp1") -> str:
        frames = "".join(
            f'<draw:frame presentation:class="{kind}"><draw:text-box><text:p>{text}</text:p>'
            "</draw:text-box></draw:frame>"
            for kind, text in (("title", f"Berths {n}"), ("outline", f"Ships at berth {n}.")))
        return (f'<draw:page draw:name="p{n}" draw:style-name="{style}" '
                f'presentation:use-footer-name="{footer}" '
                f'presentation:use-date-time-name="{date}">{frames}</draw:page>')

    styles = ('<style:style style:name="dp2" style:family="drawing-page">'
              '<style:drawing-page-properties presentation:display-footer="false" '
              'presentation:display-date-time="true"/></style:style>')
    body = decls + page(1, "ftr1", "dtd1") + page(2, "ftr1", "dtd2") + page(
        3, "ftr2", "dtd2") + page(4, "ftr2", "dtd1", "dp2")
    path = write_odf(tmp_path / "berths.odp", body, kind="presentation", styles=styles)
    assert _slides(path) == [["Berths 1", "Ships at berth 1.", "Harbour Authority"],
                             ["Berths 2", "Ships at berth 2.", "1 May 2026"],
                             ["Berths 3", "Ships at berth 3.", "Draft"],
                             ["Berths 4", "Ships at berth 4."]]
    # the style of slide 3 (and 4) hides its footer: "Draft" is never shown
    hidden = body.replace('draw:name="p3" draw:style-name="dp1"',
                          'draw:name="p3" draw:style-name="dp2"')
    assert _slides(write_odf(tmp_path / "hidden.odp", hidden, kind="presentation",
                             styles=styles))[2] == ["Berths 3", "Ships at berth 3."]


def _record(kind: int, body: bytes, instance: int = 0, container: bool = False) -> bytes:
    """An MS-PPT record: its header (version, instance, type, size) and ``body``."""
    return struct.pack("<HHI", (instance << 4) | (0xF if container else 0), kind,
                       len(body)) + body


def test_ppt_footers_and_dates_by_their_flags() -> None:
    """A ``.ppt`` slide shows its own headers-and-footers container's footer and fixed date
    (by its flags), else the document's; today's date gives no text."""
    from hyperviz_core.rag.index.pptfooters import SlideFurniture
    from hyperviz_core.rag.index.pptrecords import record_at

    def container(flags: int, strings: dict[int, str], instance: int = 0) -> bytes:
        atom = _record(0x0FDA, struct.pack("<HH", 0, flags))
        texts = b"".join(_record(0x0FBA, text.encode("utf-16-le"), i)
                         for i, text in strings.items())
        return _record(0x0FD9, atom + texts, instance, container=True)

    slides = [container(0x25, {0: "1 May 2026", 2: "Harbour Authority"}),  # date, footer
              container(0x23, {0: "2 May 2026", 2: "Draft"}),  # today's date, footer
              b"",  # none of its own: the document's
              container(0x00, {2: "Hidden"})]  # shows nothing
    document = _record(0x03E8, container(0x21, {2: "Default footer"}, 3), container=True)
    data = document + b"".join(_record(0x03EE, body, container=True) for body in slides)
    furniture = SlideFurniture(data, record_at(data, 0))
    at, shown = len(document), []
    for _ in slides:
        slide = record_at(data, at)
        shown.append(furniture.of(slide))
        at = slide.end
    assert shown == [["Harbour Authority", "1 May 2026"], ["Draft"], ["Default footer"], []]


def test_a_hidden_title_gives_no_text(tmp_path: Path) -> None:
    """Stop 59: a title hidden in PowerPoint's selection pane neither heads nor titles."""
    pptx = pytest.importorskip("pptx")
    deck = pptx.Presentation()
    for title in ("Hidden title", "Berths"):
        slide = deck.slides.add_slide(deck.slide_layouts[5])
        slide.shapes.title.text = title
    deck.slides[0].shapes.title._element.nvSpPr.cNvPr.set("hidden", "1")
    deck.save(str(tmp_path / "titles.pptx"))
    [doc] = load_documents(tmp_path / "titles.pptx")
    assert (doc.text, doc.title) == ("Berths", "Berths")


@pytest.mark.parametrize("suffix", ["pptx", "ppt", "odp"])
def test_hidden_shapes_give_no_text(suffix: str) -> None:
    """Stop 59: a text box hidden in PowerPoint's selection pane (``cNvPr hidden="1"``) is
    on neither the slide nor the show, so it gives no text; LibreOffice writes the same
    slide's `.ppt` with ``fHidden`` and its `.odp` as custom shapes (whose text an `.odp`
    reader read as nothing before stop 59: it read frames only) with
    ``drawooo:display="none"``."""
    pytest.importorskip({"pptx": "pptx", "ppt": "olefile", "odp": "zipfile"}[suffix])
    assert load_documents(DATA / f"hidden.{suffix}")[0].text == "Berths\n\nShips dock all year."


def _with_stream(path: Path, data: bytes, to: Path) -> Path:
    """A copy of the ``.ppt`` at ``path`` at ``to`` whose deck stream is ``data`` (as long)."""
    import olefile

    shutil.copy(path, to)
    ole = olefile.OleFileIO(str(to), write_mode=True)
    ole.write_stream("PowerPoint Document", data)
    ole.close()
    return to


def test_a_hidden_groups_shapes_give_no_text(tmp_path: Path) -> None:
    """Stop 60: the shapes of a group hidden as a whole (its own shape ``fHidden``) give no
    text in a `.ppt` (before, they were read); shown, the same group is read."""
    pytest.importorskip("olefile")
    import olefile

    path = DATA / "hidden.ppt"
    ole = olefile.OleFileIO(str(path))
    data = ole.openstream("PowerPoint Document").read()
    ole.close()
    assert "Group draft left".encode("utf-16-le") in data  # on the slide, in the group
    hidden = struct.pack("<HI", 0x03BF, 0x00020002)
    assert data.count(hidden) == 2  # the hidden text box's and the group's
    shown = data.replace(hidden, struct.pack("<HI", 0x03BF, 0x00020000), 2)
    assert load_documents(_with_stream(path, shown, tmp_path / "shown.ppt"))[0].text == (
        "Berths\n\nOld draft box\n\nShips dock all year.\n\nGroup draft left\n\n"
        "Group draft right")


def test_a_hidden_layers_shapes_give_no_text(tmp_path: Path) -> None:
    """Stop 60: a frame on a layer the layer set hides (``draw:display="none"``, in
    ``styles.xml`` as LibreOffice keeps it) gives no text; shown, the same layer is read."""
    import zipfile

    path = DATA / "layers.odp"
    assert load_documents(path)[0].text == "Berths\n\nShips dock all year."
    shown = tmp_path / "shown.odp"
    with zipfile.ZipFile(path) as src, zipfile.ZipFile(shown, "w") as out:
        for item in src.infolist():
            data = src.read(item)
            if item.filename == "styles.xml":
                assert data.count(b'draw:display="none"') == 1
                data = data.replace(b'draw:display="none"', b'draw:display="always"')
            out.writestr(item, data)
    assert load_documents(shown)[0].text == "Berths\n\nDraft layer note\n\nShips dock all year."
