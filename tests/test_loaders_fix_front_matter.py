"""Front matter of text files (YAML between ``---`` lines, TOML between ``+++`` lines at the
top): its ``title`` titles the document, and it is not part of the document's text, whole or
read as parts (where ``offset`` still counts the file's characters)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import load_documents
from hyperviz_core.rag.index.loaders import iter_sourced_documents

LESMIS = '---\ntitle: "Les Misérables"\nlang: fr\n---\n\nJean Valjean vole du pain.\n'


def _doc(tmp_path: Path, text: str, name: str = "notes.md") -> tuple[str, str]:
    """(title, text) of the one document of a file holding ``text``."""
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    [doc] = load_documents([p])
    return doc.title, doc.text


def test_yaml_front_matter_titles_the_document_and_is_not_its_text(tmp_path: Path) -> None:
    assert _doc(tmp_path, LESMIS, "lesmis.md") == ("Les Misérables",
                                                  "Jean Valjean vole du pain.\n")


def test_toml_front_matter(tmp_path: Path) -> None:
    text = '+++\ntitle = "TOML Titel"\ndraft = false\n+++\n\nText über Graz.\n'
    assert _doc(tmp_path, text) == ("TOML Titel", "Text über Graz.\n")


@pytest.mark.parametrize(("matter", "title"), [
    ("title: Plain title # a comment\nlayout: post", "Plain title"),
    ("title: 'It''s: quoted'", "It's: quoted"),
    ('title: "Tab\\tand \\u00e9"', "Tab and é"),
    ("title: >-\n  Folded over\n  two lines\nlang: de", "Folded over two lines"),
    ("title:\n  Plain on\n  two lines", "Plain on two lines"),
    ("title: 2024", "2024"),
    ("tags:\n- a\n- b\ntitle: After a list", "After a list"),
    ("title: [a, b]", ""),  # not a scalar: no title
    ("title:\n  en: English\n  fr: Français", ""),
    ("title: null", ""),
    ("title: !!python/object:os.system echo", "echo"),  # a tag is not resolved: nothing runs
    ("title: 2024-13-45\nlang: de", "2024-13-45"),  # no date parsed: no error
    ("layout: post", ""),
])
def test_yaml_titles(tmp_path: Path, matter: str, title: str) -> None:
    got, text = _doc(tmp_path, f"---\n{matter}\n---\nBody.\n")
    assert (got, text) == (title or "notes", "Body.\n")


@pytest.mark.parametrize("matter", [
    "title: Plain title # a comment\nlayout: post",
    "title: 'It''s: quoted'",
    'title: "Tab\\tand \\u00e9 \\"q\\""',
    "title: >-\n  Folded over\n  two lines\nlang: de",
    "title:\n  Plain on\n  two lines",
    "date: 2024-01-05\ntitle: Les Misérables — résumé",
])
def test_yaml_titles_read_as_yaml_does(matter: str) -> None:
    from hyperviz_core.rag.index.titles import front_matter

    yaml = pytest.importorskip("yaml")
    expected = yaml.safe_load(matter)["title"]
    assert front_matter(f"---\n{matter}\n---\n").title == " ".join(expected.split())


@pytest.mark.parametrize("text", [
    "---\nA thematic break, then prose.\n---\n\nBody.\n",  # not YAML: body
    "+++\nnot = [valid TOML\n+++\nBody.\n",
    "---\ntitle: never closed\n\nBody.\n",
    "Body first.\n---\ntitle: x\n---\n",  # not at the top
    "# Heading\n\nBody with no front matter.\n",
])
def test_what_is_not_front_matter_stays_text(tmp_path: Path, text: str) -> None:
    p = tmp_path / "n.md"
    p.write_text(text)
    [doc] = load_documents([p])
    assert doc.text == text  # unchanged: the same document (hash, id) as before
    assert doc.title != "x"


def test_heading_is_the_fallback_and_blank_lines_around_go(tmp_path: Path) -> None:
    text = "\n\n---\nlayout: post\n---\n\n\n# The Heading\n\nBody.\n"
    assert _doc(tmp_path, text) == ("The Heading", "# The Heading\n\nBody.\n")


def test_parts_leave_the_front_matter_out_and_offsets_count_the_file(tmp_path: Path) -> None:
    body = "".join(f"Paragraph {i} über Lyon und Köln.\n\n" for i in range(60))
    text = "---\ntitle: Grand Livre\nauthor: Moi\n---\n\n" + body
    p = tmp_path / "big.md"
    p.write_text(text)
    parts = [d for d, _ in iter_sourced_documents([p], part_bytes=256)]
    assert len(parts) > 3 and {d.title for d in parts} == {"Grand Livre"}
    assert "".join(d.text for d in parts) == body == load_documents([p])[0].text
    assert parts[0].metadata["offset"] == len(text) - len(body)
    for d in parts:  # offset: where the part's text starts in the file's text
        start = d.metadata["offset"]
        assert text[start:start + len(d.text)] == d.text


def test_cli_answer_quotes_the_body_under_the_front_matter_title(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder, store = tmp_path / "fm", tmp_path / "s"
    folder.mkdir()
    (folder / "lesmis.md").write_text(LESMIS)
    assert main(["index", str(folder), "--store", str(store), "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["query", "Jean Valjean", "--store", str(store), "--top-k", "1",
                 "--json"]) == 0
    rec = json.loads(capsys.readouterr().out)
    [chunk] = rec["chunks"]
    assert chunk["title"] == "Les Misérables"
    assert chunk["text"].startswith("Jean Valjean") and "---" not in rec["answer"]
    assert "lang: fr" not in rec["answer"] + chunk["text"]


@pytest.mark.parametrize("text", [
    "---\nChapter 1 begins: the night was dark.\n---\n\nBody.\n",  # a key has no spaces
    "---\n- a list\n- not a mapping\n---\nBody.\n",
    "---\n---\nBody.\n",
])
def test_prose_and_lists_between_rules_stay_text(tmp_path: Path, text: str) -> None:
    p = tmp_path / "n.txt"
    p.write_text(text)
    assert load_documents([p])[0].text == text


@pytest.mark.parametrize(("name", "text", "title"), [
    # a memo in a .txt file: its header lines are text (only Markdown opens with front matter)
    ("memo.txt", "---\nFrom: Alice Smith\nSubject: Merger with Acme\n---\n\nPlease review.\n",
     "memo"),
    # capitalised prose between rules in Markdown is text too
    ("notes.md", "---\nWarning: the figures below are estimates\n---\n\nFigures.\n", "notes"),
    # a front matter with a YAML typo: its lines stay text, and none of them is a setext title
    ("typo.md", "---\ntitle: Chapter 1: The Beginning\ntags: [a, b]\n---\n\nIt was dark.\n",
     "typo"),
])
def test_what_a_review_found_stays_text(tmp_path: Path, name: str, text: str,
                                        title: str) -> None:
    """A second review (2026-12-04): a .txt memo lost its From/Subject lines, a capitalised
    warning block vanished, and a typo'd front matter titled the file "tags: [a, b]"."""
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    [doc] = load_documents([p])
    assert (doc.title, doc.text) == (title, text)


def test_a_title_is_capped(tmp_path: Path) -> None:
    """A 66 KB heading was copied into every chunk (a 137 MB store from 299 KB of text)."""
    p = tmp_path / "long.md"
    p.write_text("# " + "word " * 20000 + "\n\nBody.\n", encoding="utf-8")
    [doc] = load_documents([p])
    assert len(doc.title) == 300 and doc.title.endswith("…")


@pytest.mark.parametrize(("name", "text", "title", "body"), [
    # Astro's template: camelCase keys are front matter keys too
    ("astro.md", '---\ntitle: "First post"\npubDate: "Jul 08 2022"\nheroImage: "/x.jpg"\n---'
     "\n\nBody of the post.\n", "First post", "Body of the post.\n"),
    # a rule, a section, another rule: the heading in between titles the file
    ("rule.md", "---\n\n# Real Heading\n\nIntro.\n\n---\n\nSecond.\n", "Real Heading", None),
])
def test_a_third_review(tmp_path: Path, name: str, text: str, title: str,
                        body: str | None) -> None:
    """After the second review's rules: a camelCase key (``pubDate``) rejected the block,
    and an opening rule hid the heading after it (a third review, 2026-12-04)."""
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    [doc] = load_documents([p])
    assert (doc.title, doc.text) == (title, text if body is None else body)


@pytest.mark.parametrize(("text", "title"), [
    ("---\nlayout: post\ntitle: Docker: a guide\n\ntags: [docker]\n---\nIntro.\n", "stem"),
    ("---\n# Site settings\nlayout: post\ntitle: Docker: a guide\n---\nIntro.\n", "stem"),
    ("+++\n# front matter\ntitle = My Post\n+++\n\nBody\n", "stem"),
    ("A title on\ntwo lines\n---\n\nBody.\n", "A title on two lines"),  # the whole paragraph
])
def test_a_fourth_review(tmp_path: Path, text: str, title: str) -> None:
    """A front matter that did not parse, with a blank line or a ``# comment`` in it,
    gave its last key or its comment as the title; a setext heading kept its last line."""
    p = tmp_path / "stem.md"
    p.write_text(text, encoding="utf-8")
    assert load_documents([p])[0].title == title
