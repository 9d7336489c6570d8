"""An entity or theme hit of the hashed embedder must name a word of its keyword.

Guards: the collision check kept every hit with an exact cosine above 0, so a theme sharing
a single character trigram with a keyword still filled the top view ("Kim Jong-chul" →
*Salzböde* at 0.0022; "Population" → the theme of *Irrigation in India*).
"""

from __future__ import annotations

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.retrieve.begin import state_of
from hyperviz_core.rag.retrieve.collisions import checked_search, names_word

DOCS = [
    Document(id="irr", title="Irrigation",
             text="Irrigation waters the farms of the Indus valley through canals."),
    Document(id="pop", title="Census",
             text="The census counts the population of every district each decade."),
]


@pytest.mark.parametrize(("text", "words", "want"), [
    ("Census: population count", ["population"], True),  # the word itself
    ("Michael Lerchl: german footballer", ["germany"], True),  # spelt like it
    ("Núñez: footballer", ["nunez"], True),  # accents aside
    ("Irrigation: canals", ["population"], False),  # a shared suffix only
    ("Journal of Engineering Education", ["location"], False),  # another first letter
    ("", ["population"], False),
    ("图灵: 图灵在布莱切利园破解了恩尼格玛", ["图灵在哪里工作"], True),  # no spaces: inside
    ("图: 布莱切利园", ["图灵在哪里工作"], False),  # one character is no name
])
def test_names_word(text: str, words: list[str], want: bool) -> None:
    assert names_word(text, words) is want


@pytest.fixture(scope="module")
def rag(tmp_path_factory: pytest.TempPathFactory) -> VizRAG:
    engine = VizRAG(tmp_path_factory.mktemp("words") / "store", show_progress=False)
    engine.insert(DOCS)
    return engine


@pytest.mark.parametrize("space", ["entity", "theme"])
def test_a_hit_sharing_ngrams_only_is_dropped(rag: VizRAG, space: str) -> None:
    state = state_of(rag.retriever, "Population", {"mode": "vizrag"}, lazy=True)
    vectors = rag.embedder.embed(["Population"])
    searched = dict(state.store.search(space, vectors[0], 10))
    texts = (state.corpus.entity_texts(searched) if space == "entity"
             else state.corpus.theme_texts(searched))
    irrigation = [k for k, t in texts.items() if "Irrigation" in t and "population" not in t]
    assert irrigation  # the hashed search finds it (a faint n-gram likeness) ...
    e = rag.embedder
    assert all(e.cosine_to(e.exact_features("Population"), texts[k]) > 0 for k in irrigation)
    (hits,) = checked_search(state, space, ["Population"], vectors, 10)
    assert not set(irrigation) & set(dict(hits))  # ... the check leaves it out
    if space == "theme":  # and keeps the census theme, which names the word
        assert [k for k in dict(hits) if "population" in texts[k]]
