"""Structural probes, grading, the FAKE export-oracle vision model, dual-view selection,
parameter search and the ``vizrag probes``/``vizrag tune`` commands (all offline)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.probe import (
    FAKE_LABEL,
    ExportOracleVisionModel,
    Probe,
    ProbeAnswer,
    ViewSettings,
    ask_probes,
    bridges,
    grade,
    load_view_settings,
    make_probes,
    make_question,
    overlap_core,
    parse_grid,
    parse_ids,
    probe_specs,
    read_jsonl,
    readability_score,
    sample_subgraphs,
    save_view_settings,
    select_dual_view,
    settings_path,
    top_betweenness,
    tune,
    write_jsonl,
)
from hyperviz_core.rag import ProviderError
from hyperviz_core.testing import random_hypergraph

EDGES = {"H1": ["E1", "E2", "E3"], "H2": ["E2", "E3", "E4"], "H3": ["E3", "E4", "E5"],
         "H4": ["E5", "E6"], "H5": ["E6", "E7"], "H6": ["E7", "E8"]}


def test_overlap_core_all_and_most() -> None:
    assert overlap_core(EDGES, ["H1", "H2"], "all") == ["E2", "E3"]
    assert overlap_core(EDGES, ["H1", "H2", "H3"], "all") == ["E3"]
    assert overlap_core(EDGES, ["H1", "H2", "H3"], "most") == ["E2", "E3", "E4"]


def test_bridges_need_members_that_stay_connected_elsewhere() -> None:
    # H1..H3 form a cycle-free chain through shared members; H4 joins it to H5-H6
    assert bridges(EDGES) == ["H3", "H4", "H5"]
    # a hyperedge whose other members only belong to it strands leaves: no bridge
    assert bridges({"H1": ["E1", "E2"], "H2": ["E2", "E3"]}) == []
    assert top_betweenness({"H1": ["E1", "E2"], "H2": ["E2", "E3"]}) == ["H1", "H2"]


def test_questions_are_deterministic_and_match_the_drawing() -> None:
    export = {"hyperedges": [{"id": h, "members": m} for h, m in EDGES.items()]}
    a = make_question(export, "overlap-core", random.Random(3))
    b = make_question(export, "overlap-core", random.Random(3))
    assert a == b and a is not None
    text, named, answer = a
    assert all(h in text for h in named)
    assert answer == overlap_core(EDGES, named, "most" if "at least two" in text else "all")
    bq = make_question(export, "bridge-hyperedge", random.Random(0))
    assert bq is not None and bq[2] == ["H3", "H4", "H5"]
    with pytest.raises(ValueError, match="unknown probe task"):
        make_question(export, "colour", random.Random(0))


def test_grading_exact_and_partial() -> None:
    probes = [Probe(id="a", task="overlap-core", image="a.png", export="a.json", question="?",
                    answer=["E1", "E2"]),
              Probe(id="b", task="bridge-hyperedge", image="b.png", export="b.json",
                    question="?", answer=["H3"]),
              Probe(id="c", task="bridge-hyperedge", image="c.png", export="c.json",
                    question="?", answer=["H1", "H2"])]
    answers = [ProbeAnswer(id="a", answer='{"answer": ["E2", "E1"]}'),
               ProbeAnswer(id="c", answer=["H1", "H4"])]
    r = grade(probes, answers)
    by = {t.task: t for t in r.tasks}
    assert by["overlap-core"].accuracy == 1.0
    assert by["bridge-hyperedge"].accuracy == 0.0 and by["bridge-hyperedge"].missing == 1
    assert by["bridge-hyperedge"].partial == pytest.approx(0.25)  # (0 + 0.5) / 2
    assert r.overall.n == 3 and r.overall.correct == 1
    assert parse_ids("E 12, h3 and E-4", "E") == ["E12", "E4"]


def test_samples_are_deterministic() -> None:
    hg = random_hypergraph(90, 45, seed=3)
    a = sample_subgraphs(hg, 3, seed=5)
    b = sample_subgraphs(hg, 3, seed=5)
    assert [sorted(s.entities) for s in a] == [sorted(s.entities) for s in b]
    assert all(12 <= len(s.entities) <= 30 for s in a)
    for s in a:
        s.check_consistency()


@pytest.fixture(scope="module")
def probe_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("probes")
    make_probes(random_hypergraph(70, 35, seed=6), 4, out, seed=2, progress=False,
                layouts=["set-hier", "ra-cen"])
    return out


def test_make_writes_relative_files_and_exact_truth(probe_dir: Path) -> None:
    lines = [json.loads(x) for x in (probe_dir / "probes.jsonl").read_text().splitlines()]
    assert len(lines) == 4
    for line in lines:
        assert {"id", "task", "image", "export", "question", "hyperedges", "answer"} <= set(line)
        assert (probe_dir / line["image"]).read_bytes()[:4] == b"\x89PNG"
        export = json.loads((probe_dir / line["export"]).read_text())
        assert export["layouts"] == ["set-hier", "ra-cen"]
        drawn = {e["id"] for e in export["entities"]} | {h["id"] for h in export["hyperedges"]}
        assert set(line["answer"]) <= drawn and line["answer"]


def test_fake_model_is_labelled_and_answers_from_the_export(probe_dir: Path) -> None:
    probes = read_jsonl(probe_dir / "probes.jsonl", Probe)
    fake = ExportOracleVisionModel.for_probes(probes, probe_dir)
    assert FAKE_LABEL in fake.model_name and "not the pixels" in FAKE_LABEL
    answers = ask_probes(probes, probe_dir, fake, progress=False)
    assert grade(probes, answers).overall.accuracy == 1.0
    assert fake.calls == len(probes)
    # an image it has no export for gets an empty answer (it cannot see pixels)
    assert json.loads(fake.complete("Which hyperedges?", images=[b"x"])) == {"answer": []}


def test_failing_model_calls_are_errors_not_graded(probe_dir: Path) -> None:
    class Broken:
        model_name = "broken"

        def complete(self, prompt: str, **kw: object) -> str:
            raise ProviderError("HTTP 500: down", status=500)

    probes = read_jsonl(probe_dir / "probes.jsonl", Probe)
    answers = ask_probes(probes, probe_dir, Broken(), progress=False)
    assert all(a.error == "HTTP 500: down" and a.answer == [] for a in answers)
    report = grade(probes, answers)
    assert report.overall.errors == len(probes) and report.overall.correct == 0
    assert report.first_error == "HTTP 500: down"
    assert report.table().splitlines()[0].split()[-1] == "errors"
    # half failed: accuracy is over the answered half, which the fake got right
    fake = ExportOracleVisionModel.for_probes(probes, probe_dir)
    mixed = ask_probes(probes[:2], probe_dir, fake, progress=False) + answers[2:]
    rep = grade(probes, mixed)
    assert (rep.overall.n, rep.overall.errors, rep.overall.accuracy) == (4, 2, 1.0)
    write_jsonl(probe_dir / "failed.jsonl", answers)  # the error survives a round trip
    assert read_jsonl(probe_dir / "failed.jsonl", ProbeAnswer)[0].error == "HTTP 500: down"


def test_a_bug_in_the_model_is_not_recorded_as_a_failed_call(probe_dir: Path) -> None:
    class Buggy:
        model_name = "buggy"

        def complete(self, prompt: str, **kw: object) -> str:
            raise KeyError("oops")

    probes = read_jsonl(probe_dir / "probes.jsonl", Probe)
    with pytest.raises(KeyError):
        ask_probes(probes, probe_dir, Buggy(), progress=False)


def test_readability_score_penalises_errors() -> None:
    clean = {"purity_disk": 1.0, "nodes": 20, "canvas_utilisation": 0.8}
    assert readability_score({**clean, "ambiguous_labels": 1}) < readability_score(clean)
    assert readability_score({**clean, "unnamed_entities": 10}) < readability_score(clean)


def test_select_dual_view_with_the_fake_and_offline() -> None:
    graphs = [random_hypergraph(18, 9, seed=s) for s in (1, 2)]
    offline = select_dual_view(graphs, None, k=2, progress=False)
    assert offline.mode == "readability-metrics" and len(offline.table) == 9
    assert {r.pair for r in offline.table} == {(s, i) for s in ("set-hier", "set-radial",
                                                                "set-force")
                                               for i in ("bi-inc", "ra-cen", "cli-exp")}
    best = max(offline.table, key=lambda r: r.readability)
    assert offline.pair == best.pair
    fake = ExportOracleVisionModel({})
    chosen = select_dual_view(graphs, fake, k=2, progress=False)
    assert chosen.mode == "vision-model" and FAKE_LABEL in chosen.model
    assert all(r.accuracy == 1.0 for r in chosen.table)  # the exact fake is always right
    assert "<- selected" in chosen.table_text()


def test_tune_scores_and_sorts_the_grid() -> None:
    graphs = [random_hypergraph(45, 22, seed=4)]
    grid = parse_grid(["gamma=0.05,0.44", "w_v=10", "w_e=1"])
    res = tune(graphs, None, grid=grid, k=1, progress=False)
    assert [r.params["gamma"] for r in res.table] == [0.44, 0.05]  # pruning less wins
    assert res.table[0].coverage > res.table[1].coverage
    assert res.best["gamma"] == 0.44 and res.mode == "readability-metrics"
    with pytest.raises(ValueError, match="gamma"):
        parse_grid(["gamma=2"])
    with pytest.raises(ValueError, match="unknown grid parameter"):
        parse_grid(["delta=1"])


def test_probe_specs_cycle_tasks() -> None:
    specs = probe_specs(random_hypergraph(60, 30, seed=1), 4, seed=1)
    assert [s[2] for s in specs] == ["overlap-core", "bridge-hyperedge"] * 2


def test_settings_roundtrip(tmp_path: Path) -> None:
    store_file = tmp_path / "vizrag.sqlite"
    assert load_view_settings(store_file) is None
    s = ViewSettings(layouts=("set-hier", "ra-cen"), budget={"gamma": 0.3})
    path = save_view_settings(store_file, s)
    assert path == settings_path(store_file) and path.name == "vizrag.hyperviz.json"
    back = load_view_settings(store_file)
    assert back is not None and back.layouts == ("set-hier", "ra-cen")
    assert back.make_budget().gamma == 0.3
    held = path.with_name("held.json")
    held.hardlink_to(path)  # a reader of the saved file keeps it: the save is a rename
    save_view_settings(store_file, s.model_copy(update={"layouts": ("set-force", "ra-cen")}))
    assert held.read_text() != path.read_text() and "set-hier" in held.read_text()
    path.write_text("{not json")
    with pytest.raises(ValueError, match="bad view settings"):
        load_view_settings(store_file)


def test_cli_probes_make_run_grade(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hif = tmp_path / "g.json"
    hif.write_text(json.dumps(random_hypergraph(50, 25, seed=8).to_hif()))
    out = tmp_path / "p"
    assert main(["probes", "make", "--from", str(hif), "--n", "2", "--out", str(out),
                 "--no-progress"]) == 0
    assert "wrote 2 probes" in capsys.readouterr().err
    assert main(["probes", "run", str(out / "probes.jsonl"), "--llm", "fake",
                 "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "FAKE" in text and "not the pixels" in text and "overall" in text
    assert main(["probes", "grade", str(out / "probes.jsonl"), str(out / "answers.jsonl")]) == 0
    assert "1.000" in capsys.readouterr().out
    other = tmp_path / "other.jsonl"  # answers of another probe set: scored 0 before
    other.write_text(json.dumps({"id": "q9999-x", "answer": "E1"}) + "\n")
    assert main(["probes", "grade", str(out / "probes.jsonl"), str(other)]) == 2
    err = capsys.readouterr().err
    assert "none of the 1 answers is to one of the 2 probes" in err and err.count("\n") == 1
    b = tmp_path / "b"  # another probe set: the same positional ids, other questions
    assert main(["probes", "make", "--from", str(hif), "--n", "2", "--out", str(b),
                 "--seed", "7", "--no-progress"]) == 0
    assert main(["probes", "run", str(b / "probes.jsonl"), "--llm", "fake",
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["probes", "grade", str(out / "probes.jsonl"), str(b / "answers.jsonl")]) == 2
    assert "was to another question" in capsys.readouterr().err
    assert main(["probes", "make", "--from", str(tmp_path / "missing"), "--n", "1",
                 "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vizrag probes make: error:") and err.count("\n") == 1
    (tmp_path / "bad.jsonl").write_text("{}\n")
    assert main(["probes", "grade", str(tmp_path / "bad.jsonl"), str(tmp_path / "bad.jsonl")]
                ) == 2


def test_cli_tune_saves_beside_the_store(tmp_path: Path, data_dir: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    store = tmp_path / "store"
    assert main(["index", str(data_dir / "musique_sample.json"), "--store", str(store),
                 "--no-progress"]) == 0
    capsys.readouterr()
    assert main(["tune", "--from", str(store), "--k", "1", "--grid", "gamma=0.44",
                 "--grid", "w_v=10", "--grid", "w_e=1", "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert "no vision model: scored by readability metrics" in text and "<- selected" in text
    saved = list(store.glob("*.hyperviz.json"))
    assert len(saved) == 1
    settings = ViewSettings.model_validate_json(saved[0].read_text())
    assert settings.budget["gamma"] == 0.44 and len(settings.layouts) == 2


def test_engine_uses_saved_settings_and_bounds_only_the_drawing(tmp_path: Path,
                                                                data_dir: Path) -> None:
    from hyperviz_core.rag import RetrievalConfig, VizRAG

    store = tmp_path / "store"
    assert main(["index", str(data_dir / "musique_sample.json"), "--store", str(store),
                 "--no-progress"]) == 0
    with VizRAG(store, show_progress=False) as rag:
        assert rag.config.layouts == ("set-force", "bi-inc")
        store_file = rag.store.path
    save_view_settings(store_file, ViewSettings(layouts=("set-radial", "ra-cen"),
                                                budget={"gamma": 0.3, "w_v": 10, "w_e": 1}))
    events: list[tuple[str, str, dict[str, object]]] = []
    with VizRAG(store, show_progress=False,
                hooks=[lambda n, ph, pl: events.append((n, ph, pl))]) as rag:
        assert rag.config.layouts == ("set-radial", "ra-cen")
        assert rag.retriever.renderer(True).budget.gamma == 0.3
        res = rag.retrieve("Which band made the live album Maiden Japan?", render=True)
        assert res.bottom_view is not None
    with VizRAG(store, show_progress=False, config=RetrievalConfig()) as rag:
        assert rag.config.layouts == ("set-force", "bi-inc")  # an explicit config wins
    ends = [pl for n, ph, pl in events if n == "bottom_view" and ph == "end"]
    assert ends and ends[0]["render_limit"] == 80
