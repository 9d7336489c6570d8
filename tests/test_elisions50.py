"""French and Italian elisions in offline entities (stop 50): the elided article or particle
("l'", "d'", "qu'", "dell'") is a token of its own, so a capitalised word after it is a
name ("l'École" gives "École"; before, the lower-case start hid it), the elisions join a
name's parts like "de" ("Cortina d'Ampezzo"), and a leading "L'" goes as "The" does. A
capitalised "D'" (a surname) and English apostrophes are read as before."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract.heuristic import HeuristicExtractor, heuristic_keywords
from hyperviz_core.rag.extract.spans import find_spans


def _names(text: str) -> list[str]:
    return [s.name for s in find_spans(text)]


@pytest.mark.parametrize(("text", "names"), [
    ("Il a étudié à l'École normale avec d'Alembert.", ["Il", "École", "Alembert"]),
    ("Athos fought d’Artagnan near l’Hôtel de Ville.", ["Athos", "Artagnan", "Hôtel de Ville"]),
    ("Le Conseil d'État siège au Palais-Royal.", ["Le Conseil d'État", "Palais-Royal"]),
    ("Jeanne d'Arc visita l'Hôtel de l'Europe.", ["Jeanne d'Arc", "Hôtel de l'Europe"]),
    ("La Commedia dell'Arte vient d'Italie.", ["La Commedia dell'Arte", "Italie"]),
    ("L'Université de Paris a été fondée par Robert de Sorbon.",
     ["Université de Paris", "Robert de Sorbon"]),
    ("Qu'Einstein l'ait dit, lorsqu'Apple racheta NeXT.", ["Einstein", "Apple", "NeXT"]),
    ("L'homme est parti.", []),
])
def test_french_and_italian_elisions_give_the_name_after_them(
        text: str, names: list[str]) -> None:
    assert _names(text) == names


@pytest.mark.parametrize(("text", "names"), [
    ("Don't ask O'Brien or D'Angelo about rock'n'roll in Des Moines.",
     ["O'Brien", "D'Angelo", "Des Moines"]),
    ("He moved to The Hague and aujourd'hui means today.", ["Hague"]),
    ("Sant'Angelo is near Le Mans.", ["Sant'Angelo", "Le Mans"]),
])
def test_english_apostrophes_and_names_read_as_before(text: str, names: list[str]) -> None:
    assert _names(text) == names


def test_the_extractor_and_the_query_keywords_agree() -> None:
    ext = HeuristicExtractor().extract_text(
        "Robert de Sorbon fonda l’Université de Paris. Elle est près de l'Hôtel de Ville.",
        "c1")
    names = sorted(e.name for e in ext.entities)
    assert "Université de Paris" in names and "Hôtel de Ville" in names
    assert not any(n.lower().startswith(("l'", "l’")) for n in names)
    assert "Université de Paris" in heuristic_keywords("Qui a fondé l'Université de Paris ?")


def test_a_french_question_finds_its_passage_through_the_entity(tmp_path: Path) -> None:
    docs = [Document(id="sorbonne", text="Robert de Sorbon fonda l'Université de Paris en "
                     "1257 avec Guillaume de Saint-Amour."),
            Document(id="ville", text="Le maire travaille à l'Hôtel de Ville depuis 1990 "
                     "avec Anne Hidalgo.")]
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert(docs)
        res = rag.retrieve("Qui a fondé l'Université de Paris ?", render=False)
    assert "université de paris" in res.anchors
    assert res.chunks[0].doc_id == "sorbonne"
