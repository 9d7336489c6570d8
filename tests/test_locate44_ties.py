"""The offline locator anchors only top-view entities that name or describe a word of the
query: where many tied on centrality alone, the cut picked them alphabetically (a reviewer's
"Alliance 90, American, Amphi ..." for a question about a bomb on Akinoshu Kenji's
birthplace), and I_bot was drawn around those."""

from __future__ import annotations

from types import SimpleNamespace

from hyperviz_core import Entity, Hyperedge, Hypergraph
from hyperviz_core.rag.retrieve.chance import offline_located
from hyperviz_core.rag.retrieve.importance import entity_importance

QUERY = "What kind of plane dropped the bomb on Akinoshu Kenji's birthplace?"


def _state(locate_k: int = 3) -> SimpleNamespace:
    names = ["Alliance 90", "American", "Amphi", "Arizona", "Hiroshima"]
    hg = Hypergraph(
        entities=[Entity(name=n, description=("city where the atomic bomb fell"
                                              if n == "Hiroshima" else f"about {n}"))
                  for n in names],
        hyperedges=[Hyperedge(id=f"t{i}", members=[names[i], names[(i + 1) % 5]],
                              kind="theme") for i in range(5)])  # every degree 2: a tie
    imp = entity_importance(hg, QUERY, alpha=0.6, beta=0.0)  # centrality alone: all tied
    return SimpleNamespace(sub_top=hg, query=QUERY, view_query=QUERY, top_imp=imp,
                           cfg=SimpleNamespace(locate_k=locate_k))


def test_tied_entities_without_a_query_word_are_not_located() -> None:
    st = _state()
    assert len(set(st.top_imp.values())) == 1  # the tie the alphabet broke
    assert offline_located(st) == ["hiroshima"]  # type: ignore[arg-type]


def test_located_entities_keep_the_importance_order_and_the_cap() -> None:
    st = _state(locate_k=1)
    hg = st.sub_top
    hg.entities["arizona"].description = "a bomb test range"
    st.top_imp["arizona"] = 0.9  # more important than hiroshima
    assert offline_located(st) == ["arizona"]  # type: ignore[arg-type]
