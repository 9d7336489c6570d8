"""Central European and Turkish 8-bit text is told from Western European (stop 67).

Before, every 8-bit Latin text was said to read as Windows-1252, and ``--encoding auto``
read Hungarian ``ő`` as ``õ``, Polish ``ł`` as ``³`` and Turkish ``ı`` as ``ý``: on
chardet's test files (``benchmarks/encoding_guess_bench.py``) 2 of the 45 ISO-8859-2,
Windows-1250, ISO-8859-9 and Windows-1254 files read right (39 wrong, 4 no guess); now 45.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperviz_core.rag.index.encoding_hint import convert_hint, guessed_encoding
from hyperviz_core.rag.index.latin_guess import latin_encoding
from hyperviz_core.rag.index.loaders import LoaderError, load_documents

TEXTS = {
    "hu": "Az árvíztűrő tükörfúrógép a főváros hídjai mellett dolgozik, ő is látta.",
    "cs": "Příliš žluťoučký kůň úpěl ďábelské ódy u řeky Vltavy.",
    "pl": "Zażółć gęślą jaźń: łódź płynie po Wiśle koło Płocka.",
    "tr": "Işık, güneş ve dağ; İstanbul Boğazı'nın kıyısında çay içtik.",
    "de": "Die Größe der Straße überrascht Jürgen täglich.",
    "fr": "Crème brûlée, façade et naïveté: où est le château?",
    "es": "El niño comió piñas en la montaña con su señora.",
    "pt": "As canções e as lições não são más, disse o irmão.",
    "da": "Søren går på æbleøen med sin kæreste i Århus.",
}


@pytest.mark.parametrize(("lang", "codec", "said"), [
    ("hu", "cp1250", "Windows-1250 (Central European)"),
    ("hu", "iso-8859-2", "Windows-1250 (Central European)"),  # the same bytes for these
    ("cs", "cp1250", "Windows-1250 (Central European)"),
    ("pl", "iso-8859-2", "ISO-8859-2 (Central European)"),
    ("pl", "cp1250", "Windows-1250 (Central European)"),
    ("tr", "cp1254", "Windows-1254 (Turkish)"),
    ("de", "cp1252", "Windows-1252 (Latin-1)"),
    ("fr", "cp1252", "Windows-1252 (Latin-1)"),
    ("es", "cp1252", "Windows-1252 (Latin-1)"),
    ("pt", "cp1252", "Windows-1252 (Latin-1)"),
    ("da", "cp1252", "Windows-1252 (Latin-1)"),
])
def test_the_hint_names_the_encoding_that_reads_the_letters(
        lang: str, codec: str, said: str) -> None:
    data = TEXTS[lang].encode(codec)
    assert convert_hint(data).startswith(f"it reads as {said} text: convert it to UTF-8")
    assert data.decode(str(guessed_encoding(data))) == TEXTS[lang]


def test_auto_reads_czech_polish_and_turkish_files(tmp_path: Path) -> None:
    for lang, codec in (("cs", "cp1250"), ("pl", "iso-8859-2"), ("tr", "cp1254")):
        (tmp_path / f"{lang}.txt").write_bytes(TEXTS[lang].encode(codec))
    with pytest.raises(LoaderError, match=r"iconv -f WINDOWS-1250 -t UTF-8"):
        load_documents([tmp_path / "cs.txt"])
    docs = load_documents(tmp_path, encoding="auto")
    assert [d.text for d in docs] == [TEXTS["cs"], TEXTS["pl"], TEXTS["tr"]]


def test_a_byte_windows_1252_leaves_undefined_no_longer_stops_the_guess() -> None:
    data = "Ťažký deň v Žiline".encode("cp1250")  # Ť is 0x8D: no Windows-1252 character
    assert b"\x8d" in data and guessed_encoding(data) == "cp1250"


def test_no_letter_to_tell_by_is_windows_1252() -> None:
    assert latin_encoding("Price: £20 or 25 € — “quoted”".encode("cp1252")) == "cp1252"
    assert latin_encoding(b"\x81\x81") is None  # undefined in each but ISO-8859-2 (C1)


def test_the_framework_loaders_read_with_auto(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes(TEXTS["pl"].encode("iso-8859-2"))
    (tmp_path / "b.txt").write_bytes("Hello there, friend.".encode("utf-16-le"))  # no mark
    want = [TEXTS["pl"], "Hello there, friend."]
    pytest.importorskip("langchain_core")
    from vizrag_langchain import VizRAGLoader

    assert [d.page_content for d in VizRAGLoader(tmp_path, encoding="auto").load()] == want
    pytest.importorskip("llama_index.core")
    from vizrag_llamaindex import VizRAGReader

    assert [d.text for d in VizRAGReader(encoding="auto").load_data(tmp_path)] == want
