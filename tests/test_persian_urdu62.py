"""People named after a title in Persian and Urdu (stop 62): both are written in Arabic
letters without capitals, so the offline extractor found no entity in either before; their
cues run on the titled-name engine (:mod:`hyperviz_core.rag.extract.titled`) only in a
sentence with letters of their own. A listed place after a name's first word ends it
(Hindi and Urdu)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_cjk_offline57 import _found, assert_found_by_name

from hyperviz_core.rag import Document
from hyperviz_core.rag.extract.hindi import HINDI
from hyperviz_core.rag.extract.persian import PERSIAN
from hyperviz_core.rag.extract.spans import split_sentences
from hyperviz_core.rag.extract.titled import TitleCues, titled_names
from hyperviz_core.rag.extract.urdu import URDU


@pytest.mark.parametrize(("text", "found"), [
    ("آقای حسن روحانی در تهران با دکتر محمد قریب دیدار کرد.", ["حسن روحانی", "محمد قریب"]),
    # a country and "former" stay with the title; the verb is the sentence's last word
    ("رئیس‌جمهور سابق آمریکا باراک اوباما به تهران سفر نکرد.", ["باراک اوباما"]),
    # a title written with a space; آیت‌الله with the zero-width non-joiner, العظمی kept
    ("رئیس جمهور مسعود پزشکیان گفت که آیت‌الله العظمی سیستانی را می‌شناسد.",
     ["مسعود پزشکیان", "سیستانی"]),
    ("وزیر امور خارجه محمدجواد ظریف و خانم فاطمه معتمدآریا در مراسم بودند.",
     ["محمدجواد ظریف", "فاطمه معتمدآریا"]),  # a title of three words
    ("دکتر سید محمد خاتمی در یزد به دنیا آمد.", ["سید محمد خاتمی"]),  # سید is not counted
    ("آقای روحانی امروز سخنرانی کرد.", ["روحانی"]),  # a listed word ends the name
    ("وزیر بهداشت گفت.", []),  # a title with no name
    ("تهران پایتخت ایران است.", []),  # no title, no name
])
def test_persian_names_after_a_title(text: str, found: list[str]) -> None:
    assert _found(text) == [(name, "person") for name in found]


@pytest.mark.parametrize(("text", "found"), [
    ("وزیر اعظم عمران خان نے جناب آصف زرداری سے ملاقات کی۔", ["عمران خان", "آصف زرداری"]),
    # a country after the title; صدر مملکت
    ("وزیر اعظم پاکستان نواز شریف اور صدر مملکت عارف علوی نے لاہور کا دورہ کیا۔",
     ["نواز شریف", "عارف علوی"]),
    ("مشہور شاعر فیض احمد فیض کی نظمیں پڑھی گئیں۔", ["فیض احمد فیض"]),  # three words
    ("ڈاکٹر عبد القدیر خان نے ایٹمی پروگرام شروع کیا۔", ["عبد القدیر خان"]),  # a particle
    ("وزیر خارجہ شاہ محمود قریشی نے کہا کہ مذاکرات جاری ہیں۔", ["شاہ محمود قریشی"]),
    ("شیخ رشید نے کہا۔", ["رشید"]),  # not Persian's reading, which has no نے to stop at
    ("لاہور پاکستان کا ایک شہر ہے۔", []),
])
def test_urdu_names_after_a_title(text: str, found: list[str]) -> None:
    assert _found(text) == [(name, "person") for name in found]


def test_each_language_is_read_only_where_its_own_letters_are() -> None:
    # Urdu's letters (ے) keep Persian's cues out of an Urdu sentence, and the absence of
    # Urdu's keeps Urdu's out of a Persian one
    assert titled_names("شیخ رشید نے کہا۔", PERSIAN) == []
    assert titled_names("آقای حسن روحانی گفت.", URDU) == []
    # Arabic text has neither language's letters: Arabic's cues alone read it
    assert titled_names("قال الشيخ محمد بن راشد.", PERSIAN) == []
    assert titled_names("قال الشيخ محمد بن راشد.", URDU) == []
    cues = TitleCues(word=re.compile(r"[a-z]+"), cues=frozenset({"mr"}),
                     stops=frozenset({"said"}), most=2, needs="q", not_with="x")
    assert [s[3] for s in titled_names("mr quinn doe said", cues)] == ["quinn doe"]
    assert titled_names("mr john doe said", cues) == []  # no q
    assert titled_names("mr quinn doe said xyz", cues) == []  # an x


@pytest.mark.parametrize(("text", "cues", "found"), [
    # a country after a name's first word ends it (before: "रामनाथ कोविंद भारत")
    ("श्री रामनाथ कोविंद भारत के राष्ट्रपति थे।", HINDI, ["रामनाथ कोविंद"]),
    ("صدر عارف علوی پاکستان کے صدر تھے۔", URDU, ["عارف علوی"]),
    # a given name may be a place's
    ("श्री भारत भूषण ने कहा।", HINDI, ["भारत भूषण"]),
    # another noun still joins a short name (the limit)
    ("श्री रामनाथ कोविंद वकील थे।", HINDI, ["रामनाथ कोविंद वकील"]),
])
def test_a_place_after_a_name_s_first_word_ends_it(text: str, cues: TitleCues,
                                                     found: list[str]) -> None:
    assert [s[3] for s in titled_names(text, cues)] == found


def test_persian_and_urdu_sentences_end_at_their_stops() -> None:
    text = "آقای حسن روحانی گفت. وزیر اعظم عمران خان نے کہا۔ ٹھیک ہے۔"
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "آقای حسن روحانی گفت.", "وزیر اعظم عمران خان نے کہا۔", "ٹھیک ہے۔"]


@pytest.mark.parametrize(("docs", "query", "names"), [
    ([Document(id="a", text="آقای حسن روحانی در نیویورک با دکتر محمد قریب دیدار کرد."),
      Document(id="b", text="خانم سیمین دانشور در شیراز به دنیا آمد.")],
     "حسن روحانی کجا دیدار کرد؟", {"حسن روحانی", "محمد قریب"}),
    ([Document(id="a", text="وزیر اعظم عمران خان نے جناب آصف زرداری سے ملاقات کی۔"),
      Document(id="b", text="مشہور شاعر فیض احمد فیض سیالکوٹ میں پیدا ہوئے۔")],
     "عمران خان نے کس سے ملاقات کی؟", {"عمران خان", "آصف زرداری"}),
])
def test_an_offline_store_of_persian_or_urdu_documents_has_a_hypergraph(
        tmp_path: Path, docs: list[Document], query: str, names: set[str]) -> None:
    assert_found_by_name(tmp_path / "s", docs, query, names)
