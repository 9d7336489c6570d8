"""Chunking of CJK text: windows end after 。！？ without a following space, keep the asked
overlap in text without spaces, and the token unit counts each CJK character; text without
CJK characters or punctuation is chunked exactly as before."""

from __future__ import annotations

import itertools

import pytest

from hyperviz_core.rag.index.chunking import TOKEN_RE, chunk_document
from hyperviz_core.rag.types import Document

ZH = "清华大学位于北京市海淀区。张伟教授在清华大学计算机系从事超图研究。北京大学与清华大学相邻。"


def test_cjk_windows_end_after_sentence_marks_and_keep_the_overlap() -> None:
    text = ZH * 4
    chunks = chunk_document(Document(id="zh", text=text), size=50, overlap=10)
    assert len(chunks) > 3
    for c in chunks:
        assert len(c.text) <= 50 and text[c.start:c.end] == c.text
    for c in chunks[:-1]:
        assert c.text.endswith("。"), c.text  # no cut inside a word
    for a, b in itertools.pairwise(chunks):
        assert a.end - b.start == 10  # the asked overlap, at the exact character


def test_cjk_overlap_starts_at_a_near_clause_start() -> None:
    text = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉，戌亥天地玄黄宇宙洪荒日月。" * 6
    chunks = chunk_document(Document(id="zh", text=text), size=40, overlap=12)
    for a, b in itertools.pairwise(chunks):
        assert 0 < a.end - b.start <= 12
        assert text[b.start - 1] in "，。" or a.end - b.start == 12


def test_cjk_window_without_sentence_mark_ends_after_a_clause() -> None:
    text = "，".join(["清华大学计算机系"] * 20)
    chunks = chunk_document(Document(id="zh", text=text), size=50, overlap=0)
    assert all(c.text.endswith("，") for c in chunks[:-1])


def test_token_unit_counts_each_cjk_character() -> None:
    line = ZH * 300  # one line, no spaces: was one 9,600-character "token"
    chunks = chunk_document(Document(id="zh", text=line), size=200, overlap=20, unit="token")
    assert len(chunks) > 40
    for c in chunks:
        assert len(TOKEN_RE.findall(c.text)) <= 200
    for c in chunks[:-1]:
        assert c.text.endswith("。")
    assert TOKEN_RE.findall("Hello 清华 world。") == ["Hello", "清", "华", "world。"]


@pytest.mark.parametrize("text", ["東京は日本の首都です。", "서울은 대한민국의 수도입니다."])
def test_kana_and_hangul_are_tokens(text: str) -> None:
    toks = TOKEN_RE.findall(text)
    assert len(toks) >= len(text.replace(" ", "")) - 1


# Spans of text without CJK characters, pinned from the chunker before CJK support.
_LATIN = ("Hank Snow was a Canadian-American country music artist; he lived in Nashville. "
          "Café Müller (1978) is a dance piece — “quoted” — by Pina Bausch! Why? "
          "A URL: https://example.org/a/very/long/path/without/any/spaces/at/all/in/it ok.\n\n"
          "Straße und Fluß. Ελλάδα είναι χώρα. Москва — столица.") * 3
_PINNED = {
    ("char", 120, 30): [(0, 78), (48, 148), (126, 228), (225, 338), (317, 431), (409, 511),
                        (508, 621), (600, 714), (692, 794), (791, 849)],
    ("char", 60, 20): [(0, 55), (42, 78), (59, 116), (98, 148), (128, 188), (188, 246),
                       (230, 265), (247, 298), (288, 338), (325, 361), (342, 399), (381, 431),
                       (411, 471), (471, 529), (513, 548), (530, 581), (571, 621), (608, 644),
                       (625, 682), (664, 714), (694, 754), (754, 812), (796, 849)],
    ("token", 12, 3): [(0, 78), (59, 125), (109, 228), (151, 265), (247, 330), (299, 361),
                       (342, 408), (392, 511), (434, 548), (530, 613), (582, 644), (625, 691),
                       (675, 794), (717, 849)],
}


@pytest.mark.parametrize("setting", list(_PINNED))
def test_text_without_cjk_is_chunked_as_before(setting: tuple[str, int, int]) -> None:
    unit, size, overlap = setting
    chunks = chunk_document(Document(id="e", text=_LATIN), size, overlap, unit)  # type: ignore[arg-type]
    assert [(c.start, c.end) for c in chunks] == _PINNED[setting]
