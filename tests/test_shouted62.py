"""Sentences written in capitals (stop 62): the offline extractor finds names by their
capitals, so "THE COMPANY SHALL PAY THE CONTRACTOR WITHIN THIRTY DAYS" was one name of eight
words. Words the chunk writes in lower case elsewhere, and stopwords, are read in lower case
there now, and no "of"/"the" joins two names across them."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.model import normalize_key
from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract.heuristic import HeuristicExtractor
from hyperviz_core.rag.extract.shouted import is_shouted, unshouted
from hyperviz_core.rag.extract.spans import find_spans


def _extract(text: str) -> tuple[list[str], int]:
    ex = HeuristicExtractor().extract_text(text, "c")
    return [e.name for e in ex.entities], len(ex.hyperedges)


@pytest.mark.parametrize(("sentence", "shouted"), [
    ("THE COMPANY SHALL PAY THE CONTRACTOR.", True),
    ("MARIE CURIE WORKED IN PARIS.", True),
    ("NASA and the FBI met in Washington.", False),  # acronyms in prose
    ("MARIE CURIE", False),  # a heading of two words: a name
    ("The UN, the EU and NATO met. They AGREED.", False),  # one in five is not enough
])
def test_a_sentence_in_capitals(sentence: str, shouted: bool) -> None:
    assert is_shouted(sentence) is shouted


def test_its_known_words_are_read_in_lower_case_at_the_same_offsets() -> None:
    s = "MARIE CURIE WORKED IN PARIS WITH PIERRE CURIE."
    low = unshouted(s, frozenset({"worked"}), frozenset({"in", "with"}))
    assert low == "MARIE CURIE worked in PARIS with PIERRE CURIE."
    assert low is not None and len(low) == len(s)
    # the names are taken from the sentence as written
    assert [sp.name for sp in find_spans(s, frozenset({"worked"}))] == [
        "MARIE CURIE", "PARIS", "PIERRE CURIE"]


def test_a_chunk_with_a_heading_in_capitals_links_its_names_to_the_prose() -> None:
    text = ("The diary of Samuel Pepys was edited in 1893. He worked at the Admiralty. "
            "DIARY OF SAMUEL PEPYS. MARIE CURIE WORKED IN PARIS WITH PIERRE CURIE.")
    names, edges = _extract(text)
    keys = {normalize_key(n) for n in names}
    # before: "DIARY OF SAMUEL PEPYS" and "MARIE CURIE WORKED IN PARIS WITH PIERRE CURIE"
    # were one name each; now Samuel Pepys is one entity with his prose mention
    assert "samuel pepys" in keys and "diary of samuel pepys" not in keys
    assert {"marie curie", "paris", "pierre curie"} <= keys
    assert not any(len(n.split()) > 3 for n in names)
    assert edges >= 2  # the prose fact and the capitals' fact (Curie, Paris, Curie)


def test_acronyms_and_prose_are_read_as_before() -> None:
    names, _ = _extract("Marie Curie worked in Paris. NASA and the FBI met in Washington. "
                        "The Bank of England raised its rate.")
    assert names == ["Marie Curie", "Paris", "NASA", "FBI", "Washington", "Bank of England"]


def test_a_text_all_in_capitals_keeps_the_runs_between_its_stopwords() -> None:
    """The limit: nothing is written in lower case in it, so the words between its
    stopwords stay names; before, the whole sentence was one."""
    names, _ = _extract("THE COMPANY SHALL PAY THE CONTRACTOR WITHIN THIRTY DAYS.")
    assert names == ["COMPANY", "PAY", "CONTRACTOR", "THIRTY DAYS"]


def test_a_name_from_capitals_yields_to_the_prose_s_within_a_chunk() -> None:
    names, _ = _extract("TRAVELS IN MOROCCO AND ALGERIA. He crossed Morocco on foot.")
    assert "Morocco" in names and "MOROCCO" not in names


@pytest.mark.parametrize("order", ["batch", "caps first", "prose first"])
def test_a_stored_entity_keeps_the_prose_s_name_whatever_the_order(
        tmp_path: Path, order: str) -> None:
    """The store merges mentions in (document, chunk) order keeping the first name; one in
    capitals gives way to a later one that mixes the cases (``preferred_name``), so a title
    page no longer names the entity in every picture ("MOROCCO")."""
    caps = Document(id="a", text="TRAVELS IN MOROCCO AND ALGERIA. The journey began in spring.")
    prose = Document(id="b", text="He crossed Morocco on foot with his guide in May.")
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        if order == "batch":
            rag.insert([caps, prose])
        else:
            for doc in ([caps, prose] if order == "caps first" else [prose, caps]):
                rag.insert([doc])
        entities = rag.store.bottom().entities
    assert entities["morocco"].name == "Morocco"
