"""Cyrillic that no guess knows is not read as Latin, and Greek in ISO-8859-7 is told from
Windows-1253 (stop 68).

Before, Cyrillic in ISO-8859-5 or DOS's CP855 inside a page of ASCII markup read as
Turkish or Western European words (``¼ŞáÚÒĞ`` for ``Москва``): the hint named Windows-1254
or Windows-1252 and ``--encoding auto`` indexed that mojibake; on chardet's test files
(``benchmarks/encoding_guess_bench.py``) 21 such files were misread. Now no encoding is
named for them, so the user names theirs. And Greek in ISO-8859-7 read as Windows-1253,
with ``Ά`` as ``¶``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag.index.encoding_hint import convert_hint, guessed_encoding
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


@pytest.mark.parametrize("codec", ["iso8859-5", "cp855", "cp866"])
def test_cyrillic_no_guess_knows_is_not_read_as_latin(tmp_path: Path, codec: str) -> None:
    data = _page(RUSSIAN).encode(codec)
    assert guessed_encoding(data) is None
    assert convert_hint(data).startswith("convert it to UTF-8 from the encoding it was")
    f = tmp_path / "ru.html"
    f.write_bytes(data)
    with pytest.raises(LoaderError, match="no encoding --encoding auto knows reads it"):
        load_documents([f], encoding="auto")
    (doc,) = load_documents([f], encoding=codec)  # named, it reads
    assert RUSSIAN in doc.text


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
