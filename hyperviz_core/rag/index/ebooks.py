"""Reading EPUB e-books (``.epub``) as documents, with Python's own ``zipfile`` and the HTML
reader (:mod:`.htmlpages`; no extra).

One document per file, its id and ``source`` as a PDF's (the id keeps the suffix:
``novel.epub``). Its text is the text of the book's reading order (the OPF package's
``spine``; items marked ``linear="no"``, such as pop-up notes, left out), each item (a
chapter, mostly) read as an HTML page is, and each item is a page (:mod:`.pages`), so each
passage is told the sections it spans (``page``, ``page_end``, counted from 1). The title is
the book's ``dc:title``, else the file's stem.

A file that is no EPUB (no ``META-INF/container.xml`` naming a package), a book with DRM
(``META-INF/encryption.xml`` lists items of its reading order; obfuscated fonts alone are
no obstacle), one whose parts would unpack to more
than :data:`~.zipped.MAX_UNPACKED` bytes, and one whose package XML is not UTF-8 or declares
a document type are each a :class:`~.errors.LoaderError` naming the file; an item that is
not UTF-8 names the item too. Nothing in the book is run (scripts are dropped as from any
page) and nothing is fetched.
"""

from __future__ import annotations

import codecs
import posixpath
import zipfile
from pathlib import Path
from urllib.parse import unquote
from xml.etree.ElementTree import Element

from ..types import Document
from .errors import LoaderError
from .guards import printable
from .htmlpages import page_text
from .pages import paged_document
from .parts import line_ends
from .textfiles import path_id
from .titles import cut_title
from .zipped import package_xml, reading_package

__all__ = ["epub_document"]

_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_DC = "{http://purl.org/dc/elements/1.1/}"


def _package(zf: zipfile.ZipFile, path: Path) -> tuple[str, Element]:
    """(the package document's name, its root) as ``META-INF/container.xml`` names it."""
    names = set(zf.namelist())
    if "META-INF/container.xml" not in names:
        raise LoaderError(f"{printable(str(path))}: not an EPUB (no META-INF/container.xml)")
    found = package_xml(zf, "META-INF/container.xml", path).find(f".//{_CONTAINER}rootfile")
    opf = found.get("full-path", "") if found is not None else ""
    if opf not in names:
        raise LoaderError(f"{printable(str(path))}: not an EPUB (its container names no "
                          f"package it holds: {opf!r})")
    return opf, package_xml(zf, opf, path)


def _reading_order(opf: str, package: Element) -> list[str]:
    """The names of the spine's linear items, in order."""
    folder = posixpath.dirname(opf)
    hrefs = {item.get("id"): item.get("href", "")
             for item in package.iter(f"{_OPF}item")}
    out = []
    for ref in package.iter(f"{_OPF}itemref"):
        href = hrefs.get(ref.get("idref"))
        if href and ref.get("linear", "yes") != "no":
            out.append(posixpath.normpath(posixpath.join(folder, unquote(href.split("#")[0]))))
    return out


def _encrypted(zf: zipfile.ZipFile, path: Path) -> set[str]:
    """The names of the book's encrypted parts (``META-INF/encryption.xml``): fonts
    obfuscated as the EPUB standard allows, or, in a book with DRM, its text."""
    if "META-INF/encryption.xml" not in zf.namelist():
        return set()
    found = package_xml(zf, "META-INF/encryption.xml", path).iter()
    return {unquote(el.get("URI", "")) for el in found if el.tag.endswith("CipherReference")}


def _item_text(zf: zipfile.ZipFile, name: str, path: Path) -> str:
    """The text of one item of the book, read as an HTML page (UTF-8, or UTF-16 with a
    byte-order mark, as EPUB allows)."""
    try:
        data = zf.read(name)
    except KeyError:  # a spine item the book does not hold: nothing to read
        return ""
    codec = "utf-16" if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE) else "utf-8-sig"
    try:
        return page_text(line_ends(data.decode(codec)))[1]
    except UnicodeDecodeError as exc:
        raise LoaderError(f"{printable(str(path))}: its {printable(name)} is not "
                          f"{codec.removesuffix('-sig').upper()} text at byte {exc.start}; "
                          "not read") from None


def epub_document(path: Path, id_from_path: bool, root: Path | None = None) -> Document:
    """The document of the EPUB book ``path`` (see the module's docs)."""
    with reading_package(path, "an EPUB book"), zipfile.ZipFile(path) as zf:
        opf, package = _package(zf, path)
        found = package.find(f".//{_DC}title")
        title = " ".join((found.text or "").split()) if found is not None else ""
        order = _reading_order(opf, package)
        if _encrypted(zf, path).intersection(order):
            raise LoaderError(f"{printable(str(path))}: an EPUB with DRM (its text is "
                              "encrypted); only books without DRM can be read")
        sections = [_item_text(zf, name, path) for name in order]
    return paged_document(path, path_id(path, id_from_path, root),
                          cut_title(title or path.stem), sections)
