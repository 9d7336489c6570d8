"""Office files for the loader tests: PDFs written byte by byte (Helvetica text, no
embedded font: no PDF writer needed), Word documents written with python-docx and
PowerPoint decks written with python-pptx."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pytest

#: an Excel 97-2003 workbook written once with xlwt 1.3.0 (not a test dependency): a sheet
#: "Staff" (a header with a gap, a number, a date, booleans, an empty row), a hidden sheet
#: "Secret" and a sheet of records "Docs" (ID, Title, Text, Lang; an empty row); see
#: tests/data/xls/README.md
XLS = Path(__file__).parent / "data" / "xls" / "staff.xls"


def make_pdf(pages: list[list[str]], title: str | None = None) -> bytes:
    """A PDF whose pages show ``pages``' lines (a page without lines: no text layer)."""
    objects = ["<< /Type /Catalog /Pages 2 0 R >>", "",
               "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica "
               "/Encoding /WinAnsiEncoding >>"]
    kids = []
    for lines in pages:
        shown = "".join("(" + ln.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")
                        + ") Tj T* " for ln in lines)
        stream = f"BT /F1 12 Tf 14 TL 72 720 Td {shown}ET"
        objects.append(f"<< /Length {len(stream)} >>\nstream\n{stream}\nendstream")
        objects.append(f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents "
                       f"{len(objects)} 0 R /Resources << /Font << /F1 3 0 R >> >> >>")
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>"
    info = ""
    if title is not None:
        objects.append(f"<< /Title ({title}) >>")
        info = f" /Info {len(objects)} 0 R"
    return pdf_file(objects, info, version="1.4")


def pdf_file(objects: list[str] | list[bytes], info: str = "", version: str = "1.7") -> bytes:
    """A PDF of ``objects`` (object 1 its catalog), with its cross-reference table and
    trailer (``info``: more trailer entries)."""
    out = io.BytesIO()
    out.write(f"%PDF-{version}\n".encode())
    offsets = []
    for n, body in enumerate(objects, 1):
        offsets.append(out.tell())
        raw = body if isinstance(body, bytes) else body.encode("latin-1")
        out.write(b"%d 0 obj\n%s\nendobj\n" % (n, raw))
    xref = out.tell()
    out.write(f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode())
    for off in offsets:
        out.write(f"{off:010d} 00000 n \n".encode())
    out.write(f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R{info} >>\nstartxref\n"
              f"{xref}\n%%EOF\n".encode())
    return out.getvalue()


def _alarm(signum: int, frame: object) -> None:
    raise TimeoutError("reading a damaged file took over 10 s")


def assert_read_or_named(paths: Iterable[Path]) -> None:
    """Each file of ``paths`` (damaged ones) is read within 10 s, or refused with a
    ``LoaderError`` naming it."""
    import signal

    from hyperviz_core.rag.index.errors import LoaderError
    from hyperviz_core.rag.index.loaders import load_documents

    before = signal.signal(signal.SIGALRM, _alarm)
    try:
        for path in paths:
            signal.alarm(10)
            try:
                load_documents(path)
            except LoaderError as exc:
                assert path.name in str(exc)
            finally:
                signal.alarm(0)
    finally:
        signal.signal(signal.SIGALRM, before)


def changed_bytes(data: bytes, rng: Any, cut: float = 0.0) -> bytes:
    """``data`` with 1, 5 or 50 bytes changed at random (by ``rng``), and with chance
    ``cut`` cut short."""
    out = bytearray(data)
    for _ in range(rng.choice([1, 5, 50])):
        out[rng.randrange(len(out))] = rng.randrange(256)
    if rng.random() < cut:
        out = out[:rng.randrange(len(out))]
    return bytes(out)


def write_docx(path: Path, *, title: str | None = None) -> Path:
    import docx

    document = docx.Document()
    if title is not None:
        document.core_properties.title = title
    document.add_heading("Discovery of radium", level=1)
    document.add_paragraph("Marie Curie and Pierre Curie announced it in 1898.")
    document.add_paragraph("")  # an empty paragraph: dropped
    table = document.add_table(rows=3, cols=2)
    for row, cells in zip(table.rows, (("Year", "Event"), ("1898", "Announced"),
                                       ("1910", "Isolated")), strict=True):
        for cell, text in zip(row.cells, cells, strict=True):
            cell.text = text
    para = document.add_paragraph("Polonium ")
    para.add_run("was named after Poland.").bold = True
    document.sections[0].header.paragraphs[0].text = "Running header"
    document.save(str(path))
    return path


def write_pptx(path: Path, *, title: str | None = None) -> Path:
    """A deck of four slides: a title slide; bullets with speaker notes; a hidden slide;
    a table and a group of text boxes (slide 4)."""
    from pptx import Presentation
    from pptx.util import Inches

    deck = Presentation()
    if title is not None:
        deck.core_properties.title = title
    first = deck.slides.add_slide(deck.slide_layouts[0])
    first.shapes.title.text = "Discovery  of radium"
    first.placeholders[1].text = "Marie Curie and Pierre Curie, 1898"
    second = deck.slides.add_slide(deck.slide_layouts[1])
    second.shapes.title.text = "Isolation"
    body = second.placeholders[1].text_frame
    body.text = "Radium was isolated in 1910."
    body.add_paragraph().text = "André-Louis Debierne helped."
    second.notes_slide.notes_text_frame.text = "Polonium was named after Poland."
    hidden = deck.slides.add_slide(deck.slide_layouts[1])
    hidden.shapes.title.text = "Backup slide"
    hidden._element.set("show", "0")
    fourth = deck.slides.add_slide(deck.slide_layouts[5])  # title only
    fourth.shapes.title.text = "Timeline"
    table = fourth.shapes.add_table(3, 2, Inches(1), Inches(2), Inches(6), Inches(2)).table
    for r, cells in enumerate((("Year", "Event"), ("1898", "Announced"), ("1910", "Isolated"))):
        for c, text in enumerate(cells):
            table.cell(r, c).text = text
    group = fourth.shapes.add_group_shape()
    group.shapes.add_textbox(Inches(1), Inches(5), Inches(3), Inches(1)).text = "Nobel Prize 1911"
    deck.save(str(path))
    return path


#: the namespaces of an OpenDocument file's XML
ODF_NS = (
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
    'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
    'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
    'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0" '
    'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
    'xmlns:dc="http://purl.org/dc/elements/1.1/" '
    'xmlns:meta="urn:oasis:names:tc:opendocument:xmlns:meta:1.0"')


def write_odf(path: Path, body: str, *, kind: str = "text", title: str | None = None,
              styles: str = "", manifest: str = "") -> Path:
    """An OpenDocument package as LibreOffice lays it out (``mimetype`` first and stored,
    ``content.xml``, ``meta.xml``, ``META-INF/manifest.xml``), its body ``body`` (the XML
    inside ``office:text`` or ``office:presentation``)."""
    import zipfile

    mime = {"text": "application/vnd.oasis.opendocument.text",
            "presentation": "application/vnd.oasis.opendocument.presentation",
            "spreadsheet": "application/vnd.oasis.opendocument.spreadsheet"}[kind]
    content = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-content {ODF_NS} '
               f'office:version="1.3"><office:automatic-styles>{styles}'
               f"</office:automatic-styles><office:body><office:{kind}>{body}"
               f"</office:{kind}></office:body></office:document-content>")
    meta = (f'<?xml version="1.0" encoding="UTF-8"?><office:document-meta {ODF_NS}>'
            f"<office:meta>{f'<dc:title>{title}</dc:title>' if title else ''}"
            "<meta:generator>hand-written</meta:generator></office:meta>"
            "</office:document-meta>")
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), mime, compress_type=zipfile.ZIP_STORED)
        zf.writestr("content.xml", content)
        zf.writestr("meta.xml", meta)
        zf.writestr("META-INF/manifest.xml",
                    '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest='
                    '"urn:oasis:names:tc:opendocument:xmlns:manifest:1.0">'
                    f'<manifest:file-entry manifest:full-path="/" manifest:media-type="{mime}"/>'
                    f"{manifest}</manifest:manifest>")
    return path


def write_xlsx(path: Path, *, title: str | None = None) -> Path:
    """A workbook of three sheets: staff (a header, numbers, a date, a formula, an empty
    row and a column without a name), a hidden sheet, and a sheet with a blank first row."""
    import datetime as dt

    from openpyxl import Workbook

    book = Workbook()
    if title is not None:
        book.properties.title = title
    staff = book.active
    staff.title = "Staff"
    staff.append(["Name", "City", None, "Age", "Joined"])
    staff.append(["Ada  Lovelace", "London", "x", 36, dt.datetime(2026, 12, 6)])
    staff.append([])
    staff.append(["Bo", None, None, 41.5, None])
    staff.append(["Total", None, None, "=D2+D4", None])
    hidden = book.create_sheet("Secret")
    hidden.append(["Code"])
    hidden.append(["hunter2"])
    hidden.sheet_state = "hidden"
    later = book.create_sheet("Cities")
    later.append([])
    later.append(["City", "Country"])
    later.append(["Oslo", "Norway"])
    book.save(str(path))
    return path


def index_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    """The report of ``vizrag index ARGS --no-progress --json``, which must exit 0."""
    from hyperviz_core.cli import main

    capsys.readouterr()
    assert main(["index", *args, "--no-progress", "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def top_passage(capsys: pytest.CaptureFixture[str], store: Path,
                question: str) -> tuple[dict[str, Any], str]:
    """The top passage ``vizrag query QUESTION --mode naive`` gives: its ``--json`` form and
    the text output."""
    from hyperviz_core.cli import main

    common = ["query", question, "--store", str(store), "--top-k", "1", "--mode", "naive"]
    capsys.readouterr()
    assert main([*common, "--json"]) == 0
    chunk = json.loads(capsys.readouterr().out)["chunks"][0]
    assert main(common) == 0
    return chunk, capsys.readouterr().out


def folder_top(capsys: pytest.CaptureFixture[str], tmp_path: Path,
               files: dict[str, str | bytes], question: str) -> tuple[dict[str, Any], str]:
    """Write ``files`` (name: content) into a folder, index it with ``vizrag index`` (each
    file one document) and ask ``question``: :func:`top_passage`'s answer."""
    folder = tmp_path / "corpus"
    folder.mkdir()
    for name, data in files.items():
        (folder / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    store = tmp_path / "S"
    assert index_json(capsys, str(folder), "--store", str(store))["documents_added"] == \
        len(files)
    return top_passage(capsys, store, question)


def write_epub(path: Path, *, title: str | None = "Curie  stories",
               parts: dict[str, bytes] | None = None) -> Path:
    """An EPUB 3 book laid out as e-book tools write it: a container naming the package
    in a sub-folder, a cover and two chapters in the spine (one file name with a space,
    URL-encoded in the manifest), a pop-up note marked ``linear="no"``, and a navigation
    document outside the spine; ``parts`` replace or add parts by name."""
    import zipfile

    def page(head: str, body: str) -> str:
        return ('<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html xmlns='
                f'"http://www.w3.org/1999/xhtml"><head><title>{head}</title></head><body>'
                f"{body}</body></html>")

    meta = f"<dc:title>{title}</dc:title>" if title else ""
    opf = ('<?xml version="1.0" encoding="UTF-8"?><package xmlns="http://www.idpf.org/2007/opf"'
           ' version="3.0" unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/'
           f'elements/1.1/"><dc:identifier id="id">x</dc:identifier>{meta}</metadata>'
           '<manifest><item id="cover" href="cover.xhtml" media-type="application/xhtml+xml"/>'
           '<item id="c1" href="text/chapter%201.xhtml" media-type="application/xhtml+xml"/>'
           '<item id="c2" href="text/c2.xhtml" media-type="application/xhtml+xml"/>'
           '<item id="note" href="text/note.xhtml" media-type="application/xhtml+xml"/>'
           '<item id="nav" href="nav.xhtml" media-type="application/xhtml+xml" '
           'properties="nav"/></manifest><spine><itemref idref="cover"/><itemref idref="c1"/>'
           '<itemref idref="note" linear="no"/><itemref idref="c2"/></spine></package>')
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip",
                    compress_type=zipfile.ZIP_STORED)
        zf.writestr("META-INF/container.xml",
                    '<?xml version="1.0"?><container version="1.0" xmlns="urn:oasis:names:tc:'
                    'opendocument:xmlns:container"><rootfiles><rootfile full-path="OEBPS/'
                    'content.opf" media-type="application/oebps-package+xml"/></rootfiles>'
                    "</container>")
        zf.writestr("OEBPS/content.opf", opf)
        zf.writestr("OEBPS/cover.xhtml", page("Cover", "<h1>Curie stories</h1>"))
        zf.writestr("OEBPS/text/chapter 1.xhtml", page("One", (
            "<h1>Warsaw</h1><p>Marie Curie was born in Warsaw in 1867.</p>"
            "<script>alert(1)</script>")))
        zf.writestr("OEBPS/text/c2.xhtml", page("Two", (
            "<h1>Paris</h1><p>She isolated radium in Paris in 1910.</p>")))
        zf.writestr("OEBPS/text/note.xhtml", page("Note", "<p>A pop-up note.</p>"))
        zf.writestr("OEBPS/nav.xhtml", page("Contents", "<nav><ol><li>Warsaw</li></ol></nav>"))
    if parts:
        with zipfile.ZipFile(path) as zf:
            kept = {n: zf.read(n) for n in zf.namelist()}
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for name, data in {**kept, **parts}.items():
                zf.writestr(name, data)
    return path


def hide_module(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """``importlib.util.find_spec`` finds neither ``name`` nor a module under it, as when
    the extra that installs it is missing."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda mod, *a: None if (
        mod == name or mod.startswith(name + ".")) else real(mod, *a))


def assert_needs_extra(path: Path, error: str, extra: str) -> None:
    """Reading ``path`` is a ``LoaderError`` matching ``error``, and a walk of its folder
    leaves it out, naming the ``extra`` to install."""
    from hyperviz_core.rag.index.errors import LoaderError
    from hyperviz_core.rag.index.loaders import load_documents
    from hyperviz_core.rag.index.textfiles import walk

    with pytest.raises(LoaderError, match=error):
        load_documents(path)
    found = walk(path.parent)
    assert found.files == [] and f"'{extra}' extra" in found.skipped[0][1]
