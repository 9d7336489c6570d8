"""Balanced expected answers of ``make_probes`` / ``vizrag probes make`` (at most a quarter of
a task's probes, rounded up, share one expected answer), ``balance=False`` / ``--no-balance``
reproducing the unbalanced probes, and determinism per seed and across PYTHONHASHSEED."""

from __future__ import annotations

import hashlib
import json
import math
import os
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from hyperviz_core.cli import main
from hyperviz_core.probe import (
    DEFAULT_PAIR,
    Probe,
    best_constant_answers,
    make_probes,
    make_question,
    probe_specs,
    read_jsonl,
)
from hyperviz_core.probe.balance import AnswerBalance, answer_key, task_quotas
from hyperviz_core.probe.make import distinct_probes
from hyperviz_core.testing import random_hypergraph

N = 16
SOURCE = (80, 40, 1)  # unbalanced at seed 0: H1 answers 4 of 8 bridge probes, E1 4 of 8 overlap


def _top_share(probes: list[Probe]) -> dict[str, int]:
    """The count of the most frequent expected answer (as a set) per task."""
    out: dict[str, int] = {}
    for task in sorted({p.task for p in probes}):
        counts = Counter(answer_key(p.answer) for p in probes if p.task == task)
        out[task] = counts.most_common(1)[0][1]
    return out


def _unbalanced(n: int, seed: int = 0) -> list[Probe]:
    specs = probe_specs(random_hypergraph(*SOURCE), n, seed=seed)
    return [p for _, _, p in distinct_probes(specs, DEFAULT_PAIR)]


def _files(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.iterdir())}


def test_balanced_probes_keep_every_answer_under_its_cap(tmp_path: Path) -> None:
    cap = math.ceil(N / 2 / 4)  # 8 probes per task: at most 2 share one answer
    assert max(_top_share(_unbalanced(N)).values()) > cap  # the old sampler exceeds it
    counts: dict[str, int] = {}
    probes = make_probes(random_hypergraph(*SOURCE), N, tmp_path, progress=False,
                         counts=counts)
    assert len(probes) == N and Counter(p.task for p in probes) == {
        "overlap-core": N // 2, "bridge-hyperedge": N // 2}
    assert all(v <= cap for v in _top_share(probes).values())
    ids = [p.id for p in probes]
    assert len(set(ids)) == N and ids == [p.id for p in read_jsonl(tmp_path / "probes.jsonl",
                                                                    Probe)]
    # every sample drawn is a probe or counted as skipped; the cap skipped some here
    assert counts["balance"] > 0 and counts["samples"] == N + counts["balance"] + counts[
        "no_instance"] + counts["duplicates"] > N
    # the chance baseline (best constant answer) drops with the cap
    best = best_constant_answers(probes)
    hits = sum(answer_key(p.answer) == tuple(best[p.task]) for p in probes)
    assert hits <= 2 * cap


def test_balance_is_deterministic_per_seed(tmp_path: Path) -> None:
    hg = random_hypergraph(60, 30, seed=2)
    made = [make_probes(hg, 10, tmp_path / name, seed=seed, progress=False)
            for name, seed in (("a", 3), ("b", 3), ("c", 4))]
    assert made[0] == made[1] and _files(tmp_path / "a") == _files(tmp_path / "b")
    assert [(p.question, p.answer) for p in made[0]] != [(p.question, p.answer)
                                                         for p in made[2]]


def test_balance_false_makes_the_unbalanced_probes_exactly(tmp_path: Path) -> None:
    counts: dict[str, int] = {}
    probes = make_probes(random_hypergraph(*SOURCE), N, tmp_path, progress=False,
                         balance=False, counts=counts)
    assert probes == _unbalanced(N)
    assert counts == {"samples": N, "no_instance": 0, "duplicates": 0}  # no "balance" key
    assert max(_top_share(probes).values()) > math.ceil(N / 2 / 4)


def test_probes_are_byte_identical_across_hash_seeds(tmp_path: Path) -> None:
    code = ("import sys; from hyperviz_core.probe import make_probes; "
            "from hyperviz_core.testing import random_hypergraph; "
            "make_probes(random_hypergraph(60, 30, seed=2), 8, sys.argv[1], seed=1, "
            "progress=False, tasks=['overlap-core', 'bridge-hyperedge', 'disambiguation'])")
    for hs in ("1", "2"):
        env = {**os.environ, "PYTHONHASHSEED": hs}
        subprocess.run([sys.executable, "-c", code, str(tmp_path / hs)], env=env, check=True,
                       capture_output=True, timeout=120)
    assert _files(tmp_path / "1") == _files(tmp_path / "2") != {}


def test_a_preference_picks_the_least_used_answer_of_one_drawing() -> None:
    edges = {"H1": ["E1", "E2", "E3"], "H2": ["E1", "E4"], "H3": ["E2", "E4", "E5"],
             "H4": ["E5", "E6", "E1"]}
    export = {"hyperedges": [{"id": h, "members": ms} for h, ms in edges.items()]}
    plain = make_question(export, "overlap-core", random.Random(0))
    assert plain == make_question(export, "overlap-core", random.Random(0), None)
    assert plain is not None
    # ranking the drawn answer last makes another candidate of the same drawing win
    avoid = answer_key(plain[2])
    other = make_question(export, "overlap-core", random.Random(0),
                          lambda q: answer_key(q[2]) == avoid)
    assert other is not None and answer_key(other[2]) != avoid
    # no preference among candidates: the first drawn, i.e. the unbalanced question
    assert make_question(export, "overlap-core", random.Random(0), lambda q: 0) == plain


def test_a_disambiguation_preference_picks_among_every_triple() -> None:
    ents = {"E1": "Paris", "E2": "Saint Louis", "E3": "Louisville", "E4": "St. Louis",
            "E5": "Lyon", "E6": "Saint Lous"}
    edges = {"H1": ["E1", "E2"], "H2": ["E3", "E4"], "H3": ["E5", "E6"]}
    export = {"entities": [{"id": k, "name": v} for k, v in ents.items()],
              "hyperedges": [{"id": h, "members": ms} for h, ms in edges.items()]}
    answers = {tuple(q[2]) for s in range(40)
               if (q := make_question(export, "disambiguation", random.Random(s))) is not None}
    assert len(answers) > 1
    for want in answers:
        got = make_question(export, "disambiguation", random.Random(0),
                            lambda q, w=want: tuple(q[2]) != w)
        assert got is not None and tuple(got[2]) == want


def test_quotas_and_caps() -> None:
    assert task_quotas(7, ["overlap-core", "bridge-hyperedge", "overlap-core"]) == {
        "overlap-core": 5, "bridge-hyperedge": 2}
    b = AnswerBalance(20, ["overlap-core", "bridge-hyperedge"])
    assert b.cap == {"overlap-core": 3, "bridge-hyperedge": 3}  # ceil(10 / 4)
    assert AnswerBalance(2, ["overlap-core", "bridge-hyperedge"]).cap == {
        "overlap-core": 1, "bridge-hyperedge": 1}
    for _ in range(3):
        b.add("overlap-core", "q", ["E2", "E1"])
    assert not b.allows("overlap-core", ["E1", "E2", "E1"])  # the same answer as a set
    assert b.allows("overlap-core", ["E1"]) and b.allows("bridge-hyperedge", ["E1", "E2"])
    with pytest.raises(ValueError, match="balance share must be a whole number >= 1"):
        AnswerBalance(4, ["overlap-core"], share=0)


def test_a_small_source_still_stops_quickly(tmp_path: Path) -> None:
    counts: dict[str, int] = {}
    make_probes(random_hypergraph(12, 6, seed=3), 300, tmp_path, progress=False,
                counts=counts)
    assert counts["stopped"] == 1 and counts["samples"] < 300


def test_cli_says_how_it_balanced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hif = tmp_path / "g.json"
    hif.write_text(json.dumps(random_hypergraph(*SOURCE).to_hif()), encoding="utf-8")
    common = ["probes", "make", "--from", str(hif), "--n", str(N), "--no-progress"]
    assert main([*common, "--out", str(tmp_path / "b")]) == 0
    out = capsys.readouterr().out
    assert ("balanced answers: no expected answer is shared by more than 2 of a task's "
            "probes") in out
    skipped = int(out.split("); ")[1].split(" ")[0])
    assert skipped > 0 and "skipped for balance" in out
    probes = read_jsonl(tmp_path / "b" / "probes.jsonl", Probe)
    assert len(probes) == N and max(_top_share(probes).values()) <= 2
    assert main([*common, "--out", str(tmp_path / "u"), "--no-balance"]) == 0
    assert "balanced" not in capsys.readouterr().out
    assert read_jsonl(tmp_path / "u" / "probes.jsonl", Probe) == _unbalanced(N)
