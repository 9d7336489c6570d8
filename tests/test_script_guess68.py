"""Cyrillic in DOS, ISO or Mac encodings is guessed and never read as Latin, and Greek in
ISO-8859-7 is told from Windows-1253 (stop 68).

Before, Cyrillic in ISO-8859-5 or DOS's CP855 inside a page of ASCII markup read as
Turkish or Western European words (``¼ŞáÚÒĞ`` for ``Москва``): the hint named Windows-1254
or Windows-1252 and ``--encoding auto`` indexed that mojibake; on chardet's test files
(``benchmarks/encoding_guess_bench.py``) 21 such files were misread, and the other 62 of
its DOS, ISO and Mac Cyrillic files got no guess. Greek in ISO-8859-7 read as
Windows-1253, with ``Ά`` as ``¶``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from hyperviz_core.rag.index.encoding_hint import _cyrillic, convert_hint, guessed_encoding
from hyperviz_core.rag.index.loaders import LoaderError, load_documents

RUSSIAN = ("Москва - столица России. В городе живёт более двенадцати миллионов человек, "
           "а Кремль стоит на берегу Москвы-реки.")
GREEK = "Άρης και Άννα: η Αθήνα είναι η πρωτεύουσα της Ελλάδας. Άλλη μια μέρα στην Άνδρο."


def _page(text: str) -> str:
    """``text`` in a page of much ASCII markup, as chardet's test pages are."""
    rows = "\n".join(f'<tr class="row"><td align="left" valign="top">{n}</td>'
                     f'<td><a href="item.html?id={n}">item {n}</a></td></tr>' for n in range(12))
    return f"<html><head><title>News</title></head><body><table>{rows}</table>" \
           f"<p>{text}</p></body></html>\n"


@pytest.mark.parametrize(("codec", "said"), [
    ("iso8859-5", "ISO-8859-5 (Cyrillic)"), ("cp855", "CP855 (DOS Cyrillic)"),
    ("cp866", "CP866 (DOS Cyrillic)")])
def test_dos_and_iso_cyrillic_are_guessed_not_read_as_latin(tmp_path: Path, codec: str,
                                                            said: str) -> None:
    data = _page(RUSSIAN).encode(codec)
    assert guessed_encoding(data) == codec
    assert convert_hint(data).startswith(f"it reads as {said} text")
    f = tmp_path / "ru.html"
    f.write_bytes(data)
    with pytest.raises(LoaderError, match=f"it reads as {re.escape(said)} text"):
        load_documents([f])
    (doc,) = load_documents([f], encoding="auto")
    assert RUSSIAN in doc.text


def test_mac_cyrillic_ukrainian_is_guessed() -> None:
    text = "Київ - столиця України. Місто стоїть на березі Дніпра, і в ньому живе майже " \
           "три мільйони людей."
    assert guessed_encoding(text.encode("mac_cyrillic")) == "mac-cyrillic"
    assert guessed_encoding(text.encode("iso8859-5")) == "iso8859-5"


def test_mac_cyrillic_is_told_from_windows_1251(tmp_path: Path) -> None:
    data = _page(RUSSIAN).encode("mac_cyrillic")  # before: Windows-1251, ‚ городе
    assert guessed_encoding(data) == "mac-cyrillic"
    assert guessed_encoding(_page(RUSSIAN).encode("cp1251")) == "cp1251"
    f = tmp_path / "ru.html"
    f.write_bytes(data)
    (doc,) = load_documents([f], encoding="auto")
    assert RUSSIAN in doc.text


def test_koi8_u_is_told_from_koi8_r(tmp_path: Path) -> None:
    ukrainian = "Київ - столиця України. Місто стоїть на березі Дніпра, і в ньому живе " \
                "майже три мільйони людей. Ґанок."
    assert guessed_encoding(ukrainian.encode("koi8_u")) == "koi8-u"  # before: Ки╖в
    assert guessed_encoding(RUSSIAN.encode("koi8_r")) == "koi8-r"
    f = tmp_path / "uk.txt"
    f.write_bytes(ukrainian.encode("koi8_u"))
    (doc,) = load_documents([f], encoding="auto")
    assert doc.text == ukrainian


def test_johab_korean_is_guessed_from_twenty_hangul() -> None:
    korean = ("서울특별시는 대한민국의 수도이다. 한강이 도시를 가로질러 흐른다. "
              "인구는 약 천만 명이다.")
    assert guessed_encoding(korean.encode("johab")) == "johab"
    assert guessed_encoding(korean.encode("cp949")) == "cp949"
    assert guessed_encoding("上海".encode("gbk")) == "gb18030"  # 2 hangul in Johab: too few
    assert guessed_encoding("臺灣".encode("big5")) == "big5"


def test_text_of_another_script_is_not_guessed_cyrillic() -> None:
    """The last guess's vowel rule: Arabic or Thai read as Cyrillic has few vowels."""
    arabic = "القاهرة هي عاصمة مصر وأكبر مدنها، وتقع على ضفاف نهر النيل."
    assert _cyrillic(_page(arabic).encode("iso8859-6")) == []
    assert _cyrillic(_page(THAI).encode("cp874")) == []
    assert guessed_encoding(_page(arabic).encode("iso8859-6")) == "iso8859-6"


THAI = ("กรุงเทพมหานครเป็นเมืองหลวงของประเทศไทย และเป็นเมืองที่มีประชากรมากที่สุดในประเทศ "
        "“ภาษาไทย” เป็นภาษาราชการ")


def test_thai_is_guessed_as_windows_874(tmp_path: Path) -> None:
    data = _page(THAI).encode("cp874")  # Windows-874: TIS-620 and curly quotes
    assert guessed_encoding(data) == "cp874"
    assert guessed_encoding(THAI[:20].encode("tis-620")) == "cp874"  # before: GB18030
    assert convert_hint(data).startswith("it reads as Windows-874/TIS-620 (Thai) text")
    f = tmp_path / "th.html"
    f.write_bytes(data)
    (doc,) = load_documents([f], encoding="auto")
    assert THAI in doc.text


def test_a_pound_sign_is_not_thai() -> None:  # ฃ in Windows-874, a lone obsolete letter
    assert guessed_encoding(_page("It cost £825, not £2.").encode("cp1252")) == "cp1252"
    marks = "a\xe9b\xe8c \xe0 la".encode("latin-1")  # Thai marks after Latin letters
    assert guessed_encoding(marks) != "cp874"


def test_latin_text_with_markup_is_still_guessed() -> None:
    for text, codec in [("Größe und Straße, ein Café in Zürich.", "cp1252"),
                        ("Zażółć gęślą jaźń, łódź i żółw.", "iso8859-2"),
                        ("Árvíztűrő tükörfúrógép és ő.", "cp1250"),
                        ("Işık, güneş ve dağ; İstanbul.", "cp1254")]:
        assert guessed_encoding(_page(text).encode(codec)) == codec, text


def test_greek_in_iso_8859_7_is_read_so(tmp_path: Path) -> None:
    assert guessed_encoding(GREEK.encode("iso8859-7")) == "iso8859-7"
    assert guessed_encoding(GREEK.encode("cp1253")) == "cp1253"
    assert guessed_encoding("Η Αθήνα είναι η πρωτεύουσα.".encode("iso8859-7")) == "cp1253"
    hint = convert_hint(GREEK.encode("iso8859-7"))
    assert hint.startswith("it reads as ISO-8859-7 (Greek)"), hint
    assert "iconv -f ISO-8859-7 -t UTF-8" in hint
    f = tmp_path / "gr.txt"
    f.write_bytes(GREEK.encode("iso8859-7"))
    (doc,) = load_documents([f], encoding="auto")
    assert doc.text == GREEK  # before: ¶ρης και ¶ννα
