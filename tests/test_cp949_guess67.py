"""Korean text with Hangul beyond EUC-KR's 2,350 syllables is guessed as CP949 (stop 67).

The hint always named ``CP949`` (Windows' superset of EUC-KR) and ``--encoding auto`` read
in it, but the guess was judged by decoding as EUC-KR, which fails on a syllable such as
``똠``: such a file read as GB18030 (chardet's ``CP949`` test file did).
"""

from __future__ import annotations

from hyperviz_core.rag.index.encoding_hint import convert_hint, guessed_encoding
from hyperviz_core.rag.index.legacy import decode_text

KOREAN = "똠방각하는 서울에 산다. 그는 매일 한강을 따라 걷는다."


def test_a_cp949_only_syllable_keeps_the_korean_guess() -> None:
    data = KOREAN.encode("cp949")
    try:
        data.decode("euc_kr")
        raise AssertionError("the text should hold a syllable EUC-KR lacks")
    except UnicodeDecodeError:
        pass
    assert guessed_encoding(data) == "cp949"
    assert convert_hint(data).startswith("it reads as EUC-KR text: convert it to UTF-8, e.g. "
                                         "iconv -f CP949 -t UTF-8")
    assert decode_text(data, "auto") == KOREAN


def test_plain_euc_kr_is_still_read_right() -> None:
    text = "서울은 한국의 수도이다. 부산은 두 번째로 큰 도시이다."
    data = text.encode("euc_kr")
    assert guessed_encoding(data) == "cp949" and decode_text(data, "auto") == text
