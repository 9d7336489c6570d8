"""Macro-enabled Office files, templates and slide shows (stop 56): ``.docm``, ``.dotx``,
``.dotm``, ``.pptm``, ``.potx``, ``.potm``, ``.ppsx``, ``.ppsm``, ``.xltx`` and ``.xltm`` read
as the plain ``.docx``, ``.pptx`` and ``.xlsx`` files they hold the same parts as; their
macros are never read. Before, a folder walk left them out and naming one was an error
(python-docx refuses any main part but a plain document's)."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest
from office_files import write_docx, write_pptx, write_xlsx

from hyperviz_core.rag.index.loaders import load_documents
from hyperviz_core.rag.index.textfiles import walk

WORD = "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
DECK = "application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml"
VARIANTS = {
    ".docm": (WORD, "application/vnd.ms-word.document.macroEnabled.main+xml"),
    ".dotx": (WORD, "application/vnd.openxmlformats-officedocument.wordprocessingml."
                    "template.main+xml"),
    ".dotm": (WORD, "application/vnd.ms-word.template.macroEnabledTemplate.main+xml"),
    ".pptm": (DECK, "application/vnd.ms-powerpoint.presentation.macroEnabled.main+xml"),
    ".potx": (DECK, "application/vnd.openxmlformats-officedocument.presentationml."
                    "template.main+xml"),
    ".potm": (DECK, "application/vnd.ms-powerpoint.template.macroEnabled.main+xml"),
    ".ppsx": (DECK, "application/vnd.openxmlformats-officedocument.presentationml."
                    "slideshow.main+xml"),
    ".ppsm": (DECK, "application/vnd.ms-powerpoint.slideshow.macroEnabled.main+xml"),
}


def _variant(plain: Path, suffix: str) -> Path:
    """``plain`` saved as Office saves a ``suffix`` file: its main part's content type
    changed, and a macro-enabled one holding a VBA project (bytes that are never read)."""
    main, kind = VARIANTS[suffix]
    out = plain.with_name(plain.stem + "-variant" + suffix)
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(out, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "[Content_Types].xml":
                assert f'"{main}"'.encode() in data
                data = data.replace(f'"{main}"'.encode(), f'"{kind}"'.encode())
            dst.writestr(info.filename, data)
        if "macroEnabled" in kind:
            folder = "word" if main == WORD else "ppt"
            dst.writestr(f"{folder}/vbaProject.bin", b"\xd0\xcf\x11\xe0 never read")
    return out


@pytest.mark.parametrize("suffix", sorted(VARIANTS))
def test_variants_read_as_the_plain_file(tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("docx" if VARIANTS[suffix][0] == WORD else "pptx")
    write = write_docx if VARIANTS[suffix][0] == WORD else write_pptx
    plain = write(tmp_path / ("a.docx" if VARIANTS[suffix][0] == WORD else "a.pptx"),
                  title="Radium")
    variant = _variant(plain, suffix)
    [want] = load_documents(plain)
    [got] = load_documents(variant)
    assert (got.id, got.title, got.text) == (variant.name, "Radium", want.text)
    assert got.metadata.get("pages") == want.metadata.get("pages")
    assert [p.name for p in walk(tmp_path).files] == sorted(p.name for p in (plain, variant))
    if suffix == ".docm":  # what python-docx does with the file as it is
        import docx

        with pytest.raises(ValueError, match="is not a Word file"):
            docx.Document(str(variant))


SHEET = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"
TEMPLATES = {".xltx": "application/vnd.openxmlformats-officedocument.spreadsheetml."
                      "template.main+xml",
             ".xltm": "application/vnd.ms-excel.template.macroEnabled.main+xml"}


@pytest.mark.parametrize("suffix", sorted(TEMPLATES))
def test_excel_templates_read_as_workbooks(tmp_path: Path, suffix: str) -> None:
    pytest.importorskip("openpyxl")
    plain = write_xlsx(tmp_path / "b.xlsx", title="Budget")
    template = plain.with_name("b" + suffix)
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(template, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "[Content_Types].xml":
                data = data.replace(f'"{SHEET}"'.encode(), f'"{TEMPLATES[suffix]}"'.encode())
            dst.writestr(info.filename, data)
    [want] = load_documents(plain)
    [got] = load_documents(template)
    assert (got.id, got.title, got.text) == (template.name, "Budget", want.text)
