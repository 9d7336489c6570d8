"""Persian and Urdu typed with Arabic's ``ي``, ``ى`` and ``ك`` (stop 63).

Older sites and Arabic keyboards type Arabic's yeh and kaf for Persian's ``ی`` and ``ک``.
Persian's and Urdu's titles (``آقای``, ``دکتر``) were written with the Persian letters only,
so such text gave no name. The titled-name engine now reads the letters alike
(:attr:`TitleCues.folds`), in a sentence that is still told Persian (or Urdu) by a letter
of its own; the name keeps the letters typed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from test_cjk_offline57 import _found, assert_found_by_name

from hyperviz_core.rag import Document
from hyperviz_core.rag.extract.arabic import ARABIC
from hyperviz_core.rag.extract.persian import ARABIC_TYPED, PERSIAN
from hyperviz_core.rag.extract.titled import TitleCues, titled_names
from hyperviz_core.rag.extract.urdu import URDU

TYPED = str.maketrans("یک", "يك")


@pytest.mark.parametrize(("text", "found"), [
    # آقاي and دكتر typed with Arabic letters; گفت tells the sentence Persian
    ("آقاي حسن روحاني در تهران با دكتر محمد قريب ديدار كرد و گفت.",
     ["حسن روحاني", "محمد قريب"]),
    # a title with the zero-width non-joiner, a country and "former" after it
    ("رئيس‌جمهور سابق آمريكا باراك اوباما به تهران سفر نكرد و گفت.", ["باراك اوباما"]),
    # Arabic's alef maksura for the final ی of the title
    ("آقاى حسن روحانى گفت.", ["حسن روحانى"]),
    # the same letters mixed with Persian ones in one sentence
    ("آقای حسن روحاني با دكتر محمد قریب دیدار کرد.", ["حسن روحاني", "محمد قریب"]),
])
def test_persian_typed_with_arabic_letters(text: str, found: list[str]) -> None:
    assert _found(text) == [(name, "person") for name in found]


def test_urdu_typed_with_arabic_letters() -> None:
    assert _found("وزير اعظم عمران خان نے جناب آصف زرداري سے ملاقات كی۔") == [
        ("عمران خان", "person"), ("آصف زرداري", "person")]


@pytest.mark.parametrize("text", [
    "آقای حسن روحانی در تهران با دکتر محمد قریب دیدار کرد و گفت.",
    "رئیس‌جمهور سابق آمریکا باراک اوباما به تهران سفر نکرد و گفت.",
    "وزیر امور خارجه محمدجواد ظریف و خانم فاطمه معتمدآریا در مراسم پایانی بودند.",
])
def test_the_same_names_however_typed(text: str) -> None:
    """Each typed with Arabic's letters throughout (گ or پ left: Arabic has none)."""
    typed = text.translate(TYPED)
    fold = str.maketrans(ARABIC_TYPED[0::2], ARABIC_TYPED[1::2])
    assert [s[1:4] for s in titled_names(typed, PERSIAN)] == [
        (a, b, n.translate(TYPED)) for a, b, n in
        (s[1:4] for s in titled_names(text, PERSIAN))]
    assert all(typed[s[1]:s[2]] == s[3] and s[3].translate(fold) == text[s[1]:s[2]]
               for s in titled_names(typed, PERSIAN))


def test_a_sentence_with_no_letter_of_persian_s_own_is_still_read_as_arabic() -> None:
    # without پ چ ژ گ (and with ي ك for ی ک) nothing tells it from Arabic: the limit
    typed = "آقاي حسن روحاني در تهران با دكتر محمد قريب ديدار كرد."
    assert titled_names(typed, PERSIAN) == []
    # and Arabic sentences, which have ي and ك everywhere, stay Arabic's alone
    arabic = "التقى الرئيس عبد الفتاح السيسي مع الشيخ محمد بن زايد في القاهرة."
    assert titled_names(arabic, PERSIAN) == [] and titled_names(arabic, URDU) == []
    assert [s[3] for s in titled_names(arabic, ARABIC)] == ["عبد الفتاح السيسي",
                                                            "محمد بن زايد"]


def test_folds_are_pairs_of_letters() -> None:
    cues = TitleCues(word=re.compile("[a-z]+"), cues=frozenset({"ab"}), stops=frozenset(),
                     folds="xa")
    assert [s[3] for s in titled_names("xb cd", cues)] == ["cd"]  # xb read as the title ab
    with pytest.raises(ValueError, match="pairs of letters"):
        TitleCues(word=PERSIAN.word, cues=frozenset(), stops=frozenset(), folds="abc")


def test_an_offline_store_of_persian_typed_with_arabic_letters(tmp_path: Path) -> None:
    docs = [Document(id="a", text="آقاي حسن روحاني در نيويورك با دكتر محمد قريب ديدار كرد "
                                  "و گفت."),
            Document(id="b", text="خانم سيمين دانشور در شيراز به دنيا آمد و پدرش پزشك بود.")]
    # the question typed as the documents are (BM25 and the hashed embeddings read the
    # letters apart)
    assert_found_by_name(tmp_path / "s", docs, "حسن روحاني كجا ديدار كرد؟",
                         {"حسن روحاني", "محمد قريب"})
