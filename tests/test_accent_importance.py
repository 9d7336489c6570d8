"""Congestion control's query match reads words without their accents.

Guards (a HyperViz review): the query "Reykjavík" gave the entity Reykjavík importance 0.43
(E1), "Reykjavik" 0.027, and the entity was pruned; the viewer's search folds accents.
"""

from __future__ import annotations

import pytest

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.prune_importance import entity_importance as prune_importance
from hyperviz_core.rag.retrieve.importance import entity_importance, names_query
from hyperviz_core.unitext import unaccented


def _graph() -> Hypergraph:
    names = ["Reykjavík", "Oslo", "Bergen", "Ｔｏｋｙｏ Tower"]
    hg = Hypergraph(entities=[Entity(name=n) for n in names])
    keys = list(hg.entities)
    hg.add_hyperedge(Hyperedge(id="h1", members=[keys[0], keys[1]]))
    hg.add_hyperedge(Hyperedge(id="h2", members=[keys[1], keys[2], keys[3]]))
    return hg


@pytest.mark.parametrize(("query", "key"), [("Reykjavik", "reykjavík"),
                                            ("reykjavík", "reykjavík"),
                                            ("Tokyo", "tokyo tower")])
def test_a_query_without_accents_or_in_half_width_names_the_entity(query: str,
                                                                   key: str) -> None:
    hg = _graph()
    for imp in (prune_importance(hg, query), entity_importance(hg, query)):
        assert max(imp, key=lambda k: (imp[k], k)) == key, imp
    assert prune_importance(hg, query) == entity_importance(hg, query)  # the same values
    assert names_query(hg, query)


def test_unaccented() -> None:
    assert unaccented("Zürich Ｔｏｋｙｏ") == "Zurich Tokyo"
    assert unaccented("plain") == "plain"
