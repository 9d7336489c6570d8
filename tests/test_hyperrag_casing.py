"""Hyper-RAG stores entity names in capitals; the import (and the live retrievers) give them
their written casing back from the source texts. A text whose lower-casing changes its length
(one ``İ``) used to be skipped whole, leaving every name of that chunk in capitals, and names
whose capitals are longer than the written form (``Strauß`` → ``STRAUSS``) never matched."""

from __future__ import annotations

from hyperviz_core.interop.hyperrag_map import CaseIndex

TEXT = "Johann Strauß lebte in Wien; später kamen İstanbul und Ödön von Horváth."


def test_a_chunk_with_a_dotted_capital_i_restores_every_name() -> None:
    cases = CaseIndex(["Plain ASCII text about NATO and Canada.", TEXT])
    got = [cases.restore(n) for n in ("WIEN", "ÖDÖN VON HORVÁTH", "İSTANBUL", "CANADA", "NATO")]
    assert got == ["Wien", "Ödön von Horváth", "İstanbul", "Canada", "NATO"]


def test_capitals_longer_than_the_written_name_match() -> None:
    cases = CaseIndex([TEXT])
    assert cases.restore("JOHANN STRAUSS") == "Johann Strauß"
    assert cases.restore("STRAUS") == "STRAUS"  # half of a folded ß is no match
    assert cases.restore("SPÄTER KAMEN") == "später kamen"


def test_whole_words_only_across_texts() -> None:
    cases = CaseIndex(["Straßburg is not it.", "Europe", "Hans Strauß"])
    assert cases.restore("STRAUSS") == "Strauß"  # not the start of "Straßburg"
    assert cases.restore("EU") == "EU"


def test_the_live_path_reads_casing_from_hyperedge_descriptions_too() -> None:
    """A live result's passages may not hold a name; the descriptions it returned may."""
    from hyperviz_core.interop.hyperrag_live import from_hyperrag_result

    res = {"entities": [{"id": 0, "entity_name": "BERLIN WALL", "entity_type": "GEO",
                         "description": "A wall.", "rank": 1},
                        {"id": 1, "entity_name": "LEIPZIG", "entity_type": "GEO",
                         "description": "A city.", "rank": 1}],
           "hyperedges": [{"entity_set": ["BERLIN WALL", "LEIPZIG"],
                           "description": "Protests in Leipzig preceded the fall of the "
                                          "Berlin Wall.", "keywords": "protest", "weight": 1.0}],
           "text_units": [{"id": 0, "content": "Chess players of the time."}],
           "response": "-"}
    live = from_hyperrag_result(res, query="q")
    assert sorted(e.name for e in live.hypergraph.entities.values()) == ["Berlin Wall",
                                                                          "Leipzig"]
