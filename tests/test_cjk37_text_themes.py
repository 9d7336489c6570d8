"""Keywords of the offline theme and relation extractor are shown as the text writes them,
lower-cased, not case-folded: ``straße`` (not ``strasse``), Greek final ``ς`` kept."""

from __future__ import annotations

from hyperviz_core.rag.extract.heuristic import HeuristicExtractor, HeuristicThemeExtractor
from hyperviz_core.rag.providers.offline import content_words
from hyperviz_core.rag.types import Chunk


def _theme(text: str) -> tuple[list[str], str, list[list[str]]]:
    chunk = Chunk(id="c", doc_id="d", text=text)
    ex = HeuristicExtractor().extract(chunk)
    theme = HeuristicThemeExtractor().theme(chunk, ex)
    return theme.keywords, theme.theme, [h.keywords for h in ex.hyperedges]


def test_theme_keywords_keep_sharp_s_and_final_sigma() -> None:
    kws, theme, _ = _theme("Die Hauptstraße ist groß. Die HAUPTSTRASSE ist lang. Die "
                           "Hauptstraße ist alt. Große Häuser, große Gärten, große Straße.")
    assert kws[:3] == ["die", "große", "hauptstraße"]  # with HAUPTSTRASSE: 3 times
    assert "hauptstrasse" not in theme and "hauptstraße" in theme
    kws, _, _ = _theme("Η Ελλάδας χώρα. Της Ελλάδας θάλασσα. Στην Ελλάδας πόλεις.")
    assert kws[0] == "ελλάδας"


def test_relation_keywords_keep_the_written_form() -> None:
    _, _, edges = _theme("Anna Schmidt wohnt mit Karl Weber an der großen Straße in Berlin.")
    assert edges == [["wohnt", "mit", "der", "großen"]]


def test_keywords_fold_to_the_content_words() -> None:
    text = "Die Straße, ΟΔΟΣ und Ελλάδας: straße STRASSE Œuvre l’été."
    kws, _, _ = _theme(text)
    assert kws == ["straße", "die", "l'été", "und", "œuvre", "ελλάδας"]
    assert {k.casefold() for k in kws} <= set(content_words(text))
    kws_en, _, _ = _theme("Marie Curie worked in Paris. Curie won prizes in Paris.")
    assert kws_en == ["curie", "paris", "marie", "prizes", "won", "worked"]
