"""German names, continued (stop 61): names German writes with an article stay names, nouns
with a noun's suffix go without one, and a name's cases are one entity."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_german60 import _names

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract.german import nominative

ECB = ("Die Europäische Zentralbank in Frankfurt erhöhte die Zinsen. Der Präsident der "
       "Europäischen Zentralbank sprach in der Schweiz. Die Verwaltung der Stadt lag am Rhein. "
       "Freiheit und Gerechtigkeit waren wichtig, sagte Peter Müller im Deutschen Bundestag. "
       "Er reiste in die Vereinigten Staaten und in den Iran. Die Gründung der Gesellschaft "
       "war ein Erfolg für die Bewegung.")


def test_a_name_s_cases_are_one_entity_and_listed_names_keep_their_article() -> None:
    # before: "Europäischen Zentralbank" beside "Europäische Zentralbank", no "Schweiz",
    # "Rhein" or "Iran" (taken for nouns after their article), "Freiheit", "Gerechtigkeit"
    assert _names(ECB) == ["Europäische Zentralbank", "Frankfurt", "Schweiz", "Rhein",
                           "Peter Müller", "Deutsche Bundestag", "Vereinigte Staaten", "Iran"]


@pytest.mark.parametrize(("name", "want"), [
    ("Europäischen Investitionsbank", "Europäische Investitionsbank"),
    ("Europäischer Rat", "Europäische Rat"),
    ("Deutsches Museum", "Deutsche Museum"),
    ("Neuen Zürcher Zeitung", "Neue Zürcher Zeitung"),
    ("Roten Kreuz", "Rote Kreuz"),
    ("Heiligen Römischen Reiches", "Heilige Römische Reiches"),  # the noun's case stays
    ("Internationalen Olympischen Komitee", "Internationale Olympische Komitee"),
    ("Baden-Württembergischen Landtag", "Baden-Württembergische Landtag"),
    ("Deutsche Bank", "Deutsche Bank"),
    ("Neues Bremisches Magazin", "Neue Bremische Magazin"),
    # from a novel's German quotations: a noun, a genitive after a noun, a noun before "von"
    ("Predigten von Laurenz Sterne", "Predigten von Laurenz Sterne"),
    ("Lexicon Hamburgischer Schriftsteller", "Lexicon Hamburgischer Schriftsteller"),
    ("Göttingische Anzeigen von gelehrten Sachen", "Göttingische Anzeigen von gelehrten Sachen"),
    ("Englischen von Dr. G. R. Bärmann", "Englischen von Dr. G. R. Bärmann"),
    # not adjectives: names, a town's -er, nouns, a last word
    ("Peter Fischer Verlag", "Peter Fischer Verlag"),
    ("Leipziger Messe", "Leipziger Messe"),
    ("Wuppertaler Schwebebahn", "Wuppertaler Schwebebahn"),
    ("Westfalen Blatt", "Westfalen Blatt"),
    ("Bremen Hafen", "Bremen Hafen"),
    ("Walter Steiner", "Walter Steiner"),
    ("Grünen", "Grünen"),
])
def test_nominative(name: str, want: str) -> None:
    assert nominative(name) == want


def test_english_text_keeps_its_names_as_written() -> None:
    """Only German sentences are changed: English text naming the same things is not."""
    text = ("The Europäischen Zentralbank, said the report, moved its staff to the Schweiz "
            "and the Administration moved the Freedom Foundation to the Rhine.")
    assert _names(text) == ["Europäischen Zentralbank", "Schweiz", "Administration",
                            "Freedom Foundation", "Rhine"]


def test_a_german_question_finds_the_passage_of_a_name_written_in_another_case(
        tmp_path: Path) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="ecb", text=ECB),
                    Document(id="hh", text="Im Jahr 2019 besuchte Angela Merkel die Stadt "
                                           "Hamburg. Die Regierung plante dort einen Hafen.")])
        bottom = rag.store.bottom()
        res = rag.retrieve("Was beschloss die Europäische Zentralbank?", mode="vizrag",
                           render=False)
    ecb = [e for e in bottom.entities.values() if "Zentralbank" in e.name]
    assert [e.name for e in ecb] == ["Europäische Zentralbank"]  # one node for both cases
    assert bottom.degree(next(k for k, e in bottom.entities.items() if e in ecb)) >= 2
    assert res.chunks[0].doc_id == "ecb"
