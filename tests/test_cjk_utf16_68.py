"""Chinese, Japanese and Korean UTF-16 without a byte-order mark is told as UTF-16 too
(stop 68).

Such text holds few NUL bytes (its line breaks, spaces and digits), and its common U+3000
and U+4E00 put one at the other offsets, so the rule for alphabetic text (NUL bytes at one
parity, in one character of 16 at least) missed it: the file was called binary, and
``--encoding auto`` did not read it. Now NUL bytes in two characters suffice when three
quarters of the others are CJK. And U+FFFF, which LLVM's tests put in a file to make it
binary, is not text.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag.index.loaders import LoaderError, load_documents
from hyperviz_core.rag.index.widetext import reads_as_text, unmarked_utf16

CHINESE = ("# 北京\n\n北京是中华人民共和国的首都，也是全国的政治、文化中心。一条长城在北方延伸，"
           "一座座古老的宫殿坐落在城市中央。\n　　故宫建于一四二〇年。\n")
JAPANESE = ("羅生門\n芥川龍之介\n　或日の暮方の事である。一人の下人が、羅生門の下で雨やみを待つ"
            "ていた。\n　広い門の下には、この男の外に誰もいない。\n")
KOREAN = "서울특별시는 대한민국의 수도이다.\n한강이 도시를 가로질러 흐른다.\n"


@pytest.mark.parametrize("codec", ["utf-16-le", "utf-16-be"])
@pytest.mark.parametrize("text", [CHINESE, JAPANESE, KOREAN])
def test_cjk_utf16_without_a_mark_is_read_with_auto(tmp_path: Path, codec: str,
                                                    text: str) -> None:
    assert unmarked_utf16(text.encode(codec)) == codec
    f = tmp_path / "cjk.txt"
    f.write_bytes(text.encode(codec))
    with pytest.raises(LoaderError, match="text without a byte-order mark"):
        load_documents([f])  # named for what it is (before: "a binary file")
    (doc,) = load_documents([f], encoding="auto")
    plain = tmp_path / "plain" / "cjk.txt"
    plain.parent.mkdir()
    plain.write_text(text, encoding="utf-8")
    (want,) = load_documents([plain])
    assert (doc.title, doc.text) == (want.title, want.text)
    assert text.splitlines()[-1].strip() in doc.text


def test_binary_data_is_still_binary() -> None:
    ideographs = "".join(chr(0x4E00 + 97 * i % 20000) for i in range(300)).encode("utf-16-le")
    assert unmarked_utf16(ideographs[:200] + b"\x00\x00\x01\x00" + ideographs[200:]) is None
    assert unmarked_utf16(bytes(range(256)) * 8) is None
    ascii_ = b"some text\x00 here and\x00 more of it, all lower case letters " * 4
    assert unmarked_utf16(ascii_) is None  # as UTF-16LE: U+6F73 U+656D ..., CJK blocks
    marked = "foo\nbar\uffff\nbaz\n".encode("utf-16-be")  # LLVM's diff-in.bin
    assert unmarked_utf16(marked) is None and not reads_as_text(marked, "utf-16-be")
