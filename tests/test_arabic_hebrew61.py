"""People named after a title in Arabic and Hebrew (stop 61): neither script has capitals,
so the offline extractor found no entity in either before. Hindi's cue (stop 60) now runs
on the same engine (:mod:`hyperviz_core.rag.extract.titled`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_cjk_offline57 import _found, assert_found_by_name

from hyperviz_core.rag import Document
from hyperviz_core.rag.extract.spans import split_sentences
from hyperviz_core.rag.extract.titled import TitleCues, titled_names


@pytest.mark.parametrize(("text", "found"), [
    ("التقى الرئيس عبد الفتاح السيسي مع الملك عبدالله في القاهرة.",
     ["عبد الفتاح السيسي", "عبدالله"]),  # عبد is a particle: not counted, never last
    ("قال الرئيس الأمريكي السابق باراك أوباما إن الاقتصاد تحسن.",  # nationality, "former"
     ["باراك أوباما"]),
    ("استقبل ولي العهد الأمير محمد بن سلمان وزير الخارجية أنتوني بلينكن في الرياض.",
     ["محمد بن سلمان", "أنتوني بلينكن"]),  # titles of two words
    ("التقى رئيس الوزراء نجيب ميقاتي بالرئيس ميشال عون وللرئيس السابق.",
     ["نجيب ميقاتي", "ميشال عون"]),  # ب and ل (which swallows the article's alef) on a title
    ("وقال الشيخ محمد بن راشد ووزير الخارجية عبدالله بن زايد.",
     ["محمد بن راشد", "عبدالله بن زايد"]),  # و on the next title ends the name
    ("كتب الدكتور أحمد زويل كتاباً.", ["أحمد زويل"]),  # two words at most
    ("ذهب الرئيس إلى القاهرة.", []),  # a title with no name
    ("القاهرة عاصمة مصر.", []),  # no title, no name
])
def test_arabic_names_after_a_title(text: str, found: list[str]) -> None:
    assert _found(text) == [(name, "person") for name in found]


@pytest.mark.parametrize(("text", "found"), [
    ("ראש הממשלה בנימין נתניהו אמר כי ההסכם חשוב.", ["בנימין נתניהו"]),
    ("והנשיא יצחק הרצוג ביקר בירושלים.", ["יצחק הרצוג"]),  # ו on the title
    ("לנשיא ראובן ריבלין ולראש הממשלה דוד בן-גוריון.",  # ל in place of the article; ו+ל
     ["ראובן ריבלין", "דוד בן-גוריון"]),
    ("הרב עובדיה יוסף והשר אריה דרעי נפגשו.", ["עובדיה יוסף", "אריה דרעי"]),
    ("נפגשנו עם ד\"ר חיים ויצמן ועם גב' גולדה מאיר.", ["חיים ויצמן", "גולדה מאיר"]),
    ("הוא שר שיר יפה.", []),  # שר alone is also "sings": only השר and שר החוץ ... are titles
    ("ירושלים היא עיר עתיקה.", []),
])
def test_hebrew_names_after_a_title(text: str, found: list[str]) -> None:
    assert _found(text) == [(name, "person") for name in found]


def test_arabic_and_hebrew_sentences_end_before_their_letters() -> None:
    text = "قال الرئيس أنور السادات ذلك. وزار الملك حسين عمان؟ نعم."
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "قال الرئيس أنور السادات ذلك.", "وزار الملك حسين عمان؟", "نعم."]


def test_the_engine_counts_particles_apart_and_never_ends_on_one() -> None:
    cues = TitleCues(word=re.compile(r"[a-z]+"), cues=frozenset({"king", "vice president"}),
                     stops=frozenset({"said"}), most=2, particles=frozenset({"bin", "al"}),
                     skip=frozenset({"former"}))
    names = [s[3] for s in titled_names(
        "the former vice president former jane doe said king ali bin hassan al", cues)]
    assert names == ["jane doe", "ali bin hassan"]


@pytest.mark.parametrize(("docs", "query", "names"), [
    ([Document(id="a", text="التقى الرئيس أنور السادات مع رئيس الوزراء مناحم بيغن."),
      Document(id="b", text="ولد الشاعر نزار قباني في دمشق.")],
     "متى التقى أنور السادات؟", {"أنور السادات", "مناحم بيغن"}),
    ([Document(id="a", text="ראש הממשלה מנחם בגין נפגש עם הנשיא אנואר סאדאת."),
      Document(id="b", text="המשורר חיים נחמן ביאליק נולד באוקראינה.")],
     "מתי נפגש מנחם בגין?", {"מנחם בגין", "אנואר סאדאת"}),
])
def test_an_offline_store_of_arabic_or_hebrew_documents_has_a_hypergraph(
        tmp_path: Path, docs: list[Document], query: str, names: set[str]) -> None:
    assert_found_by_name(tmp_path / "s", docs, query, names)
