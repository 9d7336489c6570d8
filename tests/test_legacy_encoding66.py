"""Text files that are not UTF-8, read in the encoding the user names (stop 66).

``encoding=`` (``vizrag index --encoding``, ``load_documents``, the framework loaders): a
text file that is not UTF-8 is read in it from the line holding its first byte that is not;
UTF-8 files are read as before (:mod:`hyperviz_core.rag.index.legacy`).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hyperviz_core.rag.index.handoff import FileOptions
from hyperviz_core.rag.index.legacy import decode_text, fallback_encoding
from hyperviz_core.rag.index.loaders import LoaderError, file_documents, load_documents
from hyperviz_core.rag.index.parts import PIECE_BYTES

FRENCH = "Crème brûlée au café de Málaga.\n"


def _write(path: Path, *pieces: tuple[str, str]) -> Path:
    path.write_bytes(b"".join(text.encode(codec) for text, codec in pieces))
    return path


def test_a_windows_1252_text_file_reads_with_the_encoding(tmp_path: Path) -> None:
    f = _write(tmp_path / "menu.txt", ("Dessert menu\n\n" + FRENCH, "cp1252"))
    with pytest.raises(LoaderError, match=r"--encoding WINDOWS-1252 \(encoding= in Python\)"):
        load_documents([f])
    (doc,) = load_documents([f], encoding="cp1252")
    assert doc.text == "Dessert menu\n\n" + FRENCH
    assert load_documents([f], encoding="WINDOWS-1252") == [doc]  # iconv's name too


def test_a_utf8_file_reads_as_before_whatever_the_encoding(tmp_path: Path) -> None:
    f = _write(tmp_path / "u.md", ("# Zürich\n\nΑθήνα, 東京, Crème\r\n", "utf-8-sig"))
    assert load_documents([f], encoding="cp1252") == load_documents([f])
    assert load_documents([f])[0].title == "Zürich"


def test_the_encoding_starts_at_the_first_line_that_is_not_utf8(tmp_path: Path) -> None:
    f = _write(tmp_path / "mixed.txt", ("Zürich in UTF-8\n", "utf-8"), (FRENCH, "cp1252"),
               ("Gödel\n", "cp1252"))
    (doc,) = load_documents([f], encoding="cp1252")
    assert doc.text == "Zürich in UTF-8\n" + FRENCH + "Gödel\n"


def test_a_utf8_byte_order_mark_is_no_text(tmp_path: Path) -> None:
    f = _write(tmp_path / "bom.txt", ("\ufeff", "utf-8"), ("café\n", "cp1252"))
    assert load_documents([f], encoding="cp1252")[0].text == "café\n"
    assert decode_text(b"\xef\xbb\xbfcaf\xe9", "cp1252") == "café"


def test_bytes_neither_encoding_reads_are_an_error_naming_the_line(tmp_path: Path) -> None:
    f = _write(tmp_path / "bad.txt", ("one\ntwo\n", "ascii"))
    f.write_bytes(f.read_bytes() + b"th\x81ree\n")  # 0x81: no character in Windows-1252
    with pytest.raises(LoaderError, match=r"bad\.txt: neither UTF-8 nor cp1252 text at line 3, "
                                          r"byte 10 \("):
        load_documents([f], encoding="cp1252")
    with pytest.warns(UserWarning, match="neither UTF-8 nor cp1252"):
        assert load_documents([f], encoding="cp1252", on_unreadable="skip") == []


def test_a_large_file_read_in_parts_switches_once(tmp_path: Path) -> None:
    """Parts are read a line (a piece of a long line) at a time: a Chinese line in GB18030
    longer than a piece, without a space to cut it at, decodes whole across the pieces."""
    long_line = "北京市海淀区清华大学" * (PIECE_BYTES // 10)  # 2 bytes a character in GB18030
    f = _write(tmp_path / "big.txt", ("Intro in UTF-8: Zürich\n\n", "utf-8"),
               (long_line + "\n\n", "gb18030"), ("尾声\n", "gb18030"))
    parts = [d for d, _ in file_documents(f, part_bytes=50_000, encoding="gb18030")]
    assert len(parts) > 1
    assert "".join(d.text for d in parts) == ("Intro in UTF-8: Zürich\n\n" + long_line
                                              + "\n\n尾声\n")
    with pytest.raises(LoaderError, match="not UTF-8 text at line 3"):
        list(file_documents(f, part_bytes=50_000))


def test_a_character_cut_at_the_end_of_a_large_file_is_an_error(tmp_path: Path) -> None:
    f = _write(tmp_path / "cut.txt", ("北京\n", "gb18030"))
    f.write_bytes(f.read_bytes() + "京".encode("gb18030")[:1])
    with pytest.raises(LoaderError, match="neither UTF-8 nor gb18030 text at line 2"):
        list(file_documents(f, part_bytes=1, encoding="gb18030"))
    with pytest.raises(LoaderError, match="neither UTF-8 nor gb18030 text at line 2"):
        list(file_documents(f, encoding="gb18030"))  # read whole: the same


def test_the_title_of_a_large_file_reads_in_the_encoding(tmp_path: Path) -> None:
    f = _write(tmp_path / "book.md", ("# Café society\n\n" + FRENCH * 200, "cp1252"))
    parts = [d for d, _ in file_documents(f, part_bytes=1000, encoding="cp1252")]
    assert {d.title for d in parts} == {"Café society"}


def test_csv_json_jsonl_html_and_subtitles(tmp_path: Path) -> None:
    csv = _write(tmp_path / "t.csv", ("title,text\nZürich,Die Stadt Zürich liegt am See.\n",
                                      "cp1252"))
    jsonl = _write(tmp_path / "r.jsonl", ('{"id": "g", "text": "Gödel in Brünn"}\n', "cp1252"))
    js = _write(tmp_path / "r.json", ('[{"id": "m", "text": "Málaga"}]', "cp1252"))
    page = _write(tmp_path / "p.html", ("<title>Café</title><p>Señor Núñez</p>", "cp1252"))
    srt = _write(tmp_path / "s.srt", ("1\n00:00:01,000 --> 00:00:02,000\nПривет, мир!\n",
                                      "cp1251"))
    docs = load_documents([csv, jsonl, js, page], encoding="cp1252")
    assert [(d.title, d.text) for d in docs] == [
        ("Zürich", "Die Stadt Zürich liegt am See."), ("", "Gödel in Brünn"), ("", "Málaga"),
        ("Café", "Señor Núñez")]
    assert load_documents([srt], encoding="cp1251")[0].text == "Привет, мир!"
    for f in (csv, jsonl, js, page, srt):
        with pytest.raises(LoaderError, match="not UTF-8 text"):
            load_documents([f])


def test_a_page_declaring_its_charset_keeps_it(tmp_path: Path) -> None:
    page = _write(tmp_path / "p.html", ('<meta charset="koi8-r"><p>Привет</p>', "koi8-r"))
    assert load_documents([page], encoding="cp1252")[0].text == "Привет"


@pytest.mark.parametrize(("name", "error", "match"), [
    ("utf-16", ValueError, "does not read ASCII as ASCII"),
    ("utf_32_le", ValueError, "does not read ASCII as ASCII"),
    ("klingon", ValueError, "unknown text encoding 'klingon'"),
    ("base64", ValueError, "unknown text encoding 'base64'"),
    (1252, TypeError, "must be a string"),
])
def test_an_encoding_that_cannot_serve_is_refused_before_reading(
        tmp_path: Path, name: object, error: type[Exception], match: str) -> None:
    f = _write(tmp_path / "a.txt", ("plain\n", "ascii"))
    with pytest.raises(error, match=match):
        load_documents([f], encoding=name)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=match if error is ValueError else "valid string"):
        FileOptions(encoding=name)  # type: ignore[arg-type]  (pydantic's ValidationError)


def test_fallback_encoding_names() -> None:
    assert fallback_encoding("UTF-8") is None and fallback_encoding("utf_8_sig") is None
    assert fallback_encoding("GB18030") == "gb18030"
    assert fallback_encoding("latin_1") == "iso8859-1"


def test_the_cli_indexes_with_encoding(tmp_path: Path) -> None:
    f = _write(tmp_path / "menu.txt", ("Dessert menu\n\n" + FRENCH, "cp1252"))
    store = tmp_path / "store"

    def vizrag(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "hyperviz_core", *args],
                              capture_output=True, text=True, check=False)

    refused = vizrag("index", str(f), "--store", str(store), "--no-progress")
    assert refused.returncode != 0
    assert "--encoding WINDOWS-1252" in refused.stderr and not store.exists()
    bad = vizrag("index", str(f), "--store", str(store), "--encoding", "klingon")
    assert bad.returncode == 2 and "unknown text encoding 'klingon'" in bad.stderr
    done = vizrag("index", str(f), "--store", str(store), "--no-progress",
                  "--encoding", "cp1252")
    assert done.returncode == 0, done.stderr
    out = vizrag("query", "--store", str(store), "brûlée at Málaga", "--json")
    assert out.returncode == 0, out.stderr
    chunks = json.loads(out.stdout)["chunks"]
    assert "Crème brûlée au café de Málaga." in chunks[0]["text"]


def test_the_framework_loaders_take_the_encoding(tmp_path: Path) -> None:
    f = _write(tmp_path / "menu.txt", (FRENCH, "cp1252"))
    pytest.importorskip("langchain_core")
    from vizrag_langchain import VizRAGLoader

    assert [d.page_content for d in VizRAGLoader(f, encoding="cp1252").load()] == [FRENCH]
    pytest.importorskip("llama_index.core")
    from vizrag_llamaindex import VizRAGReader

    assert [d.text for d in VizRAGReader(encoding="cp1252").load_data(f)] == [FRENCH]
    with pytest.raises(ValueError, match="unknown text encoding"):
        VizRAGReader(encoding="nope")


# --- encoding="auto": each file's encoding guessed from its bytes

RU = "Москва — столица России. Лев Толстой написал роман «Война и мир».\n"
ZH = "清华大学位于北京市海淀区，是中国著名的高等学府。张伟教授在清华大学计算机系从事超图研究。\n"
JA = "東京は日本の首都です。東京大学は本郷にあります。"
ZH_TW = "清華大學位於北京市海淀區，是中國著名的高等學府。張偉教授在清華大學計算機系從事超圖研究。"


def test_auto_reads_a_folder_of_mixed_legacy_files(tmp_path: Path,
                                                   caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    _write(folder / "a-fr.txt", (FRENCH, "cp1252"))
    _write(folder / "b-ru.srt", ("1\n00:00:01,000 --> 00:00:02,000\n" + RU, "cp1251"))
    _write(folder / "c-zh.md", ("# 清华\n\n" + ZH, "gbk"))
    _write(folder / "d-ja.csv", (f"title,text\n東京,{JA}\n", "shift_jis"))
    _write(folder / "e-utf8.txt", ("Zürich, 東京, Москва\n", "utf-8"))
    with caplog.at_level("INFO", logger="hyperviz_core.rag.index.legacy"):
        docs = load_documents([folder], encoding="AUTO")
    assert [(d.title, d.text) for d in docs] == [
        ("a-fr", FRENCH), ("b-ru", RU.strip()), ("清华", "# 清华\n\n" + ZH), ("東京", JA),
        ("e-utf8", "Zürich, 東京, Москва\n")]
    said = [r.getMessage().split("auto/", 1)[-1] for r in caplog.records]
    assert [s.rsplit(": ", 1)[-1] for s in said] == ["read as cp1252 (guessed)"] + [
        f"read as {c} (guessed)" for c in ("cp1251", "gb18030", "cp932")]


def test_auto_in_a_large_file_guesses_from_the_line_on(tmp_path: Path) -> None:
    f = _write(tmp_path / "big.txt", ("Intro: Zürich\n\n" * 200, "utf-8"), (ZH * 40, "gbk"))
    parts = [d for d, _ in file_documents(f, part_bytes=2000, encoding="auto")]
    assert len(parts) >= 2 and "清华" not in parts[0].text and "清华" in parts[-1].text
    assert "".join(d.text for d in parts) == "Intro: Zürich\n\n" * 200 + ZH * 40
    assert load_documents([f], encoding="auto")[0].text == "Intro: Zürich\n\n" * 200 + ZH * 40


def test_auto_names_bytes_it_has_no_guess_for(tmp_path: Path) -> None:
    f = _write(tmp_path / "tw.txt", ("ok\n", "ascii"), (ZH_TW, "gbk"))
    for part_bytes in (None, 1):
        with pytest.raises(LoaderError, match=r"tw\.txt: not UTF-8 text at line 2, byte 3 "
                                              r"\(.*\), and no encoding --encoding auto knows "
                                              "reads it as plausible text: name its encoding"):
            list(file_documents(f, part_bytes=part_bytes, encoding="auto"))


def test_the_cli_says_each_guess_once(tmp_path: Path) -> None:
    _write(tmp_path / "fr.txt", (FRENCH, "cp1252"))
    _write(tmp_path / "ru.txt", ("Intro\n" + RU, "cp1251"))
    run = subprocess.run([sys.executable, "-m", "hyperviz_core", "index", str(tmp_path),
                          "--store", str(tmp_path / "store"), "--no-progress", "--encoding",
                          "auto"], capture_output=True, text=True, check=False)
    assert run.returncode == 0, run.stderr
    notes = [line for line in run.stderr.splitlines() if "(guessed)" in line]
    assert notes == [f"vizrag index: note: {tmp_path / 'fr.txt'}: not UTF-8 from line 1 on: "
                     "read as cp1252 (guessed)",
                     f"vizrag index: note: {tmp_path / 'ru.txt'}: not UTF-8 from line 2 on: "
                     "read as cp1251 (guessed)"]
