"""People named before a title in Chinese, Japanese and Korean text, and Korean
organisations and places by their last word (stop 60).

Before, the offline extractor found no person in these scripts (no capitals) and nothing at
all in Korean but dates and amounts, so a store of Korean documents had no hypergraph.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cjk_offline57 import _found, index_and_ask

from hyperviz_core.rag import Document
from hyperviz_core.rag.extract.heuristic import HeuristicExtractor
from hyperviz_core.rag.extract.korean import stem


@pytest.mark.parametrize(("text", "found"), [
    ("昨天张伟先生去了北京。", [("张伟", "person")]),
    ("记者李明先生报道了此事。", [("李明", "person")]),  # 者 is no surname: two characters
    ("向张伟明教授请教。", [("张伟明", "person")]),  # 向 a function word: three
    ("欧阳修先生是诗人。", [("欧阳修", "person")]),
    ("毛泽东主席在北京。", [("毛泽东", "person")]),
    ("王教授说得对。", [("王教授", "person")]),  # the surname alone: as written
    ("張偉先生在臺北。", [("張偉", "person")]),
    ("昨天小明先生来了。", []),  # 小 is no surname
    ("他先生病了。", []),
])
def test_chinese_names_before_a_title(text: str, found: list[tuple[str, str]]) -> None:
    assert _found(text) == found


@pytest.mark.parametrize(("text", "found"), [
    ("昨日、田中さんが来た。", [("田中", "person")]),
    ("山田太郎氏は大阪に住む。", [("山田太郎", "person")]),
    ("数学の鈴木先生は優しい。", [("鈴木", "person")]),
    ("彼は先生です。", []),
    ("様々な人が来た。", []),
    ("マリアさんと会った。", [("マリア", "entity")]),  # a katakana name, found before
])
def test_japanese_names_before_an_honorific(text: str, found: list[tuple[str, str]]) -> None:
    assert _found(text) == found


@pytest.mark.parametrize(("text", "found"), [
    ("이영희 교수는 삼성전자에서 일했다.", [("이영희", "person"), ("삼성전자", "organization")]),
    ("김철수 씨가 서울대학교에서 공부했다.",
     [("김철수", "person"), ("서울대학교", "organization")]),
    ("문재인 대통령은 부산광역시를 방문했다.", [("문재인", "entity"), ("부산광역시", "location")]),
    ("국민은행은 인천국제공항에 지점을 열었다.",
     [("국민은행", "organization"), ("인천국제공항", "location")]),
    ("현직 대통령이 말했다.", []),  # a modifier, no name
    ("그는 나이가 많다. 당시 지역 생산이 늘었다.", []),  # no one-syllable place suffix
    ("은행에서 대학교 친구를 만났다.", []),  # a suffix alone is no name
    ("2019년 3월 5일에 3명이 만났다.", [("2019년 3월 5일", "date"), ("3명", "quantity")]),
])
def test_korean_names_organisations_and_places(text: str,
                                               found: list[tuple[str, str]]) -> None:
    assert _found(text) == found


def test_korean_particles_are_dropped() -> None:
    assert [stem(w) for w in ("삼성전자는", "서울대학교에서는", "국민은행은", "나이", "그는")] == [
        "삼성전자", "서울대학교", "국민은행", "나이", "그는"]


def test_a_sentence_naming_a_person_and_a_company_is_a_hyperedge() -> None:
    out = HeuristicExtractor().extract_text(
        "이영희 교수는 삼성전자에서 일했다. 张伟先生在星辰科技公司工作。", "c1")
    members = {tuple(e.members) for e in out.hyperedges}
    assert ("이영희", "삼성전자") in members and ("张伟", "星辰科技公司") in members
    assert {e.name: e.type for e in out.entities}["이영희"] == "person"


def test_an_offline_store_of_korean_documents_links_the_names_a_query_gives(
        tmp_path: Path) -> None:
    docs = [Document(id="a", text="이영희 교수는 삼성전자에서 일했다. 그녀는 반도체를 연구했다."),
            Document(id="b", text="김철수 씨는 국민은행에서 일한다. 그는 부산광역시에 산다.")]
    report, res = index_and_ask(tmp_path / "s", docs, "이영희는 어디에서 일했나?")
    assert report.caseless_documents == [] and report.hyperedges >= 2
    assert res.chunks[0].doc_id == "a"
    assert {"이영희", "삼성전자"} <= {e.name for e in res.entities}
