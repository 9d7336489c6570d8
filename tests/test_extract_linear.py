"""The offline extractor takes time linear in its input: untrusted documents and questions
("1,1,1,...", a run of dots, thousands of "$1,") once took seconds per 10 KB, growing with
the square of the length (a 32 KB question: 47 s of CPU). The results are unchanged."""

from __future__ import annotations

import time

import pytest

from hyperviz_core.rag.extract import _lexicon
from hyperviz_core.rag.extract.heuristic import HeuristicExtractor
from hyperviz_core.rag.extract.spans import find_spans, split_sentences
from hyperviz_core.rag.types import Chunk


def test_a_quantity_starts_its_run_of_digits() -> None:
    rx = _lexicon._QUANTITY_RES[1]
    assert [m.group(0) for m in rx.finditer("1,200 km and 3,4,5 people; a,5 km")] == [
        "1,200 km", "3,4,5 people", "5 km"]
    assert rx.search("1," * 50) is None


def test_a_sentence_ends_at_its_first_stop() -> None:
    assert split_sentences("It rained... Then Ada left. ") == [(0, 12), (13, 27)]
    starts = [m.start() for m in _lexicon._SENT_END.finditer("Wait...... No.\nYes")]
    assert starts == [4, 13]


@pytest.mark.parametrize("piece", ["1,", "1,,", ".", "$1,", "May 1, ", "1 km "])
def test_extraction_of_a_long_pathological_text_is_fast(piece: str) -> None:
    text = "Ada Lovelace wrote. " + piece * (40_000 // len(piece))
    t0 = time.process_time()
    HeuristicExtractor().extract(Chunk(id="c", doc_id="d", text=text))
    # quadratic, this took from 10 s to minutes; linear, well under 1 s (a 20x margin)
    assert time.process_time() - t0 < 20


def test_overlapping_candidates_keep_the_first_taken() -> None:
    spans = find_spans("In May 1999 Ada Lovelace paid $1,000 for 3 km of road.")
    assert [(s.name, s.type) for s in spans][:3] == [
        ("May 1999", "date"), ("Ada Lovelace", spans[1].type), ("$1,000", "quantity")]
