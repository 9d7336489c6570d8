"""Audit fixes in the probe and eval harness: overlap questions never ask about hyperedges
that share nothing, whole-word extraction matching on two distinct entities, distinct probes
only, checked gold answers, fenced JSON probe answers, the betweenness question's wording,
Unicode punctuation, ``overlap_core``'s input checks, recall over questions with gold only,
an empty HIF refused and hop groups in numeric order."""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path

import pytest
from bench_import import bench_module

from hyperviz_core.cli import main
from hyperviz_core.eval import (
    Question,
    exact_match,
    extraction_hits,
    load_questions,
    match_entity,
    normalize_answer,
    score_answers,
    table4,
    token_f1,
)
from hyperviz_core.eval.scoring import hop_order
from hyperviz_core.model import Entity, Hyperedge, Hypergraph
from hyperviz_core.probe import (
    DEFAULT_PAIR,
    ExportOracleVisionModel,
    Probe,
    ProbeAnswer,
    grade,
    make_probes,
    make_question,
    overlap_core,
    parse_ids,
    probe_specs,
    read_jsonl,
    render_probe,
    top_betweenness,
)
from hyperviz_core.probe.score import run_specs
from hyperviz_core.rag.types import ChunkExtraction
from hyperviz_core.render import HyperViz
from hyperviz_core.testing import random_hypergraph


def _export(edges: dict[str, list[str]]) -> dict[str, object]:
    return {"hyperedges": [{"id": h, "members": m} for h, m in edges.items()]}


# ------------------------------------------------------------------ 1. overlap fallback
def test_overlap_question_falls_back_to_the_sampled_overlapping_pair() -> None:
    """H1 and H2 share nothing: a three-hyperedge "every one" question with no answer used
    to fall back to the first two (H1, H2) and expect []."""
    edges = {"H1": ["E4", "E5"], "H2": ["E2", "E3"], "H3": ["E3", "E4"]}
    for seed in range(60):
        q = make_question(_export(edges), "overlap-core", random.Random(seed))
        assert q is not None
        _, named, answer = q
        assert answer, (seed, q)
        assert answer == overlap_core(edges, named, "all" if "every one" in q[0] else "most")


# ------------------------------------------------------------------ 2-3. extraction scoring
@pytest.mark.parametrize(("keys", "gold", "want"), [
    (["russia"], "US", None),
    (["chelsea", "hertfordshire"], "He", None),
    (["stuart smith"], "Art", None),
    (["canada"], "Ada", None),
    (["2 goals"], "2", None),                       # floor on both strings
    (["1990"], "19", None),
    (["wolfville"], "Wolfville, Nova Scotia", "wolfville"),
    (["acadia university"], "Acadia University, Nova Scotia", "acadia university"),
    (["acadia university school of music"], "Acadia University",
     "acadia university school of music"),
    (["quiet please"], "Quiet Please!", "quiet please"),
    (["hank snow", "nova scotia"], "Nova Scotia, Canada", "nova scotia"),
    (["us"], "US", "us"),                           # equal keys need no floor
])
def test_match_entity_contains_whole_words_only(keys: list[str], gold: str,
                                                want: str | None) -> None:
    assert match_entity(keys, gold) == want


def test_a_fact_needs_two_distinct_extracted_entities() -> None:
    ext = ChunkExtraction(
        chunk_id="c",
        entities=[Entity(name="Acadia University"), Entity(name="Wolfville")],
        hyperedges=[Hyperedge(members=["acadia university", "wolfville"])])
    # the tail resolves to the head's key: not a fact the extraction joined
    assert extraction_hits(ext, [], [("Acadia University",
                                      "Acadia University School of Music")]) == (0, 0)
    assert extraction_hits(ext, ["Acadia University", "US"],
                           [("Acadia University", "Wolfville")]) == (1, 1)


# ------------------------------------------------------------------ 4. distinct probes
def _keys(out: Path, probes: list[Probe]) -> list[tuple[str, str, str, tuple[str, ...]]]:
    return [(p.task, hashlib.sha256((out / p.image).read_bytes()).hexdigest(), p.question,
             tuple(p.answer)) for p in probes]


def test_make_probes_on_a_small_source_writes_each_probe_once(tmp_path: Path) -> None:
    counts: dict[str, int] = {}
    probes = make_probes(random_hypergraph(20, 8, seed=1), 8, tmp_path, seed=0,
                         progress=False, counts=counts, balance=False)  # n samples exactly
    keys = _keys(tmp_path, probes)
    assert len(set(keys)) == len(keys) < 8
    assert counts == {"samples": 8, "no_instance": 0, "duplicates": 8 - len(probes)}
    assert [p.id for p in read_jsonl(tmp_path / "probes.jsonl", Probe)] == [p.id for p in probes]


def test_run_specs_scores_each_distinct_probe_once() -> None:
    hg = random_hypergraph(20, 8, seed=1)
    specs = probe_specs([hg], 6, seed=0)
    viz = HyperViz()
    made = [render_probe(s, DEFAULT_PAIR, viz) for s in specs]
    distinct = {(p.task, hashlib.sha256(r.png).hexdigest(), p.question, tuple(p.answer))
                for r, p in (m for m in made if m is not None)}
    res = run_specs(specs, DEFAULT_PAIR, viz, None)
    assert res["probes"] == len(distinct) < 6


def test_cli_probes_make_says_how_many_distinct_probes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    hif = tmp_path / "small.json"
    hif.write_text(json.dumps(random_hypergraph(20, 8, seed=1).to_hif()))
    assert main(["probes", "make", "--from", str(hif), "--n", "8", "--out",
                 str(tmp_path / "p"), "--no-progress", "--no-balance"]) == 0
    out, err = capsys.readouterr()
    probes = read_jsonl(tmp_path / "p" / "probes.jsonl", Probe)
    assert f"wrote {len(probes)} probes" in err
    assert f"{len(probes)} distinct probes from 8 samples: {8 - len(probes)} repeated" in out
    assert "drawn whole" in out


# ------------------------------------------------------------------ 5. gold answers
def _questions(tmp_path: Path, *rows: dict[str, object]) -> Path:
    path = tmp_path / "q.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


@pytest.mark.parametrize("bad", [[None], [["x", "y"]], [{"a": 1}], [True], False])
def test_a_gold_that_is_no_string_or_number_names_its_line(tmp_path: Path,
                                                           bad: object) -> None:
    path = _questions(tmp_path, {"id": "a", "question": "Q?", "answers": ["Paris"]},
                      {"id": "b", "question": "Q?", "answers": bad})
    with pytest.raises(ValueError, match=r"q\.jsonl:2: a gold answer must be a non-empty "
                                         r"string or a number"):
        load_questions(path)


def test_a_blank_gold_is_no_gold(tmp_path: Path) -> None:
    path = _questions(tmp_path, {"id": "a", "question": "Q?", "answers": ["Paris", " "]},
                      {"id": "b", "question": "Q?", "answer": ""},
                      {"id": "c", "question": "Q?", "answers": [1998]},
                      {"id": "d", "question": "Q?", "answers": None})
    qs = load_questions(path)
    assert [q.answers for q in qs] == [["Paris"], [], ["1998"], []]
    s = score_answers(qs, {"a": "Paris", "b": "", "c": "1998", "d": "x"})
    assert s.overall.n == 2 and s.overall.em == 1.0


# ------------------------------------------------------------------ 6. fenced probe answers
def test_parse_ids_unwraps_a_fenced_answer_object() -> None:
    bare = '{"answer": ["E2"], "explanation": "E3 is only in H1"}'
    probe = Probe(id="p", task="overlap-core", image="p.png", export="p.json", question="?",
                  answer=["E2"])
    for text in (bare, f"```json\n{bare}\n```", f"Here it is:\n{bare}\nE5 was close."):
        assert parse_ids(text, "E") == ["E2"], text
        assert grade([probe], [ProbeAnswer(id="p", answer=text)]).overall.accuracy == 1.0
    assert parse_ids("E2 and e7, not H1", "E") == ["E2", "E7"]


# ------------------------------------------------------------------ 7. betweenness wording
def test_the_betweenness_question_asks_for_betweenness() -> None:
    edges = {"H1": ["E1", "E2", "E3"], "H2": ["E2", "E3", "E4"], "H3": ["E4", "E1"],
             "H4": ["E1", "E5", "E2"]}
    q = make_question(_export(edges), "bridge-hyperedge", random.Random(0))
    assert q is not None
    text, _, answer = q
    assert answer == top_betweenness(edges) != []
    assert "most shortest paths" not in text
    assert "highest betweenness centrality" in text and "1/k" in text
    oracle = ExportOracleVisionModel({})
    assert oracle._solve(text, _export(edges)) == answer


# ------------------------------------------------------------------ 8. Unicode punctuation
@pytest.mark.parametrize(("text", "want"), [
    ("„Faust“", "faust"), ("‹Faust›", "faust"), ("¡Hola!", "hola"), ("東京。", "東京"),
    ("well\u2010known", "wellknown"), ("well-known", "wellknown"), ("\u22125", "5"),
    ("1990–1995", "1990 1995"), ("Tom — Jerry", "tom jerry"), ("x\u2012y", "x y"),
    ("The Beatles' album!", "beatles album"),
    ("1990-1995", "1990 1995"), ("1990\u20111995", "1990 1995"), ("5\u22123", "5 3"),
    ("pages 10–12, 14", "pages 10 12 14"), ("B-52", "b52"), ("well‐known", "wellknown"),
])
def test_normalize_answer_drops_unicode_punctuation(text: str, want: str) -> None:
    assert normalize_answer(text) == want


def test_unicode_quotes_do_not_cost_a_match() -> None:
    assert exact_match("„Faust“", ["Faust"]) == 1.0
    assert exact_match("1990-1995", ["1990–1995"]) == 1.0  # a range, hyphen or en dash
    assert token_f1("¡Hola! amigo", "hola amigo") == 1.0


# ------------------------------------------------------------------ 9. overlap_core input
def test_overlap_core_refuses_an_unknown_mode_or_hyperedge() -> None:
    edges = {"H1": ["E1", "E2", "E3"], "H2": ["E2", "E3", "E4"], "H3": ["E3"]}
    with pytest.raises(ValueError, match=r"unknown hyperedge.*H9"):
        overlap_core(edges, ["H1", "H9"], "all")
    for mode in ("any", "ALL"):
        with pytest.raises(ValueError, match=f"unknown mode '{mode}'"):
            overlap_core(edges, ["H1", "H2", "H3"], mode)  # type: ignore[arg-type]
    assert overlap_core(edges, ["H1", "H2", "H3"], "most") == ["E2", "E3"]


# ------------------------------------------------------------------ 10. recall without gold
def test_recall_leaves_out_questions_without_gold_passages() -> None:
    rb, corpus = bench_module("retrieval_bench"), bench_module("bench_corpus")
    score = rb.passage_scorer(["A\nParis is in France.", "B\nRome is in Italy.", "C\nBerlin."])
    per_q = [score({"gold_corpus_idx": [0], "answers": ["Paris"], "hops": 2}, [0, 1, 2]),
             score({"gold_corpus_idx": [], "answers": [], "hops": 2}, [0, 1, 2])]
    assert per_q[1] == {}
    assert corpus.mean_scores(per_q) == {"2hop": 1.0, "AiC@5": 1.0, "R@2": 1.0, "R@5": 1.0}
    with pytest.raises(ValueError, match="without gold passages"):
        rb.recall([0, 1], [], 5)
    assert rb.without_gold([{"gold_corpus_idx": [1], "answers": ["x"]},
                            {"gold_corpus_idx": [], "answers": [" "]}]) == (1, 1)


def test_retrieval_bench_prints_how_many_questions_it_left_out(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rb = bench_module("retrieval_bench")
    data = tmp_path / "tiny"
    data.mkdir()
    passages = [{"title": "Serat", "text": "Serat is an island whose capital is Tembo."},
                {"title": "Cremona", "text": "Antonio Gravelli built violins in Cremona."}]
    questions = [{"id": "a", "question": "Which island has Tembo as capital?",
                  "answers": ["Serat"], "gold_corpus_idx": [0], "hops": 2},
                 {"id": "b", "question": "Where did Gravelli build violins?",
                  "answers": ["Cremona"], "gold_corpus_idx": [], "hops": 2}]
    (data / "corpus.json").write_text(json.dumps(passages))
    (data / "queries_dev.jsonl").write_text("\n".join(json.dumps(q) for q in questions))
    assert rb.main(["--data", str(data), "--cache", str(tmp_path / "cache"), "--quick",
                    "--no-progress", "--json"]) == 0
    out = capsys.readouterr().out
    assert "left out: 1 question(s) without gold passages (recall columns), 0 without" in out
    rows = json.loads(out.strip().splitlines()[-1])[0]["rows"]
    flat = next(r for r in rows if r["method"] == "flat-bm25")
    assert flat["R@5"] == 1.0  # over question a only


# ------------------------------------------------------------------ 11. empty HIF
def test_cli_probes_make_refuses_an_empty_hif_or_no_probe(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.json"
    empty.write_text(json.dumps(Hypergraph().to_hif()))
    assert main(["probes", "make", "--from", str(empty), "--out", str(tmp_path / "o"),
                 "--n", "3", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("vizrag probes make: error:") and "the hypergraph is empty" in err
    lone = tmp_path / "lone.json"
    lone.write_text(json.dumps(Hypergraph(entities=[Entity(name="Ann")]).to_hif()))
    assert main(["probes", "make", "--from", str(lone), "--out", str(tmp_path / "o"),
                 "--n", "3", "--no-progress"]) == 2
    assert "no probe of task(s) overlap-core, bridge-hyperedge" in capsys.readouterr().err


# ------------------------------------------------------------------ 12. hop order
def test_hop_groups_sort_numerically_unknown_last() -> None:
    qs = [Question(id="2hop__a", question="?", answers=["x"]),
          Question(id="10hop__b", question="?", answers=["y"]),
          Question(id="c", question="?", answers=["w"]),
          Question(id="3hop1__c", question="?", answers=["z"])]
    assert list(score_answers(qs, {"2hop__a": "x"}).by_hops) == ["2", "3", "10", "?"]
    headers = table4(qs, {"s": {"2hop__a": "x"}}).headers
    assert [h for h in headers if h.endswith(" EM")] == [
        "2-hop EM", "3-hop EM", "10-hop EM", "unknown-hop EM", "all EM"]
    assert sorted(["10", "?", "2"], key=hop_order) == ["2", "10", "?"]
