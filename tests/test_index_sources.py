"""Two folders with the same layout in one store: a text file never replaces another file's
document that has the same id while that file still exists."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.rag import VizRAG


def _texts(store: Path) -> dict[str, str]:
    with VizRAG(store, show_progress=False, must_exist=True) as rag:
        return {d.id: d.text for d in rag.store.documents()}


@pytest.fixture()
def teams(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for team, who, city in (("teamA", "Alice", "Oslo"), ("teamB", "Bob", "Bergen")):
        (tmp_path / team).mkdir()
        (tmp_path / team / "README.md").write_text(
            f"# {team} readme\n\n{who} leads {team} in {city}.\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_a_second_folder_does_not_replace_the_firsts_documents(
        teams: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = teams / "teamA", teams / "teamB"
    assert main(["index", str(a), "--store", "s", "--no-progress"]) == 0
    assert main(["index", str(b), "--store", "s", "--no-progress"]) == 1  # it replaced it
    said = capsys.readouterr()
    out = said.out + said.err
    assert (f"document 'README' is stored from {a / 'README.md'}, which still exists; "
            f"{b / 'README.md'} has the same id") in out
    assert "Alice leads teamA in Oslo." in _texts(teams / "s")["README"]
    assert main(["index", ".", "--store", "both", "--no-progress"]) == 0  # the common parent
    assert sorted(_texts(teams / "both")) == ["teamA/README", "teamB/README"]


def test_the_same_folder_spelt_otherwise_or_moved_still_replaces(teams: Path) -> None:
    assert main(["index", "teamA", "--store", "s", "--no-progress"]) == 0
    readme = teams / "teamA" / "README.md"
    readme.write_text("# teamA readme\n\nCarol leads teamA now.\n", encoding="utf-8")
    assert main(["index", str(teams / "teamA"), "--store", "s", "--no-progress"]) == 0
    assert "Carol" in _texts(teams / "s")["README"]  # the same file, an absolute path
    os.rename(teams / "teamA", teams / "teamC")  # moved: the stored file is gone
    readme = teams / "teamC" / "README.md"
    readme.write_text("# teamC readme\n\nDan leads teamC.\n", encoding="utf-8")
    assert main(["index", "teamC", "--store", "s", "--no-progress"]) == 0
    assert "Dan leads teamC." in _texts(teams / "s")["README"]


def test_a_relatively_stored_document_is_replaced_as_before(teams: Path,
                                                            monkeypatch: pytest.MonkeyPatch
                                                            ) -> None:
    """A stored relative source names a file only with the directory its run started in:
    ``README.md`` indexed from ``teamA`` is ``teamA/README.md`` from the parent. So it is
    replaced, as before the rule (the rule refused this legitimate re-index)."""
    monkeypatch.chdir(teams / "teamA")
    assert main(["index", ".", "--store", str(teams / "s"), "--no-progress"]) == 0
    monkeypatch.chdir(teams)
    (teams / "teamA" / "README.md").write_text("# teamA readme\n\nErin leads teamA.\n")
    assert main(["index", "teamA", "--store", "s", "--no-progress"]) == 0
    assert "Erin" in _texts(teams / "s")["README"]
