"""German text: the offline extractor tells names from nouns, which German capitalises too
(stop 60). Before, every noun was a name: "Im Jahr", "Die Regierung", "Hafen", "Wetter"."""

from __future__ import annotations

from pathlib import Path

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract.german import is_german
from hyperviz_core.rag.extract.heuristic import HeuristicExtractor

HAMBURG = ("Im Jahr 2019 besuchte Angela Merkel die Stadt Hamburg. Die Regierung plante dort "
           "einen neuen Hafen. Der Bürgermeister Peter Tschentscher begrüßte die Kanzlerin am "
           "Rathaus. Viele Menschen kamen zur Veranstaltung, obwohl das Wetter schlecht war. "
           "Die Deutsche Bank finanzierte das Projekt mit der Europäischen Investitionsbank.")


def _names(text: str) -> list[str]:
    return [e.name for e in HeuristicExtractor().extract_text(text, "c").entities]


def test_german_nouns_are_no_names() -> None:
    assert _names(HAMBURG) == ["2019", "Angela Merkel", "Hamburg", "Peter Tschentscher",
                               "Deutsche Bank", "Europäische Investitionsbank"]


def test_english_text_reads_as_before() -> None:
    text = ("In 2019 Angela Merkel visited the city of Hamburg. The Government planned a new "
            "Harbour there, and Die Hard was shown at the Rathaus.")
    assert not is_german(frozenset(w for w in text.split() if w.islower()))
    assert _names(text) == ["2019", "Angela Merkel", "Hamburg", "Government",
                            "Harbour", "Die Hard", "Rathaus"]


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def test_german_is_told_by_its_function_words() -> None:
    assert is_german(_words("die stadt und der hafen sind im norden"))
    assert not is_german(_words("der und"))  # two are not enough
    assert not is_german(_words("the city and the harbour of der und ist"))


def test_a_german_store_s_hyperedges_join_names_not_nouns(tmp_path: Path) -> None:
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="hh", text=HAMBURG)])
        res = rag.retrieve("Wann besuchte Angela Merkel Hamburg?", mode="vizrag", render=False)
        names = {e.name for e in rag.store.bottom().entities.values()}
    assert {"Angela Merkel", "Hamburg"} <= {e.name for e in res.entities}
    assert names == {"2019", "Angela Merkel", "Hamburg", "Peter Tschentscher", "Deutsche Bank",
                     "Europäische Investitionsbank"}  # no "Regierung", "Hafen", "Wetter"


def test_an_english_sentence_beside_german_stays_english() -> None:
    """A novel quoting German: its English sentences keep their names (the German
    sentences of the same text lose their nouns)."""
    text = HAMBURG + " “I am Werther,” he said to the Baron at the Rathaus."
    names = _names(text)
    assert {"Werther", "Baron", "Rathaus"} <= set(names)
    assert not {"Regierung", "Hafen", "Wetter"} & set(names)


def test_noun_phrases_after_a_head_noun_are_looked_at_again() -> None:
    from hyperviz_core.rag.extract.german import german_run

    cases = {("Das", "Element", "der", "Lüsternheit"): [],  # two noun phrases, no name
             ("Werk", "des", "Doktor", "Pifpuf"): ["Pifpuf"],
             ("Litteratur", "von", "Leibnitz"): ["Leibnitz"],  # von opens no noun phrase
             ("Hamburg", "Mit"): ["Hamburg"]}  # a trailing function word goes
    for run, name in cases.items():
        start, end = german_run(run, ["die"] if run[0] != "Hamburg" else ["nach"])
        assert list(run[start:end]) == name, run
