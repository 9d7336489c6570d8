"""The offline extractor finds mentions in Chinese and Japanese text by the cues it has
there (stop 57): bracketed titles, dates, amounts, katakana names and names ending in an
organisation's or a place's suffix; ``。！？`` end sentences. Before, such text gave no entity
(no capitals), a whole paragraph was one sentence, and a Latin name took the Chinese after it
("Apple公司在东京开设了办公室" was one name)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hyperviz_core.rag import Document, VizRAG
from hyperviz_core.rag.extract.heuristic import HeuristicExtractor
from hyperviz_core.rag.extract.spans import find_spans, split_sentences

ZH = ("星辰科技公司的总部在北京。2019年3月，张伟加入了《红楼梦》研究会。"
      "Apple公司在东京开设了办公室，投资300万元。")
JA = ("東京タワーは1958年に完成した。ジョン・スミスは「ノルウェイの森」を読んだ。"
      "トヨタ自動車株式会社は愛知県にある。彼は「はい」と言った。")


def index_and_ask(path: Path, docs: list[Document], query: str) -> tuple[Any, Any]:
    """(the indexing report, the vizrag retrieval of ``query``) of an offline store of
    ``docs`` at ``path``."""
    with VizRAG(path, show_progress=False) as rag:
        return rag.insert(docs), rag.retrieve(query, mode="vizrag", render=False)


def assert_found_by_name(path: Path, docs: list[Document], query: str,
                         names: set[str]) -> None:
    """An offline store of ``docs`` has a hypergraph, ranks the first document first for
    ``query`` and reaches the entities ``names`` (the scripts found by their titles)."""
    report, res = index_and_ask(path, docs, query)
    assert report.caseless_documents == [] and report.hyperedges >= 1
    assert res.chunks[0].doc_id == docs[0].id
    assert names <= {e.name for e in res.entities}


def _found(text: str) -> list[tuple[str, str]]:
    return [(sp.name, sp.type) for s0, s1 in split_sentences(text)
            for sp in find_spans(text[s0:s1])]


def test_chinese_mentions_and_sentences() -> None:
    assert [ZH[a:b] for a, b in split_sentences(ZH)] == [
        "星辰科技公司的总部在北京。", "2019年3月，张伟加入了《红楼梦》研究会。",
        "Apple公司在东京开设了办公室，投资300万元。"]
    assert _found(ZH) == [("星辰科技公司", "organization"), ("2019年3月", "date"),
                          ("红楼梦", "work"), ("Apple", "entity"), ("300万元", "quantity")]


def test_japanese_mentions_leave_quoted_speech_out() -> None:
    assert _found(JA) == [("東京タワー", "entity"), ("1958年", "date"),
                          ("ジョン・スミス", "entity"), ("ノルウェイの森", "entity"),
                          ("トヨタ自動車株式会社", "organization"), ("愛知県", "location")]


def test_korean_dates_and_amounts_full_width_digits_and_no_bare_suffix() -> None:
    assert _found("２０１９年３月５日，公司成立。2019년 3월 5일에 3명이 만났다.") == [
        ("２０１９年３月５日", "date"), ("2019년 3월 5일", "date"), ("3명", "quantity")]


def test_a_sentence_naming_two_makes_a_hyperedge_with_content_words_first() -> None:
    out = HeuristicExtractor().extract_text(JA, "c1")
    edges = {tuple(e.members): e.keywords for e in out.hyperedges}
    assert ("東京タワー", "1958年") in edges and ("トヨタ自動車株式会社", "愛知県") in edges
    assert edges[("東京タワー", "1958年")][0] == "完成"  # pairs holding hiragana come last


def test_an_offline_store_of_chinese_documents_has_a_hypergraph(tmp_path: Path) -> None:
    docs = [Document(id="a", text=ZH), Document(id="b", text="1999年，星辰科技公司迁往上海市。")]
    report, res = index_and_ask(tmp_path / "s", docs, "星辰科技公司什么时候迁往上海市？")
    assert report.hyperedges >= 3 and report.caseless_documents == []
    assert res.chunks[0].doc_id == "b"
    assert "星辰科技公司" in {e.name for e in res.entities}
