"""Document loaders: text/markdown, JSON shapes, JSONL, field names and clear errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import (
    LoaderError,
    iter_sourced_documents,
    load_documents,
    records_to_documents,
)


def test_json_list_of_title_text_works_as_is(data_dir: Path) -> None:
    docs = load_documents(data_dir / "musique_sample.json")
    raw = json.loads((data_dir / "musique_sample.json").read_text())
    assert len(docs) == len(raw) == 40
    assert docs[0].title == raw[0]["title"] and docs[0].text == raw[0]["text"]
    assert docs[0].metadata == {"idx": raw[0]["idx"]}
    assert docs[0].id.startswith("doc-") and len({d.id for d in docs}) == 40
    assert load_documents([data_dir / "musique_sample.json"])[0].id == docs[0].id  # stable


def test_jsonl_with_custom_fields(tmp_path: Path) -> None:
    p = tmp_path / "c.jsonl"
    p.write_text(
        json.dumps({"pid": 7, "heading": "Paris", "body": "Paris is big.", "lang": "en"}) + "\n\n"
        + json.dumps({"pid": "x", "heading": None, "body": "Second."}) + "\n"
    )
    docs = load_documents(p, text_field="body", id_field="pid", title_field="heading")
    assert [(d.id, d.title, d.text) for d in docs] == [("7", "Paris", "Paris is big."),
                                                       ("x", "", "Second.")]
    assert docs[0].metadata == {"lang": "en"}


def test_hotpotqa_dict_of_sentences(tmp_path: Path) -> None:
    p = tmp_path / "h.json"
    p.write_text(json.dumps({"Demon Dice": ["Demon Dice is a game.", " It uses dice."],
                             "Other": ["One.", "Two."]}))
    docs = load_documents(p)
    assert [(d.title, d.text) for d in docs] == [("Demon Dice", "Demon Dice is a game. It uses "
                                                  "dice."), ("Other", "One. Two.")]


def test_wrappers_single_objects_and_fallback_field() -> None:
    assert records_to_documents({"data": [{"text": "a"}]})[0].text == "a"
    assert records_to_documents({"id": "q", "text": "b"})[0].id == "q"
    assert records_to_documents([{"content": "c"}])[0].text == "c"
    assert records_to_documents(["plain string"])[0].text == "plain string"


def test_text_and_markdown_files_and_directories(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "a.md").write_text("# Marie Curie\n\nShe won two Nobel prizes.\n")
    (tmp_path / "sub" / "b.txt").write_text("Plain text here.")
    (tmp_path / "skip.png").write_bytes(b"\x89PNG")
    docs = load_documents(tmp_path)
    assert [(d.id, d.title) for d in docs] == [("a", "Marie Curie"), ("sub/b", "b")]
    assert docs[0].metadata["source"].endswith("a.md")


def test_errors_name_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "ok"}\n{"text": broken}\n')
    with pytest.raises(LoaderError, match=r"bad\.jsonl:2: invalid JSON"):
        load_documents(bad)
    missing = tmp_path / "m.jsonl"
    missing.write_text('{"words": "x"}\n')
    with pytest.raises(LoaderError, match=r"m\.jsonl:1: text field 'text' is missing.*--text"):
        load_documents(missing)
    wrong = tmp_path / "w.json"
    wrong.write_text(json.dumps([{"text": "ok"}, {"text": 5}]))
    with pytest.raises(LoaderError, match=r"w\.json \(item 1\): field 'text' must be a string"):
        load_documents(wrong)
    broken = tmp_path / "b.json"
    broken.write_text('[{"text": "a"},\n oops]')
    with pytest.raises(LoaderError, match=r"b\.json:2: invalid JSON"):
        load_documents(broken)
    odd = tmp_path / "o.json"
    odd.write_text(json.dumps({"a": 1}))
    with pytest.raises(LoaderError, match="neither a document"):
        load_documents(odd)
    with pytest.raises(LoaderError, match="no such file"):
        load_documents(tmp_path / "nope.txt")
    latin = tmp_path / "l.txt"
    latin.write_bytes("caf\xe9".encode("latin-1"))
    with pytest.raises(LoaderError, match=r"l\.txt: not UTF-8"):
        load_documents(latin)
    pdf = tmp_path / "report.pages"  # valid UTF-8 but binary: refused by name, not indexed
    pdf.write_bytes(b"PK\x03\x04" + b"x" * 25 + b"\x00\x01Index/Document.iwa")
    with pytest.raises(LoaderError, match=r"report\.pages: a binary file, not text \(NUL byte "
                       r"at byte 29\); vizrag reads .*Office \(.docx, .pptx, .xlsx, their "
                       r"macro-enabled and template kinds, and .doc, .ppt, .xls\).*"
                       r"convert it to one of them first"):
        load_documents(pdf)
    with pytest.raises(LoaderError, match=r"report\.pages: a binary file"):
        list(iter_sourced_documents([pdf], part_bytes=4))  # the incremental path too
    utf16 = tmp_path / "u.txt"  # NUL bytes, but UTF-16 with its mark: read as such
    utf16.write_bytes("hello".encode("utf-16"))
    assert load_documents(utf16)[0].text == "hello"
    utf16.write_bytes("hello".encode("utf-16-le"))  # without the mark: named, not read
    with pytest.raises(LoaderError, match=r"u\.txt: not UTF-8 text but UTF-16LE"):
        load_documents(utf16)
    late = tmp_path / "late.txt"  # a NUL past the first 8,000 bytes is text's business
    late.write_text("a" * 9000 + "\x00 b")
    assert load_documents(late)[0].text.endswith("\x00 b")
    assert issubclass(LoaderError, ValueError)


def test_a_folder_walk_skips_hidden_files_and_symlinks_to_files_it_reads(
        tmp_path: Path) -> None:
    root = tmp_path / "walk"
    (root / ".git").mkdir(parents=True)
    (root / "sub").mkdir()
    (root / ".git" / "notes.md").write_text("Git notes by Niels Bohr.")
    (root / ".secret.md").write_text("Secret by Niels Bohr.")
    (root / "bravo.txt").write_text("Bravo Station is operated by Nikola Tesla.")
    (root / "bravo-link.txt").symlink_to("bravo.txt")
    (root / "sub" / "india.md").write_text("India Index by Lise Meitner.")
    outside = tmp_path / "outside.txt"
    outside.write_text("Echo Base is run by Emmy Noether.")
    (root / "echo.txt").symlink_to(outside)  # a link out of the folder: asked for
    assert [d.id for d in load_documents([root])] == ["bravo", "sub/india"]
    assert [d.id for d in load_documents([root], follow_links=True)] == [
        "bravo", "echo", "sub/india"]
    assert [d.id for d in load_documents([root / ".secret.md"])] == [".secret"]  # named: read


def test_a_field_named_by_the_user_must_exist(tmp_path: Path) -> None:
    p = tmp_path / "c.jsonl"
    p.write_text(json.dumps({"pid": 7, "body": "Paris is big."}) + "\n")
    with pytest.raises(LoaderError, match=r"c.jsonl:1: missing id field 'typo'.*--id-field"):
        load_documents(p, text_field="body", id_field="typo")
    with pytest.raises(LoaderError, match="missing title field 'head'"):
        load_documents(p, text_field="body", id_field="pid", title_field="head")
    assert load_documents(p, text_field="body")[0].id.startswith("doc-")  # default: hash ids


def test_an_exact_repeat_is_same_id_title_text_and_metadata() -> None:
    from hyperviz_core.rag.index.duplicates import resolve_duplicates
    from hyperviz_core.rag.types import Document

    a = Document(id="p1", text="Marie Curie worked in Paris.", metadata={"year": 1903})
    same = Document(id="p1", text="Marie Curie worked in Paris.", metadata={"year": 1903})
    other = Document(id="p1", text="Marie Curie worked in Paris.", metadata={"year": 1911})
    docs, rep = resolve_duplicates([(a, "a.json"), (same, "b.json")])
    assert (len(docs), rep.repeats) == (1, 1)
    with pytest.raises(LoaderError, match="duplicate document id 'p1'"):  # not a repeat
        resolve_duplicates([(a, "a.json"), (other, "b.json")])
    docs, rep = resolve_duplicates([(a, "a.json"), (other, "b.json")], "replace")
    assert docs[0].metadata == {"year": 1911} and rep.duplicates == 1


def test_load_documents_can_skip_unreadable_files_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("Marie Curie worked in Paris.")
    (tmp_path / "b.txt").write_bytes(b"caf\xe9 latin-1")
    (tmp_path / "c.json").write_text('[{"text": "fine"}, {"text": 3}]')
    with pytest.raises(LoaderError, match=r"b\.txt: not UTF-8"):
        load_documents(tmp_path)
    with pytest.warns(UserWarning, match="skipped an unreadable file") as caught:
        docs = load_documents(tmp_path, on_unreadable="skip")
    assert [d.id for d in docs] == ["a"]  # c.json left out whole, its good record too
    assert sorted(str(w.message).split(": ")[1].rsplit("/", 1)[-1] for w in caught) == [
        "b.txt", "c.json (item 1)"]
    with pytest.raises(ValueError, match="unknown unreadable-file policy"):
        load_documents(tmp_path, on_unreadable="ignore")  # type: ignore[arg-type]


def test_a_stream_skips_an_unreadable_big_file_whole(tmp_path: Path) -> None:
    from hyperviz_core.rag.index.stream import DocumentStream

    (tmp_path / "a.txt").write_text("Marie Curie worked in Paris.")
    (tmp_path / "big.txt").write_bytes(b"Ada Lovelace wrote notes. " * 400 + b"\xff")
    stream = DocumentStream([tmp_path], part_bytes=1024, on_unreadable="skip")
    assert [d.id for d in stream] == ["a"]  # none of big.txt's parts
    assert stream.report.read == 1 and len(stream.report.unreadable) == 1
    assert "big.txt" in stream.report.unreadable[0]


def test_a_named_text_field_must_be_there(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The default text field falls back to content/body/passage; a field you name (even
    ``text``) must be in every record."""
    from hyperviz_core.cli import main

    p = tmp_path / "d.jsonl"
    p.write_text('{"id": "a", "body": "Ada Quill founded the Nimbus Society."}\n')
    assert load_documents(p)[0].text.startswith("Ada")  # the default: body is the text
    with pytest.raises(LoaderError, match=r"d\.jsonl:1: text field 'text' is missing"):
        load_documents(p, text_field="text")
    assert main(["index", str(p), "--store", str(tmp_path / "s"), "--text-field", "text",
                 "--no-progress"]) == 2
    assert "text field 'text' is missing" in capsys.readouterr().err
    assert not (tmp_path / "s").exists()
