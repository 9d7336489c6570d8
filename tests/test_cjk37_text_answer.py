"""The extractive answer quotes sentences of CJK, Cyrillic and Greek passages: 。！？ end a
sentence without a space, and one may start with any capital or a letter of a script without
case; English sentences split as before."""

from __future__ import annotations

import re
from pathlib import Path

from hyperviz_core.rag import Document, extractive_summary
from hyperviz_core.rag.engine import VizRAG
from hyperviz_core.rag.sentences import sentences as _sentences


def test_cjk_cyrillic_greek_and_arabic_sentences() -> None:
    assert _sentences("清华大学位于北京。张伟教授在清华任教！他研究超图吗？是的。") == [
        "清华大学位于北京。", "张伟教授在清华任教！", "他研究超图吗？", "是的。"]
    assert _sentences("「東京は首都です。」大阪は都市です。") == [
        "「東京は首都です。」", "大阪は都市です。"]
    assert _sentences("Лев Толстой — писатель. Он жил в Ясной Поляне. т. е. дом.") == [
        "Лев Толстой — писатель.", "Он жил в Ясной Поляне. т. е. дом."]
    assert _sentences("Η Αθήνα είναι πόλη. Ο Παρθενώνας είναι ναός.") == [
        "Η Αθήνα είναι πόλη.", "Ο Παρθενώνας είναι ναός."]
    assert _sentences("القاهرة هي عاصمة مصر. جامعة القاهرة قديمة.") == [
        "القاهرة هي عاصمة مصر.", "جامعة القاهرة قديمة."]


_OLD = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])")  # the splitter before


def test_english_sentences_split_as_before() -> None:
    text = ('Hank Snow was a singer. He lived in Nashville, e.g. in a house. "Hello Love" '
            "charted in 1974! (It was a hit.) 3 weeks at no. 1. Why? because. ‘Quoted.’ "
            "Done.\n\nNew paragraph? Yes!")
    assert _sentences(text) == _OLD.split(" ".join(text.split()))
    assert _sentences(text)[:3] == [
        "Hank Snow was a singer.", "He lived in Nashville, e.g. in a house.",
        '"Hello Love" charted in 1974!']


def test_the_extractive_answer_quotes_one_cyrillic_sentence(tmp_path: Path) -> None:
    text = ("Москва — столица России. Лев Толстой написал роман «Война и мир». "
            "Санкт-Петербург основан Петром Первым.")
    with VizRAG(tmp_path / "st", show_progress=False) as rag:
        rag.insert([Document(id="ru", text=text)])
        summary = extractive_summary(rag.retrieve("Лев Толстой", render=False))
    assert "- Лев Толстой написал роман «Война и мир». [1]" in summary
    assert "Москва" not in summary
