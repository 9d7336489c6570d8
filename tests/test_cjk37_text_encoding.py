"""The hint for a file that is not UTF-8 names the legacy encoding its bytes read as
plausible text in (GBK, Big5, Shift_JIS, EUC-JP, EUC-KR, Windows-1251/1253/1255/1256), keeps
Windows-1252 for Western European text, and never guesses Windows-1252 for CJK, Cyrillic,
Hebrew or Arabic bytes (converting those from Windows-1252 gives mojibake)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag import load_documents
from hyperviz_core.rag.index.loaders import LoaderError
from hyperviz_core.rag.index.parts import convert_hint

ZH = "清华大学位于北京市海淀区，是中国著名的高等学府。张伟教授在清华大学计算机系从事超图研究。"
ZH_TW = "清華大學位於北京市海淀區，是中國著名的高等學府。張偉教授在清華大學計算機系從事超圖研究。"
JA = "東京は日本の首都です。東京大学は本郷にあります。"
KO = "서울은 대한민국의 수도입니다. 서울대학교는 관악구에 있습니다."
RU = "Москва — столица России. Лев Толстой написал роман «Война и мир»."
EL = "Η Αθήνα είναι η πρωτεύουσα της Ελλάδας. Ο Παρθενώνας βρίσκεται στην Ακρόπολη."
HE = "ירושלים היא עיר עתיקה. תל אביב היא עיר חדשה על חוף הים."
AR = "القاهرة هي عاصمة مصر. جامعة القاهرة من أقدم الجامعات."

CASES = [
    (ZH, "gbk", "GBK/GB18030", "GB18030"), (ZH, "gb18030", "GBK/GB18030", "GB18030"),
    (ZH_TW, "big5", "Big5", "BIG5"), (JA, "shift_jis", "Shift_JIS", "CP932"),
    (JA, "euc_jp", "EUC-JP", "EUC-JP"), (KO, "euc_kr", "EUC-KR", "CP949"),
    (RU, "cp1251", "Windows-1251 (Cyrillic)", "WINDOWS-1251"),
    (EL, "cp1253", "Windows-1253 (Greek)", "WINDOWS-1253"),
    (HE, "cp1255", "Windows-1255 (Hebrew)", "WINDOWS-1255"),
    (AR, "cp1256", "Windows-1256 (Arabic)", "WINDOWS-1256"),
]


@pytest.mark.parametrize(("text", "codec", "name", "iconv"), CASES)
def test_a_legacy_encoding_is_named(text: str, codec: str, name: str, iconv: str) -> None:
    hint = convert_hint((text + "\n").encode(codec))
    assert hint == (f"it reads as {name} text: convert it to UTF-8, e.g. "
                    f"iconv -f {iconv} -t UTF-8, or read such files so: --encoding {iconv} "
                    "(encoding= in Python)"), hint
    assert "1252" not in hint


@pytest.mark.parametrize("text", [
    "Le café est très bon à Paris. Élodie a acheté des crêpes.",
    "Die Straße in München heißt Hauptstraße. Müller und Söhne GmbH.",
    "El niño comió una manzana. ¿Dónde está la estación?", "Price: 5€ – “quoted”", "café"])
def test_western_text_still_reads_as_windows_1252(text: str) -> None:
    assert convert_hint(text.encode("cp1252")) == (
        "it reads as Windows-1252 (Latin-1) text: convert it to UTF-8, e.g. "
        "iconv -f WINDOWS-1252 -t UTF-8, or read such files so: --encoding WINDOWS-1252 "
        "(encoding= in Python)")


def test_bytes_no_encoding_fits_get_no_guess() -> None:
    hint = convert_hint(ZH_TW.encode("gbk"))  # traditional characters in GBK: no clear reading
    assert hint == ("convert it to UTF-8 from the encoding it was written in, e.g. "
                    "iconv -f ENCODING -t UTF-8 (iconv -l lists the encodings), or read such "
                    "files so: --encoding ENCODING (encoding= in Python)")


def test_the_loader_error_names_the_encoding(tmp_path: Path) -> None:
    p = tmp_path / "gbk.txt"
    p.write_bytes((ZH + "\n").encode("gbk") * 3)
    with pytest.raises(LoaderError) as caught:
        load_documents(p)
    msg = str(caught.value)
    assert "gbk.txt: not UTF-8 text at line 1, byte 0" in msg
    assert "it reads as GBK/GB18030 text: convert it to UTF-8, e.g. iconv -f GB18030" in msg
    assert "WINDOWS-1252" not in msg


def test_a_big_file_cut_inside_a_character_is_still_named(tmp_path: Path) -> None:
    data = ("a" + ZH * 40 + "\n").encode("gbk") * 20  # odd: the 64 KiB sample cuts a character
    with pytest.raises(UnicodeDecodeError):
        data[: 1 << 16].decode("gbk")
    assert convert_hint(data).startswith("it reads as GBK/GB18030 text")
