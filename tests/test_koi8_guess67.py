"""KOI8-R among the legacy encodings the hint and ``--encoding auto`` name (stop 67).

Before, Russian text in KOI8-R (old Unix mail and web pages) read as plausible Arabic in
Windows-1256, so the hint named that and ``auto`` indexed Arabic letters; on chardet's test
files (``benchmarks/encoding_guess_bench.py``) 18 of its 20 KOI8-R files were so misread.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag.index.encoding_hint import convert_hint, guessed_encoding
from hyperviz_core.rag.index.loaders import LoaderError, load_documents

RUSSIAN = ("Москва - столица России. В городе живёт более двенадцати миллионов человек, "
           "а Кремль стоит на берегу Москвы-реки.\n")


def test_koi8_r_is_named_and_read(tmp_path: Path) -> None:
    data = RUSSIAN.encode("koi8_r")
    assert guessed_encoding(data) == "koi8-r"
    hint = convert_hint(data)  # the likeliest first (a second may follow: "or ...")
    assert hint.startswith("it reads as KOI8-R (Cyrillic)"), hint
    assert "iconv -f KOI8-R -t UTF-8, or read such files so: --encoding KOI8-R" in hint
    f = tmp_path / "ru.txt"
    f.write_bytes(data)
    with pytest.raises(LoaderError, match="iconv -f KOI8-R -t UTF-8"):
        load_documents([f])
    (doc,) = load_documents([f], encoding="auto")
    assert doc.text == RUSSIAN


@pytest.mark.parametrize(("text", "codec"), [
    (RUSSIAN, "cp1251"),
    ("القاهرة هي عاصمة مصر وأكبر مدنها، وتقع على ضفاف نهر النيل.", "cp1256"),
    ("ירושלים היא בירת ישראל והעיר הגדולה בה.", "cp1255"),
    ("Η Αθήνα είναι η πρωτεύουσα της Ελλάδας.", "cp1253"),
])
def test_the_other_single_byte_scripts_keep_their_guess(text: str, codec: str) -> None:
    assert guessed_encoding(text.encode(codec)) == codec
