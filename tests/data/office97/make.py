"""Write this folder's Office 97-2003 files again (not run by the tests, which read them).

Needs LibreOffice (``apt-get install libreoffice-writer-nogui libreoffice-impress-nogui``),
python-docx, python-pptx and olefile. Run from anywhere: ``python tests/data/office97/make.py``.
It writes ``report.html``, ``notes.docx``, ``deck.pptx``, ``tables.pptx`` and ``footers.pptx``
in a temporary folder, converts them with ``soffice --convert-to`` ("MS Word 97", "MS
PowerPoint 97"; ``footers.pptx`` to ``.odp`` too; the hand-written ``layers.fodp`` to
``.odp``), keeps ``footers.pptx`` and blanks the
decks' thumbnails (their summary information's ``PIDSI_THUMBNAIL``: 575 KiB of picture the
tests never read) so the files compress to a few KiB.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import docx
import olefile
import pptx
from docx.enum.text import WD_BREAK
from pptx.util import Inches

HERE = Path(__file__).parent
REPORT = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Quarterly Report Café</title></head>
<body>
<h1>Northwind Traders</h1>
<p>Northwind Traders opened an office in Zürich in 1999. The café sells coffee for €3.</p>
<p>See <a href="https://example.com/northwind">the Northwind site</a> for more.</p>
<table border="1"><tr><td>City</td><td>Staff</td></tr><tr><td>Oslo</td><td>12</td></tr>
<tr><td>東京</td><td></td></tr></table>
<p>Ada Lovelace wrote the first program.</p>
</body></html>
"""


def notes_docx(path: Path) -> None:
    d = docx.Document()
    d.sections[0].header.paragraphs[0].text = "HEADER TEXT"
    d.sections[0].footer.paragraphs[0].text = "FOOTER TEXT"
    d.add_heading("Plain Notes", 1)
    p = d.add_paragraph("First line")
    p.add_run().add_break()
    p.add_run("second line of the same paragraph.")
    d.add_paragraph("")
    t = d.add_table(rows=2, cols=3)
    t.cell(0, 0).text, t.cell(0, 1).text = "Name", "Role"
    t.cell(1, 0).text, t.cell(1, 1).text, t.cell(1, 2).text = "Grace", "Admiral", "1906"
    t.cell(1, 1).add_paragraph("and programmer")
    p = d.add_paragraph("After the table.")
    p.add_run().add_break(WD_BREAK.PAGE)
    p.add_run("On page two.")
    d.save(str(path))


def deck_pptx(path: Path) -> None:
    prs = pptx.Presentation()
    prs.core_properties.title = "Harbour Plans"
    s = prs.slides.add_slide(prs.slide_layouts[1])
    s.shapes.title.text = "Northwind Harbour"
    s.placeholders[1].text_frame.text = "Ships dock in Bergen.\nCranes lift containers."
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Budget"
    box = s.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1))
    box.text_frame.text = "A text box: café costs €3 in 東京."
    table = s.shapes.add_table(2, 2, Inches(1), Inches(4), Inches(4), Inches(1)).table
    for (r, c), text in {(0, 0): "Item", (0, 1): "Cost", (1, 0): "Crane", (1, 1): "900"}.items():
        table.cell(r, c).text = text
    s.notes_slide.notes_text_frame.text = "Speaker note: mention Oslo."
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Secret slide"
    s._element.set("show", "0")  # hidden
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Closing"
    prs.save(str(path))


def tables_pptx(path: Path) -> None:
    """A slide with a 4×3 table (a cell of two paragraphs, an empty cell, two merged cells)
    and a group of two text boxes, which is no table (stop 58)."""
    prs = pptx.Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Fleet"
    table = s.shapes.add_table(4, 3, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for (r, c), text in {(0, 0): "Ship", (0, 1): "Port", (0, 2): "Crew", (1, 0): "Aurora",
                         (1, 1): "Bergen", (2, 0): "Borealis", (2, 1): "Oslo",
                         (3, 0): "Nordlys", (3, 2): "9"}.items():
        table.cell(r, c).text = text
    table.cell(1, 2).text_frame.text = "12 sailors"
    table.cell(1, 2).text_frame.add_paragraph().text = "and a cook"
    table.cell(2, 1).merge(table.cell(2, 2))
    group = s.shapes.add_group_shape()
    for i, text in enumerate(["Left note", "Right note"]):
        group.shapes.add_textbox(Inches(1 + 3 * i), Inches(4), Inches(2), Inches(1)) \
            .text_frame.text = text
    prs.save(str(path))


def footers_pptx(path: Path) -> None:
    """Three slides with footers, dates and slide numbers as PowerPoint writes them (Insert >
    Header & Footer: a placeholder of type ``dt``, ``ftr`` and ``sldNum`` on each slide):
    footer "Harbour Authority" on slides 1 and 2, "Draft" and a slide-number field on
    slide 3; a date field (today's) on slide 1, a fixed "1 May 2026" on slides 2 and 3
    (stop 59)."""
    from lxml import etree

    ns = ('xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" '
          'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"')

    def run(text: str) -> str:
        return f'<a:r><a:rPr lang="en-US"/><a:t>{text}</a:t></a:r>'

    def field(kind: str, text: str) -> str:
        return f'<a:fld id="{{B1}}" type="{kind}"><a:rPr lang="en-US"/><a:t>{text}</a:t></a:fld>'

    def placeholder(shape_id: int, kind: str, paragraph: str) -> etree._Element:
        return etree.fromstring(
            f'<p:sp {ns}><p:nvSpPr><p:cNvPr id="{shape_id}" name="{kind} {shape_id}"/>'
            f'<p:cNvSpPr><a:spLocks noGrp="1"/></p:cNvSpPr><p:nvPr><p:ph type="{kind}" '
            f'sz="quarter" idx="{shape_id}"/></p:nvPr></p:nvSpPr><p:spPr/><p:txBody>'
            f'<a:bodyPr/><a:lstStyle/><a:p>{paragraph}</a:p></p:txBody></p:sp>')

    prs = pptx.Presentation()
    footers = [run("Harbour Authority"), run("Harbour Authority"),
               run("Draft ") + field("slidenum", "3")]
    dates = [field("datetime1", "12/1/2026"), run("1 May 2026"), run("1 May 2026")]
    for n, (footer, date) in enumerate(zip(footers, dates, strict=True), 1):
        s = prs.slides.add_slide(prs.slide_layouts[1])
        s.shapes.title.text = f"Berths {n}"
        s.placeholders[1].text = f"Ships at berth {n}."
        tree = s.shapes._spTree
        tree.append(placeholder(10, "dt", date))
        tree.append(placeholder(11, "ftr", footer))
        tree.append(placeholder(12, "sldNum", field("slidenum", str(n))))
    prs.save(str(path))


def hidden_pptx(path: Path) -> None:
    """A slide "Berths" with two text boxes, "Old draft box" hidden in the selection pane
    (``cNvPr hidden="1"``) and "Ships dock all year." (stop 59), and a group of two text
    boxes ("Group draft left", "Group draft right") hidden as a whole (stop 60)."""
    prs = pptx.Presentation()
    s = prs.slides.add_slide(prs.slide_layouts[5])
    s.shapes.title.text = "Berths"
    for text, hidden in (("Old draft box", True), ("Ships dock all year.", False)):
        box = s.shapes.add_textbox(Inches(1), Inches(2), Inches(4), Inches(1))
        box.text_frame.text = text
        if hidden:
            box._element.nvSpPr.cNvPr.set("hidden", "1")
    group = s.shapes.add_group_shape()
    for i, text in enumerate(["Group draft left", "Group draft right"]):
        group.shapes.add_textbox(Inches(1 + 3 * i), Inches(4), Inches(2), Inches(1)) \
            .text_frame.text = text
    group._element.nvGrpSpPr.cNvPr.set("hidden", "1")
    prs.save(str(path))


def hide_group(path: Path) -> None:
    """Mark the first group on the first slide of the ``.ppt`` at ``path`` hidden, as
    PowerPoint does (LibreOffice's ``.ppt`` drops a group's ``hidden``): its own shape's
    client anchor (16 bytes) is overwritten in place by a property table holding the group
    booleans with ``fUsefHidden | fHidden`` (8 + 6 bytes, and 2 bytes of zeros), so no
    offset in the stream moves."""
    ole = olefile.OleFileIO(str(path), write_mode=True)
    data = bytearray(ole.openstream("PowerPoint Document").read())
    anchor = -1
    at = data.find(struct.pack("<HH", 0x000F, 0xF003))
    while at >= 0 and anchor < 0:  # a group (not a slide's top one) whose shape has an anchor
        fsp = at + 8 + 8 + 24  # its shape's container, then the group's frame (FSPGR)
        if data[fsp + 2:fsp + 4] == struct.pack("<H", 0xF00A) \
                and struct.unpack_from("<I", data, fsp + 12)[0] & 0x5 == 0x1 \
                and data[fsp + 18:fsp + 20] == struct.pack("<H", 0xF010):
            anchor = fsp + 16
        at = data.find(struct.pack("<HH", 0x000F, 0xF003), at + 8)
    assert anchor > 0, "no group found"
    data[anchor:anchor + 16] = (struct.pack("<HHI", 0x0013, 0xF00B, 8)
                                + struct.pack("<HI", 0x03BF, 0x00020002) + bytes(2))
    ole.write_stream("PowerPoint Document", bytes(data))
    ole.close()


def blank_thumbnail(path: Path) -> None:
    ole = olefile.OleFileIO(str(path), write_mode=True)
    info = bytearray(ole.openstream("\x05SummaryInformation").read())
    section = struct.unpack_from("<I", info, 44)[0]
    count = struct.unpack_from("<I", info, section + 4)[0]
    for i in range(count):
        pid, offset = struct.unpack_from("<II", info, section + 8 + 8 * i)
        if pid == 0x11:
            size = struct.unpack_from("<I", info, section + offset + 4)[0]
            info[section + offset + 12:section + offset + 8 + size] = bytes(size - 4)
    ole.write_stream("\x05SummaryInformation", bytes(info))
    ole.close()


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "report.html").write_text(REPORT, encoding="utf-8")
        notes_docx(work / "notes.docx")
        deck_pptx(work / "deck.pptx")
        tables_pptx(work / "tables.pptx")
        footers_pptx(work / "footers.pptx")
        hidden_pptx(work / "hidden.pptx")
        for name, kind in (("report.html", "doc:MS Word 97"), ("notes.docx", "doc:MS Word 97"),
                           ("deck.pptx", "ppt:MS PowerPoint 97"),
                           ("tables.pptx", "ppt:MS PowerPoint 97"),
                           ("footers.pptx", "ppt:MS PowerPoint 97"),
                           ("footers.pptx", "odp"),
                           ("hidden.pptx", "ppt:MS PowerPoint 97"), ("hidden.pptx", "odp")):
            subprocess.run(["soffice", "--headless", "--convert-to", kind, "--outdir", tmp,
                            str(work / name)], check=True, capture_output=True)
        for name in ("deck.ppt", "tables.ppt", "footers.ppt", "hidden.ppt"):
            blank_thumbnail(work / name)
        hide_group(work / "hidden.ppt")
        subprocess.run(["soffice", "--headless", "--convert-to", "odp", "--outdir", tmp,
                        str(HERE / "layers.fodp")], check=True, capture_output=True)
        shutil.copy(work / "layers.odp", HERE / "layers.odp")
        for name in ("report.doc", "notes.doc", "deck.ppt", "tables.ppt", "footers.pptx",
                     "footers.ppt", "footers.odp", "hidden.pptx", "hidden.ppt", "hidden.odp"):
            shutil.copy(work / name, HERE / name)


if __name__ == "__main__":
    main()
