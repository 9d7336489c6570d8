"""HTML pages as documents (stop 53): ``.html``/``.htm``/``.xhtml`` files are read as the
text they show, titled by their ``<title>``, in a folder walk, ``load_documents`` and
``vizrag index``. Before, a folder walk left them out and a page named directly was
indexed as its markup."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag.index.errors import LoaderError
from hyperviz_core.rag.index.htmlpages import html_document, page_charset, page_text
from hyperviz_core.rag.index.loaders import load_documents, no_documents
from hyperviz_core.rag.index.textfiles import walk

PAGE = """<!DOCTYPE html><html lang=en><head><meta charset=utf-8>
<title>  Radium
  history </title><script>var x = "<p>Scripted</p>";</script><style>p{color:red}</style>
</head><body><nav><ul><li>Home<li>About</ul></nav>
<main><article><h1>Discovery of <em>radium</em></h1>
<p>Marie  Curie and   Pierre Curie announced it in 1898.
<p>Isolated in 1910 &mdash; by <a href="https://example.org">Marie</a> &amp; Debierne.</p>
<div hidden>Concealed remark</div><img src=x.png alt="a picture">
<table><tr><th>Year<th>Event<tr><td>1898<td>Announced<tr><td>1910<td>Isolated</table>
<pre>
x  =  1
    indented
</pre>
<ul><li>Polonium</li><li>Radium <b>too</b></li></ul>
<template><p>Template text</p></template><noscript>Enable JavaScript</noscript>
<svg><title>Icon title</title><text>Drawn text</text></svg>
</article></main><footer>Sorbonne archive</footer></body></html>"""


def test_a_page_reads_as_the_text_it_shows() -> None:
    title, text = page_text(PAGE)
    assert title == "Radium history"
    assert text.split("\n\n") == [
        "Discovery of radium",
        "Marie Curie and Pierre Curie announced it in 1898.",
        "Isolated in 1910 \u2014 by Marie & Debierne.",
        "Year | Event\n1898 | Announced\n1910 | Isolated",
        "x  =  1\n    indented",
        "Polonium\nRadium too",
    ]  # only the <main> content: the footer is the site's, outside it
    for hidden in ("Sorbonne", "Home", "About", "Scripted", "color", "Concealed", "Template",
                   "Enable", "Icon", "Drawn", "example.org", "picture", "<"):
        assert hidden not in text


def test_titles_fall_back_to_the_first_h1_then_the_file_stem(tmp_path: Path) -> None:
    assert page_text("<h1>First <i>one</i></h1><h1>Second</h1><p>x")[0] == "First one"
    assert page_text("<svg><title>Icon</title></svg><p>Body")[0] == ""
    page = tmp_path / "notes" / "curie-bio.htm"
    page.parent.mkdir()
    page.write_text("<p>Marie Curie was born in Warsaw.</p>", encoding="utf-8")
    doc = html_document(page, True, tmp_path)
    assert (doc.id, doc.title, doc.text) == ("notes/curie-bio.htm", "curie-bio",
                                             "Marie Curie was born in Warsaw.")
    assert doc.metadata == {"source": str(page)}
    page.write_text(f"<title>{'Long title ' * 60}</title><p>x", encoding="utf-8")
    title = html_document(page, True, tmp_path).title
    assert len(title) == 300 and title.endswith("…")


def test_markup_that_is_not_well_formed_reads_as_a_browser_reads_it() -> None:
    # no </head> and no </p>, </li>, </td>: each starts the next; stray end tags ignored
    title, text = page_text("<html><head><title>T</title><body><p>One<p>Two</div></span>"
                            "<ul><li>a<li>b</ul><table><tr><td>1<td>2<tr><td>3</table>")
    assert title == "T"
    assert text == "One\n\nTwo\n\na\nb\n\n1 | 2\n3"
    # a void element's hidden attribute hides nothing after it
    assert page_text("<input hidden><p>Shown</p>")[1] == "Shown"
    # nested elements of the hidden one's kind close in order
    assert page_text("<div hidden><div>in</div>still hidden</div><p>after")[1] == "after"
    assert page_text("<p>a <b> b</b>\n\n c</p>")[1] == "a b c"
    # an inline style that hides; aria-hidden hides nothing from a reader
    assert page_text('<div style="color:red; display: none !important">x</div>'
                     '<span style="visibility:hidden">y</span><p style="display:block">z'
                     '<p aria-hidden="true">w')[1] == "z\n\nw"


def test_random_markup_never_fails_and_hides_what_it_should() -> None:
    rng = random.Random(53)
    pieces = ["<p>", "</p>", "<div hidden>", "</div>", "<script>", "</script>", "<br>",
              "<pre>", "</pre>", "<li>", "<table>", "<td>", "<tr>", "</table>", "<!--",
              "-->", "<![CDATA[", "]]>", "&amp;", "&#x", "&bogus;", "<", ">", "</", "<a href='",
              "'>", "Text ", "\n", "<title>", "</title>", "<nav>", "</nav>", "<svg>", "</x>"]
    for _ in range(400):
        markup = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 40)))
        title, text = page_text(markup)
        assert isinstance(title, str) and isinstance(text, str)
        assert text == text.strip() and "\n\n\n" not in text


def test_a_declared_charset_is_honoured_and_bad_bytes_are_named(tmp_path: Path) -> None:
    page = tmp_path / "old.html"
    page.write_bytes(b'<meta http-equiv="Content-Type" content="text/html; charset=ISO-8859-1">'
                     b"<title>Caf\xe9</title><p>\x93Quoted\x94 in Z\xfcrich.</p>")
    doc = html_document(page, True)
    assert (doc.title, doc.text) == ("Café", "\u201cQuoted\u201d in Zürich.")  # as cp1252
    assert page_charset(b'<meta charset="no-such-charset">') is None
    assert page_charset(b'\xef\xbb\xbf<meta charset="windows-1252">') is None  # a BOM wins
    page.write_bytes(b"<p>Caf\xe9</p>")  # undeclared: UTF-8, and this is not
    with pytest.raises(LoaderError, match=r"old\.html: not UTF-8 text at line 1, byte 6"):
        html_document(page, True)
    page.write_bytes(b'<meta charset="shift_jis"><p>\x81\x39</p>')
    with pytest.raises(LoaderError, match=r"old\.html: not shift_jis text at byte 29 .*"
                                          r"the charset its <meta> declares"):
        html_document(page, True)


def test_a_declared_charset_page_reads_its_line_ends_as_a_utf8_one(tmp_path: Path) -> None:
    r"""``\r\n`` and ``\r`` are ``\n`` whatever the charset, as in a browser (HTML's input
    stream preprocessing) and a UTF-8 page: a windows-1252 page's ``<pre>`` kept ``\r``."""
    page = tmp_path / "old.html"
    for charset in (b"windows-1252", b"utf-8"):
        page.write_bytes(b'<meta charset="' + charset + b'"><pre>a = 1\r\nb = 2\rc</pre>')
        assert html_document(page, True).text == "a = 1\nb = 2\nc"


def test_a_folder_walk_reads_pages_beside_text_files(tmp_path: Path) -> None:
    corp = tmp_path / "site"
    (corp / "guide").mkdir(parents=True)
    (corp / "guide" / "index.html").write_text(PAGE, encoding="utf-8")
    (corp / "about.htm").write_text("<h1>About us</h1><p>We study radium.", encoding="utf-8")
    (corp / "notes.md").write_text("# Notes\n\nPolonium.", encoding="utf-8")
    (corp / "logo.html").write_bytes(b"<p>\x00binary")
    assert walk(corp).files == [corp / "about.htm", corp / "guide" / "index.html",
                                corp / "logo.html", corp / "notes.md"]
    with pytest.raises(LoaderError, match=r"logo\.html: a binary file"):
        load_documents(corp)
    (corp / "logo.html").unlink()
    docs = load_documents(corp)
    assert [(d.id, d.title) for d in docs] == [
        ("about.htm", "About us"), ("guide/index.html", "Radium history"), ("notes", "Notes")]
    assert "Polonium" in docs[1].text and "<" not in docs[1].text
    assert ".html, .htm, .xhtml" in str(no_documents([corp]))


def test_vizrag_index_and_query_a_folder_of_pages(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    corp, store = tmp_path / "site", tmp_path / "store"
    corp.mkdir()
    (corp / "radium.html").write_text(PAGE, encoding="utf-8")
    (corp / "warsaw.xhtml").write_text(
        '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
        "<title>Warsaw</title></head><body><p>Marie Curie was born in Warsaw in 1867."
        "</p></body></html>", encoding="utf-8")
    assert main(["index", str(corp), "--store", str(store), "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents_added"] == 2
    assert main(["query", "Where was Marie Curie born?", "--store", str(store),
                 "--json", "--top-k", "2"]) == 0
    chunks = json.loads(capsys.readouterr().out)["chunks"]
    assert chunks[0]["doc_id"] == "warsaw.xhtml"
    assert all("<" not in c["text"] and "Scripted" not in c["text"] for c in chunks)
    assert main(["index", str(corp), "--store", str(store), "--no-progress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["documents_skipped"] == 2  # read the same
    (corp / "radium.html").unlink()  # a page gone from the folder is pruned as a text file
    assert main(["index", str(corp), "--store", str(store), "--no-progress", "--json",
                 "--prune-missing"]) == 0
    assert json.loads(capsys.readouterr().out)["files_gone"] == ["radium.html"]
    assert main(["documents", "--store", str(store), "--json"]) == 0
    assert [json.loads(line)["id"] for line in capsys.readouterr().out.splitlines()
            if line.startswith("{")] == ["warsaw.xhtml"]


def test_a_utf8_page_is_read_once_as_a_text_file_is(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A page without a declared charset is decoded from the bytes read for the charset
    check (it was read a second time, as text), as ``read_text`` reads a file: the BOM
    dropped, CRLF and CR line ends read as LF."""
    page = tmp_path / "crlf.html"
    page.write_bytes(b"\xef\xbb\xbf<title>T</title><pre>one\r\ntwo\rthree</pre>")
    reads: list[Path] = []
    read_bytes = Path.read_bytes
    monkeypatch.setattr(Path, "read_bytes", lambda p: reads.append(p) or read_bytes(p))
    monkeypatch.setattr(Path, "read_text", lambda p, **kw: pytest.fail("read as text"))
    doc = html_document(page, True)
    assert (doc.title, doc.text) == ("T", "one\ntwo\nthree") and reads == [page]


@pytest.mark.parametrize("main", ["<main>", '<div role="main">'])
def test_a_page_with_main_content_reads_as_it_alone(main: str) -> None:
    """A page whose ``<main>`` (or ``role="main"``) element has text reads as that text:
    the site's header, footer and sidebars around it (on every page of the site, about none
    of them) are left out; a page without one is read whole but for its ``<nav>``."""
    end = "</main>" if main == "<main>" else "</div>"
    chrome = ("<body><header><p>Acme Docs</p><p>Search</p></header>{}"
              "<aside>Related: Polonium</aside><footer>\u00a9 2026 Acme</footer></body>")
    _, text = page_text(chrome.format(f"{main}<h1>Radium</h1><p>Discovered in 1898.</p>{end}"))
    assert text == "Radium\n\nDiscovered in 1898."
    _, text = page_text(chrome.format("<h1>Radium</h1><p>Discovered in 1898.</p>"))
    assert text.split("\n\n") == ["Acme Docs", "Search", "Radium", "Discovered in 1898.",
                                   "Related: Polonium", "\u00a9 2026 Acme"]
    _, text = page_text(chrome.format(f"{main}{end}<p>Body text.</p>"))  # an empty main
    assert "Body text." in text and "Acme Docs" in text
    _, text = page_text(chrome.format("<main hidden>Old</main><p>Body text.</p>"))
    assert "Old" not in text and "Body text." in text
