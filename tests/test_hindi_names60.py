"""People named after an honorific or a title in Hindi (stop 60): Devanagari has no
capitals, so the offline extractor found no entity in Hindi text before."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_cjk_offline57 import _found, index_and_ask

from hyperviz_core.rag import Document
from hyperviz_core.rag.extract.spans import split_sentences


@pytest.mark.parametrize(("text", "found"), [
    ("प्रधानमंत्री नरेंद्र मोदी ने दिल्ली में भाषण दिया।", [("नरेंद्र मोदी", "person")]),
    ("श्री राम नाथ कोविंद भारत के राष्ट्रपति थे।", [("राम नाथ कोविंद", "person")]),
    ("डॉ. मनमोहन सिंह और श्रीमती इंदिरा गांधी का नाम।",  # डॉ. ends no sentence
     [("मनमोहन सिंह", "person"), ("इंदिरा गांधी", "person")]),
    ("महात्मा गांधी जी ने कहा।", [("गांधी", "person")]),  # the honorific जी ends it
    ("श्री श्री रवि शंकर आए।", [("रवि शंकर", "person")]),  # not the verb at the end
    ("राष्ट्रपति ने कहा।", []),  # a title with no name
    ("दिल्ली भारत की राजधानी है।", []),  # no cue, no name
])
def test_names_after_an_honorific_or_a_title(text: str, found: list[tuple[str, str]]) -> None:
    assert _found(text) == found


def test_sentences_end_at_the_danda_and_before_devanagari() -> None:
    text = "श्री अमित शाह ने कहा। डॉ. राजेंद्र प्रसाद आए. वे राष्ट्रपति बने।"
    assert [text[a:b] for a, b in split_sentences(text)] == [
        "श्री अमित शाह ने कहा।", "डॉ. राजेंद्र प्रसाद आए.", "वे राष्ट्रपति बने।"]


def test_an_offline_store_of_hindi_documents_has_a_hypergraph(tmp_path: Path) -> None:
    docs = [Document(id="a", text="प्रधानमंत्री नरेंद्र मोदी ने डॉ. मनमोहन सिंह से मुलाकात की।"),
            Document(id="b", text="श्रीमती इंदिरा गांधी का जन्म इलाहाबाद में हुआ था।")]
    report, res = index_and_ask(tmp_path / "s", docs, "मनमोहन सिंह किससे मिले?")
    assert report.caseless_documents == [] and report.hyperedges >= 1
    assert res.chunks[0].doc_id == "a"
    assert {"नरेंद्र मोदी", "मनमोहन सिंह"} <= {e.name for e in res.entities}
