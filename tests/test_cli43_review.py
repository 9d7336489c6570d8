"""A review of the ``vizrag`` CLI (2026-12-05): a misspelt option names its subcommand and
a close match; ``query --render`` with nothing to show the images says so; ``index FOLDER``
names the stored documents whose files are gone; text mode's locator line says no image was
drawn; ``check`` on a file that is no SQLite database is "no store" (exit 2)."""

from __future__ import annotations

import argparse
import json
import sqlite3
from pathlib import Path

import pytest
from cli_helpers import index_quietly, one_line_error, run_cli
from rag_fakes import demo_documents, store_with

from hyperviz_core.cli import build_parser, main
from hyperviz_core.cli.query import OFFLINE_LOCATOR

Q = "Who is the wife of Kim Jong-chul?"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return store_with(tmp_path_factory.mktemp("cli43") / "store", demo_documents(0, 12))


def _usage_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    return capsys.readouterr().err


# ---------------------------------------------------------------- 1: did you mean
@pytest.mark.parametrize(("argv", "usage", "meant"), [
    (["query", "x", "--store", "S", "--topk", "3"], "usage: vizrag query ", "--top-k"),
    (["index", "d", "--store", "S", "--prune-mising"], "usage: vizrag index ",
     "--prune-missing"),
    (["check", "--store", "S", "--jsn"], "usage: vizrag check ", "--json"),
    (["eval", "judge", "--questions", "q", "--systems", "a", "--judge", "offline",
      "--protocl", "score"], "usage: vizrag eval judge ", "--protocol"),
])
def test_a_misspelt_option_gets_its_subcommand_usage_and_a_close_match(
        argv: list[str], usage: str, meant: str, capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage_error(argv, capsys)
    assert err.startswith(usage), err
    assert f"did you mean {meant}?" in err
    assert "usage: vizrag [-h] [--version] COMMAND" not in err
    assert "goes after --" not in err  # a misspelt option, not a value starting with '-'


def test_a_value_starting_with_a_dash_keeps_the_double_dash_hint(
        capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage_error(["delete", "--store", "S", "-rf"], capsys)
    assert err.startswith("usage: vizrag delete ")
    assert "goes after -- (vizrag delete --store ST -- -rf)" in err
    assert "did you mean" not in err


def _commands(parser: argparse.ArgumentParser, name: str
              ) -> list[tuple[str, argparse.ArgumentParser]]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [(name, parser)]
    return [c for n, p in sorted(subs[0].choices.items()) for c in _commands(p, f"{name} {n}")]


def test_every_subcommand_suggests_its_own_options() -> None:
    from hyperviz_core.cli import unrecognized

    commands = _commands(build_parser(), "vizrag")
    assert len(commands) > 15
    for name, parser in commands:
        longs = [s for a in parser._actions for s in a.option_strings
                 if s.startswith("--") and s != "--help" and len(s) > 5]
        for option in longs:
            typo = option[:-2] + option[-1]  # one letter dropped
            said = unrecognized(parser, [typo])
            assert "; did you mean --" in said, (name, typo, said)


def test_two_misspelt_options_are_each_matched(capsys: pytest.CaptureFixture[str]) -> None:
    err = _usage_error(["query", "x", "--store", "S", "--topk", "3", "--hopps", "2"], capsys)
    assert "did you mean --top-k (for --topk), --hops (for --hopps)?" in err


# ---------------------------------------------------------------- 2: --render shows nothing
def test_render_without_out_or_full_says_where_the_images_go(store: Path,
                                                             tmp_path: Path) -> None:
    code, out, err = run_cli(["query", Q, "--store", str(store), "--top-k", "1", "--render"])
    assert code == 0 and out.startswith("Q: ")
    notes = [line for line in err.splitlines() if "--render without --out or --full" in line]
    assert notes == ["vizrag query: note: --render without --out or --full shows no image: "
                     "--out DIR writes the views (PNG + HTML), --full prints them (base64 in "
                     "the JSON); --json has their captions only"]
    for more in (["--out", str(tmp_path / "views")], ["--full"]):
        code, _, err = run_cli(["query", Q, "--store", str(store), "--top-k", "1",
                                "--render", *more])
        assert code == 0 and "shows no image" not in err, more
    code, _, err = run_cli(["query", Q, "--store", str(store), "--top-k", "1"])
    assert code == 0 and "shows no image" not in err


# ---------------------------------------------------------------- 3: files gone, not pruned
def test_index_names_the_stored_documents_whose_files_are_gone(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    notes, other, store = tmp_path / "notes", tmp_path / "other", str(tmp_path / "store")
    notes.mkdir()
    other.mkdir()
    for name in ("alpha", "beta", "gamma", "delta", "omega"):
        (notes / f"{name}.md").write_text(f"{name.title()} Hall lies in Leyton near Ada Quill.")
    (other / "kept.md").write_text("Kept Hall was built in 1850 by the Quill family.")
    assert index_quietly(str(notes), str(other), "--store", store) == 0
    assert "note:" not in capsys.readouterr().err  # nothing missing: no note
    (notes / "alpha.md").rename(notes / "alpha-renamed.md")
    (notes / "beta.md").unlink()
    (other / "kept.md").unlink()  # another folder, not indexed by the next run: not named
    assert index_quietly(str(notes), "--store", store) == 0
    err = capsys.readouterr().err
    assert ("vizrag index: note: 2 stored documents are of files gone from the indexed folder "
            "(deleted or renamed): alpha, beta; --prune-missing removes them") in err
    assert index_quietly(str(notes), "--store", store, "--json") == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["files_missing"] == ["alpha", "beta"]
    for name in ("delta", "gamma"):
        (notes / f"{name}.md").unlink()
    assert index_quietly(str(notes), str(other), "--store", store) == 0
    assert ("5 stored documents are of files gone from the indexed folders (deleted or "
            "renamed): alpha, beta, delta and 2 more;") in capsys.readouterr().err  # + kept
    assert index_quietly(str(notes), "--store", store, "--prune-missing", "--json") == 0
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert report["files_gone"] == ["alpha", "beta", "delta", "gamma"]
    assert report["files_missing"] == [] and "note:" not in captured.err
    assert index_quietly(str(notes), "--store", store) == 0
    assert "note:" not in capsys.readouterr().err


# ---------------------------------------------------------------- 4: text mode's locator
def test_text_mode_locator_line_says_no_image_was_drawn(store: Path) -> None:
    code, out, _ = run_cli(["query", Q, "--store", str(store), "--mode", "text"])
    assert code == 0
    assert "Locator: offline structural locator — text mode draws no image\n" in out
    assert "read the image" not in out
    code, out, _ = run_cli(["query", Q, "--store", str(store), "--mode", "text", "--json"])
    assert json.loads(out)["locator"] == {
        "kind": "offline-structural",
        "description": "offline structural locator — text mode draws no image"}
    code, out, _ = run_cli(["query", Q, "--store", str(store), "--json", "--render"])
    assert json.loads(out)["locator"]["description"] == OFFLINE_LOCATOR  # an image drawn


# ---------------------------------------------------------------- 5: check on a junk file
@pytest.mark.parametrize(("content", "said"), [
    (b"hello, this is a text file\n", "is not an SQLite database"),
    (bytes(range(256)) * 20, "is not an SQLite database"),
    (b"", "is an empty file"),
])
@pytest.mark.parametrize("as_json", [False, True])
def test_check_of_a_file_that_is_no_sqlite_database_is_no_store(
        tmp_path: Path, content: bytes, said: str, as_json: bool) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(content)
    argv = ["check", "--store", str(junk), *(["--json"] if as_json else [])]
    res = run_cli(argv)
    one_line_error(res, "vizrag check: error: no VizRAG store at", f"{junk} {said}")
    assert res[1] == ""  # no report on stdout


def test_check_of_a_store_with_a_damaged_header_stays_damaged(store: Path,
                                                              tmp_path: Path) -> None:
    copy = tmp_path / "copy.sqlite"
    data = bytearray((store / "vizrag.sqlite").read_bytes())
    data[:16] = b"X" * 16  # the header string gone; the page format bytes stay SQLite's
    copy.write_bytes(bytes(data))
    code, out, _ = run_cli(["check", "--store", str(copy)])
    assert code == 1 and out.startswith("damaged: ")
    other = tmp_path / "other.sqlite"  # an SQLite database, not VizRAG's: 1, as before
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE t (x)")
    conn.close()
    assert run_cli(["check", "--store", str(other)])[0] == 1
