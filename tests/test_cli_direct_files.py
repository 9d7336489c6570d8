"""Text files named directly on the command line are read by their absolute path, as folders
are: two files of the same name in other folders no longer replace each other (a cron loop
``for f in */README.md; do vizrag index "$f" ...``), and the same file indexed from another
directory is unchanged, not extracted again."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import VizRAG


@pytest.fixture()
def teams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for team, city in (("teamA", "Oslo"), ("teamB", "Bergen")):
        (tmp_path / team).mkdir()
        (tmp_path / team / "README.md").write_text(f"Team readme about {city}.\n",
                                                   encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_same_named_file_of_another_folder_does_not_replace_it(
        teams: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", "teamA/README.md", "--store", "S", "--no-progress"]) == 0
    assert main(["index", "teamB/README.md", "--store", "S", "--no-progress"]) == 1
    said = capsys.readouterr()
    assert "SourceConflictError: document 'README' is stored from " \
           f"{teams / 'teamA' / 'README.md'}, which still exists" in said.out + said.err
    with VizRAG(teams / "S", show_progress=False) as rag:
        doc = rag.store.get_document("README")
        assert doc is not None and "Oslo" in doc.text
        assert doc.metadata["source"] == str(teams / "teamA" / "README.md")


def test_the_same_file_from_another_directory_is_unchanged(
        teams: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", "teamA/README.md", "--store", "S", "--no-progress"]) == 0
    os.chdir(teams / "teamA")
    capsys.readouterr()
    assert main(["index", "README.md", "--store", "../S", "--no-progress", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert (report["documents_added"], report["documents_replaced"],
            report["documents_skipped"]) == (0, 0, 1)
