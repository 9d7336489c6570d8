"""Offline keywords leave out the function words of Arabic, Hebrew, Persian, Urdu and Hindi
(stop 65).

``content_words`` dropped English's stop words only, so in these languages the most
frequent words — prepositions, conjunctions, pronouns — led a chunk's theme keywords
(``في, من, على``) and filled a question's keywords (``متى`` "when"). The closed classes of
each language (``rag.function_words``) are now left out, read as retrieval reads the script
(hamza'd alef, the other keyboard's letters, points); English keywords are as before.
"""

from __future__ import annotations

import pytest

from hyperviz_core.rag.extract.heuristic import (
    HeuristicExtractor,
    HeuristicThemeExtractor,
    heuristic_keywords,
)
from hyperviz_core.rag.function_words import FUNCTION_WORDS, function_word
from hyperviz_core.rag.providers.offline import STOPWORDS, content_words
from hyperviz_core.rag.types import Chunk

CASES = [  # text, its content words (in order)
    # Cairo lies on the banks of the Nile in Egypt, which is the largest city
    ("تقع مدينة القاهرة على ضفاف النيل في مصر وهي التي كانت أكبر مدينة",
     ["تقع", "مدينة", "القاهرة", "ضفاف", "النيل", "مصر", "أكبر", "مدينة"]),
    # Jerusalem, which is an old city, was the capital of the kingdom
    ("ירושלים אשר היא עיר עתיקה היתה בירת הממלכה וגם היא", ["ירושלים", "עיר", "עתיקה",
                                                          "בירת", "הממלכה"]),
    # Mr Hassan Rouhani met Dr Mohammad Gharib in Tehran, and this is ...
    ("آقای حسن روحانی در تهران با دکتر محمد قریب دیدار کرد و این است",
     ["آقای", "حسن", "روحانی", "تهران", "دکتر", "محمد", "قریب", "دیدار", "کرد"]),
    # Prime Minister Imran Khan met Mr Asif Zardari and said that this ...
    ("وزیر اعظم عمران خان نے جناب آصف زرداری سے ملاقات کی اور کہا کہ یہ",
     ["وزیر", "اعظم", "عمران", "خان", "جناب", "آصف", "زرداری", "ملاقات", "کہا"]),
    # Prime Minister Narendra Modi gave a speech and said that in India ...
    ("प्रधानमंत्री नरेंद्र मोदी ने भाषण दिया और कहा कि भारत में",
     ["प्रधानमंत्री", "नरेंद्र", "मोदी", "भाषण", "दिया", "कहा", "भारत"]),
]


@pytest.mark.parametrize(("text", "words"), CASES)
def test_function_words_are_no_keywords(text: str, words: list[str]) -> None:
    assert content_words(text) == words


def test_they_are_read_as_retrieval_reads_the_script() -> None:
    """Written with harakat, points, without hamza or with the other keyboard's letters."""
    for word in ("عَلَى", "الى", "إلى", "الذي", "עַל", "אֲשֶׁ֥ר", "اين", "ايشان", "برای", "براي"):
        assert function_word(word), word
    for word in ("القاهرة", "ירושלים", "تهران", "भारत", "Zürich", "the"):
        assert not function_word(word), word


def test_english_keywords_are_as_before() -> None:
    assert all(not w.isascii() for w in FUNCTION_WORDS)
    assert content_words("The capital of Japan is Tokyo, on Honshu.") == [
        "capital", "japan", "tokyo", "honshu"]
    assert not FUNCTION_WORDS & STOPWORDS


def test_a_chunk_theme_and_a_question_keep_their_content() -> None:
    text = ("تقع مدينة القاهرة على ضفاف النيل في مصر، وهي التي كانت عاصمة مصر منذ قرون. "
            "وفي القاهرة يقع الأزهر الذي يعد من أقدم الجامعات في العالم.")
    chunk = Chunk(id="c1", doc_id="d", text=text)
    theme = HeuristicThemeExtractor().theme(chunk, HeuristicExtractor().extract_text(text, "c1"))
    assert theme.keywords and not any(function_word(k) for k in theme.keywords)
    assert theme.keywords[0] in ("القاهرة", "مصر")  # each twice: before, في led them
    assert heuristic_keywords("متى التقى السادات مع بيغن؟") == ["التقى", "السادات", "بيغن"]
    assert heuristic_keywords("מתי נולד דוד בן גוריון?") == ["נולד", "דוד", "גוריון"]
