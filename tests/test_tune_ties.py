"""``tune`` ties (closest to the Budget defaults; a whole-grid tie keeps the default budget
and saves the selected layouts) and where
``vizrag tune --save`` writes (all offline, readability-scored)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.probe import ViewSettings, tune
from hyperviz_core.rag import HypergraphStore
from hyperviz_core.testing import random_hypergraph

DEFAULTS = {"w_v": 10.0, "w_e": 1.0, "gamma": 0.44, "alpha": 0.6, "beta": 0.4}


def test_ties_go_to_the_point_closest_to_the_budget_defaults() -> None:
    # 20 entities: gamma 0.44 / 0.6 with w_v 5 / 10 all draw everything (same scores),
    # gamma 0.05 prunes; the old ascending tie-break picked w_v=5
    res = tune([random_hypergraph(20, 10, seed=4)], None, k=1, progress=False,
               grid={"w_v": [5, 10], "gamma": [0.05, 0.6, 0.44], "w_e": [1]})
    assert not res.tie
    assert res.best == DEFAULTS
    top = [(r.params["w_v"], r.params["gamma"]) for r in res.table[:4]]
    assert top == [(10, 0.44), (10, 0.6), (5, 0.44), (5, 0.6)]
    assert len({r.scores() for r in res.table[:4]}) == 1


def test_a_grid_that_scores_the_same_everywhere_is_a_tie() -> None:
    small = [random_hypergraph(14, 7, seed=2)]  # drawn whole by every budget
    res = tune(small, None, k=1, progress=False,
               grid={"w_v": [1, 5], "gamma": [0.3, 0.6], "w_e": [1, 3]})
    assert res.tie and len(res.table) == 8
    # closest to the defaults, not the smallest values
    assert (res.best["w_v"], res.best["w_e"], res.best["gamma"]) == (5, 1, 0.3)
    one = tune(small, None, k=1, progress=False,
               grid={"w_v": [1], "gamma": [0.3], "w_e": [1]})
    assert not one.tie  # a single point was chosen by the user, nothing to separate


@pytest.fixture()
def hif(tmp_path: Path) -> Path:
    path = tmp_path / "g.hif.json"
    path.write_text(json.dumps(random_hypergraph(14, 7, seed=2).to_hif()))
    return path


@pytest.fixture()
def store(tmp_path: Path) -> Path:
    path = tmp_path / "store"
    HypergraphStore(path).close()
    return path


def test_cli_tune_keeps_the_default_budget_when_the_grid_ties(
        hif: Path, store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A tied grid tunes no budget (the defaults stay); the selected layouts are saved (a
    tie saved nothing, and the dual-view choice was lost: review 44)."""
    code = main(["tune", "--from", str(hif), "--k", "1", "--grid", "w_v=1,10", "--grid",
                 "w_e=1", "--grid", "gamma=0.3,0.44", "--save", str(store), "--no-progress"])
    assert code == 0
    out = capsys.readouterr().out
    assert "the grid did not separate the settings" in out and "the defaults stay" in out
    assert "best:" not in out
    saved = json.loads((store / "vizrag.hyperviz.json").read_text(encoding="utf-8"))
    assert saved["budget"] == {} and saved["tuning"]["tie"] is True
    assert saved["layouts"] == saved["selection"]["pair"]
    assert not list(store.parent.glob("*.hyperviz.json"))


def test_cli_tune_save_into_a_store_folder(hif: Path, store: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["tune", "--from", str(hif), "--k", "1", "--grid", "w_v=10", "--grid",
                 "w_e=1", "--grid", "gamma=0.3", "--save", str(store), "--no-progress"])
    assert code == 0
    saved = store / "vizrag.hyperviz.json"
    assert f"saved {saved}" in capsys.readouterr().out
    assert not (store.parent / "store.hyperviz.json").exists()
    assert ViewSettings.model_validate_json(saved.read_text()).budget["gamma"] == 0.3
    # what the engine reads for that store
    from hyperviz_core.view_settings import saved_view_settings

    opened = HypergraphStore(store)
    try:
        settings = saved_view_settings(opened)
    finally:
        opened.close()
    assert settings is not None and settings.budget["gamma"] == 0.3


def test_cli_tune_save_to_json_and_refuses_other_targets(
        hif: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["tune", "--from", str(hif), "--k", "1", "--grid", "w_v=10", "--grid", "w_e=1",
            "--grid", "gamma=0.44", "--no-progress"]
    out_json = tmp_path / "settings.json"
    assert main([*args, "--save", str(out_json)]) == 0
    assert ViewSettings.model_validate_json(out_json.read_text()).budget["w_v"] == 10
    capsys.readouterr()
    (tmp_path / "plain").mkdir()
    (tmp_path / "questions.jsonl").write_text('{"id": "q"}\n')  # a file, but no store
    for bad in (tmp_path / "plain", tmp_path / "missing", tmp_path / "questions.jsonl"):
        assert main([*args, "--save", str(bad)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("vizrag tune: error: --save") and err.count("\n") == 1
        assert "neither a VizRAG store" in err
    assert not list(tmp_path.rglob("*.hyperviz.json"))
