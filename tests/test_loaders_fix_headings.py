"""A text file titled by its Markdown heading gets the heading as plain text: no closing
``#`` sequence (CommonMark), no emphasis, code or link markup (link text kept), no trailing
attribute block; the file's text itself is unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag import load_documents
from hyperviz_core.rag.index.loaders import iter_sourced_documents


@pytest.mark.parametrize(("text", "title"), [
    ("## Kapitel 1: Ça va ##\n\nText über Lyon.\n", "Kapitel 1: Ça va"),
    ("# *Über* `uns` und [Links](http://x)\n\nText über Bonn.\n", "Über uns und Links"),
    ("# Título {#ancla}\n\nTexto sobre Sevilla.\n", "Título"),
    ("# **Fett** _kursiv_ ~~weg~~ ![Bild](b.png) <em>html</em>\n", "Fett kursiv weg Bild html"),
    ("# Über C# und F# ###   \n", "Über C# und F#"),
    ("# snake_case_name 2 * 3 = 6\n", "snake_case_name 2 * 3 = 6"),
    ("# \\*kein\\* Akzent \\# &amp; mehr\n", "*kein* Akzent # & mehr"),
    ("# ``code `mit` Backticks`` [ref][1]\n", "code `mit` Backticks [ref][1]"),  # undefined
    ("# <https://example.org>\n", "https://example.org"),
    ("Über *Setext*\n=============\n\nText.\n", "Über Setext"),
    ("# ##\n\nText.\n", "notes"),  # an empty heading: the file's stem
])
def test_heading_titles_are_plain_text(tmp_path: Path, text: str, title: str) -> None:
    p = tmp_path / "notes.md"
    p.write_text(text, encoding="utf-8")
    [doc] = load_documents([p])
    assert (doc.title, doc.text) == (title, text)
    parts = [d for d, _ in iter_sourced_documents([p], part_bytes=8)]
    assert {d.title for d in parts} == {title}


def test_plain_heading_keeps_plain_text() -> None:
    from hyperviz_core.rag.index.titles import plain_heading

    for text in ("Kapitel 1: Ça va", "C++ & C#", "a_b_c", "5 * 3", "[nur Klammern]", "x <- y"):
        assert plain_heading(text) == text


def test_long_pathological_lines_take_linear_time(tmp_path: Path) -> None:
    """A first line of 60,000 characters (spaces, backticks, stars) is read quickly: no
    pattern backtracks quadratically (each of these took 25 s or more before)."""
    import time

    n = 60_000
    texts = ["# a" + " " * n + "b", "# " + "`" * n + "a", "# " + "*" * n + "a" + "*" * n,
             "---\na" + " " * n + "b\n---\n\nBody.\n"]
    start = time.perf_counter()
    for n_file, text in enumerate(texts):
        p = tmp_path / f"long{n_file}.md"
        p.write_text(text)
        load_documents([p])
    assert time.perf_counter() - start < 5


def test_comments_and_html_are_dropped_type_parameters_kept() -> None:
    from hyperviz_core.rag.index.titles import plain_heading

    assert plain_heading("Install <!-- omit in toc -->") == "Install"
    assert plain_heading("Logo <tt>x</tt> <center>c</center> <Foo />") == "Logo x c"
    assert plain_heading("Map<K, V> and Vector<T>") == "Map<K, V> and Vector<T>"


def test_generics_stay_and_jsx_goes() -> None:
    from hyperviz_core.rag.index.titles import plain_heading

    assert plain_heading("Constraints: <T extends Comparable>") == (
        "Constraints: <T extends Comparable>")
    assert plain_heading("Option<Object> and <Section>") == "Option<Object> and <Section>"
    assert plain_heading('Tip <Badge type="tip" /> <details>d</details>') == "Tip d"
