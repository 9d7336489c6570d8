"""LLM output written with full-width separators: relation members and keywords split on
``，、；｜`` as on ``,;|`` (a JSON relation's members string, keyword strings, Hyper-RAG
keyword fields)."""

from __future__ import annotations

from hyperviz_core.interop.hyperrag_map import split_keywords
from hyperviz_core.rag.extract.parse.extraction import parse_extraction
from hyperviz_core.rag.extract.parse.fields import keyword_list


def test_members_and_keywords_split_on_full_width_commas() -> None:
    ex = parse_extraction(
        '{"entities":[{"name":"清华大学"},{"name":"北京大学"}],"relations":[{"members":'
        '"清华大学，北京大学","description":"d","keywords":"相邻，高校"}]}', "c1")
    assert sorted(e.name for e in ex.entities) == ["北京大学", "清华大学"]
    [edge] = ex.hyperedges
    assert edge.members == ["清华大学", "北京大学"] and edge.keywords == ["相邻", "高校"]


def test_ideographic_comma_and_full_width_semicolon_and_bar() -> None:
    ex = parse_extraction(
        '{"relations":[{"members":"東京、大阪；京都｜奈良","description":"d",'
        '"keywords":"都市、関西；古都｜観光"}]}', "c1")
    [edge] = ex.hyperedges
    assert edge.members == ["東京", "大阪", "京都", "奈良"]
    assert edge.keywords == ["都市", "関西", "古都", "観光"]


def test_keyword_list_and_hyperrag_keywords() -> None:
    assert keyword_list("相邻，高校、大学; school|campus") == [
        "相邻", "高校", "大学", "school", "campus"]
    assert split_keywords("相邻，高校<SEP>大学、北京,school") == [
        "相邻", "高校", "大学", "北京", "school"]
