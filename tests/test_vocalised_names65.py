"""People named after a title in vocalised Hebrew and Arabic (stop 65).

The titled-name engine (``rag.extract.titled``) matched its cues against words as written,
so a text with Hebrew's points (``הַמֶּלֶךְ דָּוִד``), the Bible's cantillation marks too, or
Arabic's harakat (``الرَّئِيسُ``) named nobody: the offline hypergraph of such a corpus was
empty. Words are now read without those marks (``titled._bare``) and the names are given
without them, because they vary with a word's place (``أنورُ``, ``أنورِ``; ``דָּוִ֑ד``,
``דָּוִ֖ד``) while the name does not: one person is one entity. In the Bible's text a
preposition joined by a maqaf ends a name (``אֶל־נָתָ֣ן``), a title may follow one
(``וְאֶל־הַמֶּ֥לֶךְ``), and the sof pasuq ``׃`` ends a sentence and is no part of a word.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract.arabic import ARABIC
from hyperviz_core.rag.extract.hebrew import HEBREW
from hyperviz_core.rag.extract.heuristic import HeuristicExtractor
from hyperviz_core.rag.extract.hindi import HINDI
from hyperviz_core.rag.extract.spans import split_sentences
from hyperviz_core.rag.extract.titled import titled_names
from hyperviz_core.rag.index.chunking import _window_end
from hyperviz_core.rag.sentences import sentences


def _names(sentence: str, cues: object) -> list[str]:
    return [c[3] for c in titled_names(sentence, cues)]  # type: ignore[arg-type]


@pytest.mark.parametrize(("sentence", "names"), [
    ("הַמֶּלֶךְ דָּוִד אָמַר לְנָתָן.", ["דוד"]),  # King David said to Nathan (pointed)
    ("וַיֹּ֥אמֶר הַמֶּ֖לֶךְ דָּוִ֑ד אֶל־נָתָ֣ן", ["דוד"]),  # with cantillation; אֶל־ "to"
    ("וַיֹּ֥אמֶר אֶל־נָתָ֣ן וְאֶל־הַמֶּ֥לֶךְ שְׁלֹמֹֽה׃", ["שלמה"]),  # "and to King Solomon"
    ("וַיֹּ֤אמֶר נָתָן֙ אֶל־הַמֶּ֔לֶךְ כֹּ֛ל אֲשֶׁ֥ר", []),  # "to the king: all that ...": no name
    ("המלך הזה אמר", []),  # "this king said"
    ("וַיָּבֹ֤א הַמֶּ֙לֶךְ֙ דָּוִ֣ד וַיֵּ֣שֶׁב לִפְנֵ֣י יְהוָ֔ה׃", ["דוד"]),  # "... and he sat"
    ("הַמֶּלֶךְ דָּוִד וּשְׁלֹמֹה בְנוֹ", ["דוד"]),  # "King David and Solomon his son"
    ("הַמַּלְכָּה וַשְׁתִּי סֵרְבָה", ["ושתי סרבה"]),  # a name may begin so (Vashti; verb joins)
    ('ד"ר חיים ויצמן נפגש', ["חיים ויצמן"]),  # unpointed, a surname may begin with ו
    ("ראש הממשלה דוד בן-גוריון אמר", ["דוד בן-גוריון"]),  # plain text as before
    ("ראש הממשלה דוד בן־גוריון אמר", ["דוד בן־גוריון"]),  # a name's own maqaf kept
])
def test_hebrew(sentence: str, names: list[str]) -> None:
    assert _names(sentence, HEBREW) == names


@pytest.mark.parametrize(("sentence", "names"), [
    ("قالَ الرَّئِيسُ أَنْوَرُ السَّادَاتُ فِي القاهرة", ["أنور السادات"]),
    ("التقى مناحم بيغن بالرَّئِيسِ أَنْوَرِ السَّادَاتِ فِي كامب ديفيد", ["أنور السادات"]),
    ("قال الرئيس أنور السادات في القاهرة", ["أنور السادات"]),  # as before
])
def test_arabic(sentence: str, names: list[str]) -> None:
    assert _names(sentence, ARABIC) == names


def test_hindi_is_read_as_before() -> None:
    assert _names("प्रधानमंत्री नरेंद्र मोदी ने भाषण दिया।", HINDI) == ["नरेंद्र मोदी"]


#: two verses in the Bible's style (made up): King David said to Nathan the prophet; and
#: King David spoke with Nathan before the LORD (David's mark differs: ֑ and ֣)
VERSES = ("וַיֹּ֥אמֶר הַמֶּ֖לֶךְ דָּוִ֑ד אֶל־נָתָ֣ן הַנָּבִ֔יא׃ "
          "וַיְדַבֵּ֤ר הַמֶּ֙לֶךְ֙ דָּוִ֣ד עִם־נָתָ֔ן לִפְנֵ֣י יְהוָ֔ה׃")


def test_the_sof_pasuq_ends_a_sentence() -> None:
    parts = [VERSES[a:b] for a, b in split_sentences(VERSES)]
    assert len(parts) == 2 and parts[0].endswith("׃") and parts[1].endswith("׃")
    assert len(sentences(VERSES)) == 2
    first = VERSES.index("׃") + 1
    assert VERSES[:_window_end(VERSES, 0, first + 10)].endswith("׃")  # a chunk ends there


def test_one_person_however_pointed_is_one_entity(tmp_path: Path) -> None:
    """David with two different cantillation marks is one entity of two mentions, and a
    question typed without marks ranks his verse first."""
    found = HeuristicExtractor().extract_text(VERSES, "c1")
    david = [e for e in found.entities if e.name == "דוד"]
    assert len(david) == 1 and david[0].metadata["mentions"] == 2
    with VizRAG(tmp_path / "s", show_progress=False) as rag:
        rag.insert([Document(id="a", text="The weather was mild that spring."),
                    Document(id="b", text=VERSES)])
        res = rag.retrieve("מה אמר המלך דוד?", mode="vizrag", render=False)
        assert res.chunks[0].doc_id == "b"
        assert "דוד" in rag.store.bottom().entities
