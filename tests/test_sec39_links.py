"""A folder of uploads holding a link to a file outside it (``innocent.txt ->
/etc/passwd``) does not index that file unless asked (``--follow-links``): the link is
listed among what the walk left out, with the option that reads it."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.cli import main


def test_index_leaves_out_links_leading_out_of_the_folder(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("Secret Key Alpha lives in Zurich.", "utf-8")
    up = tmp_path / "uploads"
    up.mkdir()
    (up / "note.txt").write_text("A note about Lyon.", "utf-8")
    (up / "innocent.txt").symlink_to(secret)
    (up / "alias.txt").symlink_to("note.txt")  # inside: the same file, read once
    store = tmp_path / "s"
    assert main(["index", str(up), "--store", str(store), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert (f"left out {up / 'innocent.txt'}: a symbolic link leading out of the folder "
            "(not followed: --follow-links") in out
    assert main(["documents", "--store", str(store)]) == 0
    assert "innocent" not in capsys.readouterr().out
    assert main(["index", str(up), "--store", str(store), "--no-progress",
                 "--follow-links"]) == 0
    capsys.readouterr()
    assert main(["documents", "--store", str(store)]) == 0
    assert "innocent" in capsys.readouterr().out
