"""A list answer is the list the model answered with, not a bracket inside its prose."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from pathlib import Path

import pytest

from hyperviz_core.idmap import IdMap
from hyperviz_core.model import Entity, Hypergraph
from hyperviz_core.rag import RetrievalConfig, VizRAG
from hyperviz_core.rag.extract.heuristic import heuristic_keywords
from hyperviz_core.rag.extract.llm import LLMKeywordExtractor
from hyperviz_core.rag.extract.parse.lists import parse_id_list, parse_json_list
from hyperviz_core.rag.types import Document

PROSE = 'The keywords are "radium" and "Marie Curie" [1]'
LOGGER = "hyperviz_core.rag.extract.parse.extraction"


@pytest.mark.parametrize(
    "text",
    [
        PROSE,
        "The keywords are radium and Marie Curie [radium].",
        'As shown in [1], "radium" and "polonium',  # no list cut short: a citation
        "Radium was found in 1898 [1][2].",
        "Marie Curie, the physicist who shared the Nobel Prize with Pierre Curie, mentioned "
        '["radium"] once in passing.',  # deep inside prose, no lead-in
        '{"note": [1, 2]}',
        "[1]",
    ],
)
def test_bracket_in_prose_is_no_list(text: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert parse_json_list(text) == []
    assert "no JSON list" in caplog.text  # the caller falls back, and the log says why


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('Here are the keywords:\n["radium", "Marie Curie"]', ["radium", "Marie Curie"]),
        ('Keywords: ["radium", "Marie Curie"]', ["radium", "Marie Curie"]),
        ('Sources [1]: ["radium"]', ["radium"]),
        ('["radium", "polonium"]\n\nBoth are elements Curie found [1].', ["radium", "polonium"]),
        ('Sure, see [1].\n```json\n{"keywords": ["radium",]}\n```', ["radium"]),
        ('Here they are: ["radium", "polonium", "Marie Cu', ["radium", "polonium"]),
        ('{"keywords": ["radium", "polo', ["radium"]),
        ("[]", []),
    ],
)
def test_answer_list_found(text: str, expected: list[str]) -> None:
    assert parse_json_list(text) == expected


def test_locate_answer_with_citation_reads_ids_without_list_warning(
    caplog: pytest.LogCaptureFixture,
) -> None:
    ids = IdMap.build(Hypergraph(entities=[Entity(name=n) for n in ("Ada", "Bo", "Cy")]))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        assert parse_id_list("E1 and E3 are relevant [1]", ids) == ["E1", "E3"]
        assert parse_id_list('Relevant: ["E3", "E2"]', ids) == ["E3", "E2"]
    assert "no JSON list" not in caplog.text


class _Prosy:
    model_name = "prosy"

    def __init__(self, keyword_answer: str) -> None:
        self.keyword_answer = keyword_answer

    def complete(self, prompt: str, *, images: Sequence[bytes] = (), system: str | None = None,
                 json_mode: bool = False) -> str:
        return self.keyword_answer if prompt.startswith("Give the search keywords") else "[]"


def test_keyword_extractor_falls_back_on_prose() -> None:
    q = "Who discovered radium?"
    assert LLMKeywordExtractor(_Prosy(PROSE)).keywords(q) == heuristic_keywords(q)


def test_retrieval_keywords_fall_back_on_prose(tmp_path: Path) -> None:
    store = tmp_path / "st"
    VizRAG(store, show_progress=False).insert(
        [Document(id="a", text="Marie Curie discovered radium in Paris with Pierre Curie.")])
    q = "Who discovered radium?"
    res = VizRAG(store, chat=_Prosy(PROSE), show_progress=False).retrieve(q)
    assert "1" not in res.keywords
    assert res.keywords == heuristic_keywords(q, max_terms=RetrievalConfig().max_keywords)
    assert "radium" in res.keywords
    assert ("keyword answer held no list of strings; heuristic keywords used"
            in res.warnings)  # before: keywords ['1'] and no warning
    good = VizRAG(store, chat=_Prosy('["radium", "Marie Curie"]'), show_progress=False)
    found = good.retrieve(q)
    assert found.keywords == ["radium", "Marie Curie"]
    assert not any("keyword answer" in w for w in found.warnings)
