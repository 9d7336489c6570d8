"""The disambiguation probe (Table 3): positive vs lexically similar, unconnected distractor.

The FAKE export-oracle vision model used here answers from the export JSON, not the pixels:
it checks the ground truth and the harness, not any model.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from hyperviz_core.eval import make_disambiguation_probes
from hyperviz_core.probe import (
    SIMILARITY_MIN,
    ExportOracleVisionModel,
    Probe,
    ask_probes,
    disambiguation_question,
    disambiguation_triples,
    grade,
    make_probes,
    name_similarity,
    parse_disambiguation,
    read_jsonl,
)
from hyperviz_core.testing import random_hypergraph


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Probe], Path]:
    out = tmp_path_factory.mktemp("dis")
    probes = make_probes(random_hypergraph(40, 20, seed=3), 4, out, seed=1, progress=False,
                         tasks=["disambiguation"])
    return probes, out


def test_name_similarity_is_deterministic_and_symmetric() -> None:
    assert name_similarity("Saint Louis", "St. Louis") == name_similarity("St. Louis",
                                                                          "Saint Louis")
    assert name_similarity("Paris", "paris") == 1.0
    assert name_similarity("Paris", "Rome") < SIMILARITY_MIN
    assert name_similarity("John Smith", "John Smyth") >= SIMILARITY_MIN
    assert name_similarity("", "x") == 0.0


def test_distractor_is_similar_and_unconnected(made: tuple[list[Probe], Path]) -> None:
    probes, out = made
    assert len(probes) == 4 and {p.task for p in probes} == {"disambiguation"}
    for p in probes:
        export = json.loads((out / p.export).read_text(encoding="utf-8"))
        names = {e["id"]: e["name"] for e in export["entities"]}
        edges = [set(e["members"]) for e in export["hyperedges"]]
        parsed = parse_disambiguation(p.question)
        assert parsed is not None
        anchor, cands = parsed
        (positive,) = p.answer
        (distractor,) = [c for c in cands if c != positive]
        assert positive in cands and {anchor, positive, distractor} <= set(names)
        assert any({anchor, positive} <= e for e in edges)          # connected
        assert not any({anchor, distractor} <= e for e in edges)    # structurally unconnected
        assert name_similarity(names[positive], names[distractor]) >= SIMILARITY_MIN


def test_deterministic_by_seed(made: tuple[list[Probe], Path], tmp_path: Path) -> None:
    probes, _ = made
    hg = random_hypergraph(40, 20, seed=3)
    again = make_probes(hg, 4, tmp_path / "a", seed=1, progress=False, tasks=["disambiguation"])
    assert [p.model_dump() for p in again] == [p.model_dump() for p in probes]
    assert read_jsonl(tmp_path / "a" / "probes.jsonl", Probe) == again
    other = make_probes(hg, 4, tmp_path / "b", seed=2, progress=False, tasks=["disambiguation"])
    assert [p.question for p in other] != [p.question for p in probes]


def test_fake_oracle_answers_the_positive(made: tuple[list[Probe], Path]) -> None:
    probes, out = made
    fake = ExportOracleVisionModel.for_probes(probes, out)  # FAKE: reads the exports
    report = grade(probes, ask_probes(probes, out, fake, progress=False))
    assert report.overall.accuracy == 1.0 and report.tasks[0].task == "disambiguation"


def test_anchors_without_a_valid_distractor_are_skipped() -> None:
    edges = {"H1": ["E1", "E2"], "H2": ["E3", "E4"], "H3": ["E1", "E5"]}
    names = {"E1": "Paris", "E2": "Saint Louis", "E3": "Oslo", "E4": "St. Louis",
             "E5": "Kyiv"}
    triples = disambiguation_triples(edges, names)
    # E1-E2 has the distractor E4 and E3-E4 has E2; no name outside their hyperedges looks
    # like "Kyiv" (E1-E5), "Oslo" (E4-E3), "Paris" (E2-E1, E5-E1): those pairs are skipped.
    assert [(t.anchor, t.positive, t.distractor) for t in triples] == [
        ("E1", "E2", "E4"), ("E3", "E4", "E2")]
    for t in triples:
        assert not any(t.anchor in ms and t.distractor in ms for ms in edges.values())
        assert name_similarity(names[t.positive], names[t.distractor]) >= SIMILARITY_MIN
    assert ("E1", "E5") not in {(t.anchor, t.positive) for t in triples}


def test_no_instance_gives_none_and_a_clear_error(tmp_path: Path) -> None:
    one_edge = random_hypergraph(5, 1, seed=0, min_size=5, max_size=5)  # all connected
    export = {"entities": [{"id": f"E{i}", "name": f"Entity {i}"} for i in range(1, 6)],
              "hyperedges": [{"id": "H1", "members": [f"E{i}" for i in range(1, 6)]}]}
    assert disambiguation_question(export, random.Random(0)) is None
    with pytest.raises(ValueError, match="no disambiguation probe could be made"):
        make_disambiguation_probes(one_edge, 2, tmp_path, progress=False)


def test_default_tasks_unchanged(tmp_path: Path) -> None:
    probes = make_probes(random_hypergraph(40, 20, seed=3), 2, tmp_path, seed=1,
                         progress=False)
    assert [p.task for p in probes] == ["overlap-core", "bridge-hyperedge"]
