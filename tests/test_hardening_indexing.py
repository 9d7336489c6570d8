"""Indexing hardening (audit): inputs, text files re-indexed, counts, titles, errors.

Stale documents of a text file indexed again (its parts after it shrinks, its whole-file
document after it grows past ``--part-kb``), lone surrogates and file names that are not
UTF-8, ``--limit`` counts, byte offsets of bad UTF-8, titles of text files, inputs without
documents.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import DocumentStream, Indexer, LoaderError, load_documents
from hyperviz_core.rag.index.loaders import iter_sourced_documents
from hyperviz_core.rag.store import HypergraphStore
from hyperviz_core.rag.types import Document


def _paragraphs(n: int, start: int = 0) -> str:
    return "# Big\n\n" + "\n\n".join(
        f"Paragraph {i}: Marie Curie worked in Paris with Pierre Curie on radium number {i}."
        for i in range(start, start + n)) + "\n"


def _source(tmp_path: Path, name: str, paragraphs: int) -> tuple[Path, Path]:
    """An input folder ``tmp_path/in`` holding one file ``name`` of ``paragraphs``
    paragraphs: (the folder, the file)."""
    src = tmp_path / "in"
    src.mkdir()
    big = src / name
    big.write_text(_paragraphs(paragraphs))
    return src, big


def _stored(store: Path) -> dict[str, str]:
    with HypergraphStore(store) as s:
        return {d.id: d.text for d in s.documents()}


def _index(*args: str) -> int:
    return main(["index", *args, "--no-progress"])


# ----------------------------------------------------------------------- 1. stale documents
def test_a_shrunk_file_leaves_no_stale_parts(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    src, big = _source(tmp_path, "big.txt", 120)
    store = tmp_path / "store"
    assert _index(str(src), "--store", str(store), "--part-kb", "2") == 0
    before = _stored(store)
    assert len(before) > 4 and all(k.startswith("big#part") for k in before)
    big.write_text(_paragraphs(25))  # fewer parts now
    capsys.readouterr()
    assert _index(str(src), "--store", str(store), "--part-kb", "2") == 0
    out = capsys.readouterr().out
    after = _stored(store)
    assert "".join(after[k] for k in sorted(after)) == big.read_text()
    assert len(after) < len(before) and "stale removed" in out
    with HypergraphStore(store) as s:
        assert s.check() == []


def test_a_grown_file_replaces_its_whole_document(tmp_path: Path) -> None:
    src, big = _source(tmp_path, "big.txt", 5)
    store = tmp_path / "store"
    assert _index(str(src), "--store", str(store), "--part-kb", "2") == 0
    assert list(_stored(store)) == ["big"]
    big.write_text(_paragraphs(80))  # now over --part-kb: parts
    assert _index(str(src), "--store", str(store), "--part-kb", "2") == 0
    after = _stored(store)
    assert "big" not in after and len(after) > 2  # the text is stored once
    assert "".join(after[k] for k in sorted(after)) == big.read_text()
    # the part size alone changes: the old parts go, the new ones stay
    assert _index(str(src), "--store", str(store), "--part-kb", "3") == 0
    again = _stored(store)
    assert "".join(again[k] for k in sorted(again)) == big.read_text()
    assert len(again) < len(after)
    # and back under the part size: one whole document again
    assert _index(str(src), "--store", str(store), "--part-kb", "64") == 0
    assert list(_stored(store)) == ["big"]


def test_other_inputs_are_never_removed(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    (a / "big.txt").write_text(_paragraphs(60))
    (b / "big.txt").write_text(_paragraphs(3, start=500))  # the same id, another file
    corpus = tmp_path / "c.jsonl"  # a JSON document that looks like a part of 'big'
    corpus.write_text(json.dumps({"id": "big#part00099", "text": "Other text about Rome.",
                                  "source": "somewhere"}) + "\n")
    store = tmp_path / "store"
    assert _index(str(a), str(corpus), "--store", str(store), "--part-kb", "2") == 0
    parts = {k for k in _stored(store) if k.startswith("big#part0000")}
    assert len(parts) > 2
    assert _index(str(b), "--store", str(store), "--part-kb", "2") == 0
    after = _stored(store)  # b/big.txt is 'big' now; a's parts and the JSON record stay
    assert "big" in after and parts <= set(after) and "big#part00099" in after


def test_a_file_indexed_by_its_own_path_or_its_folder_replaces_its_old_id(
        tmp_path: Path) -> None:
    """A file's id depends on how it was given (its stem directly, its path relative to the
    folder given): indexing it again another way replaces its old document instead of
    storing its text twice; a file of the same name elsewhere is left alone, and it does not
    replace a document of this one while this one exists."""
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    note, other = corpus / "sub" / "note.txt", tmp_path / "elsewhere" / "sub" / "note.txt"
    other.parent.mkdir()
    note.write_text("Marie Curie moved to Paris in 1891.\n")
    other.write_text("Ada Lovelace wrote notes in London.\n")
    (corpus / "top.txt").write_text("Pierre Curie lived in Paris.\n")
    store = tmp_path / "store"
    assert _index(str(corpus), "--store", str(store)) == 0
    # the same id from another existing file: refused (it replaced corpus's note)
    assert _index(str(tmp_path / "elsewhere"), "--store", str(store)) == 1
    assert "Marie" in _stored(store)["sub/note"]
    assert _index(str(corpus), "--store", str(store)) == 0
    assert _index(str(tmp_path / "elsewhere" / "sub"), "--store", str(store)) == 0
    assert sorted(_stored(store)) == ["note", "sub/note", "top"]  # 'note': the other file
    other.unlink()  # gone: its document 'note' may now be replaced
    note.write_text("Marie Curie moved to Paris in 1891 (edited).\n")
    assert _index(str(corpus / "sub"), "--store", str(store)) == 0  # id 'note' now
    after = _stored(store)
    assert sorted(after) == ["note", "top"] and "edited" in after["note"]
    note.write_text("Marie Curie moved to Paris in 1891 (edited twice).\n")
    assert _index(str(corpus), "--store", str(store)) == 0  # 'sub/note' replaces 'note'
    final = _stored(store)
    assert sorted(final) == ["sub/note", "top"] and "twice" in final["sub/note"]


def test_nothing_is_removed_while_the_file_is_not_all_stored(tmp_path: Path) -> None:
    src, big = _source(tmp_path, "big.txt", 5)
    store = tmp_path / "store"
    assert _index(str(src), "--store", str(store), "--part-kb", "2") == 0
    big.write_text(_paragraphs(80))
    # --limit cuts the file's parts: its old whole document must stay
    assert _index(str(src), "--store", str(store), "--part-kb", "2", "--limit", "1") == 0
    assert {"big", "big#part00001"} <= set(_stored(store))

    class Failing:  # the extractor fails on one part: that run removes nothing
        name = "failing"

        def extract(self, chunk: object) -> object:
            raise RuntimeError("boom")

        async def aextract(self, chunk: object) -> object:
            if "part00002" in str(getattr(chunk, "doc_id", "")):
                raise RuntimeError("boom")
            from hyperviz_core.rag.extract import HeuristicExtractor
            return await HeuristicExtractor().aextract(chunk)  # type: ignore[arg-type]

    stream = DocumentStream([src], part_bytes=2048)
    ix = Indexer(store, extractor=Failing(), show_progress=False)
    rep = ix.index(stream)
    assert rep.documents_failed == 1 and rep.documents_removed == 0
    assert "big" in _stored(store)
    ix.store.close()


def test_python_api_replaces_too(tmp_path: Path) -> None:
    src, big = _source(tmp_path, "big.md", 5)
    store = tmp_path / "store"
    ix = Indexer(store, show_progress=False)
    ix.index(load_documents([src]))
    big.write_text(_paragraphs(80))
    stream = DocumentStream([src], part_bytes=2048)
    assert stream.source_parts == {str(big): len(stream)}
    rep = ix.index(stream)  # grows into parts: the whole document goes
    assert rep.documents_removed == 1 and "big" not in {d.id for d in ix.store.documents()}
    big.write_text(_paragraphs(6))
    rep = ix.index(load_documents([src]))  # load_documents never splits: the parts go
    assert {d.id for d in ix.store.documents()} == {"big"}
    assert rep.documents_removed > 2
    ix.store.close()


def test_the_engine_passes_a_stream_through(tmp_path: Path) -> None:
    from hyperviz_core.rag import VizRAG

    src, big = _source(tmp_path, "big.md", 80)
    with VizRAG(tmp_path / "store", show_progress=False) as rag:
        rag.insert(DocumentStream([src], part_bytes=2048))
        before = {d.id for d in rag.store.documents()}
        big.write_text(_paragraphs(40))
        rep = rag.insert(DocumentStream([src], part_bytes=2048))  # shrinks: fewer parts
        after = {d.id for d in rag.store.documents()}
    assert len(after) < len(before) and rep.documents_removed == len(before - after)
    assert after == {f"big#part{n:05d}" for n in range(1, len(after) + 1)}


# ----------------------------------------------------------------------- 2. lone surrogates
def test_a_lone_surrogate_in_json_names_file_and_line(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "fine"}\n{"id": "b", "text": "bad \\ud800 text"}\n')
    with pytest.raises(LoaderError, match=r"bad\.jsonl:2: document 'b': field 'text' holds a "
                       r"lone surrogate '\\ud800' at character 5"):
        load_documents([bad])
    items = tmp_path / "items.json"
    items.write_text('[{"text": "ok"}, {"text": "x", "title": "T\\udc80"}]')
    with pytest.raises(LoaderError, match=r"items\.json \(item 1\): .*field 'title'"):
        load_documents([items])
    good = tmp_path / "good.jsonl"
    good.write_text('{"id": "g", "text": "Marie Curie worked in Paris."}\n')
    store = tmp_path / "store"
    assert _index(str(bad), str(good), "--store", str(store)) == 2
    err = capsys.readouterr().err
    assert "bad.jsonl:2" in err and err.count("\n") == 1 and not store.exists()
    assert _index(str(bad), str(good), "--store", str(store), "--skip-unreadable") == 0
    out = capsys.readouterr().out
    assert "unreadable" in out and "bad.jsonl:2" in out
    assert set(_stored(store)) == {"g"}


@pytest.mark.skipif(sys.platform == "darwin", reason="macOS refuses non-UTF-8 file names")
def test_a_file_name_that_is_not_utf8_is_named_and_skippable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    src = tmp_path / "in"
    src.mkdir()
    try:
        fd = os.open(os.fsencode(src) + b"/caf\xe9.txt", os.O_WRONLY | os.O_CREAT)
    except OSError:
        pytest.skip("this file system refuses non-UTF-8 names")
    os.write(fd, b"Marie Curie worked in Paris.")
    os.close(fd)
    (src / "ok.txt").write_text("Pierre Curie worked in Paris.")
    with pytest.raises(LoaderError, match=r"caf\\udce9\.txt'?: the file name is not valid "
                       "UTF-8"):
        load_documents([src])
    store = tmp_path / "store"
    assert _index(str(src), "--store", str(store)) == 2
    err = capsys.readouterr().err
    assert "caf\\udce9.txt" in err and "not valid UTF-8" in err
    assert _index(str(src), "--store", str(store), "--skip-unreadable") == 0
    assert "caf\\udce9.txt" in capsys.readouterr().out
    assert set(_stored(store)) == {"ok"}


def test_the_indexer_fails_only_the_bad_document(tmp_path: Path) -> None:
    ix = Indexer(tmp_path / "store", show_progress=False)
    rep = ix.index([Document(id="good", text="Marie Curie worked in Paris."),
                    Document(id="bad", text="Pierre \ud800 Curie"),
                    Document(id="b\udcff", text="fine text")])
    assert rep.documents_added == 1 and rep.documents_failed == 2
    assert any("bad: ValueError" in e and "field 'text'" in e for e in rep.errors)
    assert any("'b\\udcff'" in e and "field 'id'" in e for e in rep.errors)
    for e in rep.errors:
        e.encode("utf-8")  # printable
    assert [d.id for d in ix.store.documents()] == ["good"]
    ix.store.close()


# ----------------------------------------------------------------------- 7. --limit counts
def test_limit_counts_add_up(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = tmp_path / "c.jsonl"
    rows = [{"id": f"d{i}", "text": f"Text {i} about Paris."} for i in range(4)]
    rows.append(rows[0])  # an exact repeat
    corpus.write_text("".join(json.dumps(r) + "\n" for r in rows))
    store = tmp_path / "store"
    assert _index(str(corpus), "--store", str(store), "--limit", "2") == 0
    out = capsys.readouterr().out
    assert ("input: 5 documents read = 2 kept + 0 with a duplicate id (skipped) + 1 exact "
            "repeats dropped + 2 left out by --limit") in out
    assert _index(str(corpus), "--store", str(store), "--limit", "3", "--json") == 0
    rep = json.loads(capsys.readouterr().out)["input"]
    assert rep["read"] == rep["kept"] + rep["duplicates"] + rep["repeats"] + rep["limited"]
    assert rep["limited"] == 1
    stream = DocumentStream([corpus], limit=1)
    assert (stream.report.read, stream.report.kept, stream.report.limited) == (5, 1, 3)


# ----------------------------------------------------------------------- 8. byte offsets
def test_bad_utf8_names_line_and_absolute_byte(tmp_path: Path) -> None:
    rows = [json.dumps({"id": f"d{i}", "text": "x" * 5000}).encode() + b"\n" for i in range(3)]
    last = b'{"id": "d3", "text": "caf\xe9"}\n'
    at = sum(map(len, rows)) + last.index(b"\xe9")  # beyond the 8 KB decode buffer
    bad = tmp_path / "c.jsonl"
    bad.write_bytes(b"".join(rows) + last)
    with pytest.raises(LoaderError, match=rf"c\.jsonl: not UTF-8 text at line 4, byte {at} "):
        load_documents([bad])
    text = tmp_path / "t.txt"  # whole file
    text.write_bytes(b"line one\r\nline two\rline three\n" + b"ok " * 4000 + b"\xff\n")
    where = len(b"line one\r\nline two\rline three\n") + 3 * 4000
    with pytest.raises(LoaderError, match=rf"t\.txt: not UTF-8 text at line 4, byte {where} "):
        load_documents([text])
    big = tmp_path / "big.txt"  # read as parts
    body = "".join(f"Paragraph {i}.\n\n" for i in range(2000)).encode()
    big.write_bytes(body + b"bad \xc3 byte\n")
    with pytest.raises(LoaderError, match=rf"big\.txt: not UTF-8 text at line 4001, byte "
                       rf"{len(body) + 4} "):
        list(iter_sourced_documents([big], part_bytes=1024))


def test_parts_read_exactly_as_text_mode(tmp_path: Path) -> None:
    """Reading bytes line by line keeps the parts text mode made (ids, texts, hashes)."""
    from hyperviz_core.rag.index.parts import iter_text_parts, utf8_lines

    p = tmp_path / "mixed.txt"
    p.write_bytes(b"\xef\xbb\xbf" + ("# T\r\n\r\none\rtwo\n\nthree\u2028x\n" * 50).encode()
                  + b"tail\r")
    with p.open(encoding="utf-8-sig") as fh:
        assert list(utf8_lines(p)) == list(fh)
    parts = list(iter_text_parts(p, "m", part_bytes=64))
    assert "".join(d.text for d in parts) == p.read_text(encoding="utf-8-sig")


# ----------------------------------------------------------------------- 9. titles
@pytest.mark.parametrize(("text", "title"), [
    ("[![ci](https://ci/badge.svg)](https://ci)\n\n# Real Title\n\nBody.", "Real Title"),
    ("Real Title\n==========\n\nBody text.", "Real Title"),
    ("Sub Title\n---------\n\nBody text.", "Sub Title"),
    ("---\nlayout: post\n---\n\n# After Front Matter\n", "After Front Matter"),
    ("---\ntitle: x\nlayout: post\n---\n\n# After Front Matter\n", "x"),  # its title first
    ("# First\n\n## Second", "First"),
    ("#hashtag first line", "hashtag first line"),  # the first line keeps its old reading
    ("Just text.\n\n- a list\n---\n", "notes"),
    ("\n".join(f"line {i}" + "\n" for i in range(12)) + "# Too Late", "notes"),
])
def test_text_file_titles(tmp_path: Path, text: str, title: str) -> None:
    p = tmp_path / "notes.md"
    p.write_text(text)
    assert load_documents([p])[0].title == title
    parts = list(iter_sourced_documents([p], part_bytes=8))
    assert {d.title for d, _ in parts} == {title}


# ----------------------------------------------------------------------- 10. no documents
def test_inputs_without_documents_stop_before_the_store(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pdfs = tmp_path / "pdfs"
    pdfs.mkdir()
    (pdfs / "a.pages").write_bytes(b"PK\x03\x04\x00")
    (pdfs / "b.key").write_bytes(b"PK\x03\x04")
    empty = tmp_path / "empty.json"
    empty.write_text("[]")
    store = tmp_path / "store"
    assert _index(str(pdfs), "--store", str(store)) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"no documents in {pdfs}" in err
    assert ".txt" in err and ".jsonl" in err and not store.exists()
    assert _index(str(empty), "--store", str(store)) == 2
    assert "no documents in" in capsys.readouterr().err and not store.exists()
