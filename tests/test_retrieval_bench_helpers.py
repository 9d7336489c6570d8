"""Helpers of benchmarks/retrieval_bench.py: ``--triples`` questions and scoring, the
novels' ceiling, the margins, ``--vectors-from`` reuse of stored vectors, the UltraDomain
scoring and both long-document sets end to end (correctness only, no timings)."""

from __future__ import annotations

import json
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from bench_import import bench_module

from hyperviz_core.rag import Document, HashingEmbedder, VizRAG

_bench = bench_module


@pytest.fixture(scope="module")
def mods() -> tuple[ModuleType, ModuleType]:
    return _bench("bench_corpus"), _bench("bench_vectors")


def test_triple_questions_keep_answerable_specific_pairs(
        mods: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    corpus, _ = mods
    triples = {"q1": "(Hank Snow, married, Min Aucoin).",
               "q2": "(Hank Snow, married, Min Aucoin)",  # scored elsewhere: excluded
               "q3": "(Hank Snow, visited, Paris)",        # never in one unit
               "q4": "(Hank Snow, is, He)",                # tail too short
               "q5": "Hank Snow married"}                  # not a triple
    rows = [{"id": i, "question": "?", "evidence_triple": t} for i, t in triples.items()]
    (tmp_path / "questions.jsonl").write_text("\n".join(json.dumps(r) for r in rows))
    texts = ["Hank Snow married Min Aucoin in 1935.", "Paris is far.", "Hank Snow sang."]
    got = corpus.triple_questions(tmp_path, {"q2"}, texts)
    assert [(q["id"], q["head"], q["tail"]) for q in got] == [("q1", "Hank Snow", "Min Aucoin")]
    assert corpus.pair_hit("hank snow", "MIN AUCOIN", texts)
    assert not corpus.pair_hit("Hank Snow", "Paris", texts)  # never in one unit


def test_margins_print_paired_interval_and_counts(
        mods: tuple[ModuleType, ModuleType], capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _ = mods

    def row(name: str, hits: list[float]) -> object:
        return corpus.Row(name, {"hit@5": sum(hits) / len(hits)}, 1.0, 2.0, 1.0,
                          [{"hit@5": h} for h in hits])

    viz = row("vizrag", [1, 1, 1, 0, 1, 0, 1, 1])
    bm25 = row("flat-bm25", [1, 0, 1, 0, 1, 1, 0, 1])
    same = row("flat-dense", [1, 1, 1, 0, 1, 0, 1, 1])
    corpus.print_margins([bm25, same, viz], "hit@5", ("flat-bm25", "flat-dense", "absent"))
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2  # no hyper-lite row, no "absent" baseline
    assert lines[0].startswith("vizrag hit@5: +0.125 vs flat-bm25 (95% CI ")
    assert lines[0].endswith("; above on 2, below on 1 of 8)")
    lo, hi = (float(x) for x in lines[0].split("95% CI ")[1].split(";")[0].split(".."))
    assert -1.0 <= lo < 0.0 < 0.125 < hi <= 1.0  # 2 wins and 1 loss in 8: zero inside
    assert lines[1] == ("vizrag hit@5: +0.000 vs flat-dense (95% CI +0.000..+0.000; "
                        "above on 0, below on 0 of 8)")
    assert corpus.paired_interval([0.5, -0.5, 0.25]) == corpus.paired_interval(
        [0.5, -0.5, 0.25])  # fixed seed


def test_ceiling_counts_answers_some_unit_contains(
        mods: tuple[ModuleType, ModuleType], capsys: pytest.CaptureFixture[str]) -> None:
    corpus, _ = mods
    units = ["Hank Snow was born in Nova Scotia.", "Merlin and King Arthur rode out."]
    answers = ["nova scotia", "Merlin produced King Arthur.", "Scotia. Merlin",  # not across units
               "King Arthur", "Nova", "?"]
    assert corpus.answerable(answers, units) == [True, False, False, True, True, False]
    qs = [{"id": str(i), "answer": a} for i, a in enumerate(answers)]
    corpus.print_ceiling(qs, units, units[:1], split=True)
    out = capsys.readouterr().out
    assert "all 3/6 = 0.500 (in a window: 2)" in out
    halves = [(corpus.half_of(q["id"]), corpus.answerable([q["answer"]], units)[0]) for q in qs]
    for h in ("A", "B"):
        n, c = sum(1 for x, _ in halves if x == h), sum(1 for x, ok in halves if x == h and ok)
        assert f"half {h} {c}/{n} = " in out


def test_stored_vectors_are_reused_by_text_hash(
        mods: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    _, vectors = mods
    emb = HashingEmbedder()
    rag = VizRAG(tmp_path / "old", embedder=emb, show_progress=False)
    rag.insert([Document(id="d1", title="", text="Hank Snow was a Canadian country singer. "
                         "He recorded Hello Love in Nashville.")])
    chunk_text = rag.store.chunks()[0].text
    rag.close()
    stored = vectors.load_vectors([tmp_path / "old"], emb.name, emb.dim)
    assert stored
    wrapped = vectors.StoredVectors(emb, stored)
    out = wrapped.embed([chunk_text, "a text no store holds"])
    assert (wrapped.reused, wrapped.embedded) == (1, 1)
    # the stored (float16) vector of the chunk, and a fresh one for the new text
    assert np.allclose(out[0], emb.embed([chunk_text])[0], atol=1e-3)
    assert np.array_equal(out[1], emb.embed(["a text no store holds"])[0])
    with pytest.raises(SystemExit, match="holds vectors of"):
        vectors.load_vectors([tmp_path / "old"], "another-embedder", emb.dim)


_TOPICS = {
    "volcano": ("Mount Kalvar is a volcano on the island of Serat. Its lava fields cover the "
                "northern valleys, and the observatory at Tembo measures its ash plumes."),
    "violin": ("Antonio Gravelli built violins in Cremona. His workshop varnished spruce "
               "tops with amber resin, and the Gravelli violins are prized by soloists."),
    "railway": ("The Oskar Line railway joins Brevik to Lund. Its steam engines crossed the "
                "Alder viaduct, and the railway company opened a depot at Halden."),
}


def _long_context(topic: str) -> str:
    """A long document about one topic: its sentences and filler, about 4,000 characters."""
    filler = ("The weather that year was mild and the harvest was ordinary. "
              "Letters from the town mention markets, roads and visitors. ")
    return " ".join(f"Part {i}. {_TOPICS[topic]} {filler}" for i in range(14))


def test_contexts_set_loads_and_scores_units(
        mods: tuple[ModuleType, ModuleType], tmp_path: Path) -> None:
    corpus, _ = mods
    (tmp_path / "mix_unique_contexts.json").write_text(json.dumps(["Alpha text.", "Beta."]))
    (tmp_path / "mix_qa.jsonl").write_text("\n".join(json.dumps(r) for r in [
        {"query_id": 7, "question": "What is beta?", "answer": "Beta is the second.",
         "silver_context_idx": 1}]))
    c = corpus.load_corpus(tmp_path, untitled=False)
    assert (c.kind, c.titled, [d.title for d in c.docs]) == ("contexts", False, ["", ""])
    assert c.questions == [{"id": "7", "question": "What is beta?",
                            "answer": "Beta is the second.", "context": 1}]
    q = {"answer": "The violins of Cremona are varnished", "context": 2}
    top = [(2, "Violins in Cremona."), (0, "varnished wood"), (2, "x"), (-1, "y")]
    assert corpus.context_scores(q, top) == {"doc@5": 0.4, "ans@5": 1.0}
    assert corpus.context_scores(q, top[2:]) == {"doc@5": 0.2, "ans@5": 0.0}


def test_long_document_sets_rank_every_row(
        mods: tuple[ModuleType, ModuleType], tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Both long-document paths end to end on a tiny corpus: rows for every method, the
    engine's chunks mapped back to their documents (the right context scores)."""
    bench = _bench("retrieval_bench")
    topics = sorted(_TOPICS)
    mix, novels = tmp_path / "mix", tmp_path / "novels"
    mix.mkdir()
    novels.mkdir()
    (mix / "mix_unique_contexts.json").write_text(json.dumps([_long_context(t)
                                                              for t in topics]))
    asks = {"volcano": ("Which observatory measures the ash plumes of Mount Kalvar?", "Tembo"),
            "violin": ("Where did Antonio Gravelli build his violins?", "Cremona"),
            "railway": ("Which viaduct did the Oskar Line steam engines cross?", "Alder")}
    (mix / "mix_qa.jsonl").write_text("\n".join(json.dumps(
        {"query_id": i, "question": asks[t][0], "answer": f"It is {asks[t][1]}.",
         "silver_context_idx": i}) for i, t in enumerate(topics)))
    (novels / "corpus.json").write_text(json.dumps(
        [{"corpus_name": t, "context": _long_context(t)} for t in topics]))
    (novels / "questions.jsonl").write_text("\n".join(json.dumps(
        {"id": f"q{i}", "source": t, "question": asks[t][0], "answer": asks[t][1],
         "question_type": "Fact Retrieval"}) for i, t in enumerate(topics)))
    assert bench.main(["--data", str(mix), str(novels), "--cache", str(tmp_path / "cache"),
                       "--no-progress", "--misses", "--chunk-spread", "--json"]) == 0
    out = capsys.readouterr().out
    summaries = json.loads(out.strip().splitlines()[-1])
    rows = {(s["dataset"], r["method"]): r for s in summaries for r in s["rows"]}
    for m in ("flat-bm25", "flat-dense", "naive", "hyper-lite", "vizrag", "vizrag-graph"):
        assert 0.0 <= rows[("mix", m)]["doc@5"] <= 1.0
        assert ("novels", m) in rows
    # every question names its own context: the top units come from it, the answer in them
    for m in ("flat-bm25", "vizrag"):
        assert rows[("mix", m)]["doc@5"] >= 0.6
        assert rows[("mix", m)]["ans@5"] == 1.0
        assert rows[("novels", m)]["hit@5"] == 1.0
    assert "vizrag ans@5: " in out and "vizrag doc@5: " in out and "ceiling" in out
    # --misses: every answer is in both top 5s, so the table has its header and no row
    table = out.split("\nmisses: ")[1].splitlines()
    assert table[1].startswith("half  vizrag  flat-bm25  chunks    dom  answer")
    assert table[2].startswith("chunks in vizrag's top 5 for 5 or more of the 3 questions: ")
    # --chunk-spread: 15 stores at chunk sizes around 1200; every answer is hit by both sides
    spread = out.split("\nvizrag and flat-bm25 at 15 chunk sizes around the engine's 1200 ")[1]
    lines = spread.splitlines()
    assert lines[1].split()[1:] == [str(1200 + d) for d in range(-14, 15, 2)]
    assert lines[3].split()[1:] == lines[4].split()[1:] == ["3"] * 15
    assert lines[5].split()[1:] == ["+0"] * 15
    assert lines[6] == ("mean hits: vizrag 3.0, flat-bm25 3.0; vizrag >= flat-bm25 + 0.05 "
                        "at 0 of 15 chunk sizes")
    assert lines[7].startswith("vizrag (mean of the chunk sizes) hit@5 1.000: +0.000 vs")


def test_misses_list_answerable_questions_some_method_misses() -> None:
    """``--misses`` rows: only answerable questions missed by some method, each method's
    rank of its first unit holding the answer over its own units, ordered by vizrag's rank
    with the questions vizrag never reaches last."""
    long = _bench("bench_long")
    chunks = ["Ann met Bo in Rome.", "a b", "c d", "e f", "g h", "i j", "Tembo lives here."]
    wins = ["Ann met", "Bo in Rome.", "Tembo"]
    qs = [{"id": "q1", "question": "Who met Bo?", "answer": "Ann"},
          {"id": "q2", "question": "Where?", "answer": "Rome"},
          {"id": "q3", "question": "Who lives?", "answer": "Tembo"},
          {"id": "q4", "question": "Never?", "answer": "Zed"}]
    ranked = {"vizrag": [[1, 2, 3, 4, 5, 0], [0], [1, 2], [0]],
              "flat-bm25": [[0], [0, 1], [2], [1]]}
    got = long.misses(qs, ranked, {"vizrag": chunks, "flat-bm25": wins}, chunks)
    assert [(m.question, m.ranks, m.holding) for m in got] == [
        ("Who met Bo?", {"vizrag": 6, "flat-bm25": 1}, [0]),
        ("Who lives?", {"vizrag": None, "flat-bm25": 1}, [6])]  # both hit "Where?"; no "Zed"
    assert got[0].half in ("A", "B") and got[0].answer == "Ann"


def test_dominated_counts_chunks_better_on_every_question_word() -> None:
    """A chunk dominates the one holding the answer when its BM25 is at least as high for
    every question word and higher for one: an identical chunk does not, a chunk without
    one of the held chunk's words does not, and the best holding chunk counts."""
    long = _bench("bench_long")
    texts = ["tembo measured the ash plume",    # holds the answer, has "ash" and "plume"
             "tembo measured the ash plume",    # identical: not above on any word
             "kalvar ash plume plume",           # as many tokens, "plume" twice
             "kalvar observed the ash rising",   # no "plume"
             "ash plume",                        # shorter: above on both
             "tembo"]                            # holds the answer, no question word
    toks = long.passage_tokens(texts)
    assert long.dominated("Which ash plume?", [0], toks) == 2  # chunks 2 and 4
    assert long.dominated("Which ash plume?", [5], toks) == 5  # chunks 0-4 all have "ash"
    assert long.dominated("Which ash plume?", [0, 5], toks) == 2  # the least dominated
    assert long.dominated("Which ash plume?", [4], toks) == 0
    assert long.dominated("Which?", [0], toks) == 0  # a word no chunk holds: all tie at 0
    assert long.dominated("The?", [0], toks) == 0  # only stop words: no word to compare


@pytest.mark.parametrize("name", ["bench_corpus", "bench_rank", "bench_long"])
def test_bench_docstring_examples(name: str) -> None:
    import doctest
    result = doctest.testmod(_bench(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} doctest failures in {name}"
    assert result.attempted > 0


def test_no_infer_titles_is_a_store_of_its_own_and_dom_reads_the_titled_passage(
        tmp_path: Path) -> None:
    """``--no-infer-titles`` keys its own store; ``--misses``' ``dom`` counts BM25 over the
    passage the engine ranks (an inferred title + the chunk text)."""
    bench, long = _bench("retrieval_bench"), _bench("bench_long")
    text = "THE BOOK OF ASH. " + "".join(f"Grey ash fell on town {i}. " for i in range(250))
    corpus = _bench("bench_corpus").Corpus(name="book", kind="answers", titled=False,
                                           docs=[Document(id="b", text=text)], texts=[text],
                                           questions=[])
    emb = HashingEmbedder()
    assert bench.cache_key(corpus, emb) != bench.cache_key(corpus, emb, infer_titles=False)
    for infer in (True, False):
        engine, _ = bench.open_engine(corpus, emb, tmp_path / "cache", False, False,
                                      infer_titles=infer)
        try:
            texts = long.passages(engine)
            titled = [t for t in texts if t.startswith("THE BOOK OF ASH\n")]
            assert len(texts) >= 4
            # the opening chunk prints the title itself (counted once); the others get it
            assert len(titled) == (len(texts) - 1 if infer else 0)
            assert sum("BOOK OF ASH" in t for t in texts) == (len(texts) if infer else 1)
        finally:
            engine.close()


def test_chunk_spread_averages_both_sides_over_the_chunkings(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``--chunk-spread``: each store's hits, the margins, and the paired comparison of the
    two sides averaged over the chunkings (a question hit at one chunking of two counts 0.5)."""
    long = _bench("bench_long")
    opened: list[int] = []

    class Store:
        def __init__(self, size: int) -> None:
            self.size = size
            opened.append(size)

        def close(self) -> None:
            pass

    hits = {c: ([1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]) for c in range(86, 115, 2)}
    hits[100] = ([1.0, 1.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0])
    monkeypatch.setattr(long, "spread_hits", lambda corpus, qs, e: (e.size - 10, *hits[e.size]))
    qs = [{"question": f"q{i}", "answer": "a"} for i in range(4)]
    long.print_chunk_spread(None, qs, 100, Store)
    assert opened == list(range(86, 115, 2))
    lines = capsys.readouterr().out.splitlines()
    assert lines[3].split()[8] == "90"  # the window size of the store at chunk size 100
    assert lines[4].split()[1:] == ["2"] * 7 + ["3"] + ["2"] * 7
    assert lines[5].split()[1:] == ["1"] * 7 + ["0"] + ["1"] * 7
    assert lines[6].split()[1:] == ["+1"] * 7 + ["+3"] + ["+1"] * 7
    assert lines[7] == ("mean hits: vizrag 2.1, flat-bm25 0.9; vizrag >= flat-bm25 + 0.05 at "
                        "15 of 15 chunk sizes")
    # per question: vizrag 1, 1, 1/15, 0; flat 14/15, 0, 0, 0
    assert lines[8].startswith("vizrag (mean of the chunk sizes) hit@5 0.517: +0.283 vs "
                               "flat-bm25 (mean of the chunk sizes) (95% CI")
    assert lines[8].endswith("above on 3, below on 0 of 4)")
