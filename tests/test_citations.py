"""A model's answer cites passages ``[n]`` and drawn ``E#``/``H#``: the engine reads the
citations back (``result.citations``), warns about any its prompt did not give (a made-up
``[7]`` of five passages, an ``H9`` nothing drew), and ``vizrag query`` prints what each
cited ID is (the drawing is the only other key to them) and says the warning once."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from hyperviz_core.rag import VizRAG
from hyperviz_core.rag.citations import Citations, cited_legend, read_citations
from hyperviz_core.rag.result import (
    RankedChunk,
    RetrievalResult,
    RetrievedEntity,
    RetrievedHyperedge,
)

DATA = Path(__file__).parent / "data" / "musique_sample.json"


def _result() -> RetrievalResult:
    chunks = [RankedChunk(chunk_id=f"c{i}", doc_id=f"d{i}", score=1.0, rank=i, text="t")
              for i in (1, 2, 3)]
    ents = [RetrievedEntity(key="ada", name="Ada Lovelace", type="person", visual_id="E1"),
            RetrievedEntity(key="bab", name="Charles Babbage", visual_id="E2"),
            RetrievedEntity(key="eng", name="Engine", layer="top", visual_id="E3")]
    edges = [RetrievedHyperedge(id="r1", members=["ada", "bab", "x"], visual_id="H1",
                                description="They   worked on the\nAnalytical Engine."),
             RetrievedHyperedge(id="t1", kind="theme", members=["ada"], visual_id="H2")]
    return RetrievalResult(query="q", mode="vizrag", chunks=chunks, entities=ents,
                           hyperedges=edges)


def test_passage_numbers_ranges_and_fullwidth_are_read() -> None:
    got = read_citations("A [2]; B [1, 3]; C ［３］ and [1-3]; D [2 and 9]; E [7–8].",
                         _result(), carried=3)
    assert got.passages == [2, 1, 3]
    assert got.unknown == ["[9]", "[7]", "[8]"]


def test_chinese_and_japanese_citation_forms_are_read() -> None:
    """``【n】`` (how Chinese models cite), ``〔n〕``, the ideographic comma and ``至``/``～``
    ranges; a made-up one in such brackets is flagged as in square ones."""
    got = read_citations("答案【1】。见【2】【3】、[1、3]、〔2〕、[1至2]、[2～3]、【9】",
                         _result(), carried=3)
    assert got.passages == [1, 2, 3]
    assert got.unknown == ["[9]"]


def test_only_carried_passages_count() -> None:
    """``max_sources`` cut the prompt to two passages: a third is not one it was given."""
    got = read_citations("It is in [3].", _result(), carried=2)
    assert (got.passages, got.unknown) == ([], ["[3]"])
    assert got.warning() == ("the answer cites [3], which its prompt did not give "
                             "(passages [1]-[2])")


def test_ids_are_the_bottom_drawing_relations_and_entities() -> None:
    """E3 is a top-layer entity and H2 a theme: the answer prompt named neither."""
    got = read_citations("Ada (E1) and Babbage (Ｅ２) worked together (H1, [1]); see E3, H2, "
                         "H9.", _result(), carried=3)
    assert got.ids == ["E1", "E2", "H1"]
    assert got.unknown == ["E3", "H2", "H9"]
    assert got.passages == [1]


def test_ranges_reaching_past_what_was_given_are_made_up() -> None:
    """``E1-E500`` of two drawn entities, or ``[1-99999999999]`` of three passages, were
    read as the known part alone (or, past four digits, not at all): no warning."""
    got = read_citations("See E1-E500 and H1–H9, [1-99999999999], [12345].", _result(),
                         carried=3)
    assert got.ids == ["E1", "E2", "H1"]
    assert got.unknown == ["[99999999999]", "[12345]", "E500", "H9"]
    assert got.passages == [1]
    assert read_citations("E1-E2 (H1) [1-3]", _result(), carried=3).unknown == []


def test_passages_only_prompts_read_no_ids() -> None:
    got = read_citations("The E1 visa [1].", _result(), carried=3, ids=False)
    assert (got.ids, got.unknown, got.warning()) == ([], [], None)


def test_the_legend_says_what_each_cited_id_is() -> None:
    res = _result()
    res.citations = Citations(ids=["H1", "E1", "E2"], carried=3)
    assert cited_legend(res) == [
        "H1 = [Ada Lovelace, Charles Babbage, x]: They worked on the Analytical Engine.",
        "E1 = Ada Lovelace (person)",
        "E2 = Charles Babbage (entity)",
    ]
    assert len(cited_legend(res, width=20)[0]) == 20
    assert cited_legend(RetrievalResult(query="q", mode="naive")) == []


class Cites:
    """A chat model whose answer cites what ``reply`` says."""

    model_name = "cites"

    def __init__(self, reply: str) -> None:
        self.reply = reply

    def complete(self, prompt: str, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        if json_mode:
            return "{}"
        return self.reply


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from hyperviz_core.cli import main

    path = tmp_path_factory.mktemp("cite") / "store"
    assert main(["index", str(DATA), "--store", str(path), "--no-progress"]) == 0
    return path


def test_the_engine_records_citations_and_warns(store: Path,
                                                caplog: pytest.LogCaptureFixture) -> None:
    with VizRAG(store, chat=Cites("Founded by Ada (H1, E1, [1], [2]); also [6] and H99."),
                show_progress=False, top_k=5) as rag, caplog.at_level("WARNING"):
        rag.max_sources = 2
        res = rag.query("Who founded the company?")
    assert res.answer_kind == "llm" and res.citations is not None
    assert res.citations.passages == [1, 2] and res.citations.carried == 2
    drawn = {h.visual_id for h in res.hyperedges if h.kind == "relation"}
    assert ("H1" in res.citations.ids) == ("H1" in drawn)
    assert "[6]" in res.citations.unknown and "H99" in res.citations.unknown
    said = [w for w in res.warnings if w.startswith("the answer cites ")]
    assert len(said) == 1 and "[6]" in said[0] and "(passages [1]-[2])" in said[0]
    assert [r.getMessage() for r in caplog.records
            if r.name == "hyperviz_core.rag.answer"] == said


def test_naive_mode_reads_passages_only(store: Path) -> None:
    with VizRAG(store, chat=Cites("The E1 visa [1]."), mode="naive",
                show_progress=False) as rag:
        res = rag.query("Who founded the company?")
    assert res.citations is not None
    assert (res.citations.passages, res.citations.ids, res.citations.unknown) == ([1], [], [])
    assert not [w for w in res.warnings if "cites" in w]


SCRIPT = """
import sys
from hyperviz_core.cli import main, query

class Cites:
    model_name = "cites"
    def complete(self, prompt, images=(), system=None, json_mode=False):
        if json_mode:
            return "{}"
        drawn = [l.split()[0] for l in prompt.splitlines() if l[:1] in "EH" and l[1:2].isdigit()]
        return "It was Ada (" + ", ".join(drawn[:2]) + ", [1]); see [9]."

query.make_chat = lambda spec, timeout=None, flag="--llm": Cites()
sys.exit(main(["query", "Who founded the company?", "--store", sys.argv[1], "--llm", "x:y",
               *sys.argv[2:]]))
"""


def test_the_cli_prints_the_cited_ids_and_warns_once(store: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(store)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    cited = done.stdout.split("Cited:\n")[1].split("\n\n")[0].splitlines()
    assert len(cited) == 2 and all(line[2] in "EH" and " = " in line for line in cited)
    assert done.stderr.count("the answer cites [9]") == 1, done.stderr


def test_the_cli_json_line_has_the_citations(store: Path) -> None:
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(store), "--json"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = json.loads(done.stdout.splitlines()[-1])
    assert line["citations"]["passages"] == [1] and line["citations"]["unknown"] == ["[9]"]
    assert len(line["citations"]["ids"]) == 2


def test_reading_citations_logs_nothing(caplog: pytest.LogCaptureFixture) -> None:
    """An answer is prose, not a JSON list: a bracket of names is no parse failure."""
    with caplog.at_level("DEBUG"):
        got = read_citations("Ada and Bo [the pair: Ada, Bo] worked (H1) [1].", _result(),
                             carried=3)
    assert (got.ids, got.passages) == (["H1"], [1])
    assert caplog.records == []
