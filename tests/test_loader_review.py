"""Loader defects a review reproduced: long JSONL records, unreadable sub-folders, what a
folder walk leaves out and how it treats symbolic links, the ``--skip-unreadable`` hint in
the error, the messages for binary, UTF-16 and Windows-1252 files, and record ids that are
neither strings nor integers."""

from __future__ import annotations

import json
import os
import re
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import one_line_error, run_cli

from hyperviz_core.rag.index.loaders import (
    SKIP_HINT,
    LoaderError,
    input_files,
    iter_sourced_documents,
    load_documents,
    skipped_files,
    walk,
)
from hyperviz_core.rag.index.parts import PIECE_BYTES, utf8_lines
from hyperviz_core.rag.index.stream import DocumentStream

# --- 1. a JSONL record longer than the 64 KiB pieces of a text file's line


def test_a_jsonl_record_over_64_kib_is_read_whole(tmp_path: Path) -> None:
    text = "Record about Oslo and Bergen. " * 2400  # ~72 KB
    p = tmp_path / "r.jsonl"
    p.write_text(json.dumps({"id": "small", "text": "Short."}) + "\n"
                 + json.dumps({"id": "big", "text": text}) + "\n"
                 + json.dumps({"id": "after", "text": "Next line."}) + "\n")
    docs = load_documents(p)
    assert [d.id for d in docs] == ["small", "big", "after"]
    assert docs[1].text == text
    sourced = [where for _, where in iter_sourced_documents([p], part_bytes=1024)]
    assert sourced == [f"{p}:1", f"{p}:2", f"{p}:3"]  # line numbers still right
    assert [d.id for d in DocumentStream([p])] == ["small", "big", "after"]


def test_a_text_file_line_still_comes_in_bounded_pieces(tmp_path: Path) -> None:
    p = tmp_path / "one-line.txt"
    line = "word " * (PIECE_BYTES // 2)  # 160 KiB without a line break
    p.write_text(line)
    pieces = list(utf8_lines(p))
    assert len(pieces) > 1 and "".join(pieces) == line
    assert all(len(x.encode()) <= PIECE_BYTES for x in pieces)
    assert list(utf8_lines(p, whole_lines=True)) == [line]


# --- 2. a sub-folder that cannot be listed


def _locked(monkeypatch: pytest.MonkeyPatch, locked: Path) -> None:
    """``os.scandir`` of ``locked`` fails as a folder without read permission does (the
    tests run as root, for whom ``chmod 000`` changes nothing)."""
    real = os.scandir

    def scandir(path: Any = ".") -> Any:
        if Path(os.fspath(path)) == locked:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def _perm_folder(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "perm"
    (root / "locked").mkdir(parents=True)
    (root / "ok.txt").write_text("Readable note about Oslo.")
    (root / "locked" / "q3.txt").write_text("Quarterly numbers for the Lynx Project.")
    return root, root / "locked"


def test_an_unreadable_sub_folder_is_an_error_naming_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, locked = _perm_folder(tmp_path)
    _locked(monkeypatch, locked)
    with pytest.raises(LoaderError, match=r"perm/locked: cannot read the folder "
                       r"\(Permission denied\); --skip-unreadable"):
        load_documents(root)
    with pytest.raises(LoaderError, match="perm/locked: cannot read the folder"):
        DocumentStream([root])


def test_an_unreadable_sub_folder_is_listed_when_skipping(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root, locked = _perm_folder(tmp_path)
    _locked(monkeypatch, locked)
    with pytest.warns(UserWarning, match="perm/locked: cannot read the folder"):
        docs = load_documents(root, on_unreadable="skip")
    assert [d.id for d in docs] == ["ok"]
    stream = DocumentStream([root], on_unreadable="skip")
    assert [d.id for d in stream] == ["ok"]
    assert len(stream.report.unreadable) == 1
    assert stream.report.unreadable[0].startswith(f"{locked}: cannot read the folder")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a chmod 000 folder")
def test_a_chmod_000_sub_folder_is_an_error(tmp_path: Path) -> None:
    root, locked = _perm_folder(tmp_path)
    locked.chmod(0)
    try:
        with pytest.raises(LoaderError, match="perm/locked: cannot read the folder"):
            load_documents(root)
    finally:
        locked.chmod(0o755)


# --- 3. what a folder walk leaves out, and symbolic links


FOLDER_LINK = "a symbolic link to a folder (not followed: give the folder itself to read it)"
OUT_LINK = ("a symbolic link leading out of the folder (not followed: --follow-links / "
            "follow_links=True reads it)")


def _walk_corpus(tmp_path: Path) -> Path:
    corp = tmp_path / "corp"
    main = corp / "main"
    main.mkdir(parents=True)
    (corp / ".git").mkdir()
    (corp / ".git" / "notes.md").write_text("Git notes.")
    (main / "note.txt").write_text("Main note about Oslo.")
    (main / "staff.pages").write_text("id,name,city\n")
    (main / "slides.key").write_text("PK")
    (main / "README").write_text("no suffix")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "policy.txt").write_text("Shared policy about the Kestrel Program.")
    (outside / "lone.md").write_text("A lone file outside.")
    (main / "shared").symlink_to(outside, target_is_directory=True)  # a folder link
    (main / "lone.md").symlink_to(outside / "lone.md")  # a file link out of the folder
    (main / "again.txt").symlink_to("note.txt")  # a second path to a file read anyway
    (main / "dangling.txt").symlink_to("missing.txt")
    (main / "up").symlink_to("..", target_is_directory=True)  # a loop
    return corp


def test_a_walk_names_what_it_leaves_out_and_why(tmp_path: Path) -> None:
    corp = _walk_corpus(tmp_path)
    found = walk(corp)
    main = corp / "main"
    assert found.files == [main / "note.txt"]
    why = {p.relative_to(corp).as_posix(): reason for p, reason in found.skipped}
    assert why == {
        ".git": "hidden (a name starting with '.')",
        "main/lone.md": OUT_LINK,
        "main/shared": FOLDER_LINK,
        "main/README": "not a kind of file the walk reads (no suffix)",
        "main/again.txt": f"the same file as {main / 'note.txt'}, read already",
        "main/dangling.txt": "a broken symbolic link (No such file or directory)",
        "main/slides.key": "not a kind of file the walk reads (suffix .key)",
        "main/staff.pages": "not a kind of file the walk reads (suffix .pages)",
        "main/up": FOLDER_LINK,
    }
    skipped: list[str] = []
    assert [f for f, _ in input_files([corp], skipped=skipped)] == found.files
    assert skipped == [f"{p}: {reason}" for p, reason in found.skipped]
    assert skipped_files([corp]) == skipped


def test_a_walk_follows_links_to_files_not_to_folders(tmp_path: Path) -> None:
    """A file link inside the folder is read; one leading out of it only with
    ``follow_links`` (the file under the link's path: an uploaded archive's link would
    read any file the indexer can); a folder link is never followed (it may lead to ``/``
    or up the tree)."""
    corp = _walk_corpus(tmp_path)
    assert [d.id for d in load_documents(corp)] == ["main/note"]
    docs = load_documents(corp, follow_links=True)
    assert [d.id for d in docs] == ["main/lone", "main/note"]
    assert docs[0].metadata == {"source": str(corp / "main" / "lone.md")}
    assert walk(corp, follow_links=True).files == [corp / "main" / "lone.md",
                                                   corp / "main" / "note.txt"]
    assert not any("lone.md" in s for s in skipped_files([corp], follow_links=True))


def test_a_folder_link_is_listed_not_followed(tmp_path: Path) -> None:
    root = tmp_path / "r"
    (root / "b").mkdir(parents=True)
    (root / "b" / "x.txt").write_text("Text of x.")
    (root / "a").symlink_to("b", target_is_directory=True)  # sorts first, read by b/
    assert [d.id for d in load_documents(root)] == ["b/x"]
    assert skipped_files([root]) == [f"{root / 'a'}: {FOLDER_LINK}"]


def test_a_fifo_with_a_read_suffix_is_left_out_and_named(tmp_path: Path) -> None:
    root = tmp_path / "f"
    root.mkdir()
    os.mkfifo(root / "pipe.txt")
    (root / "a.txt").write_text("Text.")
    assert walk(root).files == [root / "a.txt"]
    assert skipped_files([root]) == [f"{root / 'pipe.txt'}: not a regular file"]


# --- 4. the error names --skip-unreadable


def test_the_error_of_an_unreadable_file_names_skip_unreadable(tmp_path: Path) -> None:
    folder = tmp_path / "repo"
    folder.mkdir()
    (folder / "package.json").write_text('{"name": "acme-docs"}')
    with pytest.raises(LoaderError) as caught:
        load_documents(folder)
    msg = str(caught.value)
    assert msg.endswith("; " + SKIP_HINT) and "\n" not in msg
    assert "--skip-unreadable" in SKIP_HINT and "on_unreadable='skip'" in SKIP_HINT
    with warnings.catch_warnings(record=True) as seen:  # skipping: no hint to skip
        warnings.simplefilter("always")
        assert load_documents(folder, on_unreadable="skip") == []
    assert len(seen) == 1 and "package.json" in str(seen[0].message)
    assert "--skip-unreadable" not in str(seen[0].message)


def test_the_cli_error_names_skip_unreadable(tmp_path: Path) -> None:
    bad = tmp_path / "legacy.txt"
    bad.write_bytes("caf\xe9 latin-1\n".encode("latin-1"))
    one_line_error(run_cli(["index", str(bad), "--store", str(tmp_path / "s"),
                            "--no-progress"]),
                   "legacy.txt: not UTF-8 text at line 1, byte 3",
                   "--skip-unreadable leaves such a file out")


# --- 5. binary, UTF-16/UTF-32 and Windows-1252 files


def _error(path: Path) -> str:
    with pytest.raises(LoaderError) as caught:
        load_documents(path)
    return str(caught.value)


def test_a_file_starting_with_nul_bytes_is_binary(tmp_path: Path) -> None:
    p = tmp_path / "binary.txt"
    p.write_bytes(bytes(range(256)) * 10)
    assert "binary.txt: a binary file, not text (NUL byte at byte 0)" in _error(p)
    j = tmp_path / "b.jsonl"  # JSON and JSONL too
    j.write_bytes(b"\x00\x01\xff{}")
    assert "b.jsonl: a binary file, not text" in _error(j)


@pytest.mark.parametrize(("encoding", "name"), [("utf-16-le", "UTF-16LE"),
                                               ("utf-16-be", "UTF-16BE")])
def test_utf16_text_without_a_mark_is_named_with_how_to_convert_it(
        tmp_path: Path, encoding: str, name: str) -> None:
    """(Since stop 66 UTF-16 and UTF-32 with a byte-order mark are read as such:
    ``tests/test_wide_text66.py``.)"""
    for suffix in (".txt", ".json"):
        p = tmp_path / f"u{suffix}"
        p.write_text('{"text": "Athens is the capital."}\n', encoding=encoding)
        msg = _error(p)
        assert f"u{suffix}: not UTF-8 text but {name} text" in msg, msg
        assert f"convert it to UTF-8, e.g. iconv -f {name} -t UTF-8" in msg


def test_windows_1252_text_gets_a_hint_to_convert_it(tmp_path: Path) -> None:
    p = tmp_path / "legacy.txt"
    p.write_bytes("Caf\xe9 cr\xe8me \u201cquoted\u201d\n".encode("cp1252"))
    msg = _error(p)
    assert "legacy.txt: not UTF-8 text at line 1, byte 3 (invalid continuation byte)" in msg
    assert "Windows-1252 (Latin-1) text: convert it to UTF-8, e.g. iconv -f WINDOWS-1252" in msg
    j = tmp_path / "c.jsonl"
    j.write_bytes(b'{"text": "ok"}\n{"text": "caf\xe9"}\n')
    assert "c.jsonl: not UTF-8 text at line 2, byte 28" in _error(j)
    assert "convert it to UTF-8" in _error(j)


# --- 6. ids that are neither strings nor integers


def _records(tmp_path: Path, *ids: object) -> Iterator[Path]:
    for n, doc_id in enumerate(ids):
        p = tmp_path / f"ids{n}.jsonl"
        p.write_text(json.dumps({"id": "fine", "text": "First."}) + "\n"
                     + json.dumps({"id": doc_id, "text": "Second."}) + "\n")
        yield p


@pytest.mark.parametrize(("doc_id", "shown"), [
    (1.0, "float 1.0"), (True, "bool true"), ({"x": 1}, 'dict {"x": 1}'),
    ([1, 2], "list [1, 2]")])
def test_an_id_that_is_not_a_string_or_an_integer_is_an_error(
        tmp_path: Path, doc_id: object, shown: str) -> None:
    (p,) = _records(tmp_path, doc_id)
    with pytest.raises(LoaderError, match=r"ids0\.jsonl:2: id must be a string or an "
                       r"integer, got " + re.escape(shown)):
        load_documents(p)
    j = tmp_path / "ids.json"
    j.write_text(json.dumps([{"id": doc_id, "text": "t"}]))
    with pytest.raises(LoaderError, match=r"ids\.json \(item 0\): id must be a string"):
        load_documents(j)


def test_integer_and_string_ids(tmp_path: Path) -> None:
    p = tmp_path / "ids.jsonl"
    p.write_text("\n".join(json.dumps(r) for r in (
        {"id": 1, "text": "One."}, {"id": "2", "text": "Two."}, {"id": -3, "text": "x"},
        {"id": 10**20, "text": "Big."}, {"text": "No id."})) + "\n")
    ids = [d.id for d in load_documents(p)]
    assert ids[:4] == ["1", "2", "-3", str(10**20)] and ids[4].startswith("doc-")


# --- what the CLI prints of a walk


def test_vizrag_index_names_what_the_walk_left_out(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    from hyperviz_core.cli import main

    corp = tmp_path / "c"
    (corp / ".git").mkdir(parents=True)
    (corp / "a.txt").write_text("Ada Lovelace met Charles Babbage.")
    (corp / "b.pages").write_text("x,y\n")
    (corp / "etc").symlink_to(tmp_path, target_is_directory=True)
    assert main(["index", str(corp), "--store", str(tmp_path / "s"), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "  left out 3 path(s) of the folders (not read):\n" in out
    assert (f"  left out {corp / 'b.pages'}: not a kind of file the walk reads "
            "(suffix .pages)") in out
    assert main(["index", str(corp), "--store", str(tmp_path / "s"), "--no-progress",
                 "--json"]) == 0
    left = json.loads(capsys.readouterr().out)["input"]["left_out"]
    assert [p.split(": ")[0] for p in left] == [str(corp / n) for n in (".git", "b.pages", "etc")]


def test_the_skip_list_does_not_repeat_the_hint(tmp_path: Path) -> None:
    """With on_unreadable="skip" the listed reason is the reason alone (the hint to use
    --skip-unreadable belongs to the error of the default policy only)."""
    from hyperviz_core.rag.index.stream import DocumentStream

    (tmp_path / "ok.txt").write_text("Fine text.")
    (tmp_path / "bad.txt").write_bytes(b"caf\xe9 au lait")
    stream = DocumentStream([tmp_path], on_unreadable="skip")
    list(stream)
    assert len(stream.report.unreadable) == 1
    assert SKIP_HINT not in stream.report.unreadable[0]


def test_a_binary_file_starting_like_a_utf16_mark_is_binary(tmp_path: Path) -> None:
    """``FF FE`` then bytes that decode to control characters: a binary file, not "UTF-16
    text (a byte-order mark)"."""
    path = tmp_path / "blob.txt"
    path.write_bytes(b"\xff\xfe\x00\x01\x02\x03\x04\x05\x06\x07\x00\x00\x10\x11")
    with pytest.raises(LoaderError, match="a binary file, not text"):
        load_documents([path])
